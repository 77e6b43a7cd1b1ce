// Persists the catalog as one JSON document (host/storage/FORMAT.md §3) in a CatalogFile, which
// replaces it atomically (storage/catalog-file.ts: a file of the data directory). Writes version 6; reads 1
// to 6. Version 2 added roles without a system role (`inherit: null`), which a version 1 reader
// would have taken for `member` and so granted Read: hence the bump, so such a reader refuses it.
// Version 3 added pending drops (tenants, databases and tables dropped with AFTER) and the
// resource statuses; a version 2 reader would have lost the hidden objects, so it must refuse.
// Version 4 reads a tenant's `dropAfter` as CnosDB 2.4 does (core/durations.ts: `1M` is a month,
// where versions 2 and 3 read it as a minute), so older `dropAfter` texts are rewritten on load.
// Version 5 stores a user's SCRAM-SHA-256 verifier beside the scrypt hash (`scramVerifier`); a
// version 4 reader would keep a stale verifier through a password change (it sets only the
// hash), so that the old password would still log in over SCRAM: it must refuse.
// Version 6 adds a database's `externalTables` (CREATE EXTERNAL TABLE) and `streamTables` (CREATE
// STREAM TABLE, with their continuous queries); a version 5 reader would drop them at its next
// save, so it must refuse.

import { parseCnosDuration } from '../core/durations.js';
import { CorruptionError } from '../core/errors.js';
import {
  Catalog,
  DEFAULT_DATABASE,
  DEFAULT_DATABASE_OPTIONS,
  DEFAULT_TENANT,
  type ColumnDef,
  type DatabaseDef,
  type DatabasePrivilege,
  type DropKind,
  type ExternalTableDef,
  type PendingDrop,
  type StreamTableDef,
  type ResourceStatus,
  type RoleDef,
  type TableDef,
  type TenantDef,
  type UserDef,
} from './catalog.js';
import { GEOMETRY_SUB_TYPES } from '../core/geometry/geometry.js';
import { ValueType } from '../core/write-batch.js';
import { checkLimiterConfig } from './limiter-config.js';
import { externalTableProblem } from './external-tables.js';
import { streamTableProblem } from './stream-tables.js';
import { CatalogConflict, type SharedCatalogFile } from './shared-catalog.js';

const FORMAT = 'sundial-catalog';
const VERSION = 6;

/**
 * A `dropAfter` of versions 2 and 3, which read a count and an optional unit d, h or m in any
 * case (none: days; m: minutes), rewritten with the same meaning for version 4; INF when it is
 * longer than u64 seconds (it was capped then, too).
 */
function legacyDropAfter(text: string): string {
  const m = /^(\d+)([dDhHmM]?)$/.exec(text);
  if (m === null) return text; // not of the old grammar: the check after this names it
  const rewritten = `${BigInt(m[1]!)}${(m[2] || 'd').toLowerCase()}`;
  return parseCnosDuration(rewritten) === null ? 'INF' : rewritten;
}

interface PersistedRole {
  inherit: 'owner' | 'member' | null;
  privileges: Record<string, DatabasePrivilege>;
}

interface PersistedTenant extends Omit<TenantDef, 'members' | 'roles'> {
  members: Record<string, string>;
  roles: Record<string, PersistedRole>;
}

/** Version 1's tenant: no dropAfter or limiter, an always-empty `options`, roles always inherit. */
interface PersistedTenantV1 extends Pick<TenantDef, 'id' | 'name'> {
  comment: string;
  members: Record<string, string>;
  roles: Record<string, { inherit: 'owner' | 'member'; privileges: Record<string, DatabasePrivilege> }>;
  options?: Record<string, string>;
}

type PersistedDatabase = Omit<DatabaseDef, 'tables' | 'pendingTables' | 'externalTables' | 'streamTables'> & {
  tables: TableDef[];
  pendingTables?: TableDef[];
  externalTables?: ExternalTableDef[];
  streamTables?: StreamTableDef[];
};

