// The storage engine's internal unit of rows: one series' rows sorted by time without
// duplicates, field columns keyed by column id (names are resolved against the catalog only at
// the edge, so renames cost nothing and a dropped column's id never matches again).
// Arrays are shared read-only: rows [0, length) are valid and never change.

import { bug } from '../core/errors.js';
import { ValueType } from '../core/write-batch.js';

/** DOUBLE: Float64Array, BIGINT: BigInt64Array, BIGINT UNSIGNED: BigUint64Array, BOOLEAN: Uint8Array (0/1), STRING: string[]. */
export type FieldValues = Float64Array | BigInt64Array | BigUint64Array | Uint8Array | string[];

export interface ColumnData {
  type: ValueType;
  values: FieldValues;
  /** 1 = present; undefined when every row is present. */
  validity: Uint8Array | undefined;
}

export interface SeriesRows {
  length: number;
  ts: BigInt64Array;
  /** column id -> values; a column the rows lack is NULL throughout. */
  columns: ReadonlyMap<number, ColumnData>;
}

/** [tag column id, value], sorted by id. */
export type SeriesTags = ReadonlyArray<readonly [number, string]>;

/**
 * The internal identity of a series within its table: its tags by column id, length-prefixed so
 * that the encoding is injective whatever the values hold. Independent of tag names, so a tag
 * rename keeps every series.
 */
export function seriesIdKey(tags: SeriesTags): string {
  let key = '';
  for (const [id, v] of tags) key += id + ':' + v.length + ':' + v;
  return key;
}

/**
 * Compares the i64 at index `i` of `a` with the one at `j` of `b`, where a and b are Int32Array
 * aliases of BigInt64Arrays (little endian: low word first). Avoids allocating a BigInt per read.
 */
export function compareI64(a: Int32Array, i: number, b: Int32Array, j: number): number {
  const hi = a[2 * i + 1]! - b[2 * j + 1]!;
  if (hi !== 0) return hi < 0 ? -1 : 1;
  const la = a[2 * i]! >>> 0;
  const lb = b[2 * j]! >>> 0;
  return la < lb ? -1 : la > lb ? 1 : 0;
}

export function allocValues(type: ValueType, capacity: number): FieldValues {
  switch (type) {
    case ValueType.Double:
      return new Float64Array(capacity);
    case ValueType.BigInt:
      return new BigInt64Array(capacity);
    case ValueType.Unsigned:
      return new BigUint64Array(capacity);
    case ValueType.Boolean:
      return new Uint8Array(capacity);
    case ValueType.String:
      return new Array<string>(capacity).fill('');
    default:
      throw bug(`no column values for value type ${type}`);
  }
}

/** First index in ts[0, n) whose value is >= v. */
export function lowerBound(ts: BigInt64Array, n: number, v: bigint): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ts[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Rows [lo, hi) of `s` (shares the typed arrays; copies string arrays' slots). */
export function sliceRows(s: SeriesRows, lo: number, hi: number): SeriesRows {
  if (lo === 0 && hi === s.length) return s;
  const columns = new Map<number, ColumnData>();
  for (const [id, c] of s.columns) {
    const values: FieldValues = Array.isArray(c.values) ? c.values.slice(lo, hi) : c.values.subarray(lo, hi);
    columns.set(id, { type: c.type, values, validity: c.validity?.subarray(lo, hi) });
  }
  return { length: Math.max(0, hi - lo), ts: s.ts.subarray(lo, hi), columns };
}

/** Restricts sorted rows to minTs <= ts <= maxTs (undefined bounds are open). */
export function sliceByTime(s: SeriesRows, minTs: bigint | undefined, maxTs: bigint | undefined): SeriesRows {
  const lo = minTs === undefined ? 0 : lowerBound(s.ts, s.length, minTs);
  const hi = maxTs === undefined ? s.length : lowerBound(s.ts, s.length, maxTs + 1n);
  return sliceRows(s, lo, Math.max(lo, hi));
}

/** Keeps the rows whose `keep` flag is 1 (a new, compact copy). */
export function filterRows(s: SeriesRows, keep: Uint8Array): SeriesRows {
  let n = 0;
  for (let i = 0; i < s.length; i++) n += keep[i]!;
  if (n === s.length) return s;
  const ts = new BigInt64Array(n);
  for (let i = 0, k = 0; i < s.length; i++) if (keep[i]) ts[k++] = s.ts[i]!;
  const columns = new Map<number, ColumnData>();
  for (const [id, c] of s.columns) {
    const values = allocValues(c.type, n);
    const validity = c.validity ? new Uint8Array(n) : undefined;
    let anyNull = false;
    for (let i = 0, k = 0; i < s.length; i++) {
      if (!keep[i]) continue;
      (values as Float64Array)[k] = (c.values as Float64Array)[i]!;
      if (validity) {
        validity[k] = c.validity![i]!;
        if (validity[k] === 0) anyNull = true;
      }
      k++;
    }
    columns.set(id, { type: c.type, values, validity: anyNull ? validity : undefined });
  }
  return { length: n, ts, columns };
}

/** Concatenates runs that follow each other in time (a series' row groups) into one. */
export function concatRows(parts: readonly SeriesRows[], columnIds: readonly number[]): SeriesRows {
  if (parts.length === 1) return parts[0]!;
  let n = 0;
  for (const p of parts) n += p.length;
  const ts = new BigInt64Array(n);
  let at = 0;
  for (const p of parts) {
    ts.set(p.ts.subarray(0, p.length), at);
    at += p.length;
  }
  const columns = new Map<number, ColumnData>();
  for (const id of columnIds) {
    const first = parts.find((p) => p.columns.has(id))?.columns.get(id);
    if (first === undefined) continue;
    const values = allocValues(first.type, n);
    const validity = new Uint8Array(n);
    let anyNull = false;
    at = 0;
    for (const p of parts) {
      const c = p.columns.get(id);
      if (c === undefined) {
        anyNull = true;
      } else {
        if (Array.isArray(values)) for (let i = 0; i < p.length; i++) values[at + i] = (c.values as string[])[i]!;
        else (values as Float64Array).set((c.values as Float64Array).subarray(0, p.length), at);
        if (c.validity === undefined) validity.fill(1, at, at + p.length);
        else {
          validity.set(c.validity.subarray(0, p.length), at);
          anyNull ||= c.validity.subarray(0, p.length).includes(0);
        }
      }
      at += p.length;
    }
    columns.set(id, { type: first.type, values, validity: anyNull ? validity : undefined });
  }
  return { length: n, ts, columns };
}
