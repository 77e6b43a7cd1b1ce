// The statement half of the SQL AST (ast-expressions.ts has expressions and queries): DML, CnosDB's DDL
// and DCL, SHOW/DESCRIBE/EXPLAIN. Option values stay raw strings and numbers for the planner.

import type { DataType, Expr, ObjectName, OrderByExpr, Pos, Query } from './ast-expressions.js';

interface Node {
  readonly pos: Pos;
}

// ---------------------------------------------------------------------------------------------
// DML

export interface Insert extends Node {
  readonly kind: 'insert';
  readonly table: ObjectName;
  /** Empty when no column list was written (physical order: time, tags, fields). */
  readonly columns: readonly string[];
  /** `VALUES ...` (a Query whose body is `values`) or a SELECT. */
  readonly source: Query;
}
export interface Delete extends Node {
  readonly kind: 'delete';
  readonly table: ObjectName;
  /** `DELETE FROM t a WHERE ...`: sqlparser reads a table alias, which DataFusion then ignores. */
  readonly alias?: string;
  readonly where?: Expr;
}
export interface Update extends Node {
  readonly kind: 'update';
  readonly table: ObjectName;
  readonly assignments: readonly { readonly column: string; readonly value: Expr }[];
  readonly where?: Expr;
}

/** The `name = value` lists of CnosDB's COPY INTO, kept raw: commands/copy.ts checks them as CnosDB does. */
interface CopyOptionLists {
  /** The path or URL between quotes. */
  readonly location: string;
  readonly connection: readonly SqlOption[];
  readonly fileFormat: readonly SqlOption[];
  readonly copyOptions: readonly SqlOption[];
}
/** `COPY INTO t [(cols)] FROM 'location' ...`: rows of files appended to a table. */
export interface CopyIntoTable extends Node, CopyOptionLists {
  readonly kind: 'copyIntoTable';
  readonly table: ObjectName;
  readonly columns: readonly string[];
}
/** `COPY INTO 'location' FROM t | (query) ...`: a table or a query written to a new file. */
export interface CopyIntoLocation extends Node, CopyOptionLists {
  readonly kind: 'copyIntoLocation';
  readonly source:
    | { readonly kind: 'table'; readonly name: ObjectName }
    | { readonly kind: 'query'; readonly query: Query };
}

// ---------------------------------------------------------------------------------------------
// DDL

/** An option value kept raw: the planner parses durations, sizes and numbers. */
export type OptionValue =
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'number'; readonly text: string }
  | { readonly kind: 'boolean'; readonly value: boolean }
  | { readonly kind: 'null' };

export const DATABASE_OPTIONS = [
  'TTL',
  'SHARD',
  'VNODE_DURATION',
  'REPLICA',
  'PRECISION',
  'MAX_MEMCACHE_SIZE',
  'MEMCACHE_PARTITIONS',
  'WAL_MAX_FILE_SIZE',
  'WAL_SYNC',
  'STRICT_WRITE',
  'MAX_CACHE_READERS',
] as const;
export type DatabaseOptionName = (typeof DATABASE_OPTIONS)[number];
/** The options ALTER DATABASE may change (CnosDB 2.4.3). */
export const ALTERABLE_DATABASE_OPTIONS: readonly DatabaseOptionName[] = ['TTL', 'SHARD', 'VNODE_DURATION', 'REPLICA'];

/** `TTL '10d'`, `SHARD 5`: value is a string or a number. */
export interface DatabaseOption {
  readonly name: DatabaseOptionName;
  readonly value: OptionValue;
}

export interface CreateDatabase extends Node {
  readonly kind: 'createDatabase';
  readonly name: string;
  readonly ifNotExists: boolean;
  readonly options: readonly DatabaseOption[];
}
export interface AlterDatabase extends Node {
  readonly kind: 'alterDatabase';
  readonly name: string;
  readonly option: DatabaseOption;
}
export interface DropDatabase extends Node {
  readonly kind: 'dropDatabase';
  readonly name: string;
  readonly ifExists: boolean;
  /** `AFTER '7d'`: delayed drop, recoverable until then. */
  readonly after?: string;
}
export interface RecoverDatabase extends Node {
  readonly kind: 'recoverDatabase';
  readonly name: string;
  readonly ifExists: boolean;
}
export interface CompactDatabase extends Node {
  readonly kind: 'compactDatabase';
  readonly name: string;
}
/** CHECK DATABASE name [REPAIR] (Sundial's: verifies stored files, REPAIR quarantines damaged ones). */
export interface CheckDatabase extends Node {
  readonly kind: 'checkDatabase';
  readonly name: string;
  readonly repair: boolean;
}

