// Tenant membership and privileges: the one place that decides who may do what, for every route
// and statement (CONTRACT.md "Authentication"; CnosDB's model, reference/cnosdb-http.md §9).
//
// - Admins (root, and users granted admin) may do everything, in every tenant.
// - A tenant that does not exist and one the user is not a member of give the same 422 030010
//   with the same text, so nobody learns which tenants exist. Inside a tenant, a missing privilege
//   is checked before the database's existence, so a member without Read learns nothing about
//   which databases exist either.
// - owner: All on every database of the tenant, and its members and roles. member: Read on
//   every database. A custom role: what it inherits (owner, member or nothing) plus its grants;
//   a role that was dropped gives nothing.
// - Users with must_change_password may only change their own password.

import { UserError } from '../core/errors.js';
import { tenantNotFound } from '../core/meta-errors.js';
import type { Catalog, DatabaseDef, DatabasePrivilege, TenantDef, UserDef } from './catalog.js';
import { ALL_DATABASES } from '../core/object-names.js';

export type Privilege = DatabasePrivilege;

const RANK: Record<Privilege, number> = { read: 1, write: 2, all: 3 };

function denied(what: string): UserError {
  return new UserError('privilege', `Insufficient privileges, expected [${what}]`);
}

/** Membership only: the tenant, if it exists and the user is an admin or a member; else 422 030010. */
export function requireMembership(catalog: Catalog, user: UserDef, tenant: string): TenantDef {
  const t = catalog.tenants.get(tenant);
  if (t === undefined || (!user.admin && !t.members.has(user.name))) {
    throw new UserError('tenantNotFound', `The tenant ${tenant} not found`);
  }
  return t;
}

/** Refuses a user who must change the password first (everything but that is refused). */
export function requirePasswordChanged(user: UserDef): void {
  if (user.mustChangePassword) throw denied('change password');
}

/** Membership, and a password that need not be changed first: every route but SQL's password change. */
export function requireTenant(catalog: Catalog, user: UserDef, tenant: string): TenantDef {
  const t = requireMembership(catalog, user, tenant);
  requirePasswordChanged(user);
  return t;
}

/** The privilege the user has on every database of the tenant (its role's system part). */
function tenantWide(user: UserDef, t: TenantDef): Privilege | undefined {
  if (user.admin) return 'all';
  const role = t.members.get(user.name);
  if (role === undefined) return undefined;
  if (role === 'owner') return 'all';
  if (role === 'member') return 'read';
  const inherit = t.roles.get(role)?.inherit;
  return inherit === 'owner' ? 'all' : inherit === 'member' ? 'read' : undefined;
}

/** The highest privilege `user` has on database `db` of tenant `t`, or undefined for none. */
export function privilegeOn(user: UserDef, t: TenantDef, db: string): Privilege | undefined {
  let best = tenantWide(user, t);
  if (best === 'all') return best;
  const role = t.members.get(user.name);
  const granted = role === undefined ? undefined : t.roles.get(role)?.privileges.get(db);
  if (granted !== undefined && (best === undefined || RANK[granted] > RANK[best])) best = granted;
  return best;
}

/** Whether the user has at least `need` on the database. */
export function has(user: UserDef, t: TenantDef, db: string, need: Privilege): boolean {
  const have = privilegeOn(user, t, db);
  return have !== undefined && RANK[have] >= RANK[need];
}

/** Throws 422 010004 naming the privilege unless the user has at least `need` on the database. */
export function requirePrivilege(user: UserDef, t: TenantDef, db: string, need: Privilege): void {
  if (db === ALL_DATABASES) {
    const wide = tenantWide(user, t);
    if (wide === undefined || RANK[wide] < RANK[need])
      throw denied(`${DEBUG_NAMES[need]} on all databases of tenant ${t.name}`);
    return;
  }
  if (!has(user, t, db, need)) throw denied(`${DEBUG_NAMES[need]} on database ${db} of tenant ${t.name}`);
}

/** A privilege as CnosDB's messages print it (its Debug form: ALL is Full; the views say All). */
const DEBUG_NAMES: Record<Privilege, string> = { read: 'Read', write: 'Write', all: 'Full' };

/** Tenant membership, then the privilege, then that the database exists (in that order). */
export function requireDatabaseAccess(
  catalog: Catalog,
  user: UserDef,
  tenant: string,
  db: string,
  need: Privilege,
): DatabaseDef {
  const t = requireTenant(catalog, user, tenant);
  requirePrivilege(user, t, db, need);
  return catalog.requireDatabase(tenant, db);
}

/** Owner-level rights over a tenant's members and roles: admins, owners, roles inheriting owner. */
export function isTenantOwner(user: UserDef, t: TenantDef): boolean {
  return tenantWide(user, t) === 'all';
}

/** The role the user has in the tenant (current_role(), enabled_roles), or undefined. */
export function roleIn(user: UserDef, t: TenantDef): string | undefined {
  return t.members.get(user.name);
}

/** Granting or revoking admin rights: CnosDB names that privilege "maintainer for system". */
export function requireSystemMaintainer(user: UserDef): void {
  if (!user.admin) throw denied('maintainer for system');
}

/** For statements only admins may run (tenants, users): 422 010004 otherwise. */
export function requireAdmin(user: UserDef, what: 'tenants' | 'users'): void {
  if (!user.admin) throw denied(`maintainer for all ${what}`);
}

/**
 * For statements on a tenant's members or roles: the tenant if the user is an admin or its
 * owner. A user outside the tenant gets the tenant's 030010 (it might not exist); a member
 * without owner rights gets 010004.
 */
export function requireOwner(catalog: Catalog, user: UserDef, tenant: string, what: 'members' | 'roles'): TenantDef {
  // An admin may know which tenants exist: CnosDB's meta error, as for DROP and ALTER ... SET.
  if (user.admin && !catalog.tenants.has(tenant)) throw tenantNotFound(tenant);
  const t = requireTenant(catalog, user, tenant);
  if (!isTenantOwner(user, t)) throw denied(`maintainer for all ${what} of tenant ${tenant}`);
  return t;
}
