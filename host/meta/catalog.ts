// The catalog: tenants, databases with their options, tables with typed columns, users. It is
// plain in-memory state; CatalogStore (catalog-store.ts) persists it. Every mutation validates
// first and changes nothing on failure, then bumps `version` so the store knows to save.

import { UserError } from '../core/errors.js';
import type { GeometryColumnType } from '../core/geometry/geometry.js';
import type { DatabaseOptions } from '../core/schema.js';
import { ColumnKind, ValueType, VALUE_TYPE_NAMES, type BatchColumn, type BatchTable } from '../core/write-batch.js';
import { checkGeometryValue } from '../core/geometry/check-geometry.js';
import { databaseNotFound, tableNotFound } from '../core/meta-errors.js';
import type { LimiterConfig } from './limiter-config.js';

export type { DatabaseOptions, Precision } from '../core/schema.js';
export { DAY_MS, DEFAULT_DATABASE_OPTIONS } from '../core/schema.js';

export interface ColumnDef {
  id: number;
  name: string;
  kind: 'tag' | 'field';
  /** ValueType.Tag for tags. */
  type: ValueType;
  /** CnosDB codec name, upper case (DEFAULT unless chosen by CREATE/ALTER TABLE). */
  codec: string;
  /** A GEOMETRY field (type String): its sub type and srid (FORMAT.md §3). */
  geometry?: GeometryColumnType;
}

export interface TableDef {
  id: number;
  name: string;
  /** Tag columns, then field columns, each in creation order (the order of SELECT *). */
  tags: ColumnDef[];
  fields: ColumnDef[];
  /** Codec of the time column. */
  timeCodec: string;
}

export interface DatabaseDef {
  id: number;
  tenant: string;
  name: string;
  options: DatabaseOptions;
  tables: Map<string, TableDef>;
  /**
   * Tables dropped with AFTER (pending-drops.ts), by id: hidden from every name lookup, kept so
   * that their rows survive flushes and replays until RECOVER TABLE or the drop is due.
   */
  pendingTables?: Map<number, TableDef>;
  /** CREATE EXTERNAL TABLE's read-only tables over files (external-tables.ts), by name; absent: none. */
  externalTables?: Map<string, ExternalTableDef>;
  /** CREATE STREAM TABLE's names over tskv tables, with their continuous queries (stream-tables.ts); absent: none. */
  streamTables?: Map<string, StreamTableDef>;
}

/** A stream over a tskv table's rows by event time, and the INSERT ... SELECTs that run over it. */
export interface StreamTableDef {
  id: number;
  name: string;
  /** The tskv table read (by name: dropping it stops the queries with an error in the log). */
  sourceDatabase: string;
  sourceTable: string;
  eventTimeColumn: string;
  /** How far behind the newest event time the watermark stays, in ms. */
  watermarkDelayMs: number;
  /** Declared columns (each a column of the source), or [] for all. */
  columns: string[];
  queries: StreamQueryDef[];
}

/** One continuous `INSERT INTO sink SELECT ... FROM stream GROUP BY date_bin(...)`. */
export interface StreamQueryDef {
  id: number;
  /** The statement as registered, run again over each new range of windows. */
  sql: string;
  /** The session's database and user when it was registered. */
  database: string;
  user: string;
  /** Windows before this event time (ns, decimal text) are done; null: none yet. */
  doneBeforeNs: string | null;
}

/** A table over files of storage.external_dir: only its definition is Sundial's, never the files. */
export interface ExternalTableDef {
  id: number;
  name: string;
  /** As written in LOCATION (relative to storage.external_dir, or inside it). */
  location: string;
  fileType: 'CSV' | 'JSON' | 'PARQUET';
  /** CSV only: whether the first line is a header; one ASCII delimiter character. */
  hasHeader: boolean;
  delimiter: string;
  /** Columns in file order; `type` is Arrow's display of the type (`Int64`, `Timestamp(Nanosecond, None)`). */
  columns: { name: string; type: string }[];
  /**
   * An object store location's connection options (engine/external/connection.ts); the key id,
   * secret key and token sealed by the node layer (node/secret-box.ts), never in clear here.
   */
  connection?: { kind: 's3'; region: string; [option: string]: string | boolean };
}

