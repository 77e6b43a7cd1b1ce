// What the query engine needs from the world: table schemas, data scans and the mutations of DDL
// and DML, behind one narrow interface (DataFusion's ContextProvider; Prometheus's BlockReader).
// The server implements it over the storage engine; a browser sandbox implements it over
// segment files it fetched. All names here are already resolved to one tenant.

import type { DatabaseOptions } from '../core/schema.js';
import type { ValueType } from '../core/write-batch.js';
import type { DataType } from './types.js';

export interface ColumnInfo {
  name: string;
  kind: 'time' | 'tag' | 'field';
  type: DataType;
  /** Storage value type (write-batch numbering) for tags and fields. */
  valueType?: ValueType;
  /** Upper-case CnosDB codec name (DEFAULT unless chosen). */
  codec: string;
}

export interface TableInfo {
  database: string;
  name: string;
  /** `time` first, then tags, then fields, each in creation order (the order of SELECT *). */
  columns: ColumnInfo[];
}

export interface DatabaseInfo {
  name: string;
  options: DatabaseOptions;
}

/** One field column of a series chunk (layout as the engine's Vector for the field's type). */
export interface ChunkColumn {
  values: Float64Array | BigInt64Array | BigUint64Array | Uint8Array | string[];
  /** 1 = present; undefined when every row is present. */
  validity: Uint8Array | undefined;
}

/** Consecutive rows of one series, sorted by time, without duplicate timestamps. */
export interface SeriesChunk {
  /** Tag name -> value; a tag the series lacks is NULL. */
  tags: ReadonlyMap<string, string>;
  length: number;
  /** Timestamps in the database precision. */
  time: BigInt64Array;
  /** The requested fields the chunk has; a requested field it lacks is NULL throughout. */
  fields: ReadonlyMap<string, ChunkColumn>;
}

export interface ScanRequest {
  /** Field columns to read (tags and time always come with the chunk). */
  fields: readonly string[];
  /** Inclusive time bounds in the database precision. */
  minTime?: bigint;
  maxTime?: bigint;
  /** Series to keep, decided on tag values alone (pushed-down tag predicates). */
  seriesFilter?: (tags: ReadonlyMap<string, string>) => boolean;
}

/** A row predicate for DELETE: tag equalities/predicate and a time range. */
export interface DeleteRequest {
  seriesFilter?: (tags: ReadonlyMap<string, string>) => boolean;
  minTime?: bigint;
  maxTime?: bigint;
}

export interface EngineCatalog {
  readonly tenant: string;
  databases(): DatabaseInfo[];
  database(name: string): DatabaseInfo | undefined;
  tables(database: string): TableInfo[];
  table(database: string, name: string): TableInfo | undefined;

  /** The chunks of every series of a table that pass the request, series after series. */
  scan(database: string, table: string, request: ScanRequest): AsyncIterable<SeriesChunk>;
  /** Tag sets of the series of a table (SHOW SERIES, SHOW TAG VALUES), without reading data. */
  series(database: string, table: string): Iterable<ReadonlyMap<string, string>>;

  createDatabase(name: string, options: DatabaseOptions): Promise<void>;
  alterDatabase(name: string, options: DatabaseOptions): Promise<void>;
  dropDatabase(name: string): Promise<void>;
  createTable(database: string, table: TableInfo): Promise<void>;
  /** Replaces a table's column list (ADD/DROP/RENAME column, codec changes). */
  alterTable(database: string, table: string, columns: ColumnInfo[], change: TableChange): Promise<void>;
  dropTable(database: string, table: string): Promise<void>;
  /** Stores encoded write batches (host/storage/FORMAT.md §1) atomically. */
  write(database: string, batches: Uint8Array[]): Promise<void>;
  delete(database: string, table: string, request: DeleteRequest): Promise<void>;
}

/** What an ALTER TABLE did, so storage can move data along (a rename keeps the values). */
export type TableChange =
  | { kind: 'add'; column: string }
  | { kind: 'drop'; column: string }
  | { kind: 'rename'; from: string; to: string }
  | { kind: 'codec'; column: string };
