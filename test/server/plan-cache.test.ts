// The server reuses the plan of a repeated SELECT (host/engine/plan-cache.ts) only while nothing
// it was built from changed: columns a write adds, DDL, another database, another user's
// privileges, the clock, the running queries.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, writeLp, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;

function sql(text: string, options: { db?: string; user?: string; password?: string } = {}): Promise<HttpResponse> {
  return http(server.url, `/api/v1/sql?db=${options.db ?? 'public'}`, {
    method: 'POST',
    body: text,
    auth: { user: options.user ?? 'root', password: options.password ?? '' },
  });
}

async function ok(text: string, options: Parameters<typeof sql>[1] = {}): Promise<string> {
  const r = await sql(text, options);
  expect(r.status, `${text}: ${r.text}`).toBe(200);
  return r.text;
}

beforeAll(async () => {
  server = await startServer({ inProcess: true });
  expect((await writeLp(server.url, 'pc,h=a v=1i 1000\npc,h=b v=2i 2000')).status).toBe(200);
});

afterAll(async () => {
  await server?.stop();
  server?.cleanup();
});

describe('a repeated SELECT', () => {
  it('sees a column that a write added after its first run', async () => {
    const text = 'SELECT * FROM pc ORDER BY time';
    expect(await ok(text)).toBe('time,h,v\n1970-01-01T00:00:00.000001000,a,1\n1970-01-01T00:00:00.000002000,b,2\n');
    expect(await ok(text)).toBe('time,h,v\n1970-01-01T00:00:00.000001000,a,1\n1970-01-01T00:00:00.000002000,b,2\n');
    expect((await writeLp(server.url, 'pc,h=c v=3i,w=0.5 3000')).status).toBe(200);
    expect(await ok(text)).toBe(
      'time,h,v,w\n1970-01-01T00:00:00.000001000,a,1,\n1970-01-01T00:00:00.000002000,b,2,\n1970-01-01T00:00:00.000003000,c,3,0.5\n',
    );
  });

  it('fails once its table is dropped, and reads the new one of the same name', async () => {
    const text = 'SELECT count(*) FROM gone';
    expect((await writeLp(server.url, 'gone v=1i 1\ngone v=2i 2')).status).toBe(200);
    expect(await ok(text)).toBe('COUNT(UInt8(1))\n2\n');
    await ok('DROP TABLE gone');
    const r = await sql(text);
    expect(r.status).toBe(422);
    expect(JSON.parse(r.text)).toMatchObject({ error_code: '030019' });
    expect((await writeLp(server.url, 'gone v=1i 1')).status).toBe(200);
    expect(await ok(text)).toBe('COUNT(UInt8(1))\n1\n');
  });

  it('resolves its tables in the database of each request', async () => {
    await ok('CREATE DATABASE other');
    expect((await writeLp(server.url, 'pc,h=z v=9i 1', 'db=other')).status).toBe(200);
    const text = 'SELECT h, v FROM pc ORDER BY h';
    expect(await ok(text, { db: 'other' })).toBe('h,v\nz,9\n');
    expect(await ok(text)).toBe('h,v\na,1\nb,2\nc,3\n');
    expect(await ok(text, { db: 'other' })).toBe('h,v\nz,9\n');
  });

  it("checks each user's privileges, whoever ran it before", async () => {
    await ok("CREATE USER reader WITH PASSWORD = 'r1'");
    await ok('CREATE ROLE pc_readers');
    await ok('GRANT READ ON DATABASE other TO ROLE pc_readers');
    await ok('ALTER TENANT cnosdb ADD USER reader AS pc_readers');
    const text = 'SELECT v FROM pc';
    await ok(text);
    await ok(text);
    const denied = await sql(text, { user: 'reader', password: 'r1' });
    expect(denied.status).toBe(422);
    expect(JSON.parse(denied.text)).toMatchObject({ error_code: '010004' });
    expect(await ok(text, { user: 'reader', password: 'r1', db: 'other' })).toBe('v\n9\n');
    await ok('REVOKE READ ON DATABASE other FROM ROLE pc_readers');
    const revoked = await sql(text, { user: 'reader', password: 'r1', db: 'other' });
    expect(revoked.status).toBe(422);
    expect(JSON.parse(revoked.text)).toMatchObject({ error_code: '010004' });
  });

  it('reads the clock and the running queries anew each time', async () => {
    const clock = 'SELECT CAST(now() AS BIGINT) AS n';
    const first = await ok(clock);
    await new Promise((done) => setTimeout(done, 5));
    expect(await ok(clock)).not.toBe(first);
    const ids = 'SELECT query_id FROM information_schema.queries';
    const a = await ok(ids);
    const b = await ok(ids);
    expect(a).toMatch(/^query_id\n\d+\n$/);
    expect(b).toMatch(/^query_id\n\d+\n$/);
    expect(b).not.toBe(a);
  });
});
