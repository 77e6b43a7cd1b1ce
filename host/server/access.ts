// Tenant membership and database privileges, checked in one place for every route and statement.
// A tenant that does not exist and one the user is not a member of give the same error, so
// nobody learns which tenants exist (CONTRACT.md "Authentication").

import { UserError } from '../core/errors.js';
import type { Catalog, DatabaseDef, TenantDef, UserDef } from '../storage/catalog.js';

export type Privilege = 'read' | 'write' | 'all';

const RANK: Record<Privilege, number> = { read: 1, write: 2, all: 3 };

/** The tenant, if the user may use it; else 422 030010. */
export function requireTenant(catalog: Catalog, user: UserDef, tenant: string): TenantDef {
  const t = catalog.tenants.get(tenant);
  if (t === undefined || (!user.admin && !t.members.has(user.name))) {
    throw new UserError('tenantNotFound', `The tenant ${tenant} not found`);
  }
  return t;
}

/** The highest privilege `user` has on database `db` of tenant `t`. */
export function privilegeOn(user: UserDef, t: TenantDef, db: string): Privilege | undefined {
  if (user.admin) return 'all';
  const role = t.members.get(user.name);
  if (role === undefined) return undefined;
  if (role === 'owner') return 'all';
  if (role === 'member') return 'read';
  const custom = t.roles.get(role);
  if (custom === undefined) return undefined;
  let best: Privilege | undefined = custom.inherit === 'owner' ? 'all' : 'read';
  const granted = custom.privileges.get(db);
  if (granted !== undefined && RANK[granted] > RANK[best]) best = granted;
  return best;
}

/** Checks tenant membership, the privilege, and that the database exists (in that order). */
export function requireDatabaseAccess(catalog: Catalog, user: UserDef, tenant: string, db: string, need: Privilege): DatabaseDef {
  const t = requireTenant(catalog, user, tenant);
  const have = privilegeOn(user, t, db);
  if (have === undefined || RANK[have] < RANK[need]) {
    const what = need === 'all' ? 'All' : need === 'write' ? 'Write' : 'Read';
    throw new UserError('privilege', `Insufficient privileges, expected [${what} on database ${db} of tenant ${tenant}]`);
  }
  return catalog.requireDatabase(tenant, db);
}
