// Names of new tenants, users, roles, databases and tables (issue 24 "Smaller": a user renamed
// itself to "root "): leading or trailing white space, control characters, '.' and '..' are
// refused at CREATE and RENAME with CnosDB's code for an invalid name (its parse error, 010009);
// a catalog that already holds such names still loads, and its users still log in.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;

function sql(s: TestServer, text: string, user = 'root', password = '', db = 'public'): Promise<HttpResponse> {
  return http(s.url, `/api/v1/sql?db=${db}`, { method: 'POST', body: text, auth: { user, password } });
}

async function ok(s: TestServer, text: string, user = 'root', password = ''): Promise<string> {
  const r = await sql(s, text, user, password);
  expect(r.status, `${text}: ${r.text}`).toBe(200);
  return r.text;
}

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

const BAD_NAMES: Array<[string, RegExp]> = [
  ['root ', /^sql parser error: Name cannot begin or end with white space: "root " at Line: 1, Column \d+$/],
  [' lead', /Name cannot begin or end with white space: " lead"/],
  ['\u00a0nbsp', /Name cannot begin or end with white space/],
  ['tab\there', /^sql parser error: Name cannot contain control characters: "tab\\there" at Line/],
  ['bell\u0007', /Name cannot contain control characters: "bell\\u0007"/],
  ['line\nbreak', /Name cannot contain control characters: "line\\nbreak"/],
  ['.', /^sql parser error: Name cannot be '\.' or '\.\.' at Line/],
  ['..', /Name cannot be '\.' or '\.\.'/],
];

const STATEMENTS: Array<[string, (name: string) => string]> = [
  ['CREATE TENANT', (n) => `CREATE TENANT ${quote(n)}`],
  ['CREATE USER', (n) => `CREATE USER ${quote(n)} WITH PASSWORD = 'pw'`],
  ['ALTER USER ... RENAME TO', (n) => `ALTER USER u_named RENAME TO ${quote(n)}`],
  ['CREATE ROLE', (n) => `CREATE ROLE ${quote(n)} INHERIT member`],
  ['CREATE DATABASE', (n) => `CREATE DATABASE ${quote(n)}`],
  ['CREATE TABLE', (n) => `CREATE TABLE ${quote(n)} (v BIGINT)`],
  ['CREATE TABLE in a database', (n) => `CREATE TABLE public.${quote(n)} (v BIGINT)`],
];

/** The names every listing shows, to compare before and after the refused statements. */
async function listings(s: TestServer): Promise<string> {
  const parts = await Promise.all([
    ok(s, 'SELECT tenant_name FROM cluster_schema.tenants ORDER BY tenant_name'),
    ok(s, 'SELECT user_name FROM cluster_schema.users ORDER BY user_name'),
    ok(s, 'SELECT role_name FROM information_schema.roles ORDER BY role_name'),
    ok(s, 'SHOW DATABASES'),
    ok(s, 'SHOW TABLES'),
  ]);
  return parts.join('\n');
}

describe('names of new objects', () => {
  beforeAll(async () => {
    server = await startServer({ inProcess: true });
    await ok(server, "CREATE USER u_named WITH PASSWORD = 'pw'");
    await ok(server, 'ALTER TENANT cnosdb ADD USER u_named AS member');
  });
  afterAll(async () => {
    await server.stop();
    server.cleanup();
  });

  for (const [statement, make] of STATEMENTS) {
    it(`${statement} refuses edge white space, control characters, '.' and '..' with 422 010009`, async () => {
      const before = await listings(server);
      for (const [name, message] of BAD_NAMES) {
        const r = await sql(server, make(name));
        expect(r.status, `${JSON.stringify(name)}: ${r.text}`).toBe(422);
        const body = JSON.parse(r.text) as { error_code: string; error_message: string };
        expect(body.error_code).toBe('010009');
        expect(body.error_message).toMatch(message);
      }
      expect(await listings(server)).toBe(before);
    });
  }

  it('refuses a user renaming itself to "root "', async () => {
    const r = await sql(server, `ALTER USER u_named RENAME TO ${quote('root ')}`, 'u_named', 'pw');
    expect([r.status, (JSON.parse(r.text) as { error_code: string }).error_code]).toEqual([422, '010009']);
    expect(
      await ok(
        server,
        "SELECT user_name FROM cluster_schema.users WHERE user_name LIKE 'root%' OR user_name LIKE 'u_named%' ORDER BY user_name",
      ),
    ).toBe('user_name\nroot\nu_named\n');
  });

  it('takes names with inner spaces, dots and letters beyond ASCII', async () => {
    for (const name of ['a b', 'a.b', 'ünï', '...x']) {
      await ok(server, `CREATE DATABASE ${quote(name)}`);
      await ok(server, `CREATE USER ${quote(name)} WITH PASSWORD = 'pw'`);
    }
    expect(await ok(server, 'SHOW DATABASES')).toMatch(/^database_name\n(.*\n)*\.\.\.x\n(.*\n)*a b\n(.*\n)*a\.b\n/);
  });
});

describe('a catalog that already holds such names', () => {
  let first: TestServer;
  let second: TestServer;
  beforeAll(async () => {
    first = await startServer({ inProcess: true });
    await ok(first, "CREATE USER u_edge WITH PASSWORD = 'pw'");
    await ok(first, 'CREATE TENANT t_edge');
    await ok(first, 'CREATE DATABASE d_edge');
    await ok(first, 'ALTER TENANT cnosdb ADD USER u_edge AS owner');
    expect(await first.stop()).toBe(0);
    // As an older Sundial would have written them: each name with a space at its end.
    const file = join(first.dataDir, 'catalog.json');
    let text = readFileSync(file, 'utf8');
    for (const name of ['u_edge', 't_edge', 'd_edge']) {
      expect(text).toContain(`"${name}"`);
      text = text.replaceAll(`"${name}"`, `"${name} "`);
    }
    writeFileSync(file, text);
    second = await startServer({ inProcess: true, dataDir: first.dataDir });
  });
  afterAll(async () => {
    await second?.stop();
    second?.cleanup();
    first?.cleanup();
  });

  it('still loads, and its users still log in and work', async () => {
    expect(await ok(second, "SELECT user_name FROM cluster_schema.users WHERE user_name LIKE 'u_edge%'")).toBe(
      'user_name\nu_edge \n',
    );
    expect(await ok(second, "SELECT tenant_name FROM cluster_schema.tenants WHERE tenant_name LIKE 't_edge%'")).toBe(
      'tenant_name\nt_edge \n',
    );
    expect(await ok(second, 'SHOW DATABASES')).toContain('\nd_edge \n');
    expect(await ok(second, 'SELECT current_user()', 'u_edge ', 'pw')).toBe('current_user()\nu_edge \n');
    // And renaming it to a good name is how an operator fixes it.
    await ok(second, 'ALTER USER "u_edge " RENAME TO u_fixed');
    expect(await ok(second, 'SELECT current_user()', 'u_fixed', 'pw')).toBe('current_user()\nu_fixed\n');
  });
});
