// Issue 27: GET /api/v1/export streams one table's rows for a time range as segment files
// (FORMAT.md §9). Round trip: export from a real server (rows in segment files and in the
// memtable, overwrites merged), load with the sandbox's reader (host/sandbox, what the browser
// runs), query: equal, cell for cell, to the server's /api/v1/sql JSON for every column type.
// Then the errors of the contract: parameters, credentials, tenant, privilege, database, table.

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sandbox } from '../../host/sandbox/sandbox.js';
import { decodeExport, EXPORT_MEDIA_TYPE } from '../../host/storage/index.js';
import { http, writeLp, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

const WASM = readFileSync(new URL('../../build/sundial.wasm', import.meta.url));
const T0 = 1_700_000_000_000_000_000n;
const MIN = 60_000_000_000n;

const sql = (
  s: TestServer,
  text: string,
  db = 'public',
  auth?: { user: string; password: string },
): Promise<HttpResponse> =>
  http(s.url, `/api/v1/sql?db=${db}`, {
    body: text,
    headers: { accept: 'application/json' },
    ...(auth === undefined ? {} : { auth }),
  });

async function ok(r: Promise<HttpResponse>): Promise<HttpResponse> {
  const res = await r;
  expect(res.status, res.text).toBe(200);
  return res;
}

const exportOf = (
  s: TestServer,
  query: string,
  auth?: { user: string; password: string } | null,
): Promise<HttpResponse> => http(s.url, `/api/v1/export?${query}`, auth === undefined ? {} : { auth });

/** Lines of every column type: tags, DOUBLE, BIGINT, BIGINT UNSIGNED, BOOLEAN, STRING, NULLs (absent fields). */
function lines(from: number, to: number, version: string): string {
  const out: string[] = [];
  for (let i = from; i < to; i++) {
    const host = `h${i % 5}`;
    const ts = T0 + BigInt(i) * MIN;
    const fields = [
      `usage=${(i * 1.25).toFixed(2)}`,
      `count=${i * 3 - 40}i`,
      `bytes=${BigInt(i) * 1_000_000_007n}u`,
      `up=${i % 3 === 0 ? 't' : 'f'}`,
      `note="${version} ${i} é \\"q\\""`,
    ];
    // Every seventh row lacks some fields: NULLs in every type.
    const kept = i % 7 === 0 ? fields.filter((_, k) => k % 2 === 0) : fields;
    out.push(`metrics,host=${host},dc=${i % 2 === 0 ? 'east' : 'west'} ${kept.join(',')} ${ts}`);
  }
  return out.join('\n');
}

/** The statements compared between the sandbox and the server (each over the exported range). */
const QUERIES = [
  'SELECT * FROM metrics ORDER BY time, host',
  'SELECT host, dc, count(*), sum(usage), min(count), max(bytes), avg(usage) FROM metrics GROUP BY host, dc ORDER BY host, dc',
  "SELECT date_bin(INTERVAL '10 minutes', time) AS t, host, max(usage), sum(count), count(note) FROM metrics GROUP BY t, host ORDER BY t, host",
  'SELECT host, first(time, note), last(time, usage) FROM metrics GROUP BY host ORDER BY host',
  'SELECT up, count(*), sum(bytes) FROM metrics GROUP BY up ORDER BY up',
  'SELECT note, bytes FROM metrics WHERE bytes > 50000000000 AND up ORDER BY time DESC, host LIMIT 7',
];

describe('GET /api/v1/export', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ inProcess: true });
    // Rows 0..200 into segment files, then rows 150..260 (overwrites of 150..200, with a new
    // note) and a second table into the memtable.
    await ok(writeLp(s.url, lines(0, 200, 'v1')));
    await ok(sql(s, 'COMPACT DATABASE public'));
    await ok(writeLp(s.url, lines(150, 260, 'v2')));
    await ok(writeLp(s.url, 'other v=1 ' + T0));
    await ok(sql(s, "CREATE DATABASE geo WITH PRECISION 'ms'"));
    await ok(sql(s, 'CREATE TABLE places (loc GEOMETRY(POINT, 0), v BIGINT, TAGS(site))', 'geo'));
    await ok(
      sql(
        s,
        "INSERT INTO places (time, site, loc, v) VALUES (1700000000000, 'a', 'POINT(1 2)', 5), (1700000060000, 'b', 'POINT(3 4)', NULL)",
        'geo',
      ),
    );
    await ok(sql(s, "CREATE USER nobody WITH PASSWORD = 'pw'"));
    await ok(sql(s, 'CREATE TENANT elsewhere'));
  });
  afterAll(async () => {
    await s?.stop();
    s?.cleanup();
  });

  const cases: Array<{ name: string; query: string; where: string }> = [
    { name: 'the whole table', query: 'table=metrics', where: '' },
    {
      name: 'a range as integer nanoseconds',
      query: `table=metrics&start=${T0 + 30n * MIN}&end=${T0 + 170n * MIN}`,
      where: `time >= ${T0 + 30n * MIN} AND time < ${T0 + 170n * MIN}`,
    },
    {
      name: 'a range as RFC 3339, open at the end',
      query: 'table=metrics&db=public&start=2023-11-15T00:00:00Z',
      where: "time >= '2023-11-15T00:00:00Z'",
    },
  ];
  for (const c of cases) {
    it(`round-trips ${c.name}: the sandbox answers as the server does`, async () => {
      const res = await exportOf(s, c.query);
      expect(res.status, res.text).toBe(200);
      expect(res.headers['content-type']).toBe(EXPORT_MEDIA_TYPE);
      const sandbox = await Sandbox.create(WASM);
      const loaded = await sandbox.loadExport(new Uint8Array(res.body));
      expect(loaded.table).toBe('metrics');
      const count = JSON.parse(
        (await ok(sql(s, `SELECT count(*) AS n FROM metrics${c.where ? ` WHERE ${c.where}` : ''}`))).text,
      )[0].n;
      expect(loaded.rows).toBe(count);
      expect(count).toBeGreaterThan(50);
      for (const q of QUERIES) {
        const ranged =
          c.where === ''
            ? q
            : q
                .replace('FROM metrics', `FROM metrics WHERE ${c.where}`)
                .replace(' WHERE ' + c.where + ' WHERE ', ` WHERE ${c.where} AND `);
        const server = JSON.parse((await ok(sql(s, ranged))).text);
        const local = JSON.parse((await sandbox.sql(q)).json);
        expect(local, q).toEqual(server);
      }
    });
  }

  it('joins the runs of a series into one file, and cuts files at 262,144 rows', async () => {
    // Rows 0..9 of two series in a segment file, rows 40..59 in the memtable: two runs of each
    // series (their time ranges do not overlap), written as one series each in one file.
    const runs = (from: number): string =>
      Array.from({ length: 20 }, (_, i) => `runs,s=${i % 2} v=${from + i} ${T0 + BigInt(from + i) * MIN}`).join('\n');
    await ok(writeLp(s.url, runs(0)));
    await ok(sql(s, 'COMPACT DATABASE public'));
    await ok(writeLp(s.url, runs(40)));
    let d = decodeExport(new Uint8Array((await exportOf(s, 'table=runs')).body));
    expect(d.end).toEqual({ rows: 40, segments: 1 });
    expect(d.schema).toMatchObject({
      version: 1,
      database: 'public',
      table: 'runs',
      precision: 'NS',
      start: null,
      end: null,
    });
    // One series of 300,000 rows: a file of 262,144 rows, then one of the rest.
    const N = 300_000;
    for (let from = 0; from < N; from += 100_000) {
      await ok(
        writeLp(
          s.url,
          Array.from({ length: 100_000 }, (_, i) => `long v=${from + i}i ${T0 + BigInt(from + i) * 1000n}`).join('\n'),
        ),
      );
    }
    const res = await exportOf(s, 'table=long');
    d = decodeExport(new Uint8Array(res.body));
    expect(d.end).toEqual({ rows: N, segments: 2 });
    const sandbox = await Sandbox.create(WASM);
    await sandbox.loadExport(new Uint8Array(res.body));
    for (const q of [
      'SELECT s, count(*), sum(v), min(time), max(time) FROM runs GROUP BY s ORDER BY s',
      'SELECT count(*), sum(v), min(v), max(v), min(time), max(time) FROM long',
    ]) {
      if (q.includes('runs')) await sandbox.loadExport(new Uint8Array((await exportOf(s, 'table=runs')).body));
      expect(JSON.parse((await sandbox.sql(q)).json), q).toEqual(JSON.parse((await ok(sql(s, q))).text));
    }
  });

  it('round-trips a GEOMETRY column of a millisecond database', async () => {
    const res = await exportOf(s, 'db=geo&table=places');
    expect(res.status, res.text).toBe(200);
    const sandbox = await Sandbox.create(WASM);
    await sandbox.loadExport(new Uint8Array(res.body));
    for (const q of [
      'SELECT * FROM places ORDER BY time',
      'DESCRIBE TABLE places',
      'SELECT site, ST_AsBinary(loc) FROM places ORDER BY site',
    ]) {
      const server = JSON.parse((await ok(sql(s, q, 'geo'))).text);
      expect(JSON.parse((await sandbox.sql(q, 'geo')).json), q).toEqual(server);
    }
  });

  it('answers a range with no rows with an empty export that loads as an empty table', async () => {
    const res = await exportOf(s, `table=metrics&start=${T0 - 100n * MIN}&end=${T0 - 50n * MIN}`);
    expect(res.status, res.text).toBe(200);
    const d = decodeExport(new Uint8Array(res.body));
    expect(d.end).toEqual({ rows: 0, segments: 0 });
    const sandbox = await Sandbox.create(WASM);
    await sandbox.loadExport(new Uint8Array(res.body));
    expect((await sandbox.sql('SELECT * FROM metrics')).json).toBe('[]');
  });

  it('a stream cut short is refused by the reader, naming the missing end frame', async () => {
    const res = await exportOf(s, 'table=metrics');
    const cut = new Uint8Array(res.body).subarray(0, res.body.length - 3);
    expect(() => decodeExport(cut)).toThrow(/cut short/);
    const noEnd = new Uint8Array(res.body).subarray(
      0,
      res.body.length - 5 - JSON.stringify(decodeExport(new Uint8Array(res.body)).end).length,
    );
    expect(() => decodeExport(noEnd)).toThrow(/no end frame/);
  });

  const errors: Array<{
    name: string;
    query: string;
    auth?: { user: string; password: string } | null;
    status: number;
    code: string;
    message: RegExp;
  }> = [
    {
      name: 'no table parameter',
      query: 'db=public',
      status: 400,
      code: '040001',
      message: /'table' parameter is required/,
    },
    {
      name: 'an empty table parameter',
      query: 'table=',
      status: 400,
      code: '040001',
      message: /'table' parameter is required/,
    },
    {
      name: 'a start that is no time',
      query: 'table=metrics&start=yesterday',
      status: 400,
      code: '040001',
      message: /invalid start: 'yesterday' is not an RFC 3339 time/,
    },
    {
      name: 'an end out of range',
      query: 'table=metrics&end=99999999999999999999',
      status: 400,
      code: '040001',
      message: /invalid end/,
    },
    {
      name: 'an empty range',
      query: `table=metrics&start=${T0}&end=${T0}`,
      status: 400,
      code: '040001',
      message: /empty range/,
    },
    {
      name: 'a repeated parameter',
      query: 'table=metrics&table=other',
      status: 400,
      code: '040001',
      message: /given 2 times/,
    },
    { name: 'no credentials', query: 'table=metrics', auth: null, status: 401, code: '010016', message: /./ },
    {
      name: 'a wrong password',
      query: 'table=metrics',
      auth: { user: 'root', password: 'x' },
      status: 401,
      code: '010016',
      message: /./,
    },
    {
      name: 'a tenant that does not exist',
      query: 'table=metrics&tenant=nope',
      status: 422,
      code: '030010',
      message: /The tenant nope not found/,
    },
    {
      name: 'a tenant the user is not a member of',
      query: 'table=metrics&tenant=cnosdb',
      auth: { user: 'nobody', password: 'pw' },
      status: 422,
      code: '030010',
      message: /The tenant cnosdb not found/,
    },
    {
      name: 'a database of another tenant',
      query: 'table=metrics&tenant=elsewhere',
      status: 422,
      code: '030017',
      message: /public/,
    },
    { name: 'a missing database', query: 'db=nope&table=metrics', status: 422, code: '030017', message: /nope/ },
    {
      name: 'a missing table',
      query: 'table=nope',
      status: 422,
      code: '030019',
      message: /Table not found: "cnosdb.public.nope"/,
    },
  ];
  for (const e of errors) {
    it(`answers ${e.status} ${e.code} for ${e.name}`, async () => {
      const res = await exportOf(s, e.query, e.auth);
      expect(res.status, res.text).toBe(e.status);
      expect(res.headers['x-sundial-error-code']).toBe(e.code);
      if (e.status !== 401) {
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(JSON.parse(res.text).error_code).toBe(e.code);
      }
      expect(String(res.headers['x-sundial-error'])).toMatch(e.message);
    });
  }

  it('answers 422 010004 to a member without Read on the database', async () => {
    await ok(sql(s, 'CREATE ROLE nothing INHERIT member'));
    await ok(sql(s, "CREATE USER reader WITH PASSWORD = 'pw'"));
    await ok(sql(s, 'CREATE DATABASE secret'));
    await ok(writeLp(s.url, 'm v=1 ' + T0, 'db=secret'));
    // A custom role with no grant on `secret`... member roles read everything, so a role of its own:
    await ok(sql(s, 'CREATE ROLE blank'));
    await ok(sql(s, 'ALTER TENANT cnosdb ADD USER reader AS blank'));
    const denied = await exportOf(s, 'db=secret&table=m', { user: 'reader', password: 'pw' });
    expect(denied.status, denied.text).toBe(422);
    expect(JSON.parse(denied.text)).toEqual({
      error_code: '010004',
      error_message: 'Insufficient privileges, expected [Read on database secret of tenant cnosdb]',
    });
    await ok(sql(s, 'GRANT READ ON DATABASE secret TO ROLE blank'));
    const allowed = await exportOf(s, 'db=secret&table=m', { user: 'reader', password: 'pw' });
    expect(allowed.status, allowed.text).toBe(200);
    expect(decodeExport(new Uint8Array(allowed.body)).end.rows).toBe(1);
  });
});
