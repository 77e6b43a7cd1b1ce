// CnosDB's database options: reading the CREATE/ALTER DATABASE values (durations in humantime
// units, a bare number meaning days, 'INF'; byte sizes with binary 'MiB' or decimal 'M' units).
// Their display is types/option-text.ts.

import { durationMs, invalidDurationMessage, parseCnosDuration } from '../../core/durations.js';
import { UserError } from '../../core/errors.js';
import type { DatabaseOptions, Precision } from '../../core/schema.js';
import { DEFAULT_DATABASE_OPTIONS } from '../../core/schema.js';
import { planError } from '../errors.js';
import type { DatabaseOption, OptionValue } from '../sql/ast.js';

function valueText(v: OptionValue): string {
  switch (v.kind) {
    case 'string':
      return v.value;
    case 'number':
      return v.text;
    case 'boolean':
      return String(v.value);
    case 'null':
      return 'NULL';
  }
}

/** A duration option (core/durations.ts) in milliseconds; null for INF. */
export function parseDurationMs(text: string): number | null {
  const d = parseCnosDuration(text);
  if (d === null) throw new UserError('sqlParse', invalidDurationMessage(text));
  return durationMs(d);
}

const SIZE_UNITS: Readonly<Record<string, number>> = {
  '': 1,
  b: 1,
  k: 1e3,
  kb: 1e3,
  m: 1e6,
  mb: 1e6,
  g: 1e9,
  gb: 1e9,
  t: 1e12,
  tb: 1e12,
  ki: 1024,
  kib: 1024,
  mi: 1024 ** 2,
  mib: 1024 ** 2,
  gi: 1024 ** 3,
  gib: 1024 ** 3,
  ti: 1024 ** 4,
  tib: 1024 ** 4,
};

export function parseBytes(text: string, option: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  const unit = m === null ? undefined : SIZE_UNITS[m[2]!.toLowerCase()];
  if (m === null || unit === undefined) throw planError(`${option}: invalid size "${text}"`);
  return Math.round(Number(m[1]) * unit);
}

function positiveInt(v: OptionValue, option: string): number {
  const t = valueText(v);
  if (!/^\d+$/.test(t) || Number(t) <= 0) throw planError(`${option} must be greater than 0, got ${t}`);
  return Number(t);
}

function bool(v: OptionValue, option: string): boolean {
  const t = valueText(v).toLowerCase();
  if (t === 'true') return true;
  if (t === 'false') return false;
  throw planError(`${option} must be 'true' or 'false', got ${valueText(v)}`);
}

/** Applies options to `base` (the defaults for CREATE, the current options for ALTER). */
export function applyDatabaseOptions(base: DatabaseOptions, options: readonly DatabaseOption[]): DatabaseOptions {
  const out: DatabaseOptions = { ...base };
  for (const o of options) {
    switch (o.name) {
      case 'TTL':
        out.ttlMs = parseDurationMs(valueText(o.value));
        break;
      case 'SHARD':
        out.shard = positiveInt(o.value, 'SHARD');
        break;
      case 'VNODE_DURATION': {
        const ms = parseDurationMs(valueText(o.value));
        if (ms === null || ms <= 0) throw planError('VNODE_DURATION must be a finite duration');
        out.vnodeDurationMs = ms;
        break;
      }
      case 'REPLICA':
        out.replica = positiveInt(o.value, 'REPLICA');
        break;
      case 'PRECISION': {
        const p = valueText(o.value).toUpperCase();
        if (p !== 'NS' && p !== 'US' && p !== 'MS')
          throw planError(`PRECISION must be 'ns', 'us' or 'ms', got '${valueText(o.value)}'`);
        out.precision = p as Precision;
        break;
      }
      case 'MAX_MEMCACHE_SIZE':
        out.maxMemcacheSize = parseBytes(valueText(o.value), 'MAX_MEMCACHE_SIZE');
        break;
      case 'MEMCACHE_PARTITIONS':
        out.memcachePartitions = positiveInt(o.value, 'MEMCACHE_PARTITIONS');
        break;
      case 'WAL_MAX_FILE_SIZE':
        out.walMaxFileSize = parseBytes(valueText(o.value), 'WAL_MAX_FILE_SIZE');
        break;
      case 'WAL_SYNC':
        out.walSync = bool(o.value, 'WAL_SYNC');
        break;
      case 'STRICT_WRITE':
        out.strictWrite = bool(o.value, 'STRICT_WRITE');
        break;
      case 'MAX_CACHE_READERS':
        out.maxCacheReaders = positiveInt(o.value, 'MAX_CACHE_READERS');
        break;
    }
  }
  return out;
}

export function defaultDatabaseOptions(): DatabaseOptions {
  return { ...DEFAULT_DATABASE_OPTIONS };
}
