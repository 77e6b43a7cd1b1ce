// What the query engine needs from the world: table schemas, data scans and the mutations of DDL
// and DML, behind one narrow interface (DataFusion's ContextProvider; Prometheus's BlockReader).
// The server implements it over the storage engine; a browser sandbox implements it over
// segment files it fetched. All names here are already resolved to one tenant.

import { geometryTypeName, type GeometryColumnType } from '../core/geometry/geometry.js';
import type { DatabaseOptions } from '../core/schema.js';
import type { ValueType } from '../core/write-batch.js';
import type { DeleteRequest, LastRequest, ScanRequest, SeriesChunk, SeriesLast, StatsOrChunk, StatsRequest } from '../core/scan.js';
import type { StoredFileProblem } from '../core/check.js';
import { type DataType, sqlTypeName } from './types/index.js';

export type { StoredFileProblem } from '../core/check.js';

export type {
  ChunkColumn,
  DeleteRequest,
  FieldStats,
  LastRequest,
  LastValue,
  ScanRequest,
  SeriesChunk,
  SeriesLast,
  SeriesStats,
  StatsOrChunk,
  StatsRequest,
} from '../core/scan.js';

export interface ColumnInfo {
  name: string;
  kind: 'time' | 'tag' | 'field';
  type: DataType;
  /** Storage value type (write-batch numbering) for tags and fields. */
  valueType?: ValueType;
  /** Upper-case CnosDB codec name (DEFAULT unless chosen). */
  codec: string;
  /** A GEOMETRY(<sub_type>, <srid>) field: Utf8 values that are WKT of that sub type. */
  geometry?: GeometryColumnType;
}

/** The type DESCRIBE TABLE and information_schema.columns show: BIGINT, STRING, Geometry(POINT, 0)... */
export function columnTypeName(c: ColumnInfo): string {
  return c.geometry === undefined ? sqlTypeName(c.type) : geometryTypeName(c.geometry);
}

export interface TableInfo {
  database: string;
  name: string;
  /**
   * The order of SELECT * and DESCRIBE: `time` first, then the other columns in table order
   * (CREATE TABLE puts its tags before its fields; ALTER TABLE ADD appends).
   */
  columns: ColumnInfo[];
}

export interface DatabaseInfo {
  name: string;
  options: DatabaseOptions;
}

export interface EngineCatalog {
  readonly tenant: string;
  /**
   * Changes whenever a schema, database, user or privilege changes (plans built under another
   * version are not reused, plan-cache.ts); undefined: plans are never reused.
   */
  readonly version?: number;
  databases(): DatabaseInfo[];
  database(name: string): DatabaseInfo | undefined;
  tables(database: string): TableInfo[];
  table(database: string, name: string): TableInfo | undefined;

  /** The chunks of every series of a table that pass the request, series after series. */
  scan(database: string, table: string, request: ScanRequest): AsyncIterable<SeriesChunk>;
  /**
   * Like `scan`, but runs of rows known by their statistics alone (whole stored blocks) may come
   * as statistics instead of rows. Optional: without it aggregates read rows.
   */
  scanStats?(database: string, table: string, request: StatsRequest): AsyncIterable<StatsOrChunk[]>;
  /** Per series, the newest present value of each requested field. Optional: without it the last rows are scanned. */
  lastPoints?(database: string, table: string, request: LastRequest): Promise<SeriesLast[]>;
  /** Tag sets of the series of a table (SHOW SERIES, SHOW TAG VALUES), without reading data. */
  series(database: string, table: string): Promise<Iterable<ReadonlyMap<string, string>>>;

  createDatabase(name: string, options: DatabaseOptions): Promise<void>;
  alterDatabase(name: string, options: DatabaseOptions): Promise<void>;
  /** `after`: CnosDB's duration text ('3m', '1h', '7d'): hide now, drop then (RECOVER undoes it). */
  dropDatabase(name: string, after?: string): Promise<void>;
  /** RECOVER DATABASE: brings back a database whose drop is pending. */
  recoverDatabase?(name: string): Promise<void>;
  /** COMPACT DATABASE: stored data rewritten into as few files as possible. Optional: without it the statement does nothing. */
  compactDatabase?(name: string): Promise<void>;
  /**
   * CHECK DATABASE: verifies every checksum of the database's stored files; with `repair`, moves
   * damaged ones aside. Optional: without it the statement finds nothing.
   */
  checkDatabase?(name: string, repair: boolean): Promise<StoredFileProblem[]>;
  createTable(database: string, table: TableInfo): Promise<void>;
  /** Replaces a table's column list (ADD/DROP/RENAME column, codec changes). */
  alterTable(database: string, table: string, columns: ColumnInfo[], change: TableChange): Promise<void>;
  dropTable(database: string, table: string, after?: string): Promise<void>;
  /** RECOVER TABLE: brings back a table whose drop is pending. */
  recoverTable?(database: string, table: string): Promise<void>;
  /** Whether a drop with AFTER of this database (or of this table of it) is pending. */
  dropPending?(database: string, table?: string): boolean;
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
