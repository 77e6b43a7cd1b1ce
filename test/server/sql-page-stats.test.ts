// Aggregates per time bucket answered from page statistics (segment v3, FORMAT.md §5.1) give, over
// HTTP, exactly what the same aggregates computed from the rows give: buckets on the page grid
// and off it, ranges on page boundaries and inside pages, NULLs, a NaN, a BIGINT sum. The
// reference query aggregates `x + 0`, which no statistics can answer. Values are whole numbers,
// so sums are exact whatever the order of addition.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeLp } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { sqlChecks } from '../support/sql.js';

let server: TestServer;
const checks = sqlChecks(() => server.url);
const ROWS = 2160; // 6 hours at 10 s a series: one row group of six hour pages

beforeAll(async () => {
  server = await startServer({ inProcess: true, args: ['--flush-age', '1s'] });
  const lines: string[] = [];
  const start = Date.parse('2024-03-01T00:00:07Z') * 1_000_000;
  for (let i = 0; i < ROWS; i++) {
    for (const h of ['a', 'b']) {
      const x = i % 5 === 0 ? '' : `x=${(i * 37) % 1000},`; // NULL in every fifth row
      lines.push(`m,h=${h} ${x}n=${((i * 7919) % 100_000) - 50_000}i ${start + i * 10_000_000_000}`);
    }
  }
  expect((await writeLp(server.url, lines.join('\n'))).status).toBe(200);
  // A NaN in the third hour of series b (line protocol cannot carry one).
  await checks.csv(`INSERT INTO m (time, h, x, n) VALUES ('2024-03-01T02:30:00.5Z', 'b', acos(-2), 1)`);
  // Wait for the flush (storage.flush_age): every row in segment files.
  const manifest = join(server.dataDir, 'db');
  const deadline = Date.now() + 20_000;
  for (;;) {
    const rows = flushedRows(manifest);
    if (rows === 2 * ROWS + 1) break;
    if (Date.now() > deadline) throw new Error(`flushed ${rows} rows of ${2 * ROWS + 1}`);
    await new Promise((r) => setTimeout(r, 100));
  }
});
afterAll(async () => {
  await server.stop();
  server.cleanup();
});

/** Rows the manifests of every database list in segment files. */
function flushedRows(dbDir: string): number {
  let n = 0;
  for (const id of ['2', '3', '4', '5']) {
    try {
      const m = JSON.parse(readFileSync(join(dbDir, id, 'manifest.json'), 'utf8')) as {
        segments: Array<{ rows: number }>;
      };
      for (const s of m.segments) n += s.rows;
    } catch {
      // no such database
    }
  }
  return n;
}

const AGGS = (x: string, n: string): string =>
  `count(*) AS rows, count(${x}) AS c, sum(${n}) AS s, min(${x}) AS lo, max(${x}) AS hi, avg(${x}) AS mean, min(${n}) AS nlo`;

describe('aggregates from page statistics', () => {
  const cases: Array<[string, string, string]> = [
    ['hours over all the data', "INTERVAL '1 hour'", ''],
    ['two hours', "INTERVAL '2 hours'", ''],
    ['days', "INTERVAL '1 day'", ''],
    ['half hours (off the page grid)', "INTERVAL '30 minutes'", ''],
    [
      'hours in a range on hour boundaries',
      "INTERVAL '1 hour'",
      "AND time >= '2024-03-01T01:00:00Z' AND time < '2024-03-01T05:00:00Z'",
    ],
    [
      'hours in a range inside hours',
      "INTERVAL '1 hour'",
      "AND time >= '2024-03-01T01:17:03Z' AND time <= '2024-03-01T04:59:59.999Z'",
    ],
  ];
  for (const [name, width, range] of cases) {
    it(`equal those from the rows: ${name}`, async () => {
      const q = (x: string, n: string) =>
        `SELECT h, date_bin(${width}, time) AS t, ${AGGS(x, n)} FROM m WHERE h <> '' ${range} GROUP BY h, t ORDER BY h, t`;
      const got = await checks.csv(q('x', 'n'));
      expect(got.split('\n').length).toBeGreaterThan(3);
      expect(got).toBe(await checks.csv(q('x + 0', 'n + 0')));
    });
  }

  it('keep a NaN: the bucket that holds it reads its rows', async () => {
    const got = await checks.csv(
      `SELECT date_bin(INTERVAL '1 hour', time) AS t, max(x) AS hi, avg(x) AS mean FROM m WHERE h = 'b' GROUP BY t ORDER BY t`,
    );
    expect(got.split('\n')[3]).toBe('2024-03-01T02:00:00.000000000,NaN,NaN');
    expect(got).toBe(
      await checks.csv(
        `SELECT date_bin(INTERVAL '1 hour', time) AS t, max(x + 0) AS hi, avg(x + 0) AS mean FROM m WHERE h = 'b' GROUP BY t ORDER BY t`,
      ),
    );
  });
});
