// The storage engine's internal unit of rows: one series' rows sorted by time without
// duplicates, field columns keyed by column id (names are resolved against the catalog only at
// the edge, so renames cost nothing and a dropped column's id never matches again).
// Arrays are shared read-only: rows [0, length) are valid and never change.

import { bug } from '../../core/errors.js';
import { ValueType } from '../../core/write-batch.js';
import type { Utf8Buffer } from './utf8-column.js';

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

/**
 * Pack-sized column arrays that a segment writer fills with the rows of small series
 * (segment-writer.ts): rows go at `at`, in increasing order; a column's validity is allocated
 * at its first absent row (filled with 1 before it); `present` counts the present values per
 * column. STRING columns are UTF-8 (utf8-column.ts), which the codecs encode without a string.
 */
export interface PackTarget {
  at: number;
  ts: BigInt64Array;
  /** `ts` as 32-bit words: a timestamp copied through a BigInt64Array element became a BigInt. */
  ts32: Int32Array;
  /** The columns to fill, in the order of `values`. */
  ids: readonly number[];
  values: Array<PackValues>;
  validity: Array<Uint8Array | undefined>;
  present: number[];
}

/** A pack column's values: typed, or UTF-8 for STRING. */
export type PackValues = Exclude<FieldValues, string[]> | Utf8Buffer;

/**
 * Rows, sorted by time without duplicates, that copy themselves into a pack (a memtable's small
 * series, whose rows live in a shared area: no arrays of its own to hand out).
 */
export interface PackSource {
  readonly length: number;
  readonly minTs: bigint;
  readonly maxTs: bigint;
  /**
   * Where the rows lie in a source shared by many series (a memtable's row area id), when they
   * do: the segment writer then places such series in a pack in this order rather than in key
   * order, so that copying them reads the source front to back (segment-writer.ts, #settle).
   */
  readonly sourceOrder?: number;
  /** That shared source, which copies many series' rows at once (set with sourceOrder; segment-writer.ts, #settle). */
  readonly rowSource?: RowSource;
  /** With rowSource: writes the ids of the rows in it to `out` from `at`; returns where they end. */
  rowIds?(out: Int32Array, at: number): number;
  copyTo(target: PackTarget): void;
}

/** A source shared by many series (a memtable table's row area) that copies rows of many at once. */
export interface RowSource {
  /** Copies its rows `rows[0, n)` to `target` at `target.at` onward. */
  copyRowsTo(rows: Int32Array, n: number, target: PackTarget): void;
}

/**
 * Rows sorted by time with equal timestamps merged, the later row winning field by field (a
 * NULL keeps the earlier value), as new arrays of exactly the resulting length. `s` may hold
 * rows in any order (arrays may be longer than its length).
 */
export function normalizeRows(s: SeriesRows): SeriesRows {
  const n = s.length;
  const t = new Int32Array(s.ts.buffer, s.ts.byteOffset, n * 2);
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  // Stable: equal timestamps keep write order, so the last write is last in each run.
  order.sort((a, b) => compareI64(t, a, t, b) || a - b);
  const runStart: number[] = [];
  for (let i = 0; i < n; i++) if (i === 0 || compareI64(t, order[i - 1]!, t, order[i]!) !== 0) runStart.push(i);
  const distinct = runStart.length;
  runStart.push(n);
  const ts = new BigInt64Array(distinct);
  for (let r = 0; r < distinct; r++) ts[r] = s.ts[order[runStart[r]!]!]!;
  const columns = new Map<number, ColumnData>();
  for (const [id, c] of s.columns) {
    const values = allocValues(c.type, distinct);
    const validity = new Uint8Array(distinct);
    let anyNull = false;
    for (let r = 0; r < distinct; r++) {
      // Last present value in the run wins.
      let found = -1;
      for (let i = runStart[r + 1]! - 1; i >= runStart[r]!; i--) {
        const row = order[i]!;
        if (c.validity === undefined || c.validity[row] === 1) {
          found = row;
          break;
        }
      }
      if (found >= 0) {
        (values as Float64Array)[r] = (c.values as Float64Array)[found]!;
        validity[r] = 1;
      } else {
        anyNull = true;
      }
    }
    columns.set(id, { type: c.type, values, validity: anyNull ? validity : undefined });
  }
  return { length: distinct, ts, columns };
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

/**
 * Row `at` of a pack column = src[o], one access site per array type: a single generic site saw
 * every kind of array and was the slowest line of a flush of spans.
 */
export function copyValue(type: ValueType, dst: PackValues, at: number, src: FieldValues, o: number): void {
  switch (type) {
    case ValueType.Double:
      (dst as Float64Array)[at] = (src as Float64Array)[o]!;
      break;
    case ValueType.String:
      (dst as Utf8Buffer).setString(at, (src as string[])[o]!);
      break;
    case ValueType.Boolean:
      (dst as Uint8Array)[at] = (src as Uint8Array)[o]!;
      break;
    case ValueType.BigInt:
      (dst as BigInt64Array)[at] = (src as BigInt64Array)[o]!;
      break;
    default:
      (dst as BigUint64Array)[at] = (src as BigUint64Array)[o]!;
  }
}