/** A pending drop (pending-drops.ts) by value; a table's database by id (it is stored elsewhere). */
interface PersistedDrop {
  kind: DropKind;
  names: string[];
  dueMs: number;
  tenant?: PersistedTenant;
  databases: PersistedDatabase[];
  databaseId?: number;
  tableId?: number;
}

interface Persisted {
  format: typeof FORMAT;
  version: number;
  nextId: number;
  tenants: PersistedTenant[] | PersistedTenantV1[];
  databases: PersistedDatabase[];
  users: UserDef[];
  /** Version 3. */
  pendingDrops?: PersistedDrop[];
  resources?: ResourceStatus[];
}

export interface CatalogBootstrap {
  /** Password hash for `root` when the catalog is created. */
  rootPasswordHash: string;
  /** The SCRAM-SHA-256 verifier of the same password ('' for none). */
  rootScramVerifier?: string;
}

/**
 * The one durable document the catalog lives in. `cleanup` comes first (it removes what an
 * interrupted `replace` left), then `read`; `replace` calls never overlap (CatalogStore
 * serialises them).
 */
export interface CatalogFile {
  /** Names the document in errors (a path). */
  readonly name: string;
  /** The document, or undefined when there is none yet. */
  read(): Promise<string | undefined>;
  /** Replaces the document atomically and durably: once it returns, a crash keeps the new text; before, the old one. */
  replace(text: string): Promise<void>;
  cleanup(): Promise<void>;
}

export class CatalogStore {
  readonly catalog: Catalog;
  /** Whether `open` made the catalog (from the bootstrap) rather than loading one. */
  readonly created: boolean;
  readonly #file: CatalogFile;
  /** The same file when several nodes share it (a cluster's etcd), else undefined. */
  readonly #shared: SharedCatalogFile | undefined;
  #savedVersion: number;
  #saving: Promise<void> = Promise.resolve();

  /** `savedVersion` is the catalog version already on disk (-1: nothing is). */
  private constructor(file: CatalogFile, shared: boolean, catalog: Catalog, savedVersion: number) {
    this.#file = file;
    this.#shared = shared ? (file as SharedCatalogFile) : undefined;
    this.catalog = catalog;
    this.#savedVersion = savedVersion;
    this.created = savedVersion === -1;
  }

  /**
   * Loads the catalog from `file`, or creates and saves the initial one (tenant cnosdb, database
   * public, user root). With a `shared` file, a node that loses the race to create it loads the
   * winner's: one root user, one system tenant.
   */
  static async open(
    file: CatalogFile | SharedCatalogFile,
    bootstrap: CatalogBootstrap,
    shared = false,
  ): Promise<CatalogStore> {
    const text = await file.read();
    if (text === undefined) {
      const store = new CatalogStore(file, shared, initialCatalog(bootstrap), -1);
      try {
        await store.save();
        return store;
      } catch (e) {
        if (!(e instanceof CatalogConflict)) throw e;
        const catalog = decode(e.text, file.name);
        return new CatalogStore(file, shared, catalog, catalog.version);
      }
    }
    const catalog = decode(text, file.name);
    return new CatalogStore(file, shared, catalog, catalog.version);
  }

  /** Whether other nodes change this catalog too (a cluster: docs/cluster.md). */
  get shared(): boolean {
    return this.#shared !== undefined;
  }

  /** Calls `changed` whenever another node may have changed the catalog (shared only); `refresh` then. */
  watch(changed: () => void): void {
    this.#shared?.watch(changed);
  }

  /** What another node changed since this one last saw the catalog, decoded (to `adopt`); undefined when nothing. */
  async pull(): Promise<Catalog | undefined> {
    const text = await this.#shared?.refresh();
    return text === undefined ? undefined : this.decode(text);
  }

