// Reads the store can answer without rows: aggregates folded from block statistics
// (EngineCatalog.scanStats) and the last row per series from the last-point index
// (EngineCatalog.lastPoints). Each query runs on a catalog that serves them and on one that only
// scans, and both must give the same rows; counters show the shortcut was taken.

import { beforeAll, describe, expect, it } from 'vitest';
import { testDb, type TestDb } from '../support/run-sql.js';

const MIN = 60_000_000_000n;

/** Three series (one without region) of 23 rows a minute apart, with NULLs, a NaN and a newest row lacking fields. */
function setup(): string {
  const rows: string[] = [];
  for (const [h, host, region] of [
    [0, "'h0'", "'eu'"],
    [1, "'h1'", "'eu'"],
    [2, "'h2'", 'NULL'],
  ] as const) {
    for (let k = 0; k < 23; k++) {
      const t = BigInt(k) * MIN + BigInt(h);
      const d = h === 1 && k === 9 ? "CAST('NaN' AS DOUBLE)" : k % 7 === 3 ? 'NULL' : `${(k * 1.5 - h).toFixed(1)}`;
      const i = k % 5 === 4 ? 'NULL' : `${k * 1000 - h * 7}`;
      const s = k % 3 === 0 ? `'s${k}'` : 'NULL';
      const b = k % 4 === 0 ? 'NULL' : k % 2 === 0 ? 'true' : 'false';
      rows.push(`(${t}, ${host}, ${region}, ${d}, ${i}, ${s}, ${b})`);
    }
  }
  rows.push(`(${23n * MIN}, 'h0', 'eu', NULL, 5, NULL, NULL)`);
  return `CREATE TABLE m (d DOUBLE, i BIGINT, s STRING, b BOOLEAN, TAGS(host, region));
INSERT INTO m (time, host, region, d, i, s, b) VALUES ${rows.join(', ')}`;
}

const ALL =
  'count(*), count(d), count(i), count(s), count(b), count(host), count(region), sum(d), sum(i), avg(d), avg(i), min(d), max(d), min(i), max(i)';

const aggregates = [
  `SELECT ${ALL} FROM m`,
  `SELECT host, ${ALL} FROM m GROUP BY host ORDER BY host`,
  `SELECT region, ${ALL} FROM m GROUP BY region ORDER BY region`,
  `SELECT host, date_bin(INTERVAL '5 minutes', time) AS t, ${ALL} FROM m GROUP BY host, t ORDER BY host, t`,
  `SELECT date_bin(INTERVAL '8 minutes', time, TIMESTAMP '1970-01-01T00:02:00Z') AS t, ${ALL} FROM m GROUP BY t ORDER BY t`,
  `SELECT host, ${ALL} FROM m WHERE time >= ${3n * MIN} AND time < ${17n * MIN} GROUP BY host ORDER BY host`,
  `SELECT date_bin(INTERVAL '1 hour', time) AS t, ${ALL} FROM m WHERE host IN ('h1', 'h2') GROUP BY t`,
  `SELECT ${ALL} FROM m WHERE region = 'eu' AND time > ${8n * MIN}`,
  `SELECT host, max(d), min(i) FROM m WHERE time < 0 GROUP BY host`,
];

describe('aggregates from block statistics', () => {
  let plain: TestDb;
  let stats: TestDb;
  beforeAll(async () => {
    plain = testDb();
    stats = testDb({ statsBlockRows: 4 });
    await plain.exec(setup());
    await stats.exec(setup());
  });

  for (const sql of aggregates) {
    it(`gives the rows' answer: ${sql.slice(0, 90)}`, async () => {
      const before = stats.catalog.statsServed;
      const expected = await plain.run(sql);
      expect(await stats.run(sql)).toEqual(expected);
      if (!sql.includes('time < 0')) expect(stats.catalog.statsServed).toBeGreaterThan(before);
    });
  }

  it('folds counts, sums and extremes of whole blocks', async () => {
    expect(
      (await stats.run("SELECT count(*), count(d), sum(i), min(d), max(i) FROM m WHERE host = 'h0'")).rows,
    ).toEqual(['24 | 20 | 207005 | 0.0 | 22000']);
  });

  it('reads the rows of a block whose statistics are not exact (a NaN)', async () => {
    const scansBefore = stats.catalog.scans.length;
    expect((await stats.run("SELECT min(d), max(d), count(d) FROM m WHERE host = 'h1'")).rows).toEqual([
      '-1.0 | NaN | 20',
    ]);
    expect(stats.catalog.scans.length).toBeGreaterThan(scansBefore);
  });

  it('reads rows for first/last and for aggregates over expressions', async () => {
    const sql = 'SELECT host, first(time, d), last(time, i), sum(i * 2) FROM m GROUP BY host ORDER BY host';
    const before = stats.catalog.statsServed;
    expect(await stats.run(sql)).toEqual(await plain.run(sql));
    expect(stats.catalog.statsServed).toBe(before);
  });
});

describe('the last row per series from the last-point index', () => {
  let plain: TestDb;
  let last: TestDb;
  beforeAll(async () => {
    plain = testDb();
    last = testDb({ lastPoints: true });
    await plain.exec(setup());
    await last.exec(setup());
  });

  const queries = [
    'SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY host ORDER BY time DESC) AS rn FROM m) WHERE rn = 1 ORDER BY host',
    'SELECT host, d, time FROM (SELECT host, d, time, row_number() OVER (PARTITION BY host, region ORDER BY time DESC) AS rn FROM m) WHERE rn = 1 ORDER BY host',
    "SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY region ORDER BY time DESC) AS rn FROM m WHERE host <> 'h2') WHERE rn = 1 ORDER BY region",
  ];
  for (const sql of queries) {
    it(`gives the rows' answer: ${sql.slice(0, 100)}`, async () => {
      const before = last.catalog.lastPointsServed;
      const expected = await plain.run(sql);
      expect(await last.run(sql)).toEqual(expected);
      expect(last.catalog.lastPointsServed).toBe(before + 1);
    });
  }

  it('takes the newest row even when it lacks the projected fields', async () => {
    const sql =
      "SELECT host, d, i FROM (SELECT host, d, i, row_number() OVER (PARTITION BY host ORDER BY time DESC) AS rn FROM m) WHERE rn = 1 AND host = 'h0'";
    expect((await last.run(sql)).rows).toEqual(['h0 | NULL | 5']);
  });

  it('scans when the query bounds time or filters fields', async () => {
    const before = last.catalog.lastPointsServed;
    for (const where of [`time < ${20n * MIN}`, 'd > 3']) {
      const sql = `SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY host ORDER BY time DESC) AS rn FROM m WHERE ${where}) WHERE rn = 1 ORDER BY host`;
      expect(await last.run(sql)).toEqual(await plain.run(sql));
    }
    expect(last.catalog.lastPointsServed).toBe(before);
  });
});
