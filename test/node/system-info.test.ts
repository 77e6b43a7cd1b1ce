// Who sees what in the system views (host/node/system-info.ts over a real catalog and query
// registry, in process): running queries by user and tenant, roles and grants for owners only,
// admin-only cluster views, and passwords masked in the statement text.

import { describe, expect, it } from 'vitest';
import { Catalog, type TenantDef, type UserDef } from '../../host/meta/catalog.js';
import {
  addMemberDef,
  changePrivileges,
  createRoleDef,
  createTenantDef,
  createUserDef,
} from '../../host/meta/catalog-dcl.js';
import { createDatabaseDef } from '../../host/meta/catalog-ddl.js';
import { DEFAULT_DATABASE_OPTIONS } from '../../host/core/schema.js';
import { maskSecrets, QueryRegistry } from '../../host/server/query-registry.js';
import { systemInfo } from '../../host/node/system-info.js';

function setup(): {
  catalog: Catalog;
  registry: QueryRegistry;
  users: Record<string, UserDef>;
  tenants: Record<string, TenantDef>;
} {
  const catalog = new Catalog();
  const none = { comment: null, dropAfter: null, limiter: null };
  const tenants = { a: createTenantDef(catalog, 'a', none), b: createTenantDef(catalog, 'b', none) };
  createDatabaseDef(catalog, 'a', 'd1', { ...DEFAULT_DATABASE_OPTIONS });
  createDatabaseDef(catalog, 'a', 'd2', { ...DEFAULT_DATABASE_OPTIONS });
  const user = (name: string, admin = false): UserDef =>
    createUserDef(catalog, name, { passwordHash: '', admin, mustChangePassword: false, comment: '' });
  const users = {
    admin: user('admin', true),
    owner: user('owner'),
    m1: user('m1'),
    m2: user('m2'),
    other: user('other'),
  };
  createRoleDef(catalog, 'a', 'r1', 'member');
  createRoleDef(catalog, 'a', 'r2', null);
  changePrivileges(catalog, 'a', 'r1', 'grant', [{ level: 'write', database: 'd1' }]);
  changePrivileges(catalog, 'a', 'r2', 'grant', [{ level: 'all', database: 'd2' }]);
  addMemberDef(catalog, 'a', 'owner', 'owner');
  addMemberDef(catalog, 'a', 'm1', 'r1');
  addMemberDef(catalog, 'a', 'm2', 'member');
  addMemberDef(catalog, 'b', 'other', 'owner');
  const registry = new QueryRegistry(() => 5000);
  for (const [u, t] of [
    ['m1', 'a'],
    ['m2', 'a'],
    ['owner', 'a'],
    ['other', 'b'],
  ] as const) {
    registry.register({
      text: `SELECT '${u}'`,
      user: { id: users[u].id, name: u },
      tenant: { id: tenants[t].id, name: t },
      database: 'd1',
    });
  }
  return { catalog, registry, users, tenants };
}

