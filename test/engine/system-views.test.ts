// The engine's side of the system views, session functions, `@@` variables and DCL, without a
// server: views are relations like any table (filters, joins, aggregates), schema views follow
// the session's authorize, views the host fills are empty without one, and DCL goes to the
// session's handler (010005 without one).

import { describe, expect, it } from 'vitest';
import { UserError } from '../../host/core/errors.js';
import type { DclStatement } from '../../host/engine/query.js';
import type { SystemInfo } from '../../host/engine/system/system-info.js';
import { testDb } from './support/run-sql.js';

async function setup() {
  const db = testDb();
  await db.exec(`CREATE DATABASE other;
CREATE TABLE cpu (usage DOUBLE, TAGS(host));
CREATE TABLE other.mem (free BIGINT)`);
  return db;
}

const hostInfo: SystemInfo = {
  members: () => [{ user: 'u', role: 'owner' }],
  roles: () => [
    { name: 'owner', type: 'system', inherit: null },
    { name: 'r', type: 'custom', inherit: 'NULL' },
  ],
  enabledRoles: () => ['owner'],
  databasePrivileges: () => [{ database: 'other', privilege: 'Read', role: 'r' }],
  queries: () => [
    {
      id: '7',
      type: 'batch',
      text: 'SELECT 1',
      userId: '1',
      user: 'u',
      tenantId: '2',
      tenant: 'cnosdb',
      database: 'public',
      state: 'SCHEDULING',
      durationS: 0.5,
      processedCount: 0,
      errorCount: 0,
    },
  ],
  users: () => [{ name: 'u', isAdmin: false, options: '{}' }],
  tenants: () => [{ name: 'cnosdb', options: '{}' }],
};

describe('system views in the engine', () => {
  it('are relations: filtered, aggregated and joined with each other', async () => {
    const db = await setup();
    expect(
      (await db.run('SELECT table_database, table_name FROM information_schema.tables ORDER BY table_name')).rows,
    ).toEqual(['public | cpu', 'other | mem']);
    expect(
      (
        await db.run(
          'SELECT table_name, count(*) AS n FROM information_schema.columns GROUP BY table_name ORDER BY table_name',
        )
      ).rows,
    ).toEqual(['cpu | 3', 'mem | 2']);
    expect(
      (
        await db.run(
          "SELECT c.column_name FROM information_schema.tables t JOIN information_schema.columns c ON t.table_name = c.table_name WHERE t.table_database = 'other' ORDER BY c.ordinal_position",
        )
      ).rows,
    ).toEqual(['time', 'free']);
    expect((await db.run("SELECT * FROM INFORMATION_SCHEMA.DATABASES WHERE database_name = 'other'")).columns).toEqual([
      'tenant_name',
      'database_name',
      'ttl',
      'shard',
      'vnode_duration',
      'replica',
      'precision',
      'max_memcache_size',
      'memcache_partitions',
      'wal_max_file_size',
      'wal_sync',
      'strict_write',
      'max_cache_readers',
    ]);
  });

  it('list only the databases the session may read', async () => {
    const db = await setup();
    const authorize = (database: string): void => {
      if (database !== 'other') throw new UserError('privilege', `no ${database}`);
    };
    expect((await db.run('SELECT database_name FROM information_schema.databases', { authorize })).rows).toEqual([
      'other',
    ]);
    expect((await db.run('SELECT DISTINCT table_name FROM information_schema.columns', { authorize })).rows).toEqual([
      'mem',
    ]);
    // SHOW DATABASES asks Read on every database first (ALL_DATABASES), as CnosDB does.
    await expect(db.run('SHOW DATABASES', { authorize })).rejects.toThrow('no *');
    const everyDatabase = (database: string): void => {
      if (database !== 'other' && database !== '*') throw new UserError('privilege', `no ${database}`);
    };
    expect((await db.run('SHOW DATABASES', { authorize: everyDatabase })).rows).toEqual(['other']);
  });

  it('show the host lists, or nothing without a host', async () => {
    const db = await setup();
    expect((await db.run('SELECT * FROM information_schema.members')).rows).toEqual([]);
    expect((await db.run('SHOW QUERIES', { system: hostInfo })).rows).toEqual([
      '7 | batch | SELECT 1 | u | cnosdb | public | SCHEDULING | 0.5',
    ]);
    expect(
      (await db.run('SELECT role_name, inherit_role FROM information_schema.roles', { system: hostInfo })).rows,
    ).toEqual(['owner | NULL', 'r | NULL']);
    expect((await db.run('SELECT * FROM cluster_schema.users', { system: hostInfo })).rows).toEqual(['u | false | {}']);
    expect((await db.run('SELECT * FROM information_schema.database_privileges', { system: hostInfo })).rows).toEqual([
      'cnosdb | other | Read | r',
    ]);
  });

  it('answer session functions and variables, and refuse an unknown view', async () => {
    const db = await setup();
    const r = await db.run(
      'SELECT current_user(), current_tenant(), current_database(), current_role(), @@server_version',
      { role: 'r1', variables: { server_version: '9.9.9' } },
    );
    expect(r.columns).toEqual([
      'current_user()',
      'current_tenant()',
      'current_database()',
      'current_role()',
      '@@server_version',
    ]);
    expect(r.rows).toEqual(['root | cnosdb | public | r1 | 9.9.9']);
    expect((await db.run('SELECT current_role()')).rows).toEqual(['NULL']);
    expect(await db.error('SELECT @@server_version')).toBe(
      'Datafusion: Error during planning: variable @@server_version is not defined',
    );
    // User variables have no values (DataFusion's text, the name as a Rust list); `@` alone is one.
    expect(await db.error('SELECT @x')).toBe(
      'Datafusion: Error during planning: variable ["@x"] has no type information',
    );
    expect(await db.error('SELECT left(current_user(), @)')).toBe(
      'Datafusion: Error during planning: variable ["@"] has no type information',
    );
    expect(await db.error('SELECT * FROM information_schema.nope')).toMatch(/Database not found: "information_schema"/);
  });

  it('hands DCL to the session, or answers 010005 without a handler', async () => {
    const db = await setup();
    const seen: string[] = [];
    const dcl = async (s: DclStatement): Promise<void> => void seen.push(s.kind);
    await db.run("CREATE USER u WITH PASSWORD = 'p'", { dcl });
    await db.run('GRANT READ ON DATABASE other TO ROLE r', { dcl });
    expect(seen).toEqual(['createUser', 'grant']);
    expect(await db.error('CREATE TENANT t')).toBe('This feature is not implemented: CREATE TENANT statements');
  });
});
