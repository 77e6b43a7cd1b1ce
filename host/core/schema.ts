// Catalog shapes shared by the storage engine and the query engine (neither imports the other).

import type { GeometryColumnType } from './geometry/geometry.js';
import type { FieldType } from './write-batch.js';

export type Precision = 'NS' | 'US' | 'MS';

export interface DatabaseOptions {
  /** Retention in milliseconds; null = infinite. */
  ttlMs: number | null;
  shard: number;
  vnodeDurationMs: number;
  replica: number;
  precision: Precision;
  maxMemcacheSize: number;
  memcachePartitions: number;
  walMaxFileSize: number;
  walSync: boolean;
  strictWrite: boolean;
  maxCacheReaders: number;
}

export const DAY_MS = 86_400_000;

export const DEFAULT_DATABASE_OPTIONS: Readonly<DatabaseOptions> = {
  ttlMs: null,
  shard: 1,
  // CnosDB's default, humantime's year (365.25 days). Storage cuts partitions of at most a week
  // whatever this says (host/storage/segment/partition.ts), so that retention drops data in time.
  vnodeDurationMs: 31_557_600_000,
  replica: 1,
  precision: 'NS',
  maxMemcacheSize: 128 * 1024 * 1024,
  memcachePartitions: 16,
  walMaxFileSize: 128 * 1024 * 1024,
  walSync: false,
  strictWrite: false,
  maxCacheReaders: 32,
};

/** A column of CREATE TABLE or ALTER TABLE ADD. `codec` is a CnosDB codec name, any case; absent = DEFAULT. */
export interface NewTag {
  name: string;
  codec?: string;
}

export interface NewField {
  name: string;
  type: FieldType;
  codec?: string;
  /** GEOMETRY(<sub_type>, <srid>): a STRING field whose values must be WKT of that sub type. */
  geometry?: GeometryColumnType;
}

/**
 * CREATE TABLE: the time column is implicit. Columns get ids in the order tags, then fields,
 * each in the order given; ids increase in creation order, so sorting a table's columns by id
 * gives the order of SELECT * and DESCRIBE TABLE.
 */
export interface NewTable {
  name: string;
  tags: readonly NewTag[];
  fields: readonly NewField[];
  /** Codec of the time column; absent = DEFAULT. */
  timeCodec?: string;
}

/**
 * One ALTER TABLE action. Column ids survive a rename (stored data follows the new name); a
 * dropped column's id is never reused, so data written under it never reappears, even under a
 * column later added with the same name.
 */
export type TableChange =
  | { kind: 'addTag'; name: string }
  | { kind: 'addField'; name: string; type: FieldType; codec?: string; geometry?: GeometryColumnType }
  | { kind: 'dropColumn'; name: string }
  | { kind: 'renameColumn'; from: string; to: string }
  | { kind: 'setCodec'; column: string; codec: string };
