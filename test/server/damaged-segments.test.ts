// Issue 24: a damaged segment file. Queries that do not need its damaged part are served; one that
// does fails with 500 020013 naming the file relative to the data directory; with
// storage.skip_damaged_segments such files are left out with an X-Sundial-Warning header instead.
// CHECK DATABASE verifies every checksum of every segment and WAL file and answers a row per
// problem; CHECK DATABASE ... REPAIR moves a damaged segment file to the quarantine folder.

import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BlockCache } from '../../host/storage/segment/block-cache.js';
import { storageCodecs } from '../../host/storage/segment/codecs.js';
import { SegmentReader } from '../../host/storage/segment/segment-reader.js';
import { nodeSegmentStore } from '../../host/storage/segment/node-segment-store.js';
import { loadCore } from '../support/core.js';
import { http, writeLp, type HttpResponse } from '../support/http.js';
import { scrape } from '../support/metrics.js';
import { startServer, type TestServer } from '../support/server.js';

const QUIET = {
  SUNDIAL_WARMUP: 'false',
  SUNDIAL_WRITE_WARMUP: 'false',
  SUNDIAL_PARSE_WARMUP: 'false',
  SUNDIAL_REPORT_INTERVAL: '0',
};
const WEEK = 7n * 86_400n * 1_000_000_000n;
const CHECK_HEADER = 'file,offset,problem,action\n';

const sql = (url: string, text: string, auth?: { user: string; password: string }): Promise<HttpResponse> =>
  http(url, '/api/v1/sql', { method: 'POST', body: text, ...(auth === undefined ? {} : { auth }) });
/** CHECK DATABASE's rows, as JSON objects. */
async function check(
  url: string,
  text: string,
): Promise<Array<{ file: string; offset: number | null; problem: string; action: string }>> {
  const r = await http(url, '/api/v1/sql', { method: 'POST', body: text, headers: { accept: 'application/json' } });
  expect(r.status, r.text).toBe(200);
  return JSON.parse(r.text) as Array<{ file: string; offset: number | null; problem: string; action: string }>;
}
const MISMATCH = expect.stringMatching(/checksum mismatch: stored 0x[0-9a-f]+, computed 0x[0-9a-f]+$/) as string;
const ping = async (url: string): Promise<Record<string, string>> =>
  JSON.parse((await http(url, '/api/v1/ping', { auth: null })).text) as Record<string, string>;

/** The segment files of database public, oldest first, relative to the data directory. */
function segments(dataDir: string): string[] {
  const catalog = JSON.parse(readFileSync(join(dataDir, 'catalog.json'), 'utf8')) as {
    databases: Array<{ id: number; tenant: string; name: string }>;
  };
  const id = catalog.databases.find((d) => d.tenant === 'cnosdb' && d.name === 'public')!.id;
  return readdirSync(join(dataDir, 'db', String(id), 'seg'))
    .sort()
    .map((n) => `db/${id}/seg/${n}`);
}

function flip(file: string, at: number): void {
  const b = readFileSync(file);
  b[at] = b[at]! ^ 0xff;
  writeFileSync(file, b);
}

/**
 * A data directory with table m: series h=a and h=b in week 0 (one file) and h=a in week 1
 * (another file), fields v and w, 100 rows each; flushed. Returns the server (stopped) and the
 * week-0 file.
 */
async function stored(): Promise<{ first: TestServer; week0: string; week1: string }> {
  const first = await startServer({ env: QUIET });
  const lines: string[] = [];
  for (let i = 0; i < 100; i++) {
    lines.push(`m,h=a v=${i},w=${-i} ${i}`, `m,h=b v=${i},w=${-i} ${i}`, `m,h=a v=${i},w=${-i} ${WEEK + BigInt(i)}`);
  }
  expect((await writeLp(first.url, lines.join('\n'))).status).toBe(200);
  expect((await sql(first.url, 'COMPACT DATABASE public')).status).toBe(200);
  expect(await first.stop()).toBe(0);
  const [week0, week1] = segments(first.dataDir);
  return { first, week0: week0!, week1: week1! };
}

