// psql-style round trips, for `npm run bench:pg` and the query row of `npm run bench:ingest`:
// over the PostgreSQL port against the same query over /api/v1/sql JSON, on one server: a 1-row
// SELECT (median of `runs`) and a `rows`-row SELECT (median of `bigRuns`), each client keeping
// its connection open, timed from the request sent to the last byte received. The PostgreSQL
// side sends a simple Query on a socket logged in by pg and reads until ReadyForQuery without
// decoding the rows, as HTTP reads the whole body without parsing it: both columns measure the
// server and the wire, not a client's decoding (pg's own row parsing made its column 2.3x slower
// than HTTP's for 100,000 rows). Target: the PostgreSQL port no slower than HTTP JSON for the
// 100,000-row result.

import { Agent, request } from 'node:http';
import pg from 'pg';
import { startServer } from '../test/support/server.js';

export interface RoundTrip {
  name: string;
  rows: number;
  pgMs: number;
  httpMs: number;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function pgRoundTrips({
  rows: ROWS,
  runs: RUNS,
  bigRuns: BIG_RUNS,
}: {
  rows: number;
  runs: number;
  bigRuns: number;
}): Promise<RoundTrip[]> {
  const results: RoundTrip[] = [];
  const server = await startServer({ args: ['--pg-port', '0'], waitWarm: true });
  try {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const post = (path: string, body: string, accept?: string): Promise<Buffer> =>
      new Promise((resolve, reject) => {
        const headers: Record<string, string> = {
          authorization: 'Basic ' + Buffer.from('root:').toString('base64'),
          'content-length': String(Buffer.byteLength(body)),
        };
        if (accept !== undefined) headers.accept = accept;
        const req = request(new URL(path, server.url), { method: 'POST', agent, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            res.statusCode === 200
              ? resolve(Buffer.concat(chunks))
              : reject(new Error(`${res.statusCode} ${Buffer.concat(chunks).toString()}`)),
          );
        });
        req.on('error', reject);
        req.end(body);
      });

    const base = 1_700_000_000_000_000_000n;
    for (let from = 0; from < ROWS; from += 50_000) {
      const lines: string[] = [];
      for (let i = from; i < Math.min(ROWS, from + 50_000); i++)
        lines.push(
          `big,host=h${i % 100} usage=${(i * 0.37).toFixed(2)},n=${i}i,ok=${i % 2 === 0} ${base + BigInt(i) * 1_000_000_000n}`,
        );
      await post('/api/v1/write?db=public', lines.join('\n'));
    }
    const client = new pg.Client({
      host: '127.0.0.1',
      port: server.pgPort,
      user: 'root',
      database: 'public',
      types: { getTypeParser: () => (v: string) => v },
    });
    await client.connect();

    // The logged-in socket under pg's client: a Query message out, bytes in until 'Z' (ReadyForQuery).
    const socket = (client as unknown as { connection: { stream: import('node:net').Socket } }).connection.stream;
    socket.removeAllListeners('data');
    const rawQuery = (sql: string): Promise<number> =>
      new Promise((resolve) => {
        const text = Buffer.from(sql + '\0');
        const msg = Buffer.alloc(5 + text.length);
        msg[0] = 0x51;
        msg.writeInt32BE(4 + text.length, 1);
        text.copy(msg, 5);
        let pending: Buffer = Buffer.alloc(0);
        let bytes = 0;
        const onData = (chunk: Buffer): void => {
          bytes += chunk.length;
          pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
          let i = 0;
          while (i + 5 <= pending.length) {
            const len = pending.readInt32BE(i + 1);
            if (i + 1 + len > pending.length) break;
            if (pending[i] === 0x5a) {
              socket.off('data', onData);
              resolve(bytes);
              return;
            }
            i += 1 + len;
          }
          pending = pending.subarray(i);
        };
        socket.on('data', onData);
        socket.write(msg);
      });

    const queries = [
      {
        name: 'SELECT 1 row',
        sql: "SELECT time, host, usage, n, ok FROM big WHERE host = 'h7' ORDER BY time DESC LIMIT 1",
        runs: RUNS,
        rows: 1,
      },
      { name: `SELECT ${ROWS} rows`, sql: 'SELECT time, host, usage, n, ok FROM big', runs: BIG_RUNS, rows: ROWS },
    ];
    for (const q of queries) {
      const pgMs: number[] = [];
      const httpMs: number[] = [];
      // Warm both paths, then alternate so that machine noise falls on both alike.
      await rawQuery(q.sql);
      await post('/api/v1/sql?db=public', q.sql, 'application/json');
      for (let i = 0; i < q.runs; i++) {
        let t = performance.now();
        await rawQuery(q.sql);
        pgMs.push(performance.now() - t);
        t = performance.now();
        await post('/api/v1/sql?db=public', q.sql, 'application/json');
        httpMs.push(performance.now() - t);
      }
      results.push({ name: q.name, rows: q.rows, pgMs: median(pgMs), httpMs: median(httpMs) });
    }
    client.on('error', () => undefined);
    socket.destroy();
    agent.destroy();
  } finally {
    await server.stop();
    server.cleanup();
  }
  return results;
}

/** The table of results, with the target's verdict for the big result. */
export function printRoundTrips(results: readonly RoundTrip[]): void {
  console.log('| query | PostgreSQL port (ms, median) | /api/v1/sql JSON (ms, median) | pg / http | target |');
  console.log('|---|---|---|---|---|');
  for (const r of results) {
    const target =
      r.rows >= 100_000 ? `PostgreSQL no slower than HTTP JSON: ${r.pgMs <= r.httpMs ? 'met' : 'NOT met'}` : '';
    console.log(
      `| ${r.name} | ${r.pgMs.toFixed(2)} | ${r.httpMs.toFixed(2)} | ${(r.pgMs / r.httpMs).toFixed(2)} | ${target} |`,
    );
  }
}