  /** A document of this catalog (a CatalogConflict's) decoded, to `adopt`. */
  decode(text: string): Catalog {
    return decode(text, this.#file.name);
  }

  /**
   * Makes the catalog in memory `snap`, the shared document as it is now (pulled, or carried by a
   * CatalogConflict), in place as `revert` does: objects of ids new to this node are `snap`'s own
   * (so a database store opened with one before holds the live object). Unsaved changes are dropped.
   */
  adopt(snap: Catalog): void {
    this.catalog.revertTo(snap);
    this.#savedVersion = this.catalog.version;
  }

  /**
   * Reads the saved document back and decodes it (CHECK DATABASE): the CorruptionError a start
   * would fail with, or undefined when it reads. The catalog has no checksum; this is its check.
   */
  async verifySaved(): Promise<CorruptionError | undefined> {
    const text = await this.#file.read();
    if (text === undefined)
      return new CorruptionError(this.#file.name, 0, 'missing: a start would make a new, empty catalog');
    try {
      decode(text, this.#file.name);
      return undefined;
    } catch (e) {
      if (e instanceof CorruptionError) return e;
      throw e;
    }
  }

  /** Saves the catalog even if nothing changed (CHECK DATABASE ... REPAIR of a damaged document). */
  rewrite(): Promise<void> {
    this.#savedVersion = -2;
    return this.save();
  }

  /** True when there are changes not yet saved. */
  get dirty(): boolean {
    return this.catalog.version !== this.#savedVersion;
  }

  /**
   * Saves the current state. Concurrent calls are serialised; a call made while a save runs
   * waits for it and then saves again if anything changed, so on return every change made
   * before the call is durable.
   */
  /** Puts the catalog back to `text`, an earlier `text()`, after a change whose save failed (Catalog.revertTo). */
  revert(text: string): void {
    this.catalog.revertTo(decode(text, this.#file.name));
  }

  /** The document of the catalog as it is now, as `save` writes it (a backup's checkpoint copies it). */
  text(): string {
    return JSON.stringify(encode(this.catalog), null, 1) + '\n';
  }

  save(): Promise<void> {
    const next = this.#saving.then(async () => {
      if (!this.dirty) return;
      const version = this.catalog.version;
      await this.#file.replace(this.text());
      this.#savedVersion = version;
    });
    // A failed save must not poison later saves; the caller of this one sees the error.
    this.#saving = next.catch(() => undefined);
    return next;
  }
}

function initialCatalog(bootstrap: CatalogBootstrap): Catalog {
  const c = new Catalog();
  c.addTenant({
    id: c.nextId(),
    name: DEFAULT_TENANT,
    comment: 'system tenant',
    dropAfter: null,
    limiter: null,
    members: new Map([['root', 'owner']]),
    roles: new Map(),
  });
  c.addDatabase({
    id: c.nextId(),
    tenant: DEFAULT_TENANT,
    name: DEFAULT_DATABASE,
    options: { ...DEFAULT_DATABASE_OPTIONS },
    tables: new Map(),
  });
  c.addUser({
    id: c.nextId(),
    name: 'root',
    passwordHash: bootstrap.rootPasswordHash,
    scramVerifier: bootstrap.rootScramVerifier ?? '',
    admin: true,
    mustChangePassword: false,
    comment: 'system admin',
  });
  return c;
}

function encodeTenant(t: TenantDef): PersistedTenant {
  return {
    ...t,
    members: Object.fromEntries(t.members),
    roles: Object.fromEntries(
      [...t.roles].map(([k, r]) => [k, { inherit: r.inherit, privileges: Object.fromEntries(r.privileges) }]),
    ),
  };
}

function encodeDatabase(d: DatabaseDef): PersistedDatabase {
  const { pendingTables, externalTables, streamTables, ...rest } = d;
  return {
    ...rest,
    tables: [...d.tables.values()],
    ...(pendingTables === undefined || pendingTables.size === 0 ? {} : { pendingTables: [...pendingTables.values()] }),
    ...(externalTables === undefined || externalTables.size === 0
      ? {}
      : { externalTables: [...externalTables.values()] }),
    ...(streamTables === undefined || streamTables.size === 0 ? {} : { streamTables: [...streamTables.values()] }),
  };
}

function encode(c: Catalog): Persisted {
  return {
    format: FORMAT,
    version: VERSION,
    nextId: c.idWatermark + 1,
    tenants: [...c.tenants.values()].map(encodeTenant),
    databases: c.databases().map(encodeDatabase),
    users: [...c.users.values()],
    pendingDrops: c.pendingDrops.map((p) => ({
      kind: p.kind,
      names: p.names,
      dueMs: p.dueMs,
      ...(p.tenant === undefined ? {} : { tenant: encodeTenant(p.tenant) }),
      databases: p.databases.map(encodeDatabase),
      ...(p.table === undefined ? {} : { databaseId: p.database!.id, tableId: p.table.id }),
    })),
    resources: [...c.resources.values()],
  };
}

function decode(text: string, path: string): Catalog {
  let p: Persisted;
  try {
    p = JSON.parse(text) as Persisted;
  } catch (e) {
    throw new CorruptionError(path, 0, `not valid JSON: ${(e as Error).message}`);
  }
  if (p?.format !== FORMAT)
    throw new CorruptionError(path, 0, `format is ${JSON.stringify(p?.format)}, want "${FORMAT}"`);
  if (
    p.version !== 1 &&
    p.version !== 2 &&
    p.version !== 3 &&
    p.version !== 4 &&
    p.version !== 5 &&
    p.version !== VERSION
  )
    throw new CorruptionError(path, 0, `unsupported catalog version ${p.version}, this server reads 1 to ${VERSION}`);
  const c = new Catalog();
  const tenantOf = (t: PersistedTenant | PersistedTenantV1): TenantDef => {
    const check = (ok: boolean, what: string): void => {
      if (!ok) throw new CorruptionError(path, 0, `tenant ${JSON.stringify(t.name)}: ${what}`);
    };
    const roles = new Map<string, RoleDef>();
    for (const [name, r] of Object.entries(t.roles)) {
      check(
        r.inherit === 'owner' || r.inherit === 'member' || (p.version >= 2 && r.inherit === null),
        `role ${JSON.stringify(name)} inherits ${JSON.stringify(r.inherit)}`,
      );
      for (const [db, level] of Object.entries(r.privileges))
        check(
          level === 'read' || level === 'write' || level === 'all',
          `role ${JSON.stringify(name)} has privilege ${JSON.stringify(level)} on ${JSON.stringify(db)}`,
        );
      roles.set(name, { inherit: r.inherit, privileges: new Map(Object.entries(r.privileges)) });
    }
    let limiter = null;
    let dropAfter = null;
    if (p.version >= 2) {
      const v2 = t as PersistedTenant;
      dropAfter = p.version < 4 && v2.dropAfter !== null ? legacyDropAfter(v2.dropAfter) : v2.dropAfter;
      check(dropAfter === null || parseCnosDuration(dropAfter) !== null, `drop_after ${JSON.stringify(v2.dropAfter)}`);
      try {
        limiter = v2.limiter === null ? null : checkLimiterConfig(v2.limiter);
      } catch (e) {
        check(false, `limiter: ${(e as Error).message}`);
      }
    }
    return {
      id: t.id,
      name: t.name,
      comment: t.comment,
      dropAfter,
      limiter,
      members: new Map(Object.entries(t.members)),
      roles,
    };
  };
  const tableOf = (t: TableDef): TableDef => {
    // A GEOMETRY field's declaration (optional; FORMAT.md §3): a sub type this reader knows, srid 0.
    for (const f of t.fields) {
      const g = f.geometry;
      if (
        g !== undefined &&
        (f.type !== ValueType.String || GEOMETRY_SUB_TYPES[g.subType] === undefined || g.srid !== 0)
      ) {
        throw new CorruptionError(
          path,
          0,
          `table ${JSON.stringify(t.name)} column ${JSON.stringify(f.name)}: geometry ${JSON.stringify(g)} on a field of type ${f.type}`,
        );
      }
    }
    return { ...t, tags: t.tags.map(col), fields: t.fields.map(col) };
  };
  const databaseOf = (d: PersistedDatabase): DatabaseDef => {
    const { pendingTables, externalTables, streamTables, ...rest } = d;
    const tables = new Map<string, TableDef>();
    for (const t of d.tables) tables.set(t.name, tableOf(t));
    const db: DatabaseDef = { ...rest, options: { ...DEFAULT_DATABASE_OPTIONS, ...d.options }, tables };
    if (pendingTables !== undefined && pendingTables.length > 0)
      db.pendingTables = new Map(pendingTables.map((t) => [t.id, tableOf(t)]));
    if (externalTables !== undefined && externalTables.length > 0) {
      db.externalTables = new Map();
      for (const t of externalTables) {
        const problem = externalTableProblem(t);
        if (problem !== undefined || tables.has(t.name) || db.externalTables.has(t.name))
          throw new CorruptionError(
            path,
            0,
            `external table ${JSON.stringify(t.name)} of database ${JSON.stringify(d.name)}: ${problem ?? 'name taken twice'}`,
          );
        db.externalTables.set(t.name, { ...t, columns: t.columns.map((c) => ({ ...c })) });
      }
    }
    if (streamTables !== undefined && streamTables.length > 0) {
      db.streamTables = new Map();
      for (const t of streamTables) {
        const problem = streamTableProblem(t);
        if (
          problem !== undefined ||
          tables.has(t.name) ||
          db.externalTables?.has(t.name) === true ||
          db.streamTables.has(t.name)
        )
          throw new CorruptionError(
            path,
            0,
            `stream table ${JSON.stringify(t.name)} of database ${JSON.stringify(d.name)}: ${problem ?? 'name taken twice'}`,
          );
        db.streamTables.set(t.name, { ...t, columns: [...t.columns], queries: t.queries.map((q) => ({ ...q })) });
      }
    }
    return db;
  };
  for (const t of p.tenants) {
    const def = tenantOf(t);
    c.tenants.set(def.name, def);
  }
  for (const d of p.databases) c.addDatabase(databaseOf(d));
  const persistedDrops = p.pendingDrops ?? [];
  for (const d of persistedDrops) {
    const drop: PendingDrop = { kind: d.kind, names: d.names, dueMs: d.dueMs, databases: d.databases.map(databaseOf) };
    if (d.tenant !== undefined) drop.tenant = tenantOf(d.tenant);
    c.pendingDrops.push(drop);
  }
  // A pending table's database is live or in a pending drop: link them once all are loaded.
  const byId = new Map(c.allDatabases().map((db) => [db.id, db]));
  persistedDrops.forEach((d, i) => {
    if (d.kind !== 'table') return;
    const db = byId.get(d.databaseId!);
    const table = db?.pendingTables?.get(d.tableId!);
    if (db === undefined || table === undefined)
      throw new CorruptionError(
        path,
        0,
        `pending drop of table ${d.names.join('.')}: database ${d.databaseId} or table ${d.tableId} is missing`,
      );
    c.pendingDrops[i]!.database = db;
    c.pendingDrops[i]!.table = table;
  });
  for (const r of p.resources ?? []) c.resources.set(r.name, r);
  for (const u of p.users) {
    // Version 5 added the SCRAM verifier; users saved before have none until a password is set.
    const scram = p.version >= 5 ? u.scramVerifier : '';
    if (typeof scram !== 'string')
      throw new CorruptionError(path, 0, `user ${JSON.stringify(u.name)}: scramVerifier ${JSON.stringify(scram)}`);
    c.users.set(u.name, { ...u, scramVerifier: scram });
  }
  c.reserveIds(p.nextId - 1);
  c.version = 0;
  return c;
}

const col = (c: ColumnDef): ColumnDef => ({ ...c });
