// What the query engine needs from the world: table schemas, data scans and the mutations of DDL
// and DML, behind one narrow interface (DataFusion's ContextProvider; Prometheus's BlockReader).
// The server implements it over the storage engine; a browser sandbox implements it over
// segment files it fetched. All names here are already resolved to one tenant.

import { geometryTypeName, type GeometryColumnType } from '../core/geometry/geometry.js';
import type { DatabaseOptions } from '../core/schema.js';
import type { ValueType } from '../core/write-batch.js';
import type {
  DeleteRequest,
  LastRequest,
  ScanRequest,
  SeriesChunk,
  SeriesLast,
  StatsOrChunk,
  StatsRequest,
} from '../core/scan.js';
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

/**
 * How to reach an object store location (`s3://bucket/path`): CnosDB's CONNECTION options, checked
 * by connection.ts. Local locations take none.
 */
export interface ObjectStoreConnection {
  readonly kind: 's3';
  readonly region: string;
  readonly endpointUrl?: string;
  readonly accessKeyId?: string;
  readonly secretKey?: string;
  readonly token?: string;
  /** `https://<bucket>.<endpoint>` (true, CnosDB's default) or `<endpoint>/<bucket>`. */
  readonly virtualHostedStyle: boolean;
}

/**
 * A read-only table over the files of a location (CREATE EXTERNAL TABLE): rows come from reading
 * them at each query (engine/external/), never from storage; it has no series and no time column.
 */
export interface ExternalTableInfo {
  database: string;
  name: string;
  /** As written in LOCATION: the host's ExternalFiles resolves it. */
  location: string;
  fileType: 'CSV' | 'JSON' | 'PARQUET';
  hasHeader: boolean;
  delimiter: string;
  /** In file order; CSV columns are read by position, JSON and Parquet ones by name. */
  columns: { name: string; type: DataType }[];
  /** An object store location's connection (external/connection.ts); absent for a local one. */
  connection?: ObjectStoreConnection;
}

/** A stream table (CREATE STREAM TABLE): a tskv table's rows by event time, for continuous queries. */
export interface StreamTableInfo {
  database: string;
  name: string;
  sourceDatabase: string;
  sourceTable: string;
  eventTimeColumn: string;
  watermarkDelayMs: number;
  columns: string[];
  queries: { id: number; sql: string; database: string; user: string; doneBeforeNs: bigint | null }[];
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
  /** External tables of a database (their names are not tskv tables'). Optional: without them there are none. */
  externalTables?(database: string): ExternalTableInfo[];
  externalTable?(database: string, name: string): ExternalTableInfo | undefined;
  /** Saves a new definition (durable on return); the name is free (checked by the caller, rechecked here). */
  createExternalTable?(database: string, table: ExternalTableInfo): Promise<void>;
  /** Forgets a definition; the files are left as they are. */
  dropExternalTable?(database: string, name: string): Promise<void>;
  /** Stream tables (engine/streams/); optional: without them there are none. */
  streamTables?(database: string): StreamTableInfo[];
  streamTable?(database: string, name: string): StreamTableInfo | undefined;
  createStreamTable?(database: string, table: Omit<StreamTableInfo, 'queries'>): Promise<void>;
  dropStreamTable?(database: string, name: string): Promise<void>;
  /** Saves a continuous query of a stream (durable on return). */
  addStreamQuery?(
    database: string,
    stream: string,
    query: { sql: string; database: string; user: string },
  ): Promise<void>;
  /** Saves that a query's windows before `doneBeforeNs` are stored. */
  setStreamProgress?(database: string, stream: string, queryId: number, doneBeforeNs: bigint): Promise<void>;
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
