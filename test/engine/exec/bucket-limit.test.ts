// ORDER BY the time bucket LIMIT k over a time-bucket aggregate reads windows of time from the
// bounded end of the range until k buckets have rows. Each query must give exactly the rows of
// the same query without the shortcut (its LIMIT applied to the full answer), including when
// buckets are sparse, when fewer than k exist, and when several groups share a bucket.

import { beforeAll, describe, expect, it } from 'vitest';
import { testDb, type TestDb } from '../support/run-sql.js';

const MIN = 60_000_000_000n;

/** Two hosts; rows in minutes 0..9, then a gap to 200..204, then 1000 (sparse buckets). */
function setup(): string {
  const rows: string[] = [];
  const minutes = [...Array.from({ length: 10 }, (_, i) => i), 200, 201, 202, 203, 204, 1000];
  for (const m of minutes) {
    for (const host of ['a', 'b']) {
      if (host === 'b' && m % 3 === 0) continue;
      rows.push(`(${BigInt(m) * MIN + 7n}, '${host}', ${m}.5, ${m})`);
    }
  }
  return `CREATE TABLE cpu (u DOUBLE, n BIGINT, TAGS(host));
INSERT INTO cpu (time, host, u, n) VALUES ${rows.join(', ')}`;
}

const RANGE = `time >= 0 AND time < ${2000n * MIN}`;

const queries: Array<[string, number]> = [
  [
    `SELECT date_bin(INTERVAL '1 minute', time) AS t, max(u), count(*) FROM cpu WHERE ${RANGE} GROUP BY t ORDER BY t DESC`,
    5,
  ],
  [
    `SELECT date_bin(INTERVAL '1 minute', time) AS t, max(u), count(*) FROM cpu WHERE ${RANGE} GROUP BY t ORDER BY t DESC`,
    8,
  ],
  [
    `SELECT date_bin(INTERVAL '1 minute', time) AS t, max(u), count(*) FROM cpu WHERE ${RANGE} GROUP BY t ORDER BY t DESC`,
    40,
  ],
  [`SELECT date_bin(INTERVAL '1 minute', time) AS t, sum(n) FROM cpu WHERE ${RANGE} GROUP BY t ORDER BY t ASC`, 3],
  [`SELECT date_bin(INTERVAL '1 minute', time) AS t, sum(n) FROM cpu WHERE ${RANGE} GROUP BY t ORDER BY t ASC`, 12],
  [
    `SELECT date_bin(INTERVAL '5 minutes', time) AS t, host, avg(u) FROM cpu WHERE ${RANGE} GROUP BY t, host ORDER BY t DESC, host`,
    3,
  ],
  [
    `SELECT date_bin(INTERVAL '1 minute', time) AS t, min(n) FROM cpu WHERE time < ${300n * MIN} GROUP BY t ORDER BY t DESC`,
    4,
  ],
  [
    `SELECT date_bin(INTERVAL '1 minute', time) AS t, min(n) FROM cpu WHERE time >= ${5n * MIN} GROUP BY t ORDER BY t`,
    4,
  ],
];

describe('ORDER BY bucket LIMIT k over a time-bucket aggregate', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = testDb();
    await db.exec(setup());
  });

  for (const [sql, k] of queries) {
    it(`gives the first ${k} rows of the full answer: ${sql.slice(0, 110)}`, async () => {
      const full = await db.run(sql);
      const limited = await db.run(`${sql} LIMIT ${k}`);
      expect(limited.columns).toEqual(full.columns);
      expect(limited.rows).toEqual(full.rows.slice(0, k));
    });
  }

  it('reads only the newest windows when they hold k buckets', async () => {
    // The range ends 10 minutes after the newest row: windows of 1, 2, 4 and 8 minutes find it.
    const sql = `SELECT date_bin(INTERVAL '1 minute', time) AS t, max(u) FROM cpu WHERE time >= 0 AND time < ${1010n * MIN} GROUP BY t ORDER BY t DESC LIMIT 1`;
    const before = db.catalog.scans.length;
    expect((await db.run(sql)).rows).toEqual(['1970-01-01T16:40:00 | 1000.5']);
    const scans = db.catalog.scans.slice(before);
    expect(scans.length).toBeGreaterThan(0);
    expect(scans.every((s) => s.minTime !== undefined && s.minTime > 200n * MIN)).toBe(true);
  });

  it('names the shortcut in EXPLAIN', async () => {
    const plan = (
      await db.run(
        `EXPLAIN SELECT date_bin(INTERVAL '1 minute', time) AS t, max(u) FROM cpu WHERE ${RANGE} GROUP BY t ORDER BY t DESC LIMIT 2`,
      )
    ).rows.join('\n');
    expect(plan).toContain('buckets=last 2');
  });
});
