// The unit the storage read path hands out: one series, rows sorted by time without duplicates,
// column arrays shared read-only with the store (rows [0, length) are valid and never change).

import type { ValueType } from '../core/write-batch.js';

/** DOUBLE: Float64Array, BIGINT: BigInt64Array, BIGINT UNSIGNED: BigUint64Array, BOOLEAN: Uint8Array (0/1), STRING: string[]. */
export type FieldValues = Float64Array | BigInt64Array | BigUint64Array | Uint8Array | string[];

export interface ColumnData {
  type: ValueType;
  values: FieldValues;
  /** 1 = present; undefined when every row is present. */
  validity: Uint8Array | undefined;
}

export interface SeriesData {
  key: string;
  /** tag name -> value; tags the series does not have are NULL. */
  tags: ReadonlyMap<string, string>;
  length: number;
  ts: BigInt64Array;
  columns: ReadonlyMap<string, ColumnData>;
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
