// storage.object_store against s3rver on loopback: segment files go to the bucket and the local
// disk only caches them; a restart with an empty cache reads everything back from the bucket; the
// store taken away makes flushes wait, writes end in 429 once memory is full and reads of evicted
// files fail with 503 naming the object, and it all resumes when the store is back; a wrong
// bucket or key stops the server at start with a message saying which.

import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, writeLp } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { startS3, type TestS3 } from '../support/s3rver.js';

const LINES = 500;
const body = (seq: number): string =>
  Array.from(
    { length: LINES },
    (_, k) => `m,host=h${k % 7} v=${seq * LINES + k}i ${(seq * LINES + k) * 1_000_000_000}`,
  ).join('\n');

async function sql(url: string, statement: string): Promise<{ status: number; text: string }> {
  const r = await http(url, '/api/v1/sql?db=public', { method: 'POST', body: statement });
  return { status: r.status, text: r.text };
}

/** count and sum of the rows of requests 0..n-1 as the CSV answer of COUNT_SUM. */
const COUNT_SUM = 'SELECT count(*) AS n, sum(v) AS s FROM m';
function expected(seqs: readonly number[]): string {
  let n = 0;
  let s = 0n;
  for (const seq of seqs) for (let k = 0; k < LINES; k++, n++) s += BigInt(seq * LINES + k);
  return `n,s\n${n},${s}\n`;
}

async function metric(url: string, name: string): Promise<number> {
  const r = await http(url, '/metrics');
  let total = 0;
  for (const line of r.text.split('\n'))
    if (line.startsWith(name + ' ') || line.startsWith(name + '{'))
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
  return total;
}

/** Files under `dir`, recursively, as paths relative to it. */
function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) out.push(join(e.parentPath, e.name).slice(dir.length + 1));
  return out.sort();
}

describe('object store: write, flush, evict, restart with an empty cache', () => {
  let s3: TestS3;
  let server: TestServer | undefined;
  beforeAll(async () => {
    s3 = await startS3();
  });
  afterAll(async () => {
    await server?.stop();
    server?.cleanup();
    await s3.close();
  });

  it('keeps segment files in the bucket and reads them back through an empty cache', { timeout: 120_000 }, async () => {
    const args = [...s3.args({ prefix: 'node1' }), '--flush-bytes', '64KiB', '--compaction-fan-in', '100'];
    server = await startServer({ args });
    for (let seq = 0; seq < 8; seq++) expect((await writeLp(server.url, body(seq))).status).toBe(200);
    expect((await sql(server.url, 'COMPACT DATABASE public')).status).toBe(200);
    const objects = s3.keys('node1/db/');
    expect(objects.length).toBeGreaterThan(0);
    for (const k of objects) expect(k).toMatch(/^node1\/db\/\d+\/seg\/\d{12}\.seg$/);
    // The data directory holds no segment file of its own: they are in the cache folder only.
    expect(files(join(server.dataDir, 'db')).filter((f) => f.endsWith('.seg'))).toEqual([]);
    expect(await metric(server.url, 'sundial_object_uploads_total')).toBeGreaterThanOrEqual(objects.length);
    const all = [0, 1, 2, 3, 4, 5, 6, 7];
    expect((await sql(server.url, COUNT_SUM)).text).toBe(expected(all));
    expect(await server.stop()).toBe(0);

    // Compaction merged every partition to one file and deleted its inputs from the bucket.
    const afterCompaction = s3.keys('node1/db/');
    rmSync(join(server.dataDir, 'object-cache'), { recursive: true, force: true });
    const again = await startServer({ dataDir: server.dataDir, args });
    server = again;
    expect(s3.keys('node1/db/')).toEqual(afterCompaction);
    expect((await sql(again.url, COUNT_SUM)).text).toBe(expected(all));
    expect((await sql(again.url, "SELECT v FROM m WHERE host = 'h3' ORDER BY time LIMIT 2")).text).toBe('v\n3\n10\n');
    expect(await metric(again.url, 'sundial_object_downloads_total')).toBeGreaterThan(0);
    expect(await metric(again.url, 'sundial_object_cache_reads_total{result="miss"}')).toBeGreaterThan(0);
    expect(await again.stop()).toBe(0);

    // A cache of one byte keeps nothing: every read is fetched, and the answers stay the same.
    const tiny = await startServer({ dataDir: server.dataDir, args: [...args, '--cache-bytes', '1'] });
    server = tiny;
    expect((await writeLp(tiny.url, body(8))).status).toBe(200);
    expect((await sql(tiny.url, 'COMPACT DATABASE public')).status).toBe(200);
    expect((await sql(tiny.url, COUNT_SUM)).text).toBe(expected([...all, 8]));
    expect(files(join(server.dataDir, 'object-cache'))).toEqual([]);
  });
});

