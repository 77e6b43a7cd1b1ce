// Gap filling as CnosDB 2.4.2 documents it: time_window_gapfill adds the windows without data of
// each series between the WHERE time bounds, locf carries the last value forward and interpolate
// draws the line between neighbours (NULL outside them). Two series: s1 has values at 0 s (10)
// and 30 s (40), s2 at 20 s (7) and 21 s (9).

import { beforeAll, describe, expect, it } from 'vitest';
import { testDb, type TestDb } from '../support/run-sql.js';

const SETUP = `CREATE TABLE gf (v DOUBLE, n BIGINT, TAGS(s));
INSERT INTO gf (time, s, v, n) VALUES
  ('2024-01-01T00:00:00', 's1', 10.0, 10),
  ('2024-01-01T00:00:30', 's1', 40.0, 40),
  ('2024-01-01T00:00:20', 's2', 7.0, 7),
  ('2024-01-01T00:00:21', 's2', 9.0, 9)`;

const RANGE = "WHERE time >= '2024-01-01T00:00:00' AND time < '2024-01-01T00:00:50'";
const cases: [string, string[]][] = [
  [
    `SELECT s, time_window_gapfill(time, INTERVAL '10 seconds') AS w, avg(v) AS plain, locf(avg(v)), interpolate(max(n)) FROM gf ${RANGE} GROUP BY s, w`,
    [
      's1 | 2024-01-01T00:00:00 | 10.0 | 10.0 | 10',
      's1 | 2024-01-01T00:00:10 | NULL | 10.0 | 20',
      's1 | 2024-01-01T00:00:20 | NULL | 10.0 | 30',
      's1 | 2024-01-01T00:00:30 | 40.0 | 40.0 | 40',
      's1 | 2024-01-01T00:00:40 | NULL | 40.0 | NULL',
      's2 | 2024-01-01T00:00:00 | NULL | NULL | NULL',
      's2 | 2024-01-01T00:00:10 | NULL | NULL | NULL',
      's2 | 2024-01-01T00:00:20 | 8.0 | 8.0 | 9',
      's2 | 2024-01-01T00:00:30 | NULL | 8.0 | NULL',
      's2 | 2024-01-01T00:00:40 | NULL | 8.0 | NULL',
    ],
  ],
  // Without a lower bound each series starts at its own first window.
  [
    "SELECT s, time_window_gapfill(time, INTERVAL '10 seconds') AS w, count(v) FROM gf WHERE time <= '2024-01-01T00:00:30' GROUP BY s, w",
    [
      's1 | 2024-01-01T00:00:00 | 1',
      's1 | 2024-01-01T00:00:10 | NULL',
      's1 | 2024-01-01T00:00:20 | NULL',
      's1 | 2024-01-01T00:00:30 | 1',
      's2 | 2024-01-01T00:00:20 | 2',
      's2 | 2024-01-01T00:00:30 | NULL',
    ],
  ],
  // Sliding windows of 20 s every 10 s: a row is in two windows; the first one starts before the bound.
  [
    `SELECT time_window_gapfill(time, INTERVAL '20 seconds', INTERVAL '10 seconds') AS w, sum(v) FROM gf WHERE s = 's1' AND time >= '2024-01-01T00:00:00' AND time <= '2024-01-01T00:00:30' GROUP BY w`,
    [
      '2023-12-31T23:59:50 | 10.0',
      '2024-01-01T00:00:00 | 10.0',
      '2024-01-01T00:00:10 | NULL',
      '2024-01-01T00:00:20 | 40.0',
      '2024-01-01T00:00:30 | 40.0',
    ],
  ],
];

describe('gap filling', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = testDb();
    await db.exec(SETUP);
  });
  for (const [sql, rows] of cases) it(`computes ${sql}`, async () => expect((await db.run(sql)).rows).toEqual(rows));

  it('drops series without any row in the windows', async () => {
    // s2's rows at 20 s and 21 s are in no 5 s window starting at 2, 12 or 22 s: no series left.
    const r = await db.run(
      "SELECT time_window_gapfill(time, INTERVAL '5 seconds', INTERVAL '10 seconds', TIMESTAMP '1970-01-01T00:00:02') AS w, count(v) FROM gf WHERE s = 's2' AND time >= '2024-01-01T00:00:00' AND time <= '2024-01-01T00:00:30' GROUP BY w",
    );
    expect(r.rows).toEqual([]);
  });

  it('names the filled columns after the calls', async () => {
    const r = await db.run(
      `SELECT time_window_gapfill(time, INTERVAL '10 seconds'), locf(max(v)) FROM gf ${RANGE} GROUP BY 1`,
    );
    expect(r.columns).toEqual(['time_window_gapfill(gf.time,IntervalMonthDayNano("10000000000"))', 'locf(MAX(gf.v))']);
    expect(r.types).toEqual(['Timestamp(Nanosecond, None)', 'Float64']);
  });

  it('needs an upper time bound', async () => {
    expect(
      await db.error("SELECT s, time_window_gapfill(time, INTERVAL '10 seconds') AS w, count(v) FROM gf GROUP BY s, w"),
    ).toMatch(/time_window_gapfill needs an upper time bound/);
  });

  it('refuses locf and interpolate outside a gap-filling query', async () => {
    expect(await db.error('SELECT locf(max(v)) FROM gf')).toMatch(
      /locf must be called on an aggregate in a query grouped by time_window_gapfill/,
    );
  });

  it('refuses too many overlapping windows', async () => {
    expect(
      await db.error(
        `SELECT time_window_gapfill(time, INTERVAL '100 days', INTERVAL '1 millisecond') AS w, count(v) FROM gf ${RANGE} GROUP BY w`,
      ),
    ).toMatch(/Too many overlapping windows: 8640000000/);
  });
});
