// Shared helpers for the line-protocol tests: expected points encoded by the reference
// WriteBatchBuilder, batches printed as text for readable diffs, a seeded PRNG, and a renderer
// that writes points as line protocol with random escaping and spacing.

import { WriteBatchBuilder, type FieldInput } from '../../host/core/write-batch-builder.js';
import { batchString, readWriteBatch, ValueType, VALUE_TYPE_NAMES } from '../../host/core/write-batch.js';
import { LineProtocolScanner, type LineProtocolOptions } from '../../host/ingest/line-protocol.js';
import { loadCore } from '../support/core.js';

export interface Point {
  table: string;
  tags: Array<[string, string]>;
  ts: bigint;
  fields: FieldInput[];
}

export const f = (name: string, value: number): FieldInput => ({ name, type: ValueType.Double, value });
export const i = (name: string, value: bigint): FieldInput => ({ name, type: ValueType.BigInt, value });
export const u = (name: string, value: bigint): FieldInput => ({ name, type: ValueType.Unsigned, value });
export const b = (name: string, value: boolean): FieldInput => ({ name, type: ValueType.Boolean, value });
export const s = (name: string, value: string): FieldInput => ({ name, type: ValueType.String, value });

export function pt(table: string, tags: Array<[string, string]>, ts: bigint, ...fields: FieldInput[]): Point {
  return { table, tags, ts, fields };
}

export const NS: LineProtocolOptions = { tsMultiplier: 1n, tsDivisor: 1n, defaultTs: 1_000n };

export async function scanner(options?: {
  windowBytes?: number;
  maxBatchBytes?: number;
}): Promise<LineProtocolScanner> {
  return new LineProtocolScanner(await loadCore(), options);
}

/** The reference encoding of `points` as one batch ([] for none). */
export function encode(points: readonly Point[]): Uint8Array[] {
  if (points.length === 0) return [];
  const w = new WriteBatchBuilder();
  for (const p of points) w.addRow(p.table, p.tags, p.ts, p.fields);
  return [w.finish()];
}

const utf8 = new TextEncoder();
export const bytes = (text: string): Uint8Array => utf8.encode(text);

/** A batch as text: tables, columns, series and rows in stored order. */
export function printBatch(batch: Uint8Array): string {
  const wb = readWriteBatch(batch);
  const out: string[] = [`batch rows=${wb.rowCount} bytes=${batch.length}`];
  for (const t of wb.tables) {
    out.push(
      `table ${t.name} rows=${t.rowCount} columns=${t.columns.map((c) => `${c.name}:${VALUE_TYPE_NAMES[c.type]}${c.validity ? '?' : ''}`).join(',')}`,
    );
    for (const se of t.series) {
      out.push(
        `  series ${se.key} rows=${se.rowCount} min=${se.minTs} max=${se.maxTs} sorted=${se.sorted} tags=${se.tags.map(([c, v]) => `${c}=${v}`).join(',')}`,
      );
      for (let r = se.rowStart; r < se.rowStart + se.rowCount; r++) {
        const vals: string[] = [];
        for (const c of t.columns) {
          if (c.kind !== 2) continue;
          if (c.validity && c.validity[r] === 0) continue;
          vals.push(`${c.name}=${printValue(c.type, c.values, c.strings, r)}`);
        }
        out.push(`    ${t.timestamps[r]} ${vals.join(' ')}`);
      }
    }
  }
  return out.join('\n');
}

function printValue(
  type: number,
  values: unknown,
  strings: Parameters<typeof batchString>[0] | undefined,
  r: number,
): string {
  switch (type) {
    case ValueType.Double: {
      const v = (values as Float64Array)[r]!;
      return Object.is(v, -0) ? '-0' : String(v);
    }
    case ValueType.BigInt:
      return `${(values as BigInt64Array)[r]}i`;
    case ValueType.Unsigned:
      return `${(values as BigUint64Array)[r]}u`;
    case ValueType.Boolean:
      return (values as Uint8Array)[r] ? 'true' : 'false';
    default:
      return JSON.stringify(batchString(strings!, r));
  }
}

export const printAll = (batches: readonly Uint8Array[]): string => batches.map(printBatch).join('\n');
export const hex = (batches: readonly Uint8Array[]): string[] => batches.map((x) => Buffer.from(x).toString('hex'));

