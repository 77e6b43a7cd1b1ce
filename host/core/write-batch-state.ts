// The rows a WriteBatchBuilder gathers, per table and column, which write-batch-encoder.ts turns
// into bytes: their own file, so that builder and encoder need not import each other.

import type { ColumnKind, ValueType } from './write-batch.js';

export type FieldValue = number | bigint | boolean | string;

export interface ColumnState {
  name: string;
  kind: ColumnKind;
  type: ValueType;
  /**
   * BIGINT, BIGINT UNSIGNED and STRING values by table row, undefined for rows without the field
   * (kept dense, see below); converted when encoded, as the reference does.
   */
  values: Array<FieldValue | undefined>;
  /**
   * DOUBLE (as Number(value)) and BOOLEAN (1 for true) values by table row, with `has` marking
   * the rows that have one: in a plain array every double was a heap number, the largest
   * allocation of a batch of spans.
   */
  numbers: Float64Array | undefined;
  has: Uint8Array | undefined;
  /** Rows that have a value. */
  count: number;
  /** The row being added last touched this column (duplicate detection). */
  stamp: number;
}

export interface SeriesState {
  /** Tag names and values, sorted by name (compareBytes); names often shared between series. */
  names: readonly string[];
  values: string[];
  /** Table rows of this series, in insertion order. */
  rows: number[];
}

export interface TableState {
  name: string;
  /** In order of first appearance. */
  columns: Map<string, ColumnState>;
  /** In order of first appearance. */
  series: SeriesState[];
  /** By identityHash: the series, or those whose hashes collide. */
  seriesByHash: Map<number, SeriesState | SeriesState[]>;
  /** By the tags exactly as a row gave them (see rawKey). */
  seriesByRaw: Map<string, SeriesState>;
  /** By the caller's tagsKey (addRow). */
  seriesByHint: Map<string, SeriesState>;
  /**
   * Rows that missed and hit seriesByRaw. Past 64 misses with not even half as many hits, the
   * raw cache is dropped for the table: there every row is a new series (one per span in
   * traces), and hashing the long raw key was a fifth of the time for nothing.
   */
  rawMisses: number;
  rawHits: number;
  /** Timestamps by table row. */
  ts: bigint[];
  rowCount: number;
  /**
   * Tag names of the last row that found its tags in increasing order and all of them tag
   * columns already: a row with the same names (traces: every span, each a new series) skips
   * those checks.
   */
  tagNames: string[];
  /** A number per tag name seen, for identityHash. */
  tagNumbers: Map<string, number>;
  /** The names array identityHash saw last, and their numbers (rows mostly share one array). */
  hashNames: readonly string[] | undefined;
  hashNumbers: number[];
  /** Field columns in `columns`. */
  fieldCount: number;
}
