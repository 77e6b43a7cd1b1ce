// CnosDB's database options: reading the CREATE/ALTER DATABASE values (durations in humantime
// units, a bare number meaning days, 'INF'; byte sizes with binary 'MiB' or decimal 'M' units)
// and writing them back as DESCRIBE DATABASE shows them ("3months 8days 16h 19m 12s",
// "286.102294921875 MiB"). Humantime's calendar: a year is 365.25 days, a month 30.44 days.

import type { DatabaseOptions, Precision } from '../../core/schema.js';
import { DEFAULT_DATABASE_OPTIONS } from '../../core/schema.js';
import { planError } from '../errors.js';
import type { DatabaseOption, OptionValue } from '../sql/ast.js';
import { formatRustF64 } from '../sql/display-name.js';

const SECOND_MS = 1000;
const YEAR_S = 31_557_600;
const MONTH_S = 2_630_016;
const DAY_S = 86_400;

/** Humantime units in milliseconds (nanosecond units are fractions of a millisecond). */
const DURATION_UNITS: Readonly<Record<string, number>> = {
  nsec: 1e-6, ns: 1e-6, usec: 1e-3, us: 1e-3, msec: 1, ms: 1,
  seconds: 1000, second: 1000, secs: 1000, sec: 1000, s: 1000,
  minutes: 60_000, minute: 60_000, mins: 60_000, min: 60_000, m: 60_000,
  hours: 3_600_000, hour: 3_600_000, hrs: 3_600_000, hr: 3_600_000, h: 3_600_000,
  days: 86_400_000, day: 86_400_000, d: 86_400_000,
  weeks: 604_800_000, week: 604_800_000, w: 604_800_000,
  months: MONTH_S * 1000, month: MONTH_S * 1000, M: MONTH_S * 1000,
  years: YEAR_S * 1000, year: YEAR_S * 1000, y: YEAR_S * 1000,
};

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

/** A duration option in milliseconds; null for INF. */
export function parseDurationMs(text: string, option: string): number | null {
  const t = text.trim();
  if (/^inf$/i.test(t)) return null;
  if (/^\d+$/.test(t)) return Number(t) * DAY_S * SECOND_MS;
  const re = /(\d+)\s*([a-zA-Z]+)/g;
  let total = 0;
  let matched = '';
  for (let m = re.exec(t); m !== null; m = re.exec(t)) {
    const unit = DURATION_UNITS[m[2]!] ?? DURATION_UNITS[m[2]!.toLowerCase()];
    if (unit === undefined) throw planError(`${option}: unknown time unit "${m[2]}" in "${text}"`);
    total += Number(m[1]) * unit;
    matched += m[0];
  }
  if (matched.replace(/\s+/g, '') !== t.replace(/\s+/g, '') || matched === '') throw planError(`${option}: invalid duration "${text}"`);
  return Math.round(total);
}

const SIZE_UNITS: Readonly<Record<string, number>> = {
  '': 1, b: 1, k: 1e3, kb: 1e3, m: 1e6, mb: 1e6, g: 1e9, gb: 1e9, t: 1e12, tb: 1e12,
  ki: 1024, kib: 1024, mi: 1024 ** 2, mib: 1024 ** 2, gi: 1024 ** 3, gib: 1024 ** 3, ti: 1024 ** 4, tib: 1024 ** 4,
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
        out.ttlMs = parseDurationMs(valueText(o.value), 'TTL');
        break;
      case 'SHARD':
        out.shard = positiveInt(o.value, 'SHARD');
        break;
      case 'VNODE_DURATION': {
        const ms = parseDurationMs(valueText(o.value), 'VNODE_DURATION');
        if (ms === null || ms <= 0) throw planError('VNODE_DURATION must be a finite duration');
        out.vnodeDurationMs = ms;
        break;
      }
      case 'REPLICA':
        out.replica = positiveInt(o.value, 'REPLICA');
        break;
      case 'PRECISION': {
        const p = valueText(o.value).toUpperCase();
        if (p !== 'NS' && p !== 'US' && p !== 'MS') throw planError(`PRECISION must be 'ns', 'us' or 'ms', got '${valueText(o.value)}'`);
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

const plural = (n: number, unit: string): string => `${n}${unit}${n === 1 ? '' : 's'}`;

/** A duration as humantime's format_duration writes it; INF for null. */
export function formatDuration(ms: number | null): string {
  if (ms === null) return 'INF';
  const totalS = Math.floor(ms / 1000);
  const subMs = ms - totalS * 1000;
  const parts: string[] = [];
  const years = Math.floor(totalS / YEAR_S);
  const ydays = totalS % YEAR_S;
  const months = Math.floor(ydays / MONTH_S);
  const mdays = ydays % MONTH_S;
  const days = Math.floor(mdays / DAY_S);
  const daySecs = mdays % DAY_S;
  if (years > 0) parts.push(plural(years, 'year'));
  if (months > 0) parts.push(plural(months, 'month'));
  if (days > 0) parts.push(plural(days, 'day'));
  const h = Math.floor(daySecs / 3600);
  const m = Math.floor((daySecs % 3600) / 60);
  const s = daySecs % 60;
  if (h > 0) parts.push(`${h}h`);
  if (m > 0) parts.push(`${m}m`);
  if (s > 0) parts.push(`${s}s`);
  const millis = Math.floor(subMs);
  if (millis > 0) parts.push(`${millis}ms`);
  const micros = Math.round((subMs - millis) * 1000);
  if (micros > 0) parts.push(`${micros}us`);
  return parts.length === 0 ? '0s' : parts.join(' ');
}

/** Bytes in the largest binary unit that keeps the value at least 1: "128 MiB". */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${formatRustF64(v)} ${units[u]}`;
}
