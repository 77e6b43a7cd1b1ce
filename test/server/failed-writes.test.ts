// Issue 24: a write answered with an error is never visible: not to queries in the same run, not
// in segment files, not after a restart. Before the fix the batch reached the memtable before its
// WAL fsync settled, so a write answered 500 was returned by queries (and its record, left in
// the WAL, came back at the next start). The fsync failure is injected (SUNDIAL_TEST_FAIL); a
// real full file system is test/server/disk-full.test.ts.

import { describe, expect, it } from 'vitest';
import { http, writeLp } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

/** No background writes of the server's own (warm-ups, usage reports): the n-th fsync is the n-th write's. */
const QUIET = {
  SUNDIAL_WARMUP: 'false',
  SUNDIAL_WRITE_WARMUP: 'false',
  SUNDIAL_PARSE_WARMUP: 'false',
  SUNDIAL_REPORT_INTERVAL: '0',
};

const sql = async (url: string, text: string): Promise<string> => {
  const r = await http(url, '/api/v1/sql', { method: 'POST', body: text });
  expect(r.status, r.text).toBe(200);
  return r.text;
};

/** A row of table `w` as CSV: written as `w v=<n> <n>`. */
const row = (n: number): string => `1970-01-01T00:00:00.${String(n).padStart(9, '0')},${n}.0\n`;

/** The `v` values stored in table `w`, in time order. */
const stored = async (server: TestServer): Promise<string> => sql(server.url, 'SELECT time, v FROM w ORDER BY time');

describe('a write whose WAL fsync fails', () => {
  it('is answered 500, is in no query, no flushed file and no restart, and later writes go on', async () => {
    const server = await startServer({ env: { ...QUIET, SUNDIAL_TEST_FAIL: 'wal:fsync#3:EIO' } });
    const acked: number[] = [];
    try {
      for (const i of [1, 2]) {
        expect((await writeLp(server.url, `w v=${i} ${i}`)).status).toBe(200);
        acked.push(i);
      }
      const failed = await writeLp(server.url, 'w v=3 3');
      expect(failed.status).toBe(500);
      expect(failed.headers['x-sundial-error-code']).toBe('000001');
      expect(failed.headers['x-sundial-error']).toBe(
        'the write-ahead log could not be written (EIO); nothing of the request was stored',
      );
      expect(failed.body.length).toBe(0);
      expect(await stored(server)).toBe(
        'time,v\n1970-01-01T00:00:00.000000001,1.0\n1970-01-01T00:00:00.000000002,2.0\n',
      );
      const ping = JSON.parse((await http(server.url, '/api/v1/ping', { auth: null })).text) as {
        status: string;
        reason?: string;
      };
      expect(ping.status).toBe('degraded');
      expect(ping.reason).toBe(
        'the write-ahead log of database cnosdb.public failed (EIO); writes to it are refused until it is writable again',
      );
      // Writes are refused until the log is writable again (a new segment, made within about a second).
      let i = 4;
      for (const started = Date.now(); Date.now() - started < 20_000; i++) {
        const r = await writeLp(server.url, `w v=${i} ${i}`);
        if (r.status === 200) {
          acked.push(i);
          break;
        }
        expect(r.status).toBe(500);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(acked).toHaveLength(3);
      expect(JSON.parse((await http(server.url, '/api/v1/ping', { auth: null })).text)).toMatchObject({
        status: 'healthy',
      });
      const expected = 'time,v\n' + acked.map(row).join('');
      expect(await stored(server)).toBe(expected);
      // Flushed to a segment file: still only the acknowledged writes.
      expect((await http(server.url, '/api/v1/sql', { method: 'POST', body: 'COMPACT DATABASE public' })).status).toBe(
        200,
      );
      expect(await stored(server)).toBe(expected);
      expect((await writeLp(server.url, 'w v=9 9')).status).toBe(200);
      acked.push(9);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    const again = await startServer({ dataDir: server.dataDir, env: QUIET });
    try {
      expect(await stored(again)).toBe(
        'time,v\n' +
          [...acked]
            .sort((a, b) => a - b)
            .map(row)
            .join(''),
      );
    } finally {
      expect(await again.stop()).toBe(0);
      again.cleanup();
    }
  });

  it('is not replayed after a crash that follows it', async () => {
    const server = await startServer({ env: { ...QUIET, SUNDIAL_TEST_FAIL: 'wal:fsync#2*0:EIO' } });
    expect((await writeLp(server.url, 'w v=1 1')).status).toBe(200);
    expect((await writeLp(server.url, 'w v=2 2')).status).toBe(500);
    expect((await writeLp(server.url, 'w v=3 3')).status).toBe(500);
    await server.kill();
    const again = await startServer({ dataDir: server.dataDir, env: QUIET });
    try {
      expect(await stored(again)).toBe('time,v\n1970-01-01T00:00:00.000000001,1.0\n');
    } finally {
      expect(await again.stop()).toBe(0);
      again.cleanup();
    }
  });
});

describe('concurrent writes of the same point', () => {
  it('keep the same winner in queries and after a restart (last write wins in WAL order)', async () => {
    const server = await startServer({ env: QUIET });
    let winner: string;
    try {
      const writes = Array.from({ length: 40 }, (_, i) =>
        writeLp(server.url, `same,h=a v=${i},u=${i}i 1000\nsame,h=b v=${i} 1000`),
      );
      for (const r of await Promise.all(writes)) expect(r.status).toBe(200);
      winner = await sql(server.url, 'SELECT h, v, u FROM same ORDER BY h');
      expect(winner).toMatch(/^h,v,u\na,(\d+)\.0,\1\nb,\1\.0,\n$/);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    const again = await startServer({ dataDir: server.dataDir, env: QUIET });
    try {
      expect(await sql(again.url, 'SELECT h, v, u FROM same ORDER BY h')).toBe(winner);
    } finally {
      expect(await again.stop()).toBe(0);
      again.cleanup();
    }
  });
});
