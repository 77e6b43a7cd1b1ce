// DCL over HTTP: tenants, users, members, roles and grants with CnosDB's texts and statuses; the
// login cache forgets a changed password at once; must_change_password lets through only the
// change; everything survives a restart; the system views and session functions show what the
// user may see.

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, writeLp, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

let server: TestServer;

function sql(
  text: string,
  options: { user?: string; password?: string; tenant?: string; db?: string; accept?: string } = {},
): Promise<HttpResponse> {
  const q = `tenant=${options.tenant ?? 'cnosdb'}&db=${options.db ?? 'public'}`;
  return http(server.url, `/api/v1/sql?${q}`, {
    method: 'POST',
    body: text,
    auth: { user: options.user ?? 'root', password: options.password ?? '' },
    ...(options.accept === undefined ? {} : { headers: { accept: options.accept } }),
  });
}

async function ok(text: string, options: Parameters<typeof sql>[1] = {}): Promise<string> {
  const r = await sql(text, options);
  expect(r.status, `${text}: ${r.text}`).toBe(200);
  return r.text;
}

async function fails(
  text: string,
  status: number,
  code: string,
  message: RegExp | string,
  options: Parameters<typeof sql>[1] = {},
): Promise<void> {
  const r = await sql(text, options);
  expect(r.status, `${text}: ${r.text}`).toBe(status);
  const body = JSON.parse(r.text) as { error_code: string; error_message: string };
  expect(body.error_code).toBe(code);
  if (typeof message === 'string') expect(body.error_message).toBe(message);
  else expect(body.error_message).toMatch(message);
}

beforeAll(async () => {
  server = await startServer({ inProcess: true });
});

afterAll(async () => {
  await server?.stop();
  server?.cleanup();
});