/** The offset of the `field` block of series h=a in a segment file (through the real reader). */
async function blockOffset(file: string, field: 'v' | 'w'): Promise<number> {
  const catalog = JSON.parse(readFileSync(join(file, '../../../../catalog.json'), 'utf8')) as {
    databases: Array<{
      name: string;
      tables: Array<{ name: string; id: number; fields: Array<{ id: number; name: string }> }>;
    }>;
  };
  const table = catalog.databases.find((d) => d.name === 'public')!.tables.find((t) => t.name === 'm')!;
  const id = table.fields.find((f) => f.name === field)!.id;
  const reader = await SegmentReader.open(
    nodeSegmentStore,
    file,
    1,
    storageCodecs(await loadCore()),
    new BlockCache(1 << 20),
  );
  try {
    const a = (await reader.tableSeries(table.id)).find((e) => e.tags.some(([, v]) => v === 'a'))!;
    return a.groups[0]!.columns[a.columns.findIndex((c) => c.id === id)]!.offset;
  } finally {
    reader.retire();
  }
}

function expectCorrupt(r: HttpResponse, file: string, dataDir: string): void {
  expect(r.status, r.text).toBe(500);
  const body = JSON.parse(r.text) as { error_code: string; error_message: string };
  expect(body.error_code).toBe('020013');
  expect(body.error_message).toMatch(new RegExp(`^corrupt ${file} at offset \\d+: `));
  expect(body.error_message).not.toContain(dataDir);
  expect(r.headers['x-sundial-error-code']).toBe('020013');
}

describe('a damaged block in a segment file', () => {
  it('fails only the queries that need it, naming the file; CHECK DATABASE finds it and REPAIR moves it aside', async () => {
    const { first, week0, week1 } = await stored();
    const vAt = await blockOffset(join(first.dataDir, week0), 'v');
    flip(join(first.dataDir, week0), vAt + 3);
    const server = await startServer({ dataDir: first.dataDir, env: QUIET });
    try {
      // Pruned by time, by series, by column: served.
      expect((await sql(server.url, `SELECT count(v) AS n FROM m WHERE time >= ${WEEK}`)).text).toBe('n\n100\n');
      expect((await sql(server.url, "SELECT count(v) AS n FROM m WHERE h = 'b'")).text).toBe('n\n100\n');
      expect((await sql(server.url, 'SELECT count(w) AS n FROM m')).text).toBe('n\n300\n');
      expect(await ping(server.url)).toEqual({ version: expect.any(String) as string, status: 'healthy' });
      // Needs the block: fails naming the file, relative to the data directory.
      const r = await sql(server.url, "SELECT v FROM m WHERE h = 'a'");
      expectCorrupt(r, week0, first.dataDir);
      expect(JSON.parse(r.text).error_message).toMatch(
        /: column block checksum mismatch: stored 0x[0-9a-f]+, computed 0x[0-9a-f]+ \(CHECK DATABASE lists the damaged files of a database\)$/,
      );
      expect(await ping(server.url)).toMatchObject({
        status: 'degraded',
        reason: '1 damaged segment file in database cnosdb.public (CHECK DATABASE public lists them)',
      });

      expect(await check(server.url, 'CHECK DATABASE public')).toEqual([
        { file: week0, offset: vAt, problem: MISMATCH, action: '' },
      ]);
      expect((await sql(server.url, 'CHECK DATABASE public')).text).toMatch(
        new RegExp(`^${CHECK_HEADER}${week0},${vAt},"column block checksum mismatch: [^"]*",\n$`),
      );

      expect(await check(server.url, 'CHECK DATABASE public REPAIR')).toEqual([
        {
          file: week0,
          offset: vAt,
          problem: MISMATCH,
          action: `moved to quarantine/${week0}; its 200 rows are no longer served`,
        },
      ]);
      expect(existsSync(join(first.dataDir, week0))).toBe(false);
      expect((statSync(join(first.dataDir, 'quarantine', week0)).mode & 0o777).toString(8)).toBe('600');
      expect(segments(first.dataDir)).toEqual([week1]);
      expect((await sql(server.url, 'CHECK DATABASE public')).text).toBe(CHECK_HEADER);
      expect((await sql(server.url, "SELECT count(v) AS n FROM m WHERE h = 'a'")).text).toBe('n\n100\n');
      expect(await ping(server.url)).toMatchObject({ status: 'healthy' });
    } finally {
      expect(await server.stop()).toBe(0);
    }
    const again = await startServer({ dataDir: first.dataDir, env: QUIET });
    try {
      expect((await sql(again.url, 'SELECT count(*) AS n FROM m')).text).toBe('n\n100\n');
      expect(existsSync(join(first.dataDir, 'quarantine', week0))).toBe(true);
    } finally {
      expect(await again.stop()).toBe(0);
      first.cleanup();
    }
  });

  it('with storage.skip_damaged_segments, is skipped with a warning header once found', async () => {
    const { first, week0 } = await stored();
    flip(join(first.dataDir, week0), (await blockOffset(join(first.dataDir, week0), 'v')) + 3);
    const server = await startServer({
      dataDir: first.dataDir,
      env: { ...QUIET, SUNDIAL_SKIP_DAMAGED_SEGMENTS: 'true' },
    });
    try {
      expectCorrupt(await sql(server.url, "SELECT v FROM m WHERE h = 'a'"), week0, first.dataDir); // found now: the query already had rows of it
      const r = await sql(server.url, "SELECT count(v) AS n FROM m WHERE h = 'a'");
      expect(r.text).toBe('n\n100\n');
      expect(r.headers['x-sundial-warning']).toBe(`skipped damaged segment files: ${week0}`);
      // /metrics: the file found damaged once, and left out of one read.
      const m = await scrape(server.url);
      expect([m.get('sundial_damaged_segment_files_total'), m.get('sundial_damaged_segments_skipped_total')]).toEqual([
        1, 1,
      ]);
    } finally {
      expect(await server.stop()).toBe(0);
      first.cleanup();
    }
  });
});

