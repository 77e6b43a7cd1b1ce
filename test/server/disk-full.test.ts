// Issue 24: a full file system. Writes get 507 with their own code and message (not 500 "internal
// error"), reads go on, ping says degraded, a restart on the full disk comes up and serves reads,
// and once space is freed writes resume by themselves, without a restart; no write answered with
// an error is ever visible, every acknowledged one survives a restart. On a real tmpfs the test fills; where mounting is refused, on injected
// ENOSPC (the run says so).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, writeLp, type HttpResponse } from '../support/http.js';
import { scrape } from '../support/metrics.js';
import { startServer, type TestServer } from '../support/server.js';
import { mountTmpfs, type Tmpfs } from '../support/tmpfs.js';

const QUIET = {
  SUNDIAL_WARMUP: 'false',
  SUNDIAL_WRITE_WARMUP: 'false',
  SUNDIAL_PARSE_WARMUP: 'false',
  SUNDIAL_REPORT_INTERVAL: '0',
};
const NO_SPACE =
  "no space left on the data directory's file system; writes are refused until space is freed (reads go on)";
const ROWS = 200;

let fs: Tmpfs | undefined;
beforeAll(() => {
  const mounted = mountTmpfs('16m');
  if (typeof mounted === 'string') console.warn(`disk-full.test.ts: ${mounted}; using injected ENOSPC instead`);
  else fs = mounted;
});
afterAll(() => fs?.unmount());

/** A batch of ROWS rows of about 100 bytes, tagged with its number. */
function batch(n: number): string {
  const lines: string[] = [];
  for (let k = 0; k < ROWS; k++)
    lines.push(`full,b=${String(n).padStart(3, '0')},k=${k} s="${'x'.repeat(60)}",v=${k} ${n * 1000 + k}`);
  return lines.join('\n');
}

const sql = (url: string, text: string): Promise<HttpResponse> =>
  http(url, '/api/v1/sql', { method: 'POST', body: text });
const ping = async (url: string): Promise<Record<string, string>> =>
  JSON.parse((await http(url, '/api/v1/ping', { auth: null })).text) as Record<string, string>;

/** The batches stored, as CSV of batch number and row count. */
async function stored(server: TestServer): Promise<string> {
  const r = await sql(server.url, 'SELECT b, count(*) AS n FROM full GROUP BY b ORDER BY b');
  expect(r.status, r.text).toBe(200);
  return r.text;
}
const expected = (acked: number[]): string =>
  'b,n\n' + acked.map((n) => `${String(n).padStart(3, '0')},${ROWS}\n`).join('');

describe('a full file system', () => {
  it('refuses writes with 507 020058, serves reads, reports degraded, and resumes when space returns', async () => {
    const dataDir = fs === undefined ? undefined : `${fs.dir}/data`;
    const env = fs === undefined ? { ...QUIET, SUNDIAL_TEST_FAIL: 'wal:write#6*8:ENOSPC' } : QUIET;
    const server = await startServer({ dataDir, env });
    const acked: number[] = [];
    let n = 0;
    try {
      for (; n < 5; n++) {
        expect((await writeLp(server.url, batch(n))).status).toBe(200);
        acked.push(n);
      }
      fs?.fill();
      // The last page of the WAL file may still take a write or two.
      let refused: HttpResponse | undefined;
      for (; n < 40 && refused === undefined; n++) {
        const r = await writeLp(server.url, batch(n));
        if (r.status === 200) acked.push(n);
        else refused = r;
      }
      expect(refused?.status).toBe(507);
      expect(refused!.headers['x-sundial-error-code']).toBe('020058');
      expect(refused!.headers['x-sundial-error']).toBe(NO_SPACE);
      expect(refused!.headers['retry-after']).toBe('5');
      expect(refused!.body.length).toBe(0);
      // Reads go on, and see exactly the acknowledged writes; ping says why writes fail.
      expect(await stored(server)).toBe(expected(acked));
      expect(await ping(server.url)).toMatchObject({ status: 'degraded', reason: NO_SPACE });
      const again = await writeLp(server.url, batch(n++));
      expect(again.status).toBe(507);
      // DDL is refused too, before it changes anything.
      const ddl = await sql(server.url, 'CREATE DATABASE later');
      expect([ddl.status, JSON.parse(ddl.text).error_code, ddl.headers['retry-after']]).toEqual([507, '020058', '5']);
      expect((await sql(server.url, 'SHOW DATABASES')).text).not.toContain('later');
      // /metrics counts the three refusals (two writes, the DDL) and the WAL write that failed.
      const m = await scrape(server.url);
      expect(m.get('sundial_disk_full_refusals_total')).toBe(3);
      expect(m.get('sundial_wal_write_failures_total')).toBeGreaterThanOrEqual(1);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    // A restart on the full disk: it comes up and serves reads; writes are still refused.
    const full = await startServer({ dataDir: server.dataDir, env });
    try {
      expect(await stored(full)).toBe(expected(acked));
      expect((await writeLp(full.url, batch(n++))).status).toBe(507);
      // Space returns: writes resume by themselves (the WAL is probed at most once a second).
      fs?.free();
      const started = Date.now();
      for (;;) {
        const r = await writeLp(full.url, batch(n));
        if (r.status === 200) {
          acked.push(n++);
          break;
        }
        expect(r.status).toBe(507);
        expect(Date.now() - started).toBeLessThan(20_000);
        n++;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(await ping(full.url)).toMatchObject({ status: 'healthy' });
      expect((await writeLp(full.url, batch(n))).status).toBe(200);
      acked.push(n++);
      expect(await stored(full)).toBe(expected(acked));
    } finally {
      expect(await full.stop()).toBe(0);
    }
    const restarted = await startServer({ dataDir: server.dataDir, env: QUIET });
    try {
      expect(await stored(restarted)).toBe(expected(acked));
    } finally {
      expect(await restarted.stop()).toBe(0);
      restarted.cleanup();
    }
  });
});
