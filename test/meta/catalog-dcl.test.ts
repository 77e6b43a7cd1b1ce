// The catalog side of DCL (host/meta/catalog-dcl.ts) and its persistence: every change is
// checked before anything changes, saved durably, and read back by the next start; version 1
// catalogs still load; the version 2 golden file is read in every run.

import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_DATABASE_OPTIONS } from '../../host/core/schema.js';
import type { Catalog } from '../../host/meta/catalog.js';
import {
  addMemberDef,
  alterTenantDef,
  changePrivileges,
  checkDatabaseLimits,
  createRoleDef,
  createTenantDef,
  createUserDef,
  dropRoleDef,
  dropTenantDef,
  dropUserDef,
  parseDropAfter,
  removeMemberDef,
  renameUserDef,
  setMemberDef,
} from '../../host/meta/catalog-dcl.js';
import { createDatabaseDef, dropDatabaseDef } from '../../host/meta/catalog-ddl.js';
import { CatalogStore } from '../../host/meta/catalog-store.js';
import { catalogFile } from '../../host/storage/catalog-file.js';
import { parseLimiterConfig } from '../../host/meta/limiter-config.js';
import { openStore } from '../storage/support.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sundial-catalog-dcl-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const bootstrap = { rootPasswordHash: 'scrypt$1$1$1$AA==$AA==' };
const user = (c: Catalog, name: string): void =>
  void createUserDef(c, name, { passwordHash: '', admin: false, mustChangePassword: false, comment: '' });
const noOptions = { comment: null, dropAfter: null, limiter: null };

/** The tenant's members and roles as text, to compare whole states at once. */
function describeTenant(c: Catalog, name: string): string {
  const t = c.tenants.get(name);
  if (t === undefined) return 'none';
  const members = [...t.members].map(([u, r]) => `${u}:${r}`).join(',');
  const roles = [...t.roles]
    .map(([n, r]) => `${n}<${r.inherit ?? '-'}>{${[...r.privileges].map(([d, l]) => `${d}=${l}`).join(',')}}`)
    .join(',');
  return `members[${members}] roles[${roles}]`;
}