describe('a segment file whose index is damaged', () => {
  it('fails the queries of its time range, naming the file, or is skipped with a warning header', async () => {
    const { first, week0 } = await stored();
    const file = join(first.dataDir, week0);
    flip(file, statSync(file).size - 40);
    const plain = await startServer({ dataDir: first.dataDir, env: QUIET });
    try {
      expect((await sql(plain.url, `SELECT count(*) AS n FROM m WHERE time >= ${WEEK}`)).text).toBe('n\n100\n');
      expectCorrupt(await sql(plain.url, 'SELECT count(*) AS n FROM m'), week0, first.dataDir);
      expect(await ping(plain.url)).toMatchObject({ status: 'degraded' });
      expect(await check(plain.url, 'CHECK DATABASE public')).toEqual([
        {
          file: week0,
          offset: expect.any(Number) as number,
          problem: expect.stringMatching(/^index/) as string,
          action: '',
        },
      ]);
      expect((await writeLp(plain.url, 'm,h=c v=1 5')).status).toBe(200);
    } finally {
      expect(await plain.stop()).toBe(0);
    }
    const skipping = await startServer({
      dataDir: first.dataDir,
      env: { ...QUIET, SUNDIAL_SKIP_DAMAGED_SEGMENTS: 'true' },
    });
    try {
      const r = await sql(skipping.url, 'SELECT count(*) AS n FROM m');
      expect(r.status).toBe(200);
      expect(r.text).toBe('n\n101\n');
      expect(r.headers['x-sundial-warning']).toBe(`skipped damaged segment files: ${week0}`);
      const chunked = await http(skipping.url, '/api/v1/sql?chunked=true', {
        method: 'POST',
        body: 'SELECT count(*) AS n FROM m',
      });
      expect(chunked.text).toBe('n\n101\n');
      expect(chunked.headers['x-sundial-warning']).toBe(`skipped damaged segment files: ${week0}`);
      expect(
        (await sql(skipping.url, `SELECT count(*) AS n FROM m WHERE time >= ${WEEK}`)).headers['x-sundial-warning'],
      ).toBe(`skipped damaged segment files: ${week0}`);
    } finally {
      expect(await skipping.stop()).toBe(0);
      first.cleanup();
    }
  });
});

