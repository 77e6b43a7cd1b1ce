// The warm-up (host/node/query-warmup.ts: high-cardinality writes, write-warmup.ts, then the
// query shapes) runs in a scratch directory of the system's temporary folder, leaves nothing
// behind there or in the user's data, and stops with the server.

import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer | undefined;
let temp: string | undefined;

afterEach(async () => {
  await server?.stop();
  server?.cleanup();
  server = undefined;
  if (temp !== undefined) rmSync(temp, { recursive: true, force: true });
  temp = undefined;
});

const sql = async (text: string): Promise<string> => {
  const r = await http(server!.url, '/api/v1/sql?db=public', { method: 'POST', body: text });
  expect(r.status, r.text).toBe(200);
  return r.text;
};

describe('query warm-up', () => {
  it('removes the warm-up directories of servers killed long ago, and no other', async () => {
    temp = mkdtempSync(join(tmpdir(), 'sundial-warmup-test-'));
    const old = join(temp, 'sundial-warmup-old123');
    const young = join(temp, 'sundial-warmup-young1');
    const other = join(temp, 'not-ours-old');
    for (const d of [old, young, other]) mkdirSync(join(d, 'db'), { recursive: true });
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    utimesSync(old, twoHoursAgo, twoHoursAgo);
    utimesSync(other, twoHoursAgo, twoHoursAgo);
    server = await startServer({ env: { TMPDIR: temp } });
    await server.waitForLog((l) => l.msg === 'query path warmed up');
    expect(readdirSync(temp).sort()).toEqual(['not-ours-old', 'sundial-warmup-young1']);
  });

  it('runs once the server is ready and leaves no trace in the data or the temporary folder', async () => {
    temp = mkdtempSync(join(tmpdir(), 'sundial-warmup-test-'));
    server = await startServer({ env: { TMPDIR: temp } });
    const writes = await server.waitForLog((l) => l.msg === 'write path warmed up');
    expect(writes.rows).toBe(16_384);
    const done = await server.waitForLog((l) => l.msg === 'query path warmed up');
    expect(done.queries).toBeGreaterThan(0);
    // Half of them through the SQL route of a second server over the scratch storage (a route
    // that answered anything but 200 would have failed the warm-up).
    expect(done.viaHttp).toBe((done.queries as number) / 2);
    expect(server.logs.indexOf(writes)).toBeLessThan(server.logs.indexOf(done));
    expect(readdirSync(temp)).toEqual([]);
    expect(await sql('SHOW TABLES')).toBe('table_name\n');
    expect(await sql('SHOW DATABASES')).toBe('database_name\ncluster_schema\npublic\nusage_schema\n');
    // The warm-up's queries never enter the query registry: only this one is listed.
    expect(await sql('SELECT query_text FROM information_schema.queries')).toBe(
      'query_text\nSELECT query_text FROM information_schema.queries\n',
    );
  });

  it('stops when the server stops, removing its scratch directory', async () => {
    temp = mkdtempSync(join(tmpdir(), 'sundial-warmup-test-'));
    server = await startServer({ env: { TMPDIR: temp } });
    expect(await server.stop()).toBe(0);
    expect(readdirSync(temp)).toEqual([]);
    expect(server.logs.some((l) => typeof l.msg === 'string' && / warm-up failed/.test(l.msg))).toBe(false);
  });

  it('runs the writes alone with --warmup false, the queries alone with --write-warmup false', async () => {
    temp = mkdtempSync(join(tmpdir(), 'sundial-warmup-test-'));
    server = await startServer({ args: ['--warmup', 'false'], env: { TMPDIR: temp } });
    expect((await server.waitForLog((l) => l.msg === 'write path warmed up')).rows).toBe(16_384);
    expect(await sql('SELECT 1 AS one')).toBe('one\n1\n');
    expect(await server.stop()).toBe(0);
    expect(server.logs.some((l) => typeof l.msg === 'string' && l.msg.startsWith('query'))).toBe(false);
    expect(readdirSync(temp)).toEqual([]);
    server.cleanup();

    server = await startServer({ args: ['--write-warmup', 'false'], env: { TMPDIR: temp } });
    expect((await server.waitForLog((l) => l.msg === 'query path warmed up')).queries).toBeGreaterThan(0);
    expect(await server.stop()).toBe(0);
    expect(server.logs.some((l) => typeof l.msg === 'string' && l.msg.startsWith('write'))).toBe(false);
    expect(readdirSync(temp)).toEqual([]);
  });

  it('is skipped with --warmup false --write-warmup false', async () => {
    server = await startServer({ args: ['--warmup', 'false', '--write-warmup', 'false'] });
    expect(await sql('SELECT 1 AS one')).toBe('one\n1\n');
    await server.stop();
    expect(server.logs.some((l) => typeof l.msg === 'string' && /^(query|write) /.test(l.msg))).toBe(false);
  });

  it('gives up with a warning, and the server serves, when it cannot make its directory', async () => {
    server = await startServer({ env: { TMPDIR: '/nonexistent/sundial-warmup' } });
    const warned = await server.waitForLog(
      (l) => l.msg === 'query warm-up failed (queries are only slower until V8 has compiled them)',
    );
    expect(warned.level).toBe(40);
    expect(await sql('SELECT 1 AS one')).toBe('one\n1\n');
  });

  it('gives up with a warning naming the status when a query through the SQL route fails, and leaves nothing behind', async () => {
    temp = mkdtempSync(join(tmpdir(), 'sundial-warmup-test-'));
    // A body limit below the length of every warm-up query: the scratch server's route answers 413.
    server = await startServer({ env: { TMPDIR: temp }, args: ['--sql-body-bytes', '16'] });
    const warned = await server.waitForLog(
      (l) => l.msg === 'query warm-up failed (queries are only slower until V8 has compiled them)',
    );
    expect(warned.level).toBe(40);
    expect((warned.err as { message: string }).message).toMatch(/^a warm-up query answered 413: /);
    expect(server.logs.some((l) => l.msg === 'query path warmed up')).toBe(false);
    expect(readdirSync(temp)).toEqual([]);
    expect(await sql('SELECT 1 AS one')).toBe('one\n1\n');
  });
});
