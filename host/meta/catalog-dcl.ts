// The catalog side of DCL: tenants, users, members, roles and grants. Like catalog-ddl.ts, each
// function checks everything first, throws a UserError with CnosDB's meta text and changes
// nothing on failure; on success it mutates the in-memory catalog (bumping its version), and
// Storage.changeCatalog saves it before the statement is answered. Who may do what is not
// decided here (host/meta/access.ts is the one place for that).

import { durationMs, invalidDurationMessage, parseCnosDuration, type CnosDuration } from '../core/durations.js';
import { UserError } from '../core/errors.js';
import {
  databaseNotFound,
  memberExists,
  memberNotFound,
  roleExists,
  roleNotFound,
  tenantExists,
  tenantNotFound,
  userExists,
  userNotFound,
} from '../core/meta-errors.js';
import type { DatabaseOptions } from '../core/schema.js';
import {
  DAY_MS,
  DEFAULT_TENANT,
  ROOT_USER,
  type Catalog,
  type DatabaseDef,
  type DatabasePrivilege,
  type SystemRole,
  type TenantDef,
  type UserDef,
} from './catalog.js';
import { checkObjectName } from './catalog-ddl.js';
import { objectLimit, type LimiterConfig } from './limiter-config.js';

const RANK: Record<DatabasePrivilege, number> = { read: 1, write: 2, all: 3 };
const BY_RANK: readonly (DatabasePrivilege | undefined)[] = [undefined, 'read', 'write', 'all'];
/** CnosDB's names of privileges in messages (DatabasePrivilege::as_str). */
export const PRIVILEGE_NAMES: Record<DatabasePrivilege, string> = { read: 'Read', write: 'Write', all: 'All' };

/** A `drop_after` value read as CnosDB reads it (core/durations.ts); a UserError when it is not one. */
export function parseDropAfter(text: string): CnosDuration {
  const d = parseCnosDuration(text);
  if (d === null) throw new UserError('sqlParse', invalidDurationMessage(text));
  return d;
}

/** A `drop_after` or `AFTER` duration in milliseconds (INF and anything longer: Number.MAX_SAFE_INTEGER). */
export function dropAfterMs(text: string): number {
  return durationMs(parseDropAfter(text)) ?? Number.MAX_SAFE_INTEGER;
}

export function requireTenantDef(c: Catalog, name: string): TenantDef {
  const t = c.tenants.get(name);
  if (t === undefined) throw tenantNotFound(name);
  return t;
}

export function requireUserDef(c: Catalog, name: string): UserDef {
  const u = c.users.get(name);
  if (u === undefined) throw userNotFound(name);
  return u;
}

// ---- tenants

export interface TenantOptions {
  comment: string | null;
  dropAfter: string | null;
  limiter: LimiterConfig | null;
}

export function createTenantDef(c: Catalog, name: string, options: TenantOptions): TenantDef {
  checkObjectName(name);
  if (c.tenants.has(name)) throw tenantExists(name);
  if (options.dropAfter !== null) parseDropAfter(options.dropAfter);
  const t: TenantDef = { id: c.nextId(), name, ...options, members: new Map(), roles: new Map() };
  c.addTenant(t);
  return t;
}

/** Sets (a value) or unsets (null) the options named in `change`. */
export function alterTenantDef(c: Catalog, name: string, change: Partial<TenantOptions>): TenantDef {
  const t = requireTenantDef(c, name);
  // A limit on the system tenant could lock its admins out (CnosDB refuses it too).
  if (name === DEFAULT_TENANT && change.limiter !== undefined && change.limiter !== null)
    throw new UserError('forbidLimitTenant', `Tenant ${name} cannot be restricted`);
  if (change.dropAfter !== undefined && change.dropAfter !== null) parseDropAfter(change.dropAfter);
  if (change.comment !== undefined) t.comment = change.comment;
  if (change.dropAfter !== undefined) t.dropAfter = change.dropAfter;
  if (change.limiter !== undefined) t.limiter = change.limiter;
  c.changed();
  return t;
}

/** Removes the tenant and its databases; returns the databases, whose data Storage then deletes. */
export function dropTenantDef(c: Catalog, name: string): DatabaseDef[] {
  requireTenantDef(c, name);
  if (name === DEFAULT_TENANT) throw new UserError('forbidDropTenant', `Tenant "${name}" forbid drop`);
  return c.removeTenant(name);
}