describe('CHECK DATABASE', () => {
  it('finds a damaged WAL record while the server runs; REPAIR retires the segment by a flush, keeping every row', async () => {
    const server = await startServer({ env: QUIET });
    try {
      for (let i = 0; i < 5; i++) expect((await writeLp(server.url, `wal,i=${i} v=${i} ${i}`)).status).toBe(200);
      const catalog = JSON.parse(readFileSync(join(server.dataDir, 'catalog.json'), 'utf8')) as {
        databases: Array<{ id: number; name: string }>;
      };
      const id = catalog.databases.find((d) => d.name === 'public')!.id;
      const wal = `db/${id}/wal/${readdirSync(join(server.dataDir, 'db', String(id), 'wal'))
        .sort()
        .at(-1)!}`;
      const bytes = readFileSync(join(server.dataDir, wal));
      const second = (16 + 24 + bytes.readUInt32LE(16) + 7) & ~7;
      const third = (second + 24 + bytes.readUInt32LE(second) + 7) & ~7;
      flip(join(server.dataDir, wal), second + 30);
      expect(await check(server.url, 'CHECK DATABASE public')).toEqual([
        {
          file: wal,
          offset: second,
          problem: expect.stringMatching(new RegExp(`^bytes ${second} to ${third}: checksum mismatch: `)) as string,
          action: '',
        },
        { file: wal, offset: third, problem: 'LSN 2 to 2 missing', action: '' },
      ]);
      const repaired = await check(server.url, 'CHECK DATABASE public REPAIR');
      expect(repaired.map((r) => r.action)).toEqual([
        'flushed the database, which retired the damaged WAL segment',
        'flushed the database, which retired the damaged WAL segment',
      ]);
      expect(existsSync(join(server.dataDir, wal))).toBe(false);
      expect((await sql(server.url, 'CHECK DATABASE public')).text).toBe(CHECK_HEADER);
      expect((await sql(server.url, 'SELECT count(*) AS n FROM wal')).text).toBe('n\n5\n');
    } finally {
      expect(await server.stop()).toBe(0);
      server.cleanup();
    }
  });

  it('answers no rows for sound files, 422 for a database that does not exist, and only to owners and admins', async () => {
    const server = await startServer({ env: QUIET });
    try {
      expect((await writeLp(server.url, 'm v=1 1')).status).toBe(200);
      expect((await sql(server.url, 'COMPACT DATABASE public')).status).toBe(200);
      expect((await writeLp(server.url, 'm v=2 2')).status).toBe(200);
      const ok = await sql(server.url, 'CHECK DATABASE public');
      expect([ok.status, ok.headers['content-type'], ok.text]).toEqual([200, 'text/csv', CHECK_HEADER]);
      const missing = await sql(server.url, 'CHECK DATABASE nope');
      expect([missing.status, JSON.parse(missing.text).error_code]).toEqual([422, '030017']);
      expect((await sql(server.url, "CREATE USER reader WITH PASSWORD = 'p'")).status).toBe(200);
      expect((await sql(server.url, 'ALTER TENANT cnosdb ADD USER reader AS member')).status).toBe(200);
      const denied = await sql(server.url, 'CHECK DATABASE public', { user: 'reader', password: 'p' });
      expect([denied.status, JSON.parse(denied.text).error_code]).toEqual([422, '010004']);
    } finally {
      expect(await server.stop()).toBe(0);
      server.cleanup();
    }
  });
});