describe('catalog DCL', () => {
  it('saves tenants, members, roles, grants and users, and reads them back after a restart', async () => {
    const store = await CatalogStore.open(catalogFile(dir), bootstrap);
    const c = store.catalog;
    createTenantDef(c, 't1', {
      comment: 'c',
      dropAfter: '2h',
      limiter: parseLimiterConfig('{"object_config":null,"request_config":null}'),
    });
    createDatabaseDef(c, 't1', 'db1', { ...DEFAULT_DATABASE_OPTIONS });
    user(c, 'u1');
    user(c, 'u2');
    createRoleDef(c, 't1', 'r', null);
    changePrivileges(c, 't1', 'r', 'grant', [{ level: 'write', database: 'db1' }]);
    addMemberDef(c, 't1', 'u1', 'owner');
    addMemberDef(c, 't1', 'u2', 'r');
    await store.save();
    const again = await CatalogStore.open(catalogFile(dir), bootstrap);
    expect(describeTenant(again.catalog, 't1')).toBe('members[u1:owner,u2:r] roles[r<->{db1=write}]');
    expect(again.catalog.tenants.get('t1')).toMatchObject({
      comment: 'c',
      dropAfter: '2h',
      limiter: { object_config: null, request_config: null },
    });
    expect([...again.catalog.users.keys()]).toEqual(['root', 'u1', 'u2']);
  });

  it('reads a version 1 catalog (roles always inherit, no limiter) and writes version 6 on the next change', async () => {
    const v1 = {
      format: 'sundial-catalog',
      version: 1,
      nextId: 10,
      tenants: [
        {
          id: 1,
          name: 'cnosdb',
          comment: 'system tenant',
          members: { root: 'owner', u: 'r' },
          roles: { r: { inherit: 'member', privileges: { public: 'write' } } },
          options: {},
        },
      ],
      databases: [{ id: 2, tenant: 'cnosdb', name: 'public', options: { ...DEFAULT_DATABASE_OPTIONS }, tables: [] }],
      users: [
        { id: 3, name: 'root', passwordHash: 'x', admin: true, mustChangePassword: false, comment: 'system admin' },
        { id: 4, name: 'u', passwordHash: 'y', admin: false, mustChangePassword: false, comment: '' },
      ],
    };
    writeFileSync(join(dir, 'catalog.json'), JSON.stringify(v1));
    const store = await CatalogStore.open(catalogFile(dir), bootstrap);
    expect(describeTenant(store.catalog, 'cnosdb')).toBe('members[root:owner,u:r] roles[r<member>{public=write}]');
    expect(store.catalog.tenants.get('cnosdb')).toMatchObject({
      comment: 'system tenant',
      dropAfter: null,
      limiter: null,
    });
    expect(store.dirty).toBe(false);
    createRoleDef(store.catalog, 'cnosdb', 'bare', null);
    await store.save();
    const saved = JSON.parse(readFileSync(join(dir, 'catalog.json'), 'utf8')) as {
      version: number;
      tenants: Array<{ roles: Record<string, unknown> }>;
    };
    expect(saved.version).toBe(6);
    expect(saved.tenants[0]!.roles.bare).toEqual({ inherit: null, privileges: {} });
  });

  it("reads a version 4 catalog's users without a SCRAM verifier and keeps a version 5 verifier across a save", async () => {
    const user = (id: number, name: string, extra: object) => ({
      id,
      name,
      passwordHash: 'x',
      admin: false,
      mustChangePassword: false,
      comment: '',
      ...extra,
    });
    const doc = (version: number, users: object[]) => ({
      format: 'sundial-catalog',
      version,
      nextId: 9,
      pendingDrops: [],
      tenants: [],
      databases: [],
      users,
    });
    writeFileSync(
      join(dir, 'catalog.json'),
      JSON.stringify(doc(4, [user(1, 'old', { scramVerifier: 'SCRAM-SHA-256$1:c2FsdA==$eA==:eA==' })])),
    );
    expect((await CatalogStore.open(catalogFile(dir), bootstrap)).catalog.users.get('old')!.scramVerifier).toBe('');
    const verifier = 'SCRAM-SHA-256$4096:c2FsdA==$eA==:eA==';
    writeFileSync(join(dir, 'catalog.json'), JSON.stringify(doc(5, [user(1, 'new', { scramVerifier: verifier })])));
    const store = await CatalogStore.open(catalogFile(dir), bootstrap);
    store.catalog.changed();
    await store.save();
    expect((await CatalogStore.open(catalogFile(dir), bootstrap)).catalog.users.get('new')!.scramVerifier).toBe(
      verifier,
    );
    writeFileSync(join(dir, 'catalog.json'), JSON.stringify(doc(5, [user(1, 'bad', {})])));
    await expect(CatalogStore.open(catalogFile(dir), bootstrap)).rejects.toThrow(
      /catalog\.json at offset 0: user "bad": scramVerifier undefined/,
    );
  });

  it('refuses a version 1 catalog whose role inherits nothing (only version 2 may say so)', async () => {
    const bad = {
      format: 'sundial-catalog',
      version: 1,
      nextId: 3,
      tenants: [
        {
          id: 1,
          name: 'cnosdb',
          comment: '',
          members: {},
          roles: { r: { inherit: null, privileges: {} } },
          options: {},
        },
      ],
      databases: [],
      users: [],
    };
    writeFileSync(join(dir, 'catalog.json'), JSON.stringify(bad));
    await expect(CatalogStore.open(catalogFile(dir), bootstrap)).rejects.toThrow(
      /catalog\.json at offset 0: tenant "cnosdb": role "r" inherits null/,
    );
  });

  it('refuses a catalog with a privilege it does not know', async () => {
    const bad = {
      format: 'sundial-catalog',
      version: 2,
      nextId: 3,
      tenants: [
        {
          id: 1,
          name: 'cnosdb',
          comment: null,
          dropAfter: null,
          limiter: null,
          members: {},
          roles: { r: { inherit: null, privileges: { public: 'admin' } } },
        },
      ],
      databases: [],
      users: [],
    };
    writeFileSync(join(dir, 'catalog.json'), JSON.stringify(bad));
    await expect(CatalogStore.open(catalogFile(dir), bootstrap)).rejects.toThrow(
      /role "r" has privilege "admin" on "public"/,
    );
  });

  it("rewrites a version 3 catalog's drop_after texts with their old meaning (m and M were minutes)", async () => {
    const tenant = (id: number, name: string, dropAfter: string) => ({
      id,
      name,
      comment: null,
      dropAfter,
      limiter: null,
      members: {},
      roles: {},
    });
    const v3 = {
      format: 'sundial-catalog',
      version: 3,
      nextId: 9,
      pendingDrops: [],
      tenants: [
        tenant(1, 'cnosdb', '7'),
        tenant(2, 'a', '3H'),
        tenant(3, 'b', '5M'),
        tenant(4, 'c', '18446744073709551615d'),
        tenant(5, 'd', '2d'),
      ],
      databases: [],
      users: [],
    };
    writeFileSync(join(dir, 'catalog.json'), JSON.stringify(v3));
    const c = (await CatalogStore.open(catalogFile(dir), bootstrap)).catalog;
    expect(['cnosdb', 'a', 'b', 'c', 'd'].map((t) => c.tenants.get(t)!.dropAfter)).toEqual([
      '7d',
      '3h',
      '5m',
      'INF',
      '2d',
    ]);
  });

  it('reads the version 2 golden catalog', async () => {
    cpSync(new URL('../storage/golden/catalog-v2', import.meta.url).pathname, dir, { recursive: true });
    const store = await CatalogStore.open(catalogFile(dir), bootstrap);
    const c = store.catalog;
    expect(describeTenant(c, 'acme')).toBe(
      'members[alice:owner,bob:writer,carol:nothing] roles[writer<member>{metrics=write},nothing<->{logs=read,metrics=all}]',
    );
    expect(describeTenant(c, 'cnosdb')).toBe('members[root:owner,bob:member] roles[]');
    const acme = c.tenants.get('acme')!;
    expect(acme.dropAfter).toBe('7d');
    expect(acme.limiter?.object_config?.max_databases).toBe(3);
    expect(acme.limiter?.request_config?.http_writes?.remote_bucket).toEqual({
      max: 10,
      initial: 10,
      refill: 10,
      interval: 1000,
    });
    expect(acme.limiter?.request_config?.http_concurrent_queries).toBe(2);
    expect(c.databases('acme').map((d) => `${d.name}:${d.options.precision}`)).toEqual(['metrics:NS', 'logs:MS']);
    expect(
      [...c.users.values()].map(
        (u) => `${u.name}:${u.admin}:${u.mustChangePassword}:${u.passwordHash === '' ? 'nopw' : 'pw'}`,
      ),
    ).toEqual([
      'root:true:false:pw',
      'alice:false:false:pw',
      'bob:false:true:pw',
      'carol:false:false:nopw',
      'dave:true:false:pw',
    ]);
  });
});

