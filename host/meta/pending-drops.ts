// Drops that wait: `DROP TENANT|DATABASE|TABLE x AFTER 'dur'` (and DROP TENANT of a tenant with a
// `drop_after` option) hide the object at once and delete it when due, unless `RECOVER` brings it
// back first. CnosDB's model (reference/cnosdb-sql.md §1): the object leaves every name lookup, so
// a query, a write or a SHOW no longer finds it, and a new object may take its name; its data stays
// on disk, flushed and replayed as before, until the drop is due. information_schema.resource_status
// shows each resource's last drop: Schedule, Cancel (recovered) or Successed.
//
// These functions only change the in-memory catalog (validate first, change nothing on failure);
// Storage saves it and deletes the files of what a drop returns.

import { UserError } from '../core/errors.js';
import { databaseExists, databaseNotFound, tableExists, tenantExists, tenantNotFound } from '../core/meta-errors.js';
import {
  DEFAULT_TENANT,
  isUndroppableDatabase,
  type Catalog,
  type DropKind,
  type PendingDrop,
  type ResourceAction,
  type ResourceState,
} from './catalog.js';
import { tableNotFound } from './catalog-ddl.js';

const ACTIONS: Record<DropKind, ResourceAction> = {
  tenant: 'DropTenant',
  database: 'DropDatabase',
  table: 'DropTable',
};

/** The resource name CnosDB's resource_status shows. */
export function resourceName(names: readonly string[]): string {
  return names.join('-');
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

export function findPendingDrop(c: Catalog, kind: DropKind, names: readonly string[]): PendingDrop | undefined {
  return c.pendingDrops.find((p) => p.kind === kind && sameNames(p.names, names));
}

export function recordResource(
  c: Catalog,
  kind: DropKind,
  names: readonly string[],
  status: ResourceState,
  timeMs: number,
): void {
  c.resources.set(resourceName(names), {
    name: resourceName(names),
    names: [...names],
    action: ACTIONS[kind],
    status,
    tryCount: status === 'Successed' ? 1 : 0,
    timeMs,
    comment: '',
  });
  c.changed();
}

/** Whether the object a drop names is live (in the name lookups). */
export function isLive(c: Catalog, kind: DropKind, names: readonly string[]): boolean {
  const [tenant, database, table] = names as [string, string?, string?];
  if (kind === 'tenant') return c.tenants.has(tenant);
  const db = c.database(tenant, database!);
  return kind === 'database' ? db !== undefined : db?.tables.has(table!) === true;
}

/**
 * Hides a live tenant, database or table until `dueMs`. Without a live one, a drop already
 * pending for the name is rescheduled (DROP ... AFTER twice: the later statement wins). With
 * both, the older pending drop is completed and returned: the caller deletes its data.
 */
export function scheduleDrop(
  c: Catalog,
  kind: DropKind,
  names: readonly string[],
  dueMs: number,
  nowMs: number,
): PendingDrop | undefined {
  const pending = findPendingDrop(c, kind, names);
  if (pending !== undefined && !isLive(c, kind, names)) {
    pending.dueMs = dueMs;
    recordResource(c, kind, names, 'Schedule', dueMs);
    return undefined;
  }
  const replaced = pending === undefined ? undefined : completeDrop(c, pending, nowMs);
  const [tenant, database, table] = names as [string, string?, string?];
  let drop: PendingDrop;
  if (kind === 'tenant') {
    const t = c.tenants.get(tenant);
    if (t === undefined) throw tenantNotFound(tenant);
    if (tenant === DEFAULT_TENANT) throw new UserError('forbidDropTenant', `Tenant "${tenant}" forbid drop`);
    const dbs = c.databases(tenant);
    for (const d of dbs) c.detachDatabase(d.tenant, d.name);
    c.tenants.delete(tenant);
    drop = { kind, names: [...names], dueMs, tenant: t, databases: dbs };
  } else if (kind === 'database') {
    const db = c.requireDatabase(tenant, database!);
    if (isUndroppableDatabase(tenant, database!))
      throw new UserError('forbidDropDatabase', `Database "${database}" forbid drop`);
    c.detachDatabase(tenant, database!);
    drop = { kind, names: [...names], dueMs, databases: [db] };
  } else {
    const db = c.requireDatabase(tenant, database!);
    const t = db.tables.get(table!);
    if (t === undefined) throw tableNotFound(db, table!);
    db.tables.delete(table!);
    (db.pendingTables ??= new Map()).set(t.id, t);
    drop = { kind, names: [...names], dueMs, databases: [], database: db, table: t };
  }
  c.pendingDrops.push(drop);
  recordResource(c, kind, names, 'Schedule', dueMs);
  return replaced;
}

/** Puts a pending drop's object back under its name; refuses when a new object took the name. */
export function recoverDrop(c: Catalog, kind: DropKind, names: readonly string[], nowMs: number): void {
  const p = findPendingDrop(c, kind, names);
  if (p === undefined) {
    const [tenant, database, table] = names as [string, string?, string?];
    if (kind === 'tenant') throw tenantNotFound(tenant);
    if (kind === 'database') throw databaseNotFound(database!);
    throw tableNotFound(c.requireDatabase(tenant, database!), table!);
  }
  if (p.kind === 'tenant') {
    if (c.tenants.has(p.names[0]!)) throw tenantExists(p.names[0]!);
    c.tenants.set(p.tenant!.name, p.tenant!);
    for (const d of p.databases) c.addDatabase(d);
  } else if (p.kind === 'database') {
    const db = p.databases[0]!;
    if (c.database(db.tenant, db.name) !== undefined) throw databaseExists(db.name);
    c.addDatabase(db);
  } else {
    const db = p.database!;
    if (db.tables.has(p.table!.name)) throw tableExists(p.table!.name);
    db.pendingTables!.delete(p.table!.id);
    db.tables.set(p.table!.name, p.table!);
  }
  c.pendingDrops.splice(c.pendingDrops.indexOf(p), 1);
  recordResource(c, kind, names, 'Cancel', nowMs);
}

/**
 * Takes a pending drop out for good (it is due, or a plain DROP named it): the caller deletes the
 * data of what it returns. A dropped table leaves its database's `pendingTables`, so flushes and
 * compactions discard its rows from then on.
 */
export function completeDrop(c: Catalog, p: PendingDrop, nowMs: number): PendingDrop {
  c.pendingDrops.splice(c.pendingDrops.indexOf(p), 1);
  if (p.kind === 'table') p.database!.pendingTables!.delete(p.table!.id);
  // Grants on a dropped database go too, unless a database of that name exists again.
  const grants = p.kind === 'tenant' ? [] : p.databases;
  for (const db of grants) {
    if (c.database(db.tenant, db.name) !== undefined) continue;
    for (const r of c.tenants.get(db.tenant)?.roles.values() ?? []) r.privileges.delete(db.name);
  }
  recordResource(c, p.kind, p.names, 'Successed', nowMs);
  return p;
}

/** The pending drops that are due at `nowMs`. */
export function dueDrops(c: Catalog, nowMs: number): PendingDrop[] {
  return c.pendingDrops.filter((p) => p.dueMs <= nowMs);
}