// ---- users

export type UserChange = Partial<
  Pick<UserDef, 'passwordHash' | 'scramVerifier' | 'admin' | 'mustChangePassword' | 'comment'>
>;

/** A new user's options; without a SCRAM verifier the PostgreSQL port asks for the password in clear text. */
export type NewUser = Omit<Required<UserChange>, 'scramVerifier'> & Pick<UserChange, 'scramVerifier'>;

export function createUserDef(c: Catalog, name: string, options: NewUser): UserDef {
  checkObjectName(name);
  if (c.users.has(name)) throw userExists(name);
  const u: UserDef = { id: c.nextId(), name, ...options, scramVerifier: options.scramVerifier ?? '' };
  c.addUser(u);
  return u;
}

export function alterUserDef(c: Catalog, name: string, change: UserChange): UserDef {
  const u = requireUserDef(c, name);
  // CnosDB refuses any change of root's granted_admin, to true as well (meta's user options).
  if (name === ROOT_USER && change.admin !== undefined)
    throw new UserError(
      'invalidParam',
      `Invalid parameter : The ${ROOT_USER} user does not support changing granted_admin`,
    );
  Object.assign(u, change);
  c.changed();
  return u;
}

/** Renames a user; its memberships follow it. */
export function renameUserDef(c: Catalog, from: string, to: string): void {
  const u = requireUserDef(c, from);
  checkObjectName(to);
  if (from === ROOT_USER) throw new UserError('sqlPlan', `User '${ROOT_USER}' cannot be renamed`);
  if (c.users.has(to)) throw userExists(to);
  c.users.delete(from);
  u.name = to;
  c.users.set(to, u);
  for (const t of c.tenants.values()) {
    const role = t.members.get(from);
    if (role === undefined) continue;
    t.members.delete(from);
    t.members.set(to, role);
  }
  c.changed();
}

export function dropUserDef(c: Catalog, name: string): void {
  requireUserDef(c, name);
  if (name === ROOT_USER) throw new UserError('forbidDropUser', `User '${ROOT_USER}' is prohibited from being dropped`);
  c.removeUser(name);
}

// ---- members

/**
 * A custom role must exist in the tenant the member joins or in `sessionTenant`, the tenant of
 * the session running the statement. CnosDB looks only in the latter (so an admin in tenant
 * cnosdb may add a member to t1 with cnosdb's role r1, which names nothing in t1: such a member
 * has no privileges there, as after a DROP ROLE); Sundial also takes the joined tenant's own
 * roles, so that adding a member with its tenant's role works from any session.
 */
function checkRole(c: Catalog, t: TenantDef, sessionTenant: string, role: string): void {
  if (
    role === 'owner' ||
    role === 'member' ||
    t.roles.has(role) ||
    c.tenants.get(sessionTenant)?.roles.has(role) === true
  )
    return;
  throw roleNotFound(role);
}

export function addMemberDef(c: Catalog, tenant: string, user: string, role: string, sessionTenant = tenant): void {
  const t = requireTenantDef(c, tenant);
  requireUserDef(c, user);
  checkRole(c, t, sessionTenant, role);
  if (t.members.has(user)) throw memberExists(user, tenant);
  const max = objectLimit(t.limiter, 'max_users_number');
  if (max !== undefined && t.members.size >= max) {
    throw new UserError(
      'objectLimit',
      `Meta: the tenant ${tenant} has reached its limit of ${max} members (max_users_number)`,
    );
  }
  t.members.set(user, role);
  c.changed();
}

export function setMemberDef(c: Catalog, tenant: string, user: string, role: string, sessionTenant = tenant): void {
  const t = requireTenantDef(c, tenant);
  if (!t.members.has(user)) throw memberNotFound(user, tenant);
  checkRole(c, t, sessionTenant, role);
  t.members.set(user, role);
  c.changed();
}

export function removeMemberDef(c: Catalog, tenant: string, user: string): void {
  const t = requireTenantDef(c, tenant);
  if (!t.members.has(user)) throw memberNotFound(user, tenant);
  t.members.delete(user);
  c.changed();
}