/** The two system roles of every tenant (CnosDB's SystemTenantRole). */
export type SystemRole = 'owner' | 'member';
/** A privilege on one database; each includes the ones before it: read < write < all. */
export type DatabasePrivilege = 'read' | 'write' | 'all';
/** A member's role: a system role or the name of a custom role of the tenant. */
export type TenantRole = SystemRole | string;

/** A custom role of a tenant (CREATE ROLE ... [INHERIT owner|member], GRANT/REVOKE). */
export interface RoleDef {
  /** The system role whose privileges it has as well; null: only what was granted. */
  inherit: SystemRole | null;
  /** database name -> the privilege granted on it */
  privileges: Map<string, DatabasePrivilege>;
}

export interface TenantDef {
  id: number;
  name: string;
  /** null when never set (CnosDB shows `"comment":null`). */
  comment: string | null;
  /** CnosDB's `drop_after` option as written (`'7d'`): stored and shown; a drop is immediate. */
  dropAfter: string | null;
  /** The `_limiter` option (limiter-config.ts), or null. */
  limiter: LimiterConfig | null;
  /** user name -> role name (owner, member, or a custom role of this tenant) */
  members: Map<string, TenantRole>;
  roles: Map<string, RoleDef>;
}

export interface UserDef {
  id: number;
  name: string;
  /** "scrypt$N$r$p$saltB64$hashB64" (see password.ts), or "" for the empty password. */
  passwordHash: string;
  /**
   * The SCRAM-SHA-256 verifier of the same password (scram.ts), stored beside the hash
   * whenever a password is set since catalog version 5; '' for none (older users, and the empty
   * password): the PostgreSQL port then asks for the password in clear text.
   */
  scramVerifier: string;
  admin: boolean;
  mustChangePassword: boolean;
  comment: string;
}

/** What a drop scheduled with AFTER holds (pending-drops.ts has the rules that change it). */
export type DropKind = 'tenant' | 'database' | 'table';

export interface PendingDrop {
  kind: DropKind;
  /** [tenant], [tenant, database] or [tenant, database, table]. */
  names: string[];
  /** When the drop is carried out, in ms since the epoch. */
  dueMs: number;
  /** kind tenant: the tenant taken out of the catalog. */
  tenant?: TenantDef;
  /** The databases whose files the drop deletes: a tenant's, or the one database; [] for a table. */
  databases: DatabaseDef[];
  /** kind table: its database (live, or itself pending) and the table, in its `pendingTables`. */
  database?: DatabaseDef;
  table?: TableDef;
}

export type ResourceAction = 'DropTenant' | 'DropDatabase' | 'DropTable';
export type ResourceState = 'Schedule' | 'Cancel' | 'Successed';

export interface ResourceStatus {
  /** The name as resource_status shows it: `t`, `t-db`, `t-db-table`. */
  name: string;
  /** [tenant], [tenant, database] or [tenant, database, table] (who may see the row). */
  names: string[];
  action: ResourceAction;
  status: ResourceState;
  /** Attempts made: 0 while scheduled or cancelled, 1 once done. */
  tryCount: number;
  /** When the drop was (or is to be) carried out, ms since the epoch. */
  timeMs: number;
  comment: string;
}

/** A table a write created, or the columns it added to one (applyBatchSchema). */
export interface CreatedSchema {
  table: TableDef;
  newTable: boolean;
  columnIds: number[];
}

export const DEFAULT_TENANT = 'cnosdb';
/** The initial admin: it cannot be dropped, and only it may change itself (CnosDB's ROOT). */
export const ROOT_USER = 'root';
export const DEFAULT_DATABASE = 'public';

/** Whether a database may never be dropped: any tenant's public, the system tenant's usage_schema. */
export function isUndroppableDatabase(tenant: string, name: string): boolean {
  return name === DEFAULT_DATABASE || (tenant === DEFAULT_TENANT && name === 'usage_schema');
}