describe('catalog DCL changes', () => {
  let c: Catalog;
  beforeEach(async () => {
    c = (await CatalogStore.open(catalogFile(dir), bootstrap)).catalog;
    createTenantDef(c, 't', noOptions);
    createDatabaseDef(c, 't', 'a', { ...DEFAULT_DATABASE_OPTIONS });
    createDatabaseDef(c, 't', 'b', { ...DEFAULT_DATABASE_OPTIONS });
    user(c, 'u');
    createRoleDef(c, 't', 'r', 'member');
    addMemberDef(c, 't', 'u', 'r');
  });

  /** Each refused change throws its CnosDB text and leaves the catalog as it was. */
  const refused: Array<[string, (c: Catalog) => unknown, RegExp]> = [
    ['a tenant that exists', (x) => createTenantDef(x, 't', noOptions), /^Meta: The tenant t already exists$/],
    [
      'a tenant named with a slash',
      (x) => createTenantDef(x, 'a/b', noOptions),
      /not supported keyword contains '\/': a\/b/,
    ],
    [
      'a bad drop_after',
      (x) => createTenantDef(x, 'x', { ...noOptions, dropAfter: '1Y' }),
      /^sql parser error: 1Y is not a valid duration or duration overflow$/,
    ],
    ['dropping the system tenant', (x) => dropTenantDef(x, 'cnosdb'), /Tenant "cnosdb" forbid drop/],
    ['a user that exists', (x) => user(x, 'u'), /^Meta: The user u already exists$/],
    ['dropping root', (x) => dropUserDef(x, 'root'), /User 'root' is prohibited from being dropped/],
    ['dropping an unknown user', (x) => dropUserDef(x, 'nobody'), /^Meta: The user nobody not found$/],
    ['renaming onto a user that exists', (x) => renameUserDef(x, 'u', 'root'), /^Meta: The user root already exists$/],
    [
      'a member that exists',
      (x) => addMemberDef(x, 't', 'u', 'owner'),
      /^Meta: The member u of tenant t already exists$/,
    ],
    [
      'a member of an unknown tenant',
      (x) => addMemberDef(x, 'nope', 'u', 'owner'),
      /^Meta: The tenant nope not found$/,
    ],
    [
      'a member with an unknown role',
      (x) => addMemberDef(x, 'cnosdb', 'u', 'ghost'),
      /^Meta: The role ghost not found$/,
    ],
    ['an unknown user as a member', (x) => addMemberDef(x, 't', 'ghost', 'owner'), /^Meta: The user ghost not found$/],
    [
      'setting the role of a non-member',
      (x) => setMemberDef(x, 'cnosdb', 'u', 'owner'),
      /^Meta: The member u of tenant cnosdb not found$/,
    ],
    [
      'removing a non-member',
      (x) => removeMemberDef(x, 'cnosdb', 'u'),
      /^Meta: The member u of tenant cnosdb not found$/,
    ],
    [
      'a role named like a system role',
      (x) => createRoleDef(x, 't', 'owner', null),
      /^Couldn't create a role with the same name as system role: owner$/,
    ],
    ['a role that exists', (x) => createRoleDef(x, 't', 'r', null), /^Meta: The role r already exists$/],
    ['dropping an unknown role', (x) => dropRoleDef(x, 't', 'ghost'), /^Meta: The role ghost not found$/],
    ['dropping a system role', (x) => dropRoleDef(x, 't', 'owner'), /^Couldn't Drop System Role owner$/],
    [
      'a database named like a system schema',
      (x) => createDatabaseDef(x, 't', 'Usage_Schema', { ...DEFAULT_DATABASE_OPTIONS }),
      /^Database "Usage_Schema" is a system schema and cannot be created$/,
    ],
    [
      'cluster_schema in the system tenant',
      (x) => createDatabaseDef(x, 'cnosdb', 'Cluster_Schema', { ...DEFAULT_DATABASE_OPTIONS }),
      /^Database "Cluster_Schema" is a system schema and cannot be created$/,
    ],
    [
      'a grant on an unknown database',
      (x) => changePrivileges(x, 't', 'r', 'grant', [{ level: 'read', database: 'zzz' }]),
      /^Meta: Database not found: "zzz"$/,
    ],
    [
      'a grant to an unknown role',
      (x) => changePrivileges(x, 't', 'ghost', 'grant', [{ level: 'read', database: 'a' }]),
      /^Meta: The role ghost not found$/,
    ],
    [
      'revoking what is only inherited',
      (x) => changePrivileges(x, 't', 'r', 'revoke', [{ level: 'read', database: 'a' }]),
      /^Meta: cannot revoke the privilege Read on database a of role r$/,
    ],
    [
      'a list of grants whose second is bad (the first is not applied either)',
      (x) =>
        changePrivileges(x, 't', 'r', 'grant', [
          { level: 'all', database: 'a' },
          { level: 'read', database: 'zzz' },
        ]),
      /Database not found: "zzz"/,
    ],
  ];
  for (const [name, change, message] of refused) {
    it(`refuses ${name} and changes nothing`, () => {
      const before = [
        describeTenant(c, 't'),
        describeTenant(c, 'cnosdb'),
        [...c.users.keys()].join(','),
        [...c.tenants.keys()].join(','),
      ];
      const version = c.version;
      expect(() => change(c)).toThrow(message);
      expect([
        describeTenant(c, 't'),
        describeTenant(c, 'cnosdb'),
        [...c.users.keys()].join(','),
        [...c.tenants.keys()].join(','),
      ]).toEqual(before);
      expect(c.version).toBe(version);
    });
  }

  it('grants keep the higher privilege; revokes lower or remove it', () => {
    const grant = (level: 'read' | 'write' | 'all', database = 'a'): void =>
      changePrivileges(c, 't', 'r', 'grant', [{ level, database }]);
    const revoke = (level: 'read' | 'write' | 'all', database = 'a'): void =>
      changePrivileges(c, 't', 'r', 'revoke', [{ level, database }]);
    grant('write');
    grant('read');
    expect(describeTenant(c, 't')).toContain('r<member>{a=write}');
    grant('all');
    revoke('write');
    expect(describeTenant(c, 't')).toContain('r<member>{a=read}');
    expect(() => revoke('write')).toThrow(/cannot revoke the privilege Write on database a of role r/);
    revoke('read');
    expect(describeTenant(c, 't')).toContain('r<member>{}');
  });

  it('drops a user from every tenant it belonged to; a dropped role leaves its members without one', () => {
    addMemberDef(c, 'cnosdb', 'u', 'member');
    dropRoleDef(c, 't', 'r');
    expect(describeTenant(c, 't')).toBe('members[u:r] roles[]');
    dropUserDef(c, 'u');
    expect(describeTenant(c, 't')).toBe('members[] roles[]');
    expect(describeTenant(c, 'cnosdb')).toBe('members[root:owner] roles[]');
  });

  it('renames a user together with its memberships', () => {
    renameUserDef(c, 'u', 'v');
    expect(c.users.has('u')).toBe(false);
    expect(c.users.get('v')?.name).toBe('v');
    expect(describeTenant(c, 't')).toBe('members[v:r] roles[r<member>{}]');
  });

  it('removes the grants on a dropped database, so a new one of the same name starts with none', () => {
    changePrivileges(c, 't', 'r', 'grant', [{ level: 'all', database: 'b' }]);
    dropDatabaseDef(c, 't', 'b');
    createDatabaseDef(c, 't', 'b', { ...DEFAULT_DATABASE_OPTIONS });
    expect(describeTenant(c, 't')).toBe('members[u:r] roles[r<member>{}]');
  });

  it('drops a tenant with its databases', () => {
    const dbs = dropTenantDef(c, 't');
    expect(dbs.map((d) => d.name)).toEqual(['a', 'b']);
    expect(c.tenants.has('t')).toBe(false);
    expect(c.databases('t')).toEqual([]);
  });

  it('sets and unsets tenant options', () => {
    alterTenantDef(c, 't', { comment: 'x', dropAfter: '3h' });
    expect(c.tenants.get('t')).toMatchObject({ comment: 'x', dropAfter: '3h' });
    alterTenantDef(c, 't', { comment: null });
    expect(c.tenants.get('t')).toMatchObject({ comment: null, dropAfter: '3h' });
  });

  it('enforces the object limits of the limiter', () => {
    const limiter = parseLimiterConfig(
      JSON.stringify({
        object_config: {
          max_users_number: 1,
          max_databases: 2,
          max_shard_number: 2,
          max_replicate_number: 1,
          max_retention_time: 30,
        },
      }),
    );
    alterTenantDef(c, 't', { limiter });
    user(c, 'w');
    expect(() => addMemberDef(c, 't', 'w', 'member')).toThrow(
      /tenant t has reached its limit of 1 members \(max_users_number\)/,
    );
    const ok = { ...DEFAULT_DATABASE_OPTIONS, ttlMs: 10 * 86_400_000 };
    expect(() => checkDatabaseLimits(c, 't', ok, true)).toThrow(
      /database number exceeds the limit of 2 \(max_databases\)/,
    );
    expect(() => checkDatabaseLimits(c, 't', ok, false)).not.toThrow();
    expect(() => checkDatabaseLimits(c, 't', { ...ok, shard: 3 }, false)).toThrow(
      /shard number 3 exceeds the limit of 2/,
    );
    expect(() => checkDatabaseLimits(c, 't', { ...ok, replica: 2 }, false)).toThrow(
      /replica number 2 exceeds the limit of 1/,
    );
    expect(() => checkDatabaseLimits(c, 't', { ...ok, ttlMs: null }, false)).toThrow(
      /TTL INF exceeds the limit of 30 days/,
    );
  });
});

describe('drop_after', () => {
  // CnosDB 2.4 reads it as a CnosDuration (core/durations.ts; test/core/durations.test.ts).
  const cases: Array<[string, string | RegExp]> = [
    ['7', '604800s'],
    ['7d', '604800s'],
    ['7m', '420s'],
    ['7h', '25200s'],
    ['1y', '31557600s'],
    ['0', '0s'],
    ['INF', 'INF'],
    ['18446744073709551615', 'INF'],
    ['18446744073709551615d', /^sql parser error: 18446744073709551615d is not a valid duration or duration overflow$/],
    ['-1d', /^sql parser error: -1d is not a valid duration or duration overflow$/],
    ['1Y', /^sql parser error: 1Y is not a valid duration or duration overflow$/],
    ['', /^sql parser error: {2}is not a valid duration or duration overflow$/],
  ];
  for (const [text, want] of cases) {
    it(`reads '${text}'`, () => {
      if (typeof want === 'string') {
        const d = parseDropAfter(text);
        expect(d.inf ? 'INF' : `${d.secs}s`).toBe(want);
      } else expect(() => parseDropAfter(text)).toThrow(want);
    });
  }
});

describe('_limiter', () => {
  const bucket = {
    remote_bucket: { max: 100, initial: 0, refill: 100, interval: 100 },
    local_bucket: { max: 100, initial: 0 },
  };
  it('reads CnosDB 2.4 keys and the 2.3 names as the http_ ones', () => {
    const l = parseLimiterConfig(
      JSON.stringify({ object_config: null, request_config: { coord_writes: bucket, data_in: bucket, queries: null } }),
    );
    expect(l.request_config?.coord_writes).toEqual(bucket);
    expect(l.request_config?.http_data_in).toEqual(bucket);
    expect(l.request_config?.http_queries).toBeNull();
    expect(Object.keys(l.request_config!)).toEqual([
      'coord_data_in',
      'coord_data_out',
      'coord_queries',
      'coord_writes',
      'http_data_in',
      'http_data_out',
      'http_queries',
      'http_writes',
    ]);
  });
  const bad: Array<[string, unknown, RegExp]> = [
    ['text that is not JSON', '{', /invalid _limiter: not JSON/],
    ['an unknown key', { object_config: null, request_config: null, extra: 1 }, /unknown key "extra" in the limiter/],
    [
      'an unknown request kind',
      { request_config: { http_writez: bucket } },
      /unknown key "http_writez" in request_config/,
    ],
    [
      'a legacy and a new name together',
      { request_config: { writes: bucket, http_writes: bucket } },
      /both writes and http_writes/,
    ],
    [
      'a negative count',
      { object_config: { max_databases: -1 } },
      /object_config.max_databases must be a non-negative integer, got -1/,
    ],
    [
      'a zero interval',
      { request_config: { http_queries: { ...bucket, remote_bucket: { ...bucket.remote_bucket, interval: 0 } } } },
      /interval must be at least 1/,
    ],
    [
      'a bucket without local_bucket',
      { request_config: { http_queries: { remote_bucket: bucket.remote_bucket } } },
      /http_queries.local_bucket must be an object/,
    ],
    [
      'zero concurrent queries',
      { request_config: { http_concurrent_queries: 0 } },
      /http_concurrent_queries must be at least 1/,
    ],
    ['an array', [], /want a JSON object/],
  ];
  for (const [name, value, message] of bad) {
    it(`refuses ${name} with 010009`, () => {
      let err: unknown;
      try {
        parseLimiterConfig(typeof value === 'string' ? value : JSON.stringify(value));
      } catch (e) {
        err = e;
      }
      expect(err).toMatchObject({ code: '010009', message: expect.stringMatching(message) });
    });
  }
});

describe('Storage.dropTenant', () => {
  it("deletes the data of the tenant's databases and keeps the tenant gone after a restart", async () => {
    const s = await openStore();
    try {
      await s.storage.changeCatalog((c) => createTenantDef(c, 't', noOptions));
      await s.storage.createDatabase('t', 'd', { ...DEFAULT_DATABASE_OPTIONS });
      const id = s.storage.catalog.requireDatabase('t', 'd').id;
      await s.storage.dropTenant('t');
      await s.reopen();
      expect(s.storage.catalog.tenants.has('t')).toBe(false);
      expect(s.storage.catalog.databases('t')).toEqual([]);
      expect(readdirSync(join(s.dir, 'db'))).not.toContain(String(id));
    } finally {
      await s.cleanup();
    }
  });
});