// ---- roles and privileges

export function createRoleDef(c: Catalog, tenant: string, name: string, inherit: SystemRole | null): void {
  const t = requireTenantDef(c, tenant);
  checkObjectName(name);
  if (name === 'owner' || name === 'member')
    throw new UserError('forbidCreateSystemRole', `Couldn't create a role with the same name as system role: ${name}`);
  if (t.roles.has(name)) throw roleExists(name);
  t.roles.set(name, { inherit, privileges: new Map() });
  c.changed();
}

/** Drops a custom role; members that had it keep their membership and have no privilege. */
export function dropRoleDef(c: Catalog, tenant: string, name: string): void {
  const t = requireTenantDef(c, tenant);
  if (name === 'owner' || name === 'member')
    throw new UserError('forbidDropSystemRole', `Couldn't Drop System Role ${name}`);
  if (!t.roles.delete(name)) throw roleNotFound(name);
  c.changed();
}

export interface PrivilegeChange {
  level: DatabasePrivilege;
  database: string;
}

/**
 * GRANT or REVOKE privileges of a custom role, all or none. A grant needs the database to exist
 * and leaves the role with the higher of what it had and what is granted. A revoke of a grant of
 * exactly that level removes it; of a higher grant, lowers it to the level below the revoked one
 * (Write includes Read, so revoking Read leaves nothing). Revoking what was never granted,
 * inherited privileges included, is CnosDB's "cannot revoke" error.
 */
export function changePrivileges(
  c: Catalog,
  tenant: string,
  role: string,
  kind: 'grant' | 'revoke',
  changes: readonly PrivilegeChange[],
): void {
  const t = requireTenantDef(c, tenant);
  const r = t.roles.get(role);
  if (r === undefined) throw roleNotFound(role);
  const next = new Map(r.privileges);
  for (const { level, database } of changes) {
    const had = next.get(database);
    if (kind === 'grant') {
      if (c.database(tenant, database) === undefined) throw databaseNotFound(database);
      if (had === undefined || RANK[level] > RANK[had]) next.set(database, level);
      continue;
    }
    if (had === undefined || RANK[had] < RANK[level]) {
      throw new UserError(
        'privilegeNotGranted',
        `Meta: cannot revoke the privilege ${PRIVILEGE_NAMES[level]} on database ${database} of role ${role}`,
      );
    }
    const left = BY_RANK[RANK[level] - 1];
    if (left === undefined) next.delete(database);
    else next.set(database, left);
  }
  r.privileges = next;
  c.changed();
}

// ---- object limits of the `_limiter` option, checked by CREATE and ALTER DATABASE

/** Throws objectLimit when a database with `options` would break the tenant's object limits. */
export function checkDatabaseLimits(c: Catalog, tenant: string, options: DatabaseOptions, creating: boolean): void {
  const limiter = c.tenants.get(tenant)?.limiter ?? null;
  if (limiter === null) return;
  const fail = (what: string): never => {
    throw new UserError('objectLimit', `Meta: ${what} of tenant ${tenant}`);
  };
  const maxDbs = objectLimit(limiter, 'max_databases');
  if (creating && maxDbs !== undefined && c.databases(tenant).length >= maxDbs)
    fail(`database number exceeds the limit of ${maxDbs} (max_databases)`);
  const maxShards = objectLimit(limiter, 'max_shard_number');
  if (maxShards !== undefined && options.shard > maxShards)
    fail(`shard number ${options.shard} exceeds the limit of ${maxShards} (max_shard_number)`);
  const maxReplicas = objectLimit(limiter, 'max_replicate_number');
  if (maxReplicas !== undefined && options.replica > maxReplicas)
    fail(`replica number ${options.replica} exceeds the limit of ${maxReplicas} (max_replicate_number)`);
  const maxDays = objectLimit(limiter, 'max_retention_time');
  if (maxDays !== undefined && (options.ttlMs === null || options.ttlMs > maxDays * DAY_MS)) {
    fail(
      `TTL ${options.ttlMs === null ? 'INF' : `${options.ttlMs / DAY_MS} days`} exceeds the limit of ${maxDays} days (max_retention_time)`,
    );
  }
}