describe('object store unavailable for a while', () => {
  let s3: TestS3;
  let server: TestServer | undefined;
  beforeAll(async () => {
    s3 = await startS3();
  });
  afterAll(async () => {
    await s3.start();
    await server?.stop();
    server?.cleanup();
    await s3.close();
  });

  it('waits, answers 429 once memory is full and 503 for evicted files, and resumes', {
    timeout: 180_000,
  }, async () => {
    // No local cache: reads of flushed data need the store.
    const args = [...s3.args(), '--cache-bytes', '1', '--flush-bytes', '64KiB', '--memtable-bytes', '1MiB'];
    server = await startServer({ args });
    const acked: number[] = [];
    for (let seq = 0; seq < 4; seq++) {
      expect((await writeLp(server.url, body(seq))).status).toBe(200);
      acked.push(seq);
    }
    expect((await sql(server.url, 'COMPACT DATABASE public')).status).toBe(200);
    await s3.stop();

    // Rows, not counts: a count or sum is answered from the statistics of the file's index,
    // which its reader holds since it opened the file.
    const down = await sql(server.url, "SELECT v FROM m WHERE host = 'h3' ORDER BY time LIMIT 2");
    expect(down.status).toBe(503);
    const err = JSON.parse(down.text) as { error_code: string; error_message: string };
    expect(err.error_code).toBe('000003');
    expect(err.error_message).toMatch(
      /^the object store is unavailable: GetObject s3:\/\/sundial\/db\/\d+\/seg\/\d{12}\.seg failed: .*; retry later$/,
    );

    // Writes go on into memory (their flushes wait for the store) until the memtables are full.
    let limited: { status: number; text: string } | undefined;
    for (let seq = 4; seq < 400 && limited === undefined; seq++) {
      const r = await writeLp(server.url, body(seq));
      if (r.status === 200) acked.push(seq);
      else limited = { status: r.status, text: r.text };
    }
    expect(acked.length).toBeGreaterThan(4);
    expect(limited?.status).toBe(429);
    expect(await metric(server.url, 'sundial_object_store_retries_total{op="upload"}')).toBeGreaterThan(0);
    const ping = await http(server.url, '/api/v1/ping');
    expect(ping.text).toMatch(/the object store fails/);

    await s3.start();
    // The waiting flushes finish (their retry pause is at most 10 s), then writes are taken again.
    let resumed = false;
    for (let i = 0; i < 120 && !resumed; i++) {
      const r = await writeLp(server.url, body(400));
      if (r.status === 200) {
        resumed = true;
        acked.push(400);
      } else {
        expect(r.status).toBe(429);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
    expect(resumed).toBe(true);
    expect((await sql(server.url, COUNT_SUM)).text).toBe(expected(acked));
    expect((await sql(server.url, 'COMPACT DATABASE public')).status).toBe(200);
    expect(await server.stop()).toBe(0);

    const again = await startServer({ dataDir: server.dataDir, args });
    server = again;
    expect((await sql(again.url, COUNT_SUM)).text).toBe(expected(acked));
  });
});

describe('object store settings checked at start', () => {
  let s3: TestS3;
  beforeAll(async () => {
    s3 = await startS3();
  });
  afterAll(async () => {
    await s3.close();
  });

  const cases = [
    {
      name: 'a wrong access key',
      args: () => [...s3.args(), '--s3-access-key-id', 'WRONG'],
      message:
        /the object store is unusable: HeadBucket s3:\/\/sundial failed: .*\(HTTP 403\); check storage\.object_store\.s3_access_key_id and s3_secret_access_key/,
    },
    {
      name: 'a missing bucket',
      args: () => [...s3.args(), '--s3-bucket', 'no-such-bucket'],
      message:
        /the object store is unusable: HeadBucket s3:\/\/no-such-bucket failed: .*\(HTTP 404\); check storage\.object_store\.s3_bucket \(it must exist\)/,
    },
    {
      name: 'no store at the endpoint',
      args: () => [...s3.args(), '--s3-endpoint', 'http://127.0.0.1:1'],
      message:
        /the object store is unusable: HeadBucket s3:\/\/sundial failed: ECONNREFUSED; check storage\.object_store\.s3_endpoint and that the store is running/,
    },
  ];
  for (const c of cases) {
    it(`stops the server at start with ${c.name}`, async () => {
      const failed = await startServer({ args: c.args(), waitReady: false }).then(
        async (s) => {
          await s.stop();
          s.cleanup();
          return undefined;
        },
        (e: Error) => e.message,
      );
      expect(failed).toMatch(/server exited with 1 before the expected log line/);
      expect(failed).toMatch(c.message);
    });
  }
});