export class Catalog {
  readonly tenants = new Map<string, TenantDef>();
  /** Drops scheduled with AFTER, whose objects are out of the maps above until due (pending-drops.ts). */
  readonly pendingDrops: PendingDrop[] = [];
  /** information_schema.resource_status: the last drop of each resource, by its name. */
  readonly resources = new Map<string, ResourceStatus>();
  /** key: tenant + "\0" + database */
  readonly #databases = new Map<string, DatabaseDef>();
  readonly users = new Map<string, UserDef>();
  #nextId = 1;
  /** Incremented on every change; the store saves when it differs from the saved version. */
  version = 0;

  nextId(): number {
    return this.#nextId++;
  }

  /** Restores the id counter when loading (ids are never reused). */
  reserveIds(upTo: number): void {
    this.#nextId = Math.max(this.#nextId, upTo + 1);
  }

  get idWatermark(): number {
    return this.#nextId - 1;
  }

  changed(): void {
    this.version++;
  }

  database(tenant: string, name: string): DatabaseDef | undefined {
    return this.#databases.get(tenant + '\0' + name);
  }

  databases(tenant?: string): DatabaseDef[] {
    const all = [...this.#databases.values()];
    return tenant === undefined ? all : all.filter((d) => d.tenant === tenant);
  }

  /** Every database with files: the live ones and those of pending drops. */
  allDatabases(): DatabaseDef[] {
    return [...this.#databases.values(), ...this.pendingDrops.flatMap((p) => p.databases)];
  }

  /** Takes a database out of the name lookups without forgetting its grants (a drop with AFTER). */
  detachDatabase(tenant: string, name: string): void {
    this.#databases.delete(tenant + '\0' + name);
    this.changed();
  }

  /** The database or UserError('databaseNotFound'). */
  requireDatabase(tenant: string, name: string): DatabaseDef {
    const db = this.database(tenant, name);
    if (db === undefined) throw databaseNotFound(name);
    return db;
  }

  addTenant(t: TenantDef): void {
    this.tenants.set(t.name, t);
    this.changed();
  }

  /** Removes a tenant and its databases (whose files Storage deletes). */
  removeTenant(name: string): DatabaseDef[] {
    const dbs = this.databases(name);
    for (const d of dbs) this.#databases.delete(d.tenant + '\0' + d.name);
    this.tenants.delete(name);
    this.changed();
    return dbs;
  }

  addDatabase(db: DatabaseDef): void {
    this.#databases.set(db.tenant + '\0' + db.name, db);
    this.changed();
  }

  /** Removes a database and the privileges granted on it, so a database created later under the same name starts with no grants. */
  removeDatabase(tenant: string, name: string): void {
    this.#databases.delete(tenant + '\0' + name);
    for (const r of this.tenants.get(tenant)?.roles.values() ?? []) r.privileges.delete(name);
    this.changed();
  }

  addUser(u: UserDef): void {
    this.users.set(u.name, u);
    this.changed();
  }

  /** Removes a user and its memberships. */
  removeUser(name: string): void {
    this.users.delete(name);
    for (const t of this.tenants.values()) t.members.delete(name);
    for (const p of this.pendingDrops) p.tenant?.members.delete(name);
    this.changed();
  }

  /**
   * Puts this catalog back to `snap`, an earlier state of it (decoded from its saved text), after
   * a change whose save failed: in place, keeping the objects of the tenants, users, databases and
   * tables both have (storage's database stores, and requests in flight, hold them), so that they
   * show the old state too. Ids handed out meanwhile are not handed out again.
   */
  revertTo(snap: Catalog): void {
    const tables = new Map<number, TableDef>();
    const databases = new Map<number, DatabaseDef>();
    for (const d of this.allDatabases()) {
      databases.set(d.id, d);
      for (const t of [...d.tables.values(), ...(d.pendingTables?.values() ?? [])]) tables.set(t.id, t);
    }
    const table = (t: TableDef): TableDef => (tables.has(t.id) ? Object.assign(tables.get(t.id)!, t) : t);
    const database = (d: DatabaseDef): DatabaseDef => {
      const live = databases.get(d.id);
      const out = live === undefined ? d : Object.assign(live, d);
      out.tables = new Map([...d.tables].map(([name, t]) => [name, table(t)]));
      if (d.pendingTables === undefined) delete out.pendingTables;
      else out.pendingTables = new Map([...d.pendingTables].map(([id, t]) => [id, table(t)]));
      return out;
    };
    const adopt = <V extends object>(live: Map<string, V>, from: Map<string, V>): void => {
      const old = new Map(live);
      live.clear();
      for (const [k, v] of from) live.set(k, old.has(k) ? Object.assign(old.get(k)!, v) : v);
    };
    adopt(this.tenants, snap.tenants);
    adopt(this.users, snap.users);
    this.#databases.clear();
    for (const [k, d] of snap.#databases) this.#databases.set(k, database(d));
    this.pendingDrops.length = 0;
    for (const p of snap.pendingDrops) {
      this.pendingDrops.push({
        ...p,
        databases: p.databases.map(database),
        database: p.database && database(p.database),
        table: p.table && table(p.table),
      });
    }
    this.resources.clear();
    for (const [k, r] of snap.resources) this.resources.set(k, r);
    this.reserveIds(snap.idWatermark);
    this.changed();
  }

  /**
   * Takes back what a write created (applyBatchSchema) when its WAL record failed and nothing else
   * uses it (storage's provisional-schema.ts): the table, or else the columns, by id, so that a
   * DDL on the name meanwhile is left alone.
   */
  forgetCreated(db: DatabaseDef, tableId: number, columnIds: readonly number[] | 'table'): void {
    const t = tableById(db, tableId);
    if (t === undefined || db.tables.get(t.name) !== t) return;
    if (columnIds === 'table') db.tables.delete(t.name);
    else {
      t.tags = t.tags.filter((c) => !columnIds.includes(c.id));
      t.fields = t.fields.filter((c) => !columnIds.includes(c.id));
    }
    this.changed();
  }

  /**
   * Checks the tables and columns of a write batch against the schema and creates the missing
   * ones, unless the database has STRICT_WRITE: then a table or column that does not exist is an
   * error. All checks run before any change, so a rejected batch creates nothing. Throws
   * UserError('schemaConflict') naming the column, the stored type and the written type.
   * Returns what it created (nothing: an empty array).
   */
  applyBatchSchema(db: DatabaseDef, tables: readonly BatchTable[]): CreatedSchema[] {
    const strict = db.options.strictWrite;
    // Pass 1: check every column against the stored schema and against the other tables of the
    // request (one request may hold several batches with the same table).
    const pending = new Map<string, Map<string, { kind: 'tag' | 'field'; type: ValueType }>>();
    for (const t of tables) {
      const def = db.tables.get(t.name);
      if (strict && def === undefined) throw tableNotFound(db.tenant, db.name, t.name);
      if (def === undefined && (db.externalTables?.has(t.name) === true || db.streamTables?.has(t.name) === true)) {
        throw new UserError(
          'schemaConflict',
          `table '${t.name}' of database '${db.name}' is an external or stream table: rows cannot be written to it`,
        );
      }
      let seen = pending.get(t.name);
      if (seen === undefined) pending.set(t.name, (seen = new Map()));
      for (const c of t.columns) {
        const kind = c.kind === ColumnKind.Tag ? 'tag' : 'field';
        const have = (def && findColumn(def, c.name)) ?? seen.get(c.name);
        if (have === undefined) {
          if (strict)
            throw new UserError(
              'schemaConflict',
              `column '${c.name}' does not exist in table '${t.name}', and database '${db.name}' has STRICT_WRITE (columns are not created by writes)`,
            );
          seen.set(c.name, { kind, type: c.type });
        } else if (have.kind !== kind || have.type !== c.type) {
          throw new UserError(
            'schemaConflict',
            `column '${c.name}' of table '${t.name}' is ${describe(have.kind, have.type)}, written as ${describe(kind, c.type)}`,
          );
        } else {
          const geometry = (have as Partial<ColumnDef>).geometry;
          if (geometry !== undefined && c.strings !== undefined) checkGeometryColumn(geometry, c, t.rowCount);
        }
      }
    }
    // Pass 2: create what is missing. Columns new to a table are created sorted by name (tags,
    // then fields), as CnosDB creates them from line protocol; later additions are appended.
    const created: CreatedSchema[] = [];
    for (const [name, columns] of pending) {
      let def = db.tables.get(name);
      const newTable = def === undefined;
      if (def === undefined) {
        def = { id: this.nextId(), name, tags: [], fields: [], timeCodec: 'DEFAULT' };
        db.tables.set(name, def);
      }
      const fresh = [...columns].filter(([c]) => findColumn(def, c) === undefined);
      // Tags before fields, each by name: ids follow, and id order is the order of SELECT *.
      fresh.sort(([a, x], [b, y]) => (x.kind !== y.kind ? (x.kind === 'tag' ? -1 : 1) : a < b ? -1 : a > b ? 1 : 0));
      const columnIds: number[] = [];
      for (const [c, { kind, type }] of fresh) {
        const id = this.nextId();
        (kind === 'tag' ? def.tags : def.fields).push({ id, name: c, kind, type, codec: 'DEFAULT' });
        columnIds.push(id);
      }
      if (newTable || columnIds.length > 0) created.push({ table: def, newTable, columnIds });
    }
    if (created.length > 0) this.changed();
    return created;
  }
}

const utf8 = new TextDecoder();

/** Every present value of a written GEOMETRY column must be WKT of its sub type (CnosDB's check). */
function checkGeometryColumn(geometry: GeometryColumnType, c: BatchColumn, rowCount: number): void {
  const { offsets, bytes } = c.strings!;
  for (let i = 0; i < rowCount; i++) {
    if (c.validity !== undefined && c.validity[i] !== 1) continue;
    checkGeometryValue(geometry, utf8.decode(bytes.subarray(offsets[i]!, offsets[i + 1]!)));
  }
}

/** Whether a write of `tables` would create a table or a column (applyBatchSchema), without changing anything. */
export function lacksSchema(db: DatabaseDef, tables: readonly BatchTable[]): boolean {
  for (const t of tables) {
    const def = db.tables.get(t.name);
    if (def === undefined) return true;
    for (const c of t.columns) if (findColumn(def, c.name) === undefined) return true;
  }
  return false;
}

export function findColumn(table: TableDef, name: string): ColumnDef | undefined {
  return table.tags.find((c) => c.name === name) ?? table.fields.find((c) => c.name === name);
}

function describe(kind: 'tag' | 'field', type: ValueType): string {
  return kind === 'tag' ? 'a TAG' : `a ${VALUE_TYPE_NAMES[type]} field`;
}

export { ValueType };

/** A table of the database by id, including one whose drop is pending (its rows are kept). */
export function tableById(db: DatabaseDef, id: number): TableDef | undefined {
  for (const t of db.tables.values()) if (t.id === id) return t;
  return db.pendingTables?.get(id);
}

export function columnById(table: TableDef, id: number): ColumnDef | undefined {
  return table.tags.find((c) => c.id === id) ?? table.fields.find((c) => c.id === id);
}

/**
 * The table and column ids a write batch's tables resolve to, by name (after applyBatchSchema
 * created what was missing): what the WAL stamps into the record.
 */
export function stampsOf(
  db: DatabaseDef,
  tables: readonly BatchTable[],
): Array<{ tableId: number; columnIds: Uint32Array }> {
  return tables.map((t) => {
    const def = db.tables.get(t.name);
    if (def === undefined) throw new Error(`BUG: table ${t.name} missing after the schema was applied`);
    const columnIds = new Uint32Array(t.columns.length);
    t.columns.forEach((c, i) => {
      const col = findColumn(def, c.name);
      if (col === undefined) throw new Error(`BUG: column ${c.name} of ${t.name} missing after the schema was applied`);
      columnIds[i] = col.id;
    });
    return { tableId: def.id, columnIds };
  });
}