/** Codec names accepted in CODEC(...), upper case (CnosDB's `Encoding`). */
export const CODECS: ReadonlySet<string> = new Set([
  'DEFAULT',
  'NULL',
  'DELTA',
  'DELTATS',
  'QUANTILE',
  'GORILLA',
  'GZIP',
  'BZIP',
  'ZSTD',
  'SNAPPY',
  'ZLIB',
  'BITPACK',
]);

/** A field column of CREATE TABLE or ALTER TABLE ADD FIELD; `codec` upper case when written. */
export interface ColumnDef {
  readonly name: string;
  readonly dataType: DataType;
  readonly codec?: string;
}
/** CnosDB's CREATE TABLE: field columns, then the tag names; `time` is implicit. */
export interface CreateTable extends Node {
  readonly kind: 'createTable';
  readonly name: ObjectName;
  readonly ifNotExists: boolean;
  readonly columns: readonly ColumnDef[];
  readonly tags: readonly string[];
}
/** DataFusion's CREATE EXTERNAL TABLE, kept raw (read-only tables over files). */
export interface CreateExternalTable extends Node {
  readonly kind: 'createExternalTable';
  readonly name: ObjectName;
  readonly ifNotExists: boolean;
  readonly unbounded: boolean;
  readonly columns: readonly { readonly name: string; readonly dataType: DataType; readonly notNull: boolean }[];
  /** Upper case: CSV, PARQUET, NDJSON, JSON, AVRO, ... */
  readonly storedAs: string;
  readonly withHeaderRow: boolean;
  readonly delimiter?: string;
  readonly partitionedBy: readonly string[];
  readonly compression?: string;
  readonly options: readonly { readonly key: string; readonly value: string }[];
  readonly location: string;
}

/**
 * CnosDB's CREATE STREAM TABLE: a name over the rows of a tskv table as they arrive, for
 * continuous `INSERT INTO sink SELECT ... FROM stream GROUP BY date_bin(...)` (engine/streams/).
 */
export interface CreateStreamTable extends Node {
  readonly kind: 'createStreamTable';
  readonly name: ObjectName;
  readonly ifNotExists: boolean;
  readonly columns: readonly { readonly name: string; readonly dataType: DataType }[];
  /** WITH (db = ..., table = ..., event_time_column = ..., watermark_delay = ...). */
  readonly options: readonly SqlOption[];
  /** `engine = tskv`, upper case. */
  readonly engine: string;
}

export type AlterTableAction =
  | { readonly kind: 'addTag'; readonly name: string }
  | { readonly kind: 'addField'; readonly column: ColumnDef }
  | { readonly kind: 'alterCodec'; readonly column: string; readonly codec: string }
  | { readonly kind: 'dropColumn'; readonly column: string }
  | { readonly kind: 'renameColumn'; readonly from: string; readonly to: string };

export interface AlterTable extends Node {
  readonly kind: 'alterTable';
  readonly table: ObjectName;
  readonly action: AlterTableAction;
}
export interface DropTable extends Node {
  readonly kind: 'dropTable';
  readonly name: ObjectName;
  readonly ifExists: boolean;
  /** AFTER 'dur': hidden now, dropped then, unless RECOVER TABLE comes first. */
  readonly after?: string;
}
export interface RecoverTable extends Node {
  readonly kind: 'recoverTable';
  readonly name: ObjectName;
  readonly ifExists: boolean;
}

// ---------------------------------------------------------------------------------------------
// SHOW, DESCRIBE, EXPLAIN