describe('system views: who sees what', () => {
  it('shows running queries to admins (all), owners (their tenant) and others (their own)', () => {
    const { catalog, registry, users, tenants } = setup();
    const seen = (u: keyof typeof users, t: keyof typeof tenants): string[] =>
      systemInfo(catalog, registry, users[u], tenants[t])
        .queries()
        .map((q) => `${q.tenant}:${q.user}`);
    expect(seen('admin', 'a')).toEqual(['a:m1', 'a:m2', 'a:owner', 'b:other']);
    expect(seen('owner', 'a')).toEqual(['a:m1', 'a:m2', 'a:owner']);
    expect(seen('m1', 'a')).toEqual(['a:m1']);
    expect(seen('other', 'b')).toEqual(['b:other']);
  });

  it('shows roles and every grant to owners, a member only its own role and grants', () => {
    const { catalog, registry, users, tenants } = setup();
    const owner = systemInfo(catalog, registry, users.owner, tenants.a);
    const m1 = systemInfo(catalog, registry, users.m1, tenants.a);
    const m2 = systemInfo(catalog, registry, users.m2, tenants.a);
    expect(owner.roles().map((r) => `${r.name}/${r.type}/${r.inherit}`)).toEqual([
      'owner/system/null',
      'member/system/null',
      'r1/custom/member',
      'r2/custom/NULL',
    ]);
    expect(m1.roles()).toEqual([]);
    expect(owner.databasePrivileges().map((p) => `${p.role}:${p.database}:${p.privilege}`)).toEqual([
      'r1:d1:Write',
      'r2:d2:All',
    ]);
    expect(m1.databasePrivileges().map((p) => `${p.role}:${p.database}:${p.privilege}`)).toEqual(['r1:d1:Write']);
    expect(m2.databasePrivileges()).toEqual([]);
    expect(m1.enabledRoles()).toEqual(['r1']);
    expect(m1.members().map((m) => `${m.user}:${m.role}`)).toEqual(['m1:r1', 'm2:member', 'owner:owner']);
  });

  it('shows users and tenants to admins only', () => {
    const { catalog, registry, users, tenants } = setup();
    expect(systemInfo(catalog, registry, users.owner, tenants.a).users()).toEqual([]);
    expect(systemInfo(catalog, registry, users.owner, tenants.a).tenants()).toEqual([]);
    expect(
      systemInfo(catalog, registry, users.admin, tenants.a)
        .users()
        .map((u) => `${u.name}:${u.isAdmin}:${u.options}`),
    ).toEqual([
      'admin:true:{"hash_password":"*****","granted_admin":true}',
      'm1:false:{"hash_password":"*****"}',
      'm2:false:{"hash_password":"*****"}',
      'other:false:{"hash_password":"*****"}',
      'owner:false:{"hash_password":"*****"}',
    ]);
    expect(
      systemInfo(catalog, registry, users.admin, tenants.a)
        .tenants()
        .map((t) => t.name),
    ).toEqual(['a', 'b']);
  });
});

describe('maskSecrets', () => {
  const cases: Array<[string, string]> = [
    ["CREATE USER u WITH PASSWORD = 'secret'", "CREATE USER u WITH PASSWORD = '*****'"],
    ["alter user u set password='it''s'", "alter user u set password='*****'"],
    [
      "CREATE USER u WITH password 'a', comment = 'password'",
      "CREATE USER u WITH password '*****', comment = 'password'",
    ],
    ["SELECT 'password'", "SELECT 'password'"],
    [
      "COPY INTO t FROM 's3://b/k' CONNECTION = (region = 'r', access_key_id = 'AK', secret_key = 'SK', token = 'TK')",
      "COPY INTO t FROM 's3://b/k' CONNECTION = (region = 'r', access_key_id = 'AK', secret_key = '*****', token = '*****')",
    ],
    [
      "CREATE EXTERNAL TABLE e STORED AS CSV LOCATION 's3://b/' OPTIONS (region 'r', SECRET_KEY 'SK')",
      "CREATE EXTERNAL TABLE e STORED AS CSV LOCATION 's3://b/' OPTIONS (region 'r', SECRET_KEY '*****')",
    ],
    ["SELECT my_token FROM t WHERE x = 'token'", "SELECT my_token FROM t WHERE x = 'token'"],
  ];
  for (const [sql, want] of cases) {
    it(`masks ${JSON.stringify(sql)}`, () => {
      expect(maskSecrets(sql)).toBe(want);
    });
  }

  it('registers the masked text', () => {
    const registry = new QueryRegistry(() => 0);
    const { done } = registry.register({
      text: "CREATE USER x WITH PASSWORD = 'hunter2'",
      user: { id: 1, name: 'root' },
      tenant: { id: 1, name: 'cnosdb' },
      database: 'public',
    });
    expect(registry.list(() => true).map((q) => q.text)).toEqual(["CREATE USER x WITH PASSWORD = '*****'"]);
    done();
    expect(registry.size).toBe(0);
  });
});
