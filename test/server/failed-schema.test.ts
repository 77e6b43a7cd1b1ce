// Issue 24, what a failure leaves of the schema: a write whose WAL fsync fails (or that finds the
// disk full) leaves none of the tables and columns it created, and a DDL statement that is the
// first to find the disk full keeps none of its change: the catalog in memory (what SQL sees) and
// on disk (catalog.json) agree after the failure and after a restart. Before the fix both kept
// the change in memory (and the write's table reached catalog.json by its background save).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, writeLp, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { mountTmpfs, type Tmpfs } from '../support/tmpfs.js';

/** No background writes of the server's own: the n-th fsync is the n-th write's. */
const QUIET = {
  SUNDIAL_WARMUP: 'false',
  SUNDIAL_WRITE_WARMUP: 'false',
  SUNDIAL_PARSE_WARMUP: 'false',
  SUNDIAL_REPORT_INTERVAL: '0',
};

const sql = (url: string, text: string): Promise<HttpResponse> =>
  http(url, '/api/v1/sql', { method: 'POST', body: text });
const ok = async (url: string, text: string): Promise<string> => {
  const r = await sql(url, text);
  expect(r.status, `${text}: ${r.text}`).toBe(200);
  return r.text;
};

/** The tables of database public and their columns, as SQL sees them. */
async function schema(url: string): Promise<string> {
  const tables = (await ok(url, 'SHOW TABLES'))
    .split('\n')
    .slice(1)
    .filter((t) => t !== '');
  const out = [`databases: ${(await ok(url, 'SHOW DATABASES')).replace(/\n/g, ' ')}`];
  for (const t of tables) out.push(`${t}: ${(await ok(url, `DESCRIBE TABLE ${t}`)).replace(/\n/g, ' ')}`);
  return out.join('\n');
}

/** The database names, table names and column names catalog.json holds. */
function saved(dataDir: string): string[] {
  const names: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === 'object' && v !== null) {
      const o = v as Record<string, unknown>;
      if (
        typeof o.name === 'string' &&
        (Array.isArray(o.tables) ||
          Array.isArray(o.tags) ||
          typeof o.kind === 'string' ||
          typeof o.passwordHash === 'string')
      )
        names.push(o.name);
      Object.values(o).forEach(walk);
    }
  };
  walk(JSON.parse(readFileSync(join(dataDir, 'catalog.json'), 'utf8')));
  return names.sort();
}

describe('a write whose WAL fsync fails', () => {
  it('leaves none of the tables and columns it created, in memory, on disk or after a restart', async () => {
    const server = await startServer({ env: { ...QUIET, SUNDIAL_TEST_FAIL: 'wal:fsync#3:EIO' } });
    try {
      for (const i of [1, 2]) expect((await writeLp(server.url, `w v=${i} ${i}`)).status).toBe(200);
      const before = await schema(server.url);
      const names = saved(server.dataDir);
      expect(names).toContain('w');
      const failed = await writeLp(server.url, `w v=3,extra=3 3\nfresh,h=a x=1 3`);
      expect(failed.status).toBe(500);
      expect(await schema(server.url)).toBe(before);
      expect(saved(server.dataDir)).toEqual(names);
      // The WAL comes back (a new segment, within about a second); a write that creates them now keeps them.
      let r: HttpResponse | undefined;
      for (const started = Date.now(); Date.now() - started < 20_000; ) {
        r = await writeLp(server.url, 'w v=4 4');
        if (r.status === 200) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(r?.status).toBe(200);
      expect(await schema(server.url)).toBe(before);
      expect(await server.stop()).toBe(0);
      const again = await startServer({ dataDir: server.dataDir, env: QUIET });
      try {
        expect(await schema(again.url)).toBe(before);
        expect((await writeLp(again.url, `w v=5,extra=5 5\nfresh,h=a x=1 5`)).status).toBe(200);
        expect(await schema(again.url)).not.toBe(before);
        expect(saved(again.dataDir)).toEqual([...names, 'extra', 'fresh', 'h', 'x'].sort());
      } finally {
        expect(await again.stop()).toBe(0);
      }
    } finally {
      await server.kill();
      server.cleanup();
    }
  });
});

describe('on a full file system', () => {
  let fs: Tmpfs;
  beforeAll(() => {
    const mounted = mountTmpfs('16m');
    if (typeof mounted === 'string') throw new Error(mounted);
    fs = mounted;
  });
  afterAll(() => fs?.unmount());

  // Each statement is the first thing to find the disk full; `check` shows what it would change.
  const cases: Array<[string, string]> = [
    ['CREATE TABLE', 'CREATE TABLE made (x DOUBLE, TAGS(h))'],
    ['ALTER TABLE ADD', 'ALTER TABLE kept ADD FIELD extra DOUBLE'],
    ['ALTER TABLE DROP', 'ALTER TABLE kept DROP v2'],
    ['DROP TABLE', 'DROP TABLE kept'],
    ['CREATE DATABASE', 'CREATE DATABASE made'],
    ['CREATE USER', "CREATE USER made WITH PASSWORD='x-Secret-1'"],
  ];
  const rows = async (url: string): Promise<string> => ok(url, 'SELECT * FROM kept ORDER BY time');
  const users = async (url: string): Promise<string> =>
    ok(url, 'SELECT user_name FROM cluster_schema.users ORDER BY user_name');
  for (const [name, statement] of cases) {
    it(`${name} answers 507 and keeps none of its change, in memory, on disk or after a restart`, async () => {
      const dataDir = `${fs.dir}/${name.replace(/ /g, '-')}`;
      const server = await startServer({ inProcess: true, dataDir, env: QUIET });
      let restarted: TestServer | undefined;
      try {
        expect((await writeLp(server.url, 'kept,h=a v=1,v2=2 1')).status).toBe(200);
        const before = [await schema(server.url), await rows(server.url), await users(server.url)];
        const names = saved(dataDir);
        fs.fill();
        const r = await sql(server.url, statement);
        expect([r.status, r.headers['x-sundial-error-code']]).toEqual([507, '020058']);
        expect([await schema(server.url), await rows(server.url), await users(server.url)]).toEqual(before);
        expect(saved(dataDir)).toEqual(names);
        fs.free();
        expect(await server.stop()).toBe(0);
        restarted = await startServer({ inProcess: true, dataDir, env: QUIET });
        expect([await schema(restarted.url), await rows(restarted.url), await users(restarted.url)]).toEqual(before);
        // With space, the same statement goes through: the checks above see its change.
        await ok(restarted.url, statement);
        const after = [
          await schema(restarted.url),
          await rows(restarted.url).catch(() => 'gone'),
          await users(restarted.url),
        ];
        expect(after).not.toEqual(before);
      } finally {
        fs.free();
        await server.stop();
        if (restarted !== undefined) expect(await restarted.stop()).toBe(0);
      }
    });
  }
});