describe('DCL statements', () => {
  it('answers CnosDB texts for what exists, what does not, and bad options', async () => {
    await ok('CREATE TENANT t1');
    await ok('CREATE TENANT IF NOT EXISTS t1');
    await ok("CREATE USER u1 WITH PASSWORD = 'p1'");
    await ok('CREATE USER IF NOT EXISTS u1');
    await fails('CREATE TENANT t1', 422, '030009', 'Meta: The tenant t1 already exists');
    await fails('CREATE USER u1', 422, '030007', 'Meta: The user u1 already exists');
    await fails('DROP TENANT nope', 422, '030010', 'Meta: The tenant nope not found');
    await ok('DROP TENANT IF EXISTS nope');
    await fails('DROP USER nope', 422, '030008', 'Meta: The user nope not found');
    await fails('ALTER TENANT t1 ADD USER nope AS member', 422, '030008', 'Meta: The user nope not found');
    await fails('ALTER TENANT t1 ADD USER u1 AS ghost', 422, '030006', 'Meta: The role ghost not found');
    await ok('ALTER TENANT t1 ADD USER u1 AS member');
    await fails(
      'ALTER TENANT t1 ADD USER u1 AS owner',
      422,
      '030001',
      'Meta: The member u1 of tenant t1 already exists',
    );
    await fails('ALTER TENANT t1 REMOVE USER root', 422, '030002', 'Meta: The member root of tenant t1 not found');
    await fails('CREATE ROLE r3 INHERIT r1', 422, '010003', 'Semantic error: Expected [owner,member], found r1');
    await fails(
      'ALTER TENANT t1 SET tenant_is_hidden = true',
      422,
      '010009',
      'sql parser error: Expected option [comment], [_limiter], [drop_after] found [tenant_is_hidden]',
    );
    await fails(
      "CREATE USER u9 WITH colour = 'red'",
      422,
      '010009',
      /Expected option \[password\], \[must_change_password\], \[rsa_public_key\], \[comment\], \[granted_admin\] found \[colour\]/,
    );
    await fails(
      "CREATE TENANT t6 WITH drop_after = '1Y'",
      422,
      '010009',
      'sql parser error: 1Y is not a valid duration or duration overflow',
    );
    await fails(
      'ALTER TENANT t1 SET _limiter = \'{"bogus":1}\'',
      422,
      '010009',
      /invalid _limiter: unknown key "bogus"/,
    );
    await fails('CREATE TENANT t7 WITH comment', 422, '010009', /Expected a value, found: EOF/);
    await fails('DROP USER root', 422, '010074', "User 'root' is prohibited from being dropped");
    await fails('DROP TENANT cnosdb', 422, '010064', 'Tenant "cnosdb" forbid drop');
    await fails('DROP DATABASE public', 422, '010065', 'Database "public" forbid drop');
    await fails(
      `ALTER TENANT cnosdb SET _limiter = '{"request_config":{"http_queries":{"remote_bucket":{"max":1,"initial":1,"refill":1,"interval":100000},"local_bucket":{"max":1,"initial":1}}}}'`,
      422,
      '010075',
      'Tenant cnosdb cannot be restricted',
    );
    await fails(
      "DROP TENANT t1 AFTER '-1d'",
      422,
      '010009',
      'sql parser error: -1d is not a valid duration or duration overflow',
    );
    await fails("CREATE USER u8 WITH rsa_public_key = 'k'", 422, '010005', /RSA public key/);
    await fails('REVOKE READ ON DATABASE public FROM ROLE ghost', 422, '030006', 'Meta: The role ghost not found');
  });

  it("shows tenants' options and users' options (hash masked) to admins, as CnosDB's JSON", async () => {
    await ok("CREATE TENANT t_opts WITH comment 'first', drop_after = '7d'");
    await ok(
      'ALTER TENANT t_opts SET _limiter = \'{"object_config":{"max_users_number":1,"max_databases":3,"max_shard_number":2,"max_replicate_number":2,"max_retention_time":30},"request_config":null}\'',
    );
    expect(
      await ok("SELECT tenant_options FROM cluster_schema.tenants WHERE tenant_name = 't_opts'", {
        accept: 'application/json',
      }),
    ).toBe(
      JSON.stringify([
        {
          tenant_options:
            '{"comment":"first","limiter_config":{"object_config":{"max_users_number":1,"max_databases":3,"max_shard_number":2,"max_replicate_number":2,"max_retention_time":30},"request_config":null},"drop_after":{"duration":{"secs":604800,"nanos":0},"is_inf":false},"tenant_is_hidden":false}',
        },
      ]),
    );
    await ok('ALTER TENANT t_opts UNSET comment');
    await ok('ALTER TENANT t_opts UNSET _limiter');
    expect(
      await ok("SELECT tenant_options FROM cluster_schema.tenants WHERE tenant_name = 't_opts'", {
        accept: 'application/json',
      }),
    ).toBe(
      JSON.stringify([
        {
          tenant_options:
            '{"comment":null,"limiter_config":null,"drop_after":{"duration":{"secs":604800,"nanos":0},"is_inf":false},"tenant_is_hidden":false}',
        },
      ]),
    );
    await ok("CREATE USER u_opts WITH PASSWORD = 'x', MUST_CHANGE_PASSWORD = true, COMMENT = 'abc'");
    await ok('ALTER USER u_opts SET granted_admin = true');
    expect(await ok("SELECT * FROM cluster_schema.users WHERE user_name = 'u_opts'")).toBe(
      'user_name,is_admin,user_options\nu_opts,true,"{""hash_password"":""*****"",""must_change_password"":true,""comment"":""abc"",""granted_admin"":true}"\n',
    );
    // Root's row as CnosDB's init_meta writes it (its e2e test_sql_client_alter_user), also after
    // root changed its password: CnosDB keeps the flag and never enforces it.
    const rootRow =
      'user_name,is_admin,user_options\nroot,true,"{""hash_password"":""*****"",""must_change_password"":true,""comment"":""system admin""}"\n';
    expect(await ok("SELECT * FROM cluster_schema.users WHERE user_name = 'root'")).toBe(rootRow);
    await ok("ALTER USER root SET PASSWORD = 'changed'");
    expect(await ok("SELECT * FROM cluster_schema.users WHERE user_name = 'root'", { password: 'changed' })).toBe(
      rootRow,
    );
    await ok("ALTER USER root SET PASSWORD = ''", { password: 'changed' });
  });

  it("takes CnosDB 2.4's limiter syntax and _limiter JSON in CREATE and ALTER TENANT", async () => {
    // parse_tenant_with_options: `object_config k = v ...`, `<bucket> remote_x = v local_x = v ...`.
    await ok(
      "CREATE TENANT t_lim WITH COMMENT = 'limited', drop_after = '1d', object_config max_users_number = 1 max_databases = 3 max_shard_number = 2 max_replicate_number = 2 max_retention_time = 30, " +
        'coord_data_in remote_max = 100 remote_initial = 0 remote_refill = 100 remote_interval = 100 local_max = 100 local_initial = 0',
    );
    const options = async (): Promise<string> =>
      JSON.parse(
        await ok("SELECT tenant_options FROM cluster_schema.tenants WHERE tenant_name = 't_lim'", {
          accept: 'application/json',
        }),
      )[0].tenant_options;
    const bucket =
      '{"remote_bucket":{"max":100,"initial":0,"refill":100,"interval":100},"local_bucket":{"max":100,"initial":0}}';
    const nulls = (except: string, value: string): string =>
      [
        'coord_data_in',
        'coord_data_out',
        'coord_queries',
        'coord_writes',
        'http_data_in',
        'http_data_out',
        'http_queries',
        'http_writes',
      ]
        .map((k) => `"${k}":${k === except ? value : 'null'}`)
        .join(',');
    expect(await options()).toBe(
      `{"comment":"limited","limiter_config":{"object_config":{"max_users_number":1,"max_databases":3,"max_shard_number":2,"max_replicate_number":2,"max_retention_time":30},"request_config":{${nulls('coord_data_in', bucket)}}},"drop_after":{"duration":{"secs":86400,"nanos":0},"is_inf":false},"tenant_is_hidden":false}`,
    );
    // SET replaces the whole limiter, as CnosDB's one _limiter option does.
    await ok(
      'ALTER TENANT t_lim SET http_writes remote_max = 100 remote_initial = 0 remote_refill = 100 remote_interval = 100 local_max = 100 local_initial = 0',
    );
    expect(await options()).toBe(
      `{"comment":"limited","limiter_config":{"object_config":null,"request_config":{${nulls('http_writes', bucket)}}},"drop_after":{"duration":{"secs":86400,"nanos":0},"is_inf":false},"tenant_is_hidden":false}`,
    );
    await ok('ALTER TENANT t_lim SET _limiter = \'{"object_config":{"max_databases":7}}\'');
    expect(await options()).toBe(
      '{"comment":"limited","limiter_config":{"object_config":{"max_users_number":null,"max_databases":7,"max_shard_number":null,"max_replicate_number":null,"max_retention_time":null},"request_config":null},"drop_after":{"duration":{"secs":86400,"nanos":0},"is_inf":false},"tenant_is_hidden":false}',
    );
    await fails(
      "ALTER TENANT t_lim SET comment = 'x', object_config max_databases = 1",
      422,
      '010009',
      'sql parser error: Cannot set multiple options (comment, drop_after, _limiter) at the same time',
    );
    await fails(
      'ALTER TENANT t_lim SET object_config max_databases = -1',
      422,
      '010009',
      'sql parser error: max_databases cannot be negative',
    );
  });

  it('lets a user change its own password; the old one stops working at once (the login cache forgets it)', async () => {
    await ok("CREATE USER pw WITH PASSWORD = 'first'");
    await ok('ALTER TENANT cnosdb ADD USER pw AS member');
    await ok('SELECT 1', { user: 'pw', password: 'first' });
    await ok('SELECT 1', { user: 'pw', password: 'first' });
    await ok("ALTER USER pw SET PASSWORD = 'second'", { user: 'pw', password: 'first' });
    expect((await sql('SELECT 1', { user: 'pw', password: 'first' })).status).toBe(401);
    await ok('SELECT 1', { user: 'pw', password: 'second' });
    // An admin's change works the same way.
    await ok("ALTER USER pw SET PASSWORD = 'third'");
    expect((await sql('SELECT 1', { user: 'pw', password: 'second' })).status).toBe(401);
    await ok('SELECT 1', { user: 'pw', password: 'third' });
    // A user may not change another user, nor make itself an admin.
    await fails(
      "ALTER USER root SET PASSWORD = 'x'",
      422,
      '010004',
      'Insufficient privileges, expected [maintainer for all users]',
      { user: 'pw', password: 'third' },
    );
    await fails(
      'ALTER USER pw SET granted_admin = true',
      422,
      '010004',
      'Insufficient privileges, expected [maintainer for system]',
      { user: 'pw', password: 'third' },
    );
  });

  it('gives a user created without a password the empty one, until it sets one', async () => {
    await ok('CREATE USER nopw');
    await ok('ALTER TENANT cnosdb ADD USER nopw AS member');
    expect((await sql('SELECT 1', { user: 'nopw', password: 'guess' })).status).toBe(401);
    await ok('SELECT 1', { user: 'nopw', password: '' });
    await ok("ALTER USER nopw SET PASSWORD = 'now'", { user: 'nopw', password: '' });
    expect((await sql('SELECT 1', { user: 'nopw', password: '' })).status).toBe(401);
    await ok('SELECT 1', { user: 'nopw', password: 'now' });
  });

  it('lets a user that must change its password do that and nothing else', async () => {
    await ok("CREATE USER mc WITH PASSWORD = 'temp', MUST_CHANGE_PASSWORD = true");
    await ok('ALTER TENANT cnosdb ADD USER mc AS owner');
    const auth = { user: 'mc', password: 'temp' };
    await fails('SELECT 1', 422, '010004', 'Insufficient privileges, expected [change password]', auth);
    const write = await writeLp(server.url, 'm v=1 1', 'db=public', { auth });
    expect([write.status, write.headers['x-sundial-error-code']]).toEqual([422, '010004']);
    await fails(
      "ALTER USER root SET PASSWORD = 'x'",
      422,
      '010004',
      'Insufficient privileges, expected [change password]',
      auth,
    );
    await ok("ALTER USER mc SET PASSWORD = 'final'", auth);
    await ok('SELECT 1', { user: 'mc', password: 'final' });
  });

  it('keeps root for root: another admin may not change it', async () => {
    await ok("CREATE USER admin2 WITH PASSWORD = 'a2', GRANTED_ADMIN = true");
    const auth = { user: 'admin2', password: 'a2' };
    await fails(
      "ALTER USER root SET comment = 'x'",
      422,
      '010004',
      'Insufficient privileges, expected [root user]',
      auth,
    );
    await fails(
      'ALTER USER root SET granted_admin = false',
      422,
      '010004',
      'Insufficient privileges, expected [root user]',
      auth,
    );
    // Not even root may change root's admin right, either way (CnosDB's alter_user case).
    await fails(
      'ALTER USER root SET granted_admin = true',
      422,
      '010024',
      'Invalid parameter : The root user does not support changing granted_admin',
    );
    await fails(
      'ALTER USER root SET granted_admin = false',
      422,
      '010024',
      'Invalid parameter : The root user does not support changing granted_admin',
    );
    // An admin needs no membership: it may act in any tenant.
    await ok('CREATE TENANT by_admin2', auth);
    await ok('CREATE DATABASE d', { ...auth, tenant: 'by_admin2' });
  });

  it("lets a tenant's owner change its comment and drop_after but not its _limiter, and a user rename itself", async () => {
    await fails('ALTER TENANT nosuch ADD USER own_u AS member', 422, '030010', 'Meta: The tenant nosuch not found');
    await ok('CREATE TENANT own_t');
    await ok("CREATE USER own_u WITH PASSWORD = 'pw'");
    await ok("CREATE USER own_m WITH PASSWORD = 'pw'");
    await ok('ALTER TENANT own_t ADD USER own_u AS owner');
    await ok('ALTER TENANT own_t ADD USER own_m AS member');
    const owner = { user: 'own_u', password: 'pw', tenant: 'own_t' };
    const member = { user: 'own_m', password: 'pw', tenant: 'own_t' };
    await ok("ALTER TENANT own_t SET COMMENT = 'mine'", owner);
    await ok("ALTER TENANT own_t SET DROP_AFTER = '3d'", owner);
    await ok('ALTER TENANT own_t UNSET COMMENT', owner);
    await fails(
      `ALTER TENANT own_t SET _LIMITER = '{}'`,
      422,
      '010004',
      'Insufficient privileges, expected [maintainer for all tenants]',
      owner,
    );
    await fails(
      "ALTER TENANT own_t SET COMMENT = 'theirs'",
      422,
      '010004',
      'Insufficient privileges, expected [maintainer for all tenants]',
      member,
    );
    await fails(
      "ALTER TENANT cnosdb SET COMMENT = 'x'",
      422,
      '010004',
      'Insufficient privileges, expected [maintainer for all tenants]',
      owner,
    );
    await fails(
      'ALTER USER own_u RENAME TO own_x',
      422,
      '010004',
      'Insufficient privileges, expected [maintainer for all users]',
      member,
    );
    await ok('ALTER USER own_m RENAME TO own_m2', member);
    expect(await ok('SELECT 1', { ...member, user: 'own_m2' })).toBe('Int64(1)\n1\n');
  });

  it('refuses a new password equal to the old one, and grants to a system role', async () => {
    await ok("CREATE USER same_pw WITH PASSWORD = 'p1', MUST_CHANGE_PASSWORD = true");
    await ok('ALTER TENANT cnosdb ADD USER same_pw AS member');
    const auth = { user: 'same_pw', password: 'p1' };
    await fails(
      "ALTER USER same_pw SET PASSWORD = 'p1'",
      422,
      '010004',
      'Insufficient privileges, expected [input different password]',
      auth,
    );
    await fails(
      "ALTER USER same_pw SET PASSWORD = 'p1'",
      422,
      '010004',
      'Insufficient privileges, expected [input different password]',
    );
    await ok("ALTER USER same_pw SET PASSWORD = 'p2'", auth);
    expect(await ok('SELECT 1', { user: 'same_pw', password: 'p2' })).toBe('Int64(1)\n1\n');
    await ok('CREATE USER no_pw');
    await fails(
      "ALTER USER no_pw SET PASSWORD = ''",
      422,
      '010004',
      'Insufficient privileges, expected [input different password]',
    );
    for (const role of ['owner', 'member']) {
      await fails(
        `GRANT READ ON DATABASE public TO ROLE ${role}`,
        422,
        '010043',
        'Semantic error: System roles are not allowed to be modified',
      );
      await fails(
        `REVOKE READ ON DATABASE public FROM ROLE ${role}`,
        422,
        '010043',
        'Semantic error: System roles are not allowed to be modified',
      );
    }
  });

  it('lists cluster_schema, with its views as tables, in the system tenant to those who may read it', async () => {
    expect(await ok('SHOW DATABASES')).toMatch(/^database_name\ncluster_schema\n/);
    expect(await ok('SHOW TABLES ON cluster_schema')).toBe('table_name\ntenants\nusers\n');
    await fails('CREATE DATABASE cluster_schema', 422, '030018', 'Meta: Database "cluster_schema" already exists');
    await ok('CREATE DATABASE IF NOT EXISTS cluster_schema');
    await ok('CREATE TENANT cs_other');
    expect(await ok('SHOW DATABASES', { tenant: 'cs_other' })).toBe('database_name\n');
    await ok("CREATE USER cs_member WITH PASSWORD = 'pw'");
    await ok('CREATE ROLE cs_bare');
    await ok('ALTER TENANT cnosdb ADD USER cs_member AS cs_bare');
    const member = { user: 'cs_member', password: 'pw' };
    await fails(
      'SHOW DATABASES',
      422,
      '010004',
      'Insufficient privileges, expected [Read on all databases of tenant cnosdb]',
      member,
    );
    await fails(
      'SHOW TABLES ON cluster_schema',
      422,
      '010004',
      'Insufficient privileges, expected [Read on database cluster_schema of tenant cnosdb]',
      member,
    );
    // A member reads every database of its tenant.
    await ok('ALTER TENANT cnosdb SET USER cs_member AS member');
    expect(await ok('SHOW DATABASES', member)).toBe('database_name\ncluster_schema\npublic\nusage_schema\n');
  });

  it('gives a custom role what it inherits plus its grants, and takes them back', async () => {
    await ok('CREATE TENANT roles_t');
    await ok('CREATE DATABASE a', { tenant: 'roles_t' });
    await ok('CREATE DATABASE b', { tenant: 'roles_t' });
    await ok("CREATE USER ro WITH PASSWORD = 'ro'");
    await ok('CREATE ROLE bare', { tenant: 'roles_t' });
    await ok('ALTER TENANT roles_t ADD USER ro AS bare');
    const auth = { user: 'ro', password: 'ro', tenant: 'roles_t', db: 'a' };
    // As CnosDB: SHOW DATABASES asks Read on every database (members, owners), not on some.
    await fails(
      'SHOW DATABASES',
      422,
      '010004',
      'Insufficient privileges, expected [Read on all databases of tenant roles_t]',
      auth,
    );
    await fails(
      'SHOW TABLES',
      422,
      '010004',
      'Insufficient privileges, expected [Read on database a of tenant roles_t]',
      auth,
    );
    await ok('GRANT READ ON DATABASE a TO ROLE bare', { tenant: 'roles_t' });
    await fails(
      'SHOW DATABASES',
      422,
      '010004',
      'Insufficient privileges, expected [Read on all databases of tenant roles_t]',
      auth,
    );
    // CnosDB prints a privilege's Debug name: ALL is Full (the views say All).
    await fails(
      'CREATE TABLE t (v BIGINT)',
      422,
      '010004',
      'Insufficient privileges, expected [Full on database a of tenant roles_t]',
      auth,
    );
    await fails(
      'CREATE DATABASE c',
      422,
      '010004',
      'Insufficient privileges, expected [Write on all databases of tenant roles_t]',
      auth,
    );
    expect(await ok('SELECT database_name FROM information_schema.databases', auth)).toBe('database_name\na\n');
    expect(await ok('SELECT * FROM information_schema.enabled_roles', auth)).toBe('role_name\nbare\n');
    expect(await ok('SELECT * FROM information_schema.database_privileges', auth)).toBe(
      'tenant_name,database_name,privilege_type,role_name\nroles_t,a,Read,bare\n',
    );
    // Only owners see the roles; a member sees its own grants only.
    expect(await ok('SELECT * FROM information_schema.roles', auth)).toBe('role_name,role_type,inherit_role\n');
    expect(await ok('SELECT * FROM information_schema.roles', { tenant: 'roles_t' })).toBe(
      'role_name,role_type,inherit_role\nowner,system,\nmember,system,\nbare,custom,NULL\n',
    );
    await fails(
      'REVOKE WRITE ON DATABASE a FROM ROLE bare',
      422,
      '030056',
      'Meta: cannot revoke the privilege Write on database a of role bare',
      { tenant: 'roles_t' },
    );
    await ok('REVOKE READ ON DATABASE a FROM ROLE bare', { tenant: 'roles_t' });
    await fails(
      'SHOW DATABASES',
      422,
      '010004',
      'Insufficient privileges, expected [Read on all databases of tenant roles_t]',
      auth,
    );
    await ok('ALTER TENANT roles_t SET USER ro AS member');
    expect(await ok('SHOW DATABASES', auth)).toBe('database_name\na\nb\n');
    await ok('ALTER TENANT roles_t REMOVE USER ro');
    await fails('SELECT 1', 422, '030010', 'The tenant roles_t not found', auth);
  });

  it("takes a member's custom role from the session's tenant too, as CnosDB does", async () => {
    await ok('CREATE TENANT quirk_t');
    await ok("CREATE USER qu WITH PASSWORD = 'qu'");
    await ok('CREATE ROLE only_in_cnosdb INHERIT member');
    // quirk_t has no such role: the session's tenant (cnosdb) does, so CnosDB adds the member ...
    await fails(
      'ALTER TENANT quirk_t ADD USER qu AS only_in_cnosdb',
      422,
      '030006',
      'Meta: The role only_in_cnosdb not found',
      { tenant: 'quirk_t' },
    );
    await fails(
      'ALTER TENANT quirk_t ADD USER qu AS nowhere_role',
      422,
      '030006',
      'Meta: The role nowhere_role not found',
    );
    await ok('ALTER TENANT quirk_t ADD USER qu AS only_in_cnosdb');
    // ... whose role names nothing in quirk_t: a member with no privileges there.
    const auth = { user: 'qu', password: 'qu', tenant: 'quirk_t', db: 'nowhere' };
    expect(await ok('SELECT current_role(), current_database()', auth)).toBe(
      'current_role(),current_database()\nonly_in_cnosdb,nowhere\n',
    );
    await ok('CREATE DATABASE qdb', { tenant: 'quirk_t' });
    await fails(
      'SHOW DATABASES',
      422,
      '010004',
      'Insufficient privileges, expected [Read on all databases of tenant quirk_t]',
      auth,
    );
    await ok('DROP ROLE only_in_cnosdb');
  });

  it('drops a tenant with its data: one created again under the same name is empty', async () => {
    await ok('CREATE TENANT gone');
    await ok('CREATE DATABASE d', { tenant: 'gone' });
    expect((await writeLp(server.url, 'm v=1 1', 'tenant=gone&db=d')).status).toBe(200);
    await ok('DROP TENANT gone');
    await fails('SELECT * FROM m', 422, '030010', 'The tenant gone not found', { tenant: 'gone', db: 'd' });
    await ok('CREATE TENANT gone');
    expect(await ok('SHOW DATABASES', { tenant: 'gone' })).toBe('database_name\n');
  });
});

