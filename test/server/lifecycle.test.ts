// The server's lifecycle (issue 2, CONTRACT.md "Ping"): while the WAL replays every route answers
// 503 (ping with "status":"unavailable"); on SIGTERM it stops accepting, finishes the requests in
// flight, makes them durable and exits 0 (SIGINT alike).

import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { basic, http, writeLp } from '../support/http.js';
import { scrapeUntil } from '../support/metrics.js';
import { readBack } from '../support/read-back.js';
import { startServer } from '../support/server.js';

/** `rows` lines of one table, `batch` per request. */
async function fill(url: string, table: string, rows: number, batch: number): Promise<void> {
  for (let start = 0; start < rows; start += batch) {
    const lines: string[] = [];
    for (let i = start; i < Math.min(rows, start + batch); i++)
      lines.push(`${table},host=h${i % 50} a=${i}i,b=${i / 4},c="row ${i}" ${i}`);
    const r = await writeLp(url, lines.join('\n'));
    expect(r.status).toBe(200);
  }
}

describe('server lifecycle', () => {
  it('answers 503 to every route while it replays the WAL, then serves', async () => {
    // Nothing is flushed, so the whole load is in the WAL: enough that replay takes a noticeable
    // while on any machine.
    const noFlush = ['--flush-bytes', '2GiB', '--memtable-bytes', '4GiB'];
    const first = await startServer({ args: noFlush });
    await fill(first.url, 'replay', 400_000, 20_000);
    await first.kill();

    const server = await startServer({ dataDir: first.dataDir, waitReady: false, args: noFlush });
    try {
      // Poll until the server serves: every answer is either "unavailable" (replay still runs) or
      // "healthy", and once healthy it stays so. Replay yields to the event loop every few
      // milliseconds (wal.ts), so the first requests land inside it.
      const seen: string[] = [];
      for (;;) {
        const ping = await http(server.url, '/api/v1/ping', { auth: null });
        if (ping.status === 200) {
          expect(JSON.parse(ping.text).status).toBe('healthy');
          break;
        }
        expect([ping.status, JSON.parse(ping.text).status]).toEqual([503, 'unavailable']);
        const write = await writeLp(server.url, 'late f=1 1');
        if (write.status === 503) {
          expect([write.headers['x-sundial-error-code'], write.headers['retry-after'], write.body.length]).toEqual([
            '000003',
            '1',
            0,
          ]);
          seen.push('unavailable');
        } else {
          expect(write.status).toBe(200);
        }
      }
      await server.waitForLog((l) => l.msg === 'ready');
      expect(seen.length, 'at least one request arrived during replay').toBeGreaterThan(0);
      const ping = await http(server.url, '/api/v1/ping', { auth: null });
      expect([ping.status, JSON.parse(ping.text).status]).toEqual([200, 'healthy']);
      expect((await writeLp(server.url, 'late f=1 1')).status).toBe(200);
      expect(await server.stop()).toBe(0);
      const stored = await readBack(server.dataDir);
      try {
        expect((await stored.rows('replay')).length).toBe(400_000);
      } finally {
        await stored.close();
      }
    } finally {
      await server.kill();
      first.cleanup();
    }
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'finishes a request in flight on %s, refuses new ones, and exits 0',
    async (signal) => {
      const server = await startServer();
      try {
        const body = Buffer.from(Array.from({ length: 1000 }, (_, i) => `inflight,k=${i % 7} v=${i}i ${i}`).join('\n'));
        const half = body.length >> 1;
        // A write whose body arrives in two parts, with SIGTERM in between.
        const response = new Promise<number>((resolve, reject) => {
          const req = httpRequest(
            new URL('/api/v1/write', server.url),
            {
              method: 'POST',
              agent: false,
              headers: { authorization: basic('root', ''), 'content-length': String(body.length) },
            },
            (res) => {
              res.resume();
              res.on('end', () => resolve(res.statusCode!));
            },
          );
          req.on('error', reject);
          req.write(body.subarray(0, half));
          void server
            .waitForLog((l) => l.msg === 'shutting down')
            .then(async () => {
              // While a request is in flight the listener stays open and a new request is told 503
              // (CONTRACT.md: shutting down is 503); ping says so in its body.
              const late = await http(server.url, '/api/v1/ping', { auth: null });
              expect([late.status, JSON.parse(late.text).status]).toEqual([503, 'unavailable']);
              const sql = await http(server.url, '/api/v1/sql', { method: 'POST', body: 'SELECT 1' });
              expect([sql.status, sql.headers['x-sundial-error-code'], sql.headers['retry-after']]).toEqual([
                503,
                '000003',
                '1',
              ]);
              req.end(body.subarray(half));
            }, reject);
        });
        // The signal goes once the server has the write's headers: the scrape is the other request.
        const inFlight = (
          await scrapeUntil(server.url, (s) => (s.get('sundial_http_requests_in_flight') ?? 0) >= 2)
        ).get('sundial_http_requests_in_flight');
        expect(inFlight, 'the write is in flight').toBeGreaterThanOrEqual(2);
        server.child.kill(signal);
        expect(await response).toBe(200);
        expect(await server.exited).toBe(0);
        const stored = await readBack(server.dataDir);
        try {
          expect((await stored.rows('inflight')).length).toBe(1000);
        } finally {
          await stored.close();
        }
      } finally {
        await server.kill();
        server.cleanup();
      }
    },
  );
});