/** sfc32, seeded through splitmix32 (the generator of gen-cpu.mjs). */
export function rng(seed: number): {
  next(): number;
  int(n: number): number;
  pick<T>(a: readonly T[]): T;
  chance(p: number): boolean;
} {
  let st = seed >>> 0;
  const sm = (): number => {
    st = (st + 0x9e3779b9) >>> 0;
    let z = st;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = sm();
  let b2 = sm();
  let c = sm();
  let d = sm();
  const next = (): number => {
    const t = (((a + b2) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b2 ^ (b2 >>> 9);
    b2 = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t / 4294967296;
  };
  const int = (n: number): number => Math.floor(next() * n);
  return { next, int, pick: (arr) => arr[int(arr.length)]!, chance: (p) => next() < p };
}

// ---- rendering points as line protocol ----

type Rand = ReturnType<typeof rng>;

/** Escapes a measurement: `,` and space need a backslash; `\` may be written as is or paired. */
export function escapeMeasurement(name: string): string {
  return name.replace(/[, ]/g, '\\$&');
}

/** Escapes a tag key, tag value or field key: `,` `=` space need a backslash. */
export function escapeKey(name: string): string {
  return name.replace(/[,= ]/g, '\\$&');
}

/** Escapes a string field value: `"` and `\` need a backslash. */
export function escapeString(value: string): string {
  return value.replace(/["\\]/g, '\\$&');
}

function renderValue(f: FieldInput, r: Rand): string {
  switch (f.type) {
    case ValueType.Double:
      return renderDouble(f.value as number, r);
    case ValueType.BigInt:
      return `${r.chance(0.1) && (f.value as bigint) >= 0n ? '+' : ''}${f.value}i`;
    case ValueType.Unsigned:
      return `${f.value}u`;
    case ValueType.Boolean:
      return f.value ? r.pick(['t', 'T', 'true', 'True', 'TRUE']) : r.pick(['f', 'F', 'false', 'False', 'FALSE']);
    default:
      return `"${escapeString(f.value as string)}"`;
  }
}

/** A decimal text for `v` that Number() reads back exactly (the shortest form or an exponent form). */
function renderDouble(v: number, r: Rand): string {
  if (Object.is(v, -0)) return r.pick(['-0', '-0.0', '-0e0']);
  let t = String(v);
  if (t.includes('e')) t = t.replace('e+', r.chance(0.5) ? 'E+' : 'e');
  else if (Number.isInteger(v) && r.chance(0.3)) t += '.';
  return t;
}

/** Renders points as line protocol with random spacing, comments, blank lines and CRLF. */
export function renderLines(points: readonly Point[], r: Rand, defaultTs: bigint): string {
  let out = '';
  for (const p of points) {
    if (r.chance(0.05)) out += '# a comment, with "quotes" and \\ backslashes\n';
    if (r.chance(0.05)) out += r.pick(['\n', '  \n', '\t\r\n']);
    let line = r.chance(0.1) ? r.pick([' ', '\t', '  ']) : '';
    line += escapeMeasurement(p.table);
    for (const [k, v] of p.tags) line += `,${escapeKey(k)}=${escapeKey(v)}`;
    line += r.chance(0.1) ? '   ' : ' ';
    line += p.fields.map((f) => `${escapeKey(f.name)}=${renderValue(f, r)}`).join(',');
    if (p.ts !== defaultTs || r.chance(0.5)) line += (r.chance(0.1) ? '  ' : ' ') + String(p.ts);
    if (r.chance(0.05)) line += r.pick([' ', '\t', '  ']);
    line += r.chance(0.1) ? '\r\n' : '\n';
    out += line;
  }
  return out;
}

/**
 * The rows of every series across batches, as text sorted by series: the same points scanned
 * in one window or in many give the same result (rows keep their input order within a series).
 */
export function rowsBySeries(batches: readonly Uint8Array[]): string {
  const bySeries = new Map<string, string[]>();
  for (const batch of batches) {
    for (const t of readWriteBatch(batch).tables) {
      const fields = t.columns.filter((c) => c.kind === 2);
      for (const se of t.series) {
        const key = `${t.name} | ${se.key}`;
        let list = bySeries.get(key);
        if (list === undefined) bySeries.set(key, (list = []));
        for (let r = se.rowStart; r < se.rowStart + se.rowCount; r++) {
          const vals = fields
            .filter((c) => !c.validity || c.validity[r] === 1)
            .map((c) => `${c.name}:${VALUE_TYPE_NAMES[c.type]}=${printValue(c.type, c.values, c.strings, r)}`)
            .sort();
          list.push(`  ${t.timestamps[r]} ${vals.join(' ')}`);
        }
      }
    }
  }
  return [...bySeries.entries()]
    .sort(([a], [b2]) => (a < b2 ? -1 : a > b2 ? 1 : 0))
    .map(([k, rows]) => `${k}\n${rows.join('\n')}`)
    .join('\n');
}