describe('system views and session functions', () => {
  it("answer the session's user, tenant, database, role and the server's version", async () => {
    await ok('CREATE TENANT fn_t');
    await ok('CREATE DATABASE fdb', { tenant: 'fn_t' });
    await ok("CREATE USER fu WITH PASSWORD = 'fu'");
    await ok('ALTER TENANT fn_t ADD USER fu AS member');
    const text =
      'SELECT current_user(), current_tenant(), current_database(), current_role(), @@server_version, @@deployment_mode';
    expect(await ok(text, { user: 'fu', password: 'fu', tenant: 'fn_t', db: 'fdb' })).toBe(
      `current_user(),current_tenant(),current_database(),current_role(),@@server_version,@@deployment_mode\nfu,fn_t,fdb,member,${VERSION},singleton\n`,
    );
    expect(await ok('SELECT current_role() IS NULL AS none, upper(current_user()) AS u')).toBe('none,u\ntrue,ROOT\n');
    // An admin's session has no role: no enabled role either.
    expect(await ok('SELECT count(*) AS n FROM information_schema.enabled_roles')).toBe('n\n0\n');
    await fails('SELECT @@nope', 422, '010001', /variable @@nope is not defined/);
  });

  it('lists tables and columns with CnosDB names and types, only of readable databases', async () => {
    await ok('CREATE TENANT sv');
    await ok('CREATE DATABASE open', { tenant: 'sv' });
    await ok('CREATE DATABASE closed', { tenant: 'sv' });
    await ok('CREATE TABLE open.t (f DOUBLE CODEC(GORILLA), TAGS(h))', { tenant: 'sv' });
    await ok('CREATE TABLE closed.secret (f DOUBLE)', { tenant: 'sv' });
    await ok("CREATE USER svu WITH PASSWORD = 'svu'");
    await ok('CREATE ROLE r', { tenant: 'sv' });
    await ok('GRANT READ ON DATABASE open TO ROLE r', { tenant: 'sv' });
    await ok('ALTER TENANT sv ADD USER svu AS r');
    const auth = { user: 'svu', password: 'svu', tenant: 'sv', db: 'open' };
    expect(await ok('SELECT * FROM information_schema.tables', auth)).toBe(
      'table_tenant,table_database,table_name,table_type,table_engine,table_options\nsv,open,t,TABLE,TSKV,TODO\n',
    );
    expect(await ok('SELECT * FROM information_schema.columns', auth)).toBe(
      'tenant_name,database_name,table_name,column_name,column_type,ordinal_position,column_default,is_nullable,data_type,compression_codec\n' +
        'sv,open,t,time,TIME,0,NULL,false,TIMESTAMP(NANOSECOND),DEFAULT\n' +
        'sv,open,t,h,TAG,1,NULL,true,STRING,DEFAULT\n' +
        'sv,open,t,f,FIELD,2,NULL,true,DOUBLE,GORILLA\n',
    );
    expect(await ok("SELECT count(*) AS n FROM information_schema.columns WHERE database_name = 'closed'", auth)).toBe(
      'n\n0\n',
    );
    expect(await ok('SELECT user_name, role_name FROM information_schema.members', auth)).toBe(
      'user_name,role_name\nsvu,r\n',
    );
    // cluster_schema lives in the system tenant: from another one it is a table that does not exist.
    await fails(
      'SELECT * FROM cluster_schema.users',
      422,
      '030019',
      /^Meta: Table not found: "sv\.cluster_schema\.users"$/,
      auth,
    );
    expect(
      await ok('SELECT shard, wal_sync FROM information_schema.databases', { ...auth, accept: 'application/json' }),
    ).toBe('[{"shard":1,"wal_sync":false}]');
  });

  it('lets another tenant create a database named cluster_schema, as CnosDB 2.4 does', async () => {
    // cnosdb/cnosdb#1567: in a new tenant cluster_schema is a database like any other.
    await ok('CREATE TENANT cs');
    await ok('CREATE DATABASE cluster_schema', { tenant: 'cs' });
    await ok('CREATE TABLE cluster_schema.air (visibility DOUBLE, TAGS(station))', { tenant: 'cs' });
    await ok("INSERT INTO cluster_schema.air (time, station, visibility) VALUES (1, 'x', 56)", { tenant: 'cs' });
    expect(await ok('SELECT station, visibility FROM cluster_schema.air', { tenant: 'cs' })).toBe(
      'station,visibility\nx,56.0\n',
    );
    expect(await ok('SHOW DATABASES', { tenant: 'cs' })).toBe('database_name\ncluster_schema\n');
    // Its system views are the system tenant's alone; information_schema stays reserved.
    await fails(
      'SELECT * FROM cluster_schema.users',
      422,
      '030019',
      /^Meta: Table not found: "cs\.cluster_schema\.users"$/,
      { tenant: 'cs' },
    );
    await fails(
      'CREATE DATABASE information_schema',
      422,
      '010001',
      'Database "information_schema" is a system schema and cannot be created',
      { tenant: 'cs' },
    );
  });

  it('SHOW QUERIES and information_schema.queries show the running statement', async () => {
    expect(await ok('SHOW QUERIES')).toMatch(
      /^query_id,query_type,query_text,user_name,tenant_name,database_name,state,duration\n\d+,batch,SHOW QUERIES,root,cnosdb,public,SCHEDULING,\d+(\.\d+)?(e-?\d+)?\n$/,
    );
    const r = await ok(
      "SELECT query_text, user_id IS NOT NULL AS u, processed_count FROM information_schema.queries WHERE query_text LIKE '%PASSWORD%' OR query_text LIKE 'SELECT query_text%'",
    );
    expect(r).toBe(
      `query_text,u,processed_count\n"SELECT query_text, user_id IS NOT NULL AS u, processed_count FROM information_schema.queries WHERE query_text LIKE '%PASSWORD%' OR query_text LIKE 'SELECT query_text%'",true,0\n`,
    );
  });
});

describe('durability', () => {
  it('keeps tenants, users, members, roles and grants across a restart', async () => {
    await ok("CREATE TENANT durable WITH comment = 'kept'");
    await ok('CREATE DATABASE d', { tenant: 'durable' });
    await ok("CREATE USER keeper WITH PASSWORD = 'k'");
    await ok('CREATE ROLE kr', { tenant: 'durable' });
    await ok('GRANT WRITE ON DATABASE d TO ROLE kr', { tenant: 'durable' });
    await ok('ALTER TENANT durable ADD USER keeper AS kr');
    expect(await server.stop()).toBe(0);
    server = await startServer({ inProcess: true, dataDir: server.dataDir });
    const auth = { user: 'keeper', password: 'k', tenant: 'durable', db: 'd' };
    expect(
      (await writeLp(server.url, 'm v=1 1', 'tenant=durable&db=d', { auth: { user: 'keeper', password: 'k' } })).status,
    ).toBe(200);
    expect(await ok('SELECT v FROM m', auth)).toBe('v\n1.0\n');
    expect(await ok('SELECT * FROM information_schema.database_privileges', { tenant: 'durable' })).toBe(
      'tenant_name,database_name,privilege_type,role_name\ndurable,d,Write,kr\n',
    );
  });
});