export interface ShowDatabases extends Node {
  readonly kind: 'showDatabases';
}
export interface ShowTables extends Node {
  readonly kind: 'showTables';
  readonly database?: string;
}
/** The clauses SHOW SERIES and SHOW TAG VALUES share. */
interface ShowTagBody extends Node {
  readonly database?: string;
  readonly table: string;
  readonly where?: Expr;
  readonly orderBy: readonly OrderByExpr[];
  readonly limit?: Expr;
  readonly offset?: Expr;
}
export interface ShowSeries extends ShowTagBody {
  readonly kind: 'showSeries';
}
/** `WITH KEY = k | != k | IN (a, b) | NOT IN (a, b)`; `<>` reads as `!=`. */
export interface TagKeyFilter {
  readonly op: '=' | '!=' | 'IN' | 'NOT IN';
  readonly keys: readonly string[];
}
export interface ShowTagValues extends ShowTagBody {
  readonly kind: 'showTagValues';
  readonly withKey: TagKeyFilter;
}
export interface ShowQueries extends Node {
  readonly kind: 'showQueries';
}
export interface ShowStreams extends Node {
  readonly kind: 'showStreams';
  readonly verbose: boolean;
}
export interface DescribeDatabase extends Node {
  readonly kind: 'describeDatabase';
  readonly name: string;
}
export interface DescribeTable extends Node {
  readonly kind: 'describeTable';
  readonly name: ObjectName;
}
export interface Explain extends Node {
  readonly kind: 'explain';
  readonly analyze: boolean;
  readonly verbose: boolean;
  readonly statement: Statement;
}

// ---------------------------------------------------------------------------------------------
// DCL: tenants, users, roles, privileges

/** `name = value` in WITH lists and SET; `name` is an identifier (lowercased unless quoted). */
export interface SqlOption {
  readonly name: string;
  readonly value: OptionValue;
}
export interface CreateTenant extends Node {
  readonly kind: 'createTenant';
  readonly name: string;
  readonly ifNotExists: boolean;
  readonly options: readonly SqlOption[];
}
export type AlterTenantAction =
  | { readonly kind: 'addUser'; readonly user: string; readonly role: string }
  | { readonly kind: 'removeUser'; readonly user: string }
  | { readonly kind: 'setUser'; readonly user: string; readonly role: string }
  | { readonly kind: 'set'; readonly option: SqlOption }
  | { readonly kind: 'unset'; readonly name: string };
export interface AlterTenant extends Node {
  readonly kind: 'alterTenant';
  readonly name: string;
  readonly action: AlterTenantAction;
}
export interface DropTenant extends Node {
  readonly kind: 'dropTenant';
  readonly name: string;
  readonly ifExists: boolean;
  readonly after?: string;
}
export interface RecoverTenant extends Node {
  readonly kind: 'recoverTenant';
  readonly name: string;
  readonly ifExists: boolean;
}
export interface CreateUser extends Node {
  readonly kind: 'createUser';
  readonly name: string;
  readonly ifNotExists: boolean;
  readonly options: readonly SqlOption[];
}
export type AlterUserAction =
  | { readonly kind: 'rename'; readonly newName: string }
  | { readonly kind: 'set'; readonly option: SqlOption };
export interface AlterUser extends Node {
  readonly kind: 'alterUser';
  readonly name: string;
  readonly action: AlterUserAction;
}
export interface DropUser extends Node {
  readonly kind: 'dropUser';
  readonly name: string;
  readonly ifExists: boolean;
}
export interface CreateRole extends Node {
  readonly kind: 'createRole';
  readonly name: string;
  readonly ifNotExists: boolean;
  /** The system role it inherits: `owner` or `member`. */
  readonly inherit?: string;
}
export interface DropRole extends Node {
  readonly kind: 'dropRole';
  readonly name: string;
  readonly ifExists: boolean;
}
export interface Privilege {
  readonly action: 'READ' | 'WRITE' | 'ALL';
  readonly database: string;
}
export interface GrantRevoke extends Node {
  readonly kind: 'grant' | 'revoke';
  readonly privileges: readonly Privilege[];
  readonly role: string;
}

export type Statement =
  | Query
  | Insert
  | Delete
  | Update
  | CopyIntoTable
  | CopyIntoLocation
  | CreateDatabase
  | AlterDatabase
  | DropDatabase
  | RecoverDatabase
  | CompactDatabase
  | CheckDatabase
  | CreateTable
  | CreateExternalTable
  | CreateStreamTable
  | AlterTable
  | DropTable
  | RecoverTable
  | ShowDatabases
  | ShowTables
  | ShowSeries
  | ShowTagValues
  | ShowQueries
  | ShowStreams
  | DescribeDatabase
  | DescribeTable
  | Explain
  | CreateTenant
  | AlterTenant
  | DropTenant
  | RecoverTenant
  | CreateUser
  | AlterUser
  | DropUser
  | CreateRole
  | DropRole
  | GrantRevoke;
