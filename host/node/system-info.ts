// The host's side of the system views (engine/system/system-info.ts) over the storage catalog and
// the query registry, filtered for one user in one tenant with CnosDB's visibility rules
// (query_server/query/src/metadata/*/factory/*.rs):
// - members: every member of the tenant, to every member;
// - roles and every grant (database_privileges): owners and admins; a member sees its own custom
//   role's grants only, and no roles;
// - queries: admins all, owners the tenant's, others their own in the tenant;
// - cluster_schema.users and .tenants: admins only, password hashes masked;
// - resource_status: admins all, others their tenant's rows of databases they may read.

import type { SystemInfo } from '../engine/system/system-info.js';
import {
  type Catalog,
  has,
  isTenantOwner,
  parseDropAfter,
  PRIVILEGE_NAMES,
  roleIn,
  ROOT_USER,
  type TenantDef,
  type UserDef,
} from '../meta/index.js';
import type { QueryRegistry } from '../server/index.js';

const byName =
  <T>(key: (x: T) => string) =>
  (a: T, b: T): number =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;

/**
 * CnosDB's user_options JSON: the hash masked, other options only when set. Root's shows
 * must_change_password: CnosDB's init_meta creates root with must_change_password(true) and
 * "system admin", and nothing clears it (CnosDB does not enforce the flag, and ALTER USER merges
 * options; its e2e test_sql_client_alter_user reads the row so). Sundial never makes root change
 * its password (it would lock the server out), so the stored flag stays false and only shows.
 */
export function userOptionsJson(u: UserDef): string {
  const o: Record<string, unknown> = { hash_password: '*****' };
  if (u.mustChangePassword || u.name === ROOT_USER) o.must_change_password = true;
  if (u.comment !== '') o.comment = u.comment;
  if (u.admin && u.name !== ROOT_USER) o.granted_admin = true;
  return JSON.stringify(o);
}

/** CnosDB's tenant_options JSON (TenantOptions serialised): comment, limiter_config, drop_after, tenant_is_hidden. */
export function tenantOptionsJson(t: TenantDef): string {
  let dropAfter = 'null';
  if (t.dropAfter !== null) {
    const d = parseDropAfter(t.dropAfter);
    // CnosDuration serialised; secs is a u64: written as digits, not through a double.
    dropAfter = `{"duration":{"secs":${d.secs},"nanos":${d.nanos}},"is_inf":${d.inf}}`;
  }
  return `{"comment":${JSON.stringify(t.comment)},"limiter_config":${JSON.stringify(t.limiter)},"drop_after":${dropAfter},"tenant_is_hidden":false}`;
}

export function systemInfo(catalog: Catalog, registry: QueryRegistry, user: UserDef, t: TenantDef): SystemInfo {
  const owner = isTenantOwner(user, t);
  const role = roleIn(user, t);
  return {
    members: () => [...t.members].map(([u, r]) => ({ user: u, role: r })).sort(byName((m) => m.user)),
    roles: () => {
      if (!owner) return [];
      const custom = [...t.roles]
        .map(([name, r]) => ({ name, type: 'custom' as const, inherit: r.inherit ?? 'NULL' }))
        .sort(byName((r) => r.name));
      return [
        { name: 'owner', type: 'system' as const, inherit: null },
        { name: 'member', type: 'system' as const, inherit: null },
        ...custom,
      ];
    },
    // An admin's session has no role (current_role() is NULL there too), as in CnosDB.
    enabledRoles: () => (user.admin || role === undefined ? [] : [role]),
    databasePrivileges: () => {
      const roles = owner
        ? [...t.roles]
        : role !== undefined && t.roles.has(role)
          ? [[role, t.roles.get(role)!] as const]
          : [];
      const out = roles.flatMap(([name, r]) =>
        [...r.privileges].map(([database, level]) => ({ database, privilege: PRIVILEGE_NAMES[level], role: name })),
      );
      return out.sort((a, b) => byName<typeof a>((x) => x.role)(a, b) || byName<typeof a>((x) => x.database)(a, b));
    },
    queries: () =>
      registry.list((q) => user.admin || (q.tenant.name === t.name && (owner || q.user.name === user.name))),
    users: () =>
      user.admin
        ? [...catalog.users.values()]
            .sort(byName((u) => u.name))
            .map((u) => ({ name: u.name, isAdmin: u.admin, options: userOptionsJson(u) }))
        : [],
    tenants: () =>
      user.admin
        ? [...catalog.tenants.values()]
            .sort(byName((x) => x.name))
            .map((x) => ({ name: x.name, options: tenantOptionsJson(x) }))
        : [],
    // CnosDB's filter: a row of the session's tenant (admins: every tenant), and for a database
    // or table, Read on that database; a tenant's own row is for its owners.
    resourceStatus: () =>
      [...catalog.resources.values()]
        .filter((r) => {
          if (user.admin) return true;
          if (r.names[0] !== t.name) return false;
          const database = r.names[1];
          return database === undefined ? owner : has(user, t, database, 'read');
        })
        .sort(byName((r) => r.name))
        .map((r) => ({
          time: new Date(r.timeMs).toISOString().slice(0, 19).replace('T', ' '),
          name: r.name,
          action: r.action,
          tryCount: String(r.tryCount),
          status: r.status,
          comment: r.comment,
        })),
  };
}
