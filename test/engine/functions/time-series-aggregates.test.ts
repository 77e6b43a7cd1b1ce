// CnosDB's time-series aggregates and their accessors on a hand-checked series: h1 holds a
// counter c (10, 15, 3 after a reset, 8, 8: increase 5 + 3 + 5 = 13), a gauge v (1, 3, 2, NULL,
// 6 over a minute) and a state (up 10 s, up 10 s, down 20 s, up 20 s, then the last record);
// h2 one point (increase of v: 2, then 2 after the drop, then 4). Rows arrive in any order and are sorted by time inside each function.

import { beforeAll, describe, expect, it } from 'vitest';
import { testDb, type TestDb } from '../support/run-sql.js';

const SETUP = `CREATE TABLE m (v DOUBLE, c BIGINT, st STRING, TAGS(host));
INSERT INTO m (time, host, v, c, st) VALUES
  ('2024-01-01T00:00:20', 'h1', 2.0, 3, 'down'),
  ('2024-01-01T00:00:00', 'h1', 1.0, 10, 'up'),
  ('2024-01-01T00:01:00', 'h1', 6.0, 8, 'up'),
  ('2024-01-01T00:00:10', 'h1', 3.0, 15, 'up'),
  ('2024-01-01T00:00:40', 'h1', NULL, 8, 'up'),
  ('2024-01-01T00:00:00', 'h2', 5.0, 1, 'x');
CREATE TABLE empty (v DOUBLE, TAGS(host))`;

const H1 = "WHERE host = 'h1'";
const cases: [string, string[]][] = [
  [
    'SELECT host, increase(time, c ORDER BY time), increase(time, v) FROM m GROUP BY host ORDER BY host',
    ['h1 | 13 | 8.0', 'h2 | 0 | 0.0'],
  ],
  [
    `SELECT gauge_agg(time, v) FROM m ${H1}`,
    [
      '{first: {ts: 2024-01-01T00:00:00, val: 1.0}, second: {ts: 2024-01-01T00:00:10, val: 3.0}, penultimate: {ts: 2024-01-01T00:00:20, val: 2.0}, last: {ts: 2024-01-01T00:01:00, val: 6.0}, num_elements: 4}',
    ],
  ],
  [
    `SELECT delta(gauge_agg(time, v)), time_delta(gauge_agg(time, v)), idelta_left(gauge_agg(time, v)), idelta_right(gauge_agg(time, v)) FROM m ${H1}`,
    ['5.0 | 0 years 0 mons 0 days 0 hours 1 mins 0.000000000 secs | 2.0 | 4.0'],
  ],
  // rate is per unit of the time column: 5 over 60e9 ns.
  [
    `SELECT rate(gauge_agg(time, v)), first_val(gauge_agg(time, v)), last_val(gauge_agg(time, v)), first_time(gauge_agg(time, v)), last_time(gauge_agg(time, v)) FROM m ${H1}`,
    ['8.333333333333333e-11 | 1.0 | 6.0 | 2024-01-01T00:00:00 | 2024-01-01T00:01:00'],
  ],
  // One point: every delta 0, no rate (no time passed).
  [
    "SELECT delta(gauge_agg(time, v)), rate(gauge_agg(time, v)), idelta_left(gauge_agg(time, c)) FROM m WHERE host = 'h2'",
    ['0.0 | NULL | 0.0'],
  ],
  ['SELECT gauge_agg(time, v), delta(gauge_agg(time, v)) FROM empty', ['NULL | NULL']],
  [
    `SELECT duration_in(state_agg(time, st), 'up'), duration_in(state_agg(time, st), 'down'), duration_in(state_agg(time, st), 'gone') FROM m ${H1}`,
    [
      '0 years 0 mons 0 days 0 hours 0 mins 40.000000000 secs | 0 years 0 mons 0 days 0 hours 0 mins 20.000000000 secs | 0 years 0 mons 0 days 0 hours 0 mins 0.000000000 secs',
    ],
  ],
  [
    `SELECT duration_in(compact_state_agg(time, st), 'up') FROM m ${H1}`,
    ['0 years 0 mons 0 days 0 hours 0 mins 40.000000000 secs'],
  ],
  // From 00:00:15: up [15, 20) and [40, 60); with 30 s: [15, 20) and [40, 45).
  [
    `SELECT duration_in(state_agg(time, st), 'up', TIMESTAMP '2024-01-01T00:00:15'), duration_in(state_agg(time, st), 'up', TIMESTAMP '2024-01-01T00:00:15', INTERVAL '30 seconds') FROM m ${H1}`,
    ['0 years 0 mons 0 days 0 hours 0 mins 25.000000000 secs | 0 years 0 mons 0 days 0 hours 0 mins 10.000000000 secs'],
  ],
  [
    `SELECT state_at(state_agg(time, st), TIMESTAMP '2024-01-01T00:00:25'), state_at(state_agg(time, st), TIMESTAMP '2024-01-01T00:00:50'), state_at(state_agg(time, st), TIMESTAMP '2024-01-01T00:01:00') FROM m ${H1}`,
    ['down | up | NULL'],
  ],
  [
    `SELECT compact_state_agg(time, st) FROM m ${H1}`,
    [
      '{state_duration: [{state: up, duration: 0 years 0 mons 0 days 0 hours 0 mins 40.000000000 secs}, {state: down, duration: 0 years 0 mons 0 days 0 hours 0 mins 20.000000000 secs}], state_periods: []}',
    ],
  ],
];

const failures: [string, RegExp][] = [
  [
    'SELECT increase(time, st) FROM m',
    /No function matches the given name and argument types 'increase\(Timestamp\(Nanosecond, None\), Utf8\)'\. You might need to add explicit type casts\.\n\tCandidate functions:\n\tincrease\(Timestamp\(Second, None\), Int8\)\n/,
  ],
  ['SELECT increase(time) FROM m', /The function "increase" does not accept 1 function arguments\./],
  [
    'SELECT gauge_agg(time, st) FROM m',
    /'gauge_agg\(Timestamp\(Nanosecond, None\), Utf8\)'.*\n\tCandidate functions:\n\tgauge_agg\(Timestamp\(Second, None\), Float64\)\n\tgauge_agg\(Timestamp\(Millisecond, None\), Float64\)\n/,
  ],
  ['SELECT gauge_agg(c, v) FROM m', /'gauge_agg\(Int64, Float64\)'/],
  ['SELECT delta(v) FROM m', /^Failed to do analyze\. err: Expected GaugeData, got Float64\(NULL\)$/],
  ['SELECT time_delta(time) FROM m', /Expected GaugeData, got TimestampNanosecond\(NULL, None\)/],
  ['SELECT delta() FROM m', /The function "delta" expects 1 arguments, but 0 were provided/],
  [
    `SELECT duration_in(compact_state_agg(time, st), 'up', TIMESTAMP '2024-01-01T00:00:15') FROM m ${H1}`,
    /duration_in\(state_agg, state, start_time\) doesn't support compact_agg/,
  ],
  [
    `SELECT state_at(compact_state_agg(time, st), TIMESTAMP '2024-01-01T00:00:25') FROM m ${H1}`,
    /duration_in\(state_agg, state, start_time, interval\) doesn't support compact_agg/,
  ],
  ['SELECT compact_state_agg(time) FROM m', /The function "compact_state_agg" does not accept 1 function arguments\./],
  ["SELECT completeness(time, v) FROM m WHERE host = 'h2'", /Execution error: At least two non-NaN values are needed/],
];

describe('time-series aggregates', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = testDb();
    await db.exec(SETUP);
  });
  for (const [sql, rows] of cases) it(`computes ${sql}`, async () => expect((await db.run(sql)).rows).toEqual(rows));
  for (const [sql, message] of failures) it(`fails ${sql}`, async () => expect(await db.error(sql)).toMatch(message));

  it('names and types results as CnosDB does', async () => {
    const r = await db.run(
      `SELECT increase(time, c), delta(gauge_agg(time, v)), time_delta(gauge_agg(time, v)), first_time(gauge_agg(time, v)), duration_in(state_agg(time, st), 'up') FROM m ${H1}`,
    );
    expect(r.columns).toEqual([
      'increase(m.time,m.c)',
      'delta(gauge_agg(m.time,m.v))',
      'time_delta(gauge_agg(m.time,m.v))',
      'first_time(gauge_agg(m.time,m.v))',
      'duration_in(state_agg(m.time,m.st),Utf8("up"))',
    ]);
    expect(r.types).toEqual([
      'Int64',
      'Float64',
      'Interval(MonthDayNano)',
      'Timestamp(Nanosecond, None)',
      'Interval(MonthDayNano)',
    ]);
  });

  it("lists the last record's state with a zero duration and no period, as CnosDB's docs show", async () => {
    // The docs' example (two_step_aggregate): 'stopping' is only the last record's state.
    const st = testDb();
    await st.exec(`CREATE TABLE states (state STRING);
INSERT INTO states VALUES ('2020-01-01 10:00:00', 'starting'), ('2020-01-01 10:30:00', 'running'), ('2020-01-03 16:00:00', 'error'), ('2020-01-03 18:30:00', 'starting'), ('2020-01-03 19:30:00', 'running'), ('2020-01-05 12:00:00', 'stopping')`);
    const d = (days: number, hours: number, mins: number): string =>
      `0 years 0 mons ${days} days ${hours} hours ${mins} mins 0.000000000 secs`;
    expect((await st.run('SELECT compact_state_agg(time, state) FROM states')).rows).toEqual([
      `{state_duration: [{state: starting, duration: ${d(0, 1, 30)}}, {state: running, duration: ${d(3, 22, 0)}}, {state: error, duration: ${d(0, 2, 30)}}, {state: stopping, duration: ${d(0, 0, 0)}}], state_periods: []}`,
    ]);
    const full = (await st.run('SELECT state_agg(time, state) FROM states')).rows[0]!;
    expect(full).toContain(`{state: stopping, duration: ${d(0, 0, 0)}}`);
    expect(full).not.toContain('{state: stopping, periods');
    expect(
      (
        await st.run(
          "SELECT duration_in(state_agg(time, state), 'stopping'), state_at(state_agg(time, state), TIMESTAMP '2020-01-05 12:00:00') FROM states",
        )
      ).rows,
    ).toEqual([`${d(0, 0, 0)} | NULL`]);

    // A group of one record is no compact aggregate to the accessors.
    await st.exec(
      "CREATE TABLE one (state STRING, TAGS(h));\nINSERT INTO one (time, h, state) VALUES ('2020-01-01 10:00:00', 'a', 'x'), ('2020-01-01 11:00:00', 'a', 'y'), ('2020-01-01 10:00:00', 'b', 'x')",
    );
    expect(
      (
        await st.run(
          "SELECT h, state_at(state_agg(time, state), TIMESTAMP '2020-01-01 10:00:00'), duration_in(state_agg(time, state), 'x', TIMESTAMP '2020-01-01 00:00:00') FROM one GROUP BY h ORDER BY h",
        )
      ).rows,
    ).toEqual([`a | x | ${d(0, 1, 0)}`, `b | NULL | ${d(0, 0, 0)}`]);
  });

  it('reads gauge_agg of a millisecond table in milliseconds', async () => {
    const ms = testDb();
    await ms.exec(`CREATE DATABASE d WITH PRECISION 'ms';
CREATE TABLE d.g (v DOUBLE);
INSERT INTO d.g (time, v) VALUES (1000, 1.0), (3000, 5.0)`);
    const r = await ms.run('SELECT rate(gauge_agg(time, v)), last_time(gauge_agg(time, v)) FROM d.g');
    expect(r.rows).toEqual(['0.002 | 1970-01-01T00:00:03']);
    expect(r.types).toEqual(['Float64', 'Timestamp(Millisecond, None)']);
  });
});

describe('data-quality ratios', () => {
  it('scores a series with gaps, a late point, a redundant one and a non-finite value as CnosDB does', async () => {
    // CnosDB's function/data_quality.slt: 15 points, the last one NaN; the rows come unordered.
    const db = testDb();
    await db.exec(`CREATE TABLE q (value DOUBLE);
INSERT q VALUES (26, 124.21), (6, 14.03), (22, 1234.45), (10, 12.30), (1, 12.34), (31, 6.34), (3, 34.54), (4, 1.43), (13, 11.54), (14, 112.20), (16, 14.44), (18, 134.02), (19, 116.34), (24, 10.36), (33, acos(12345))`);
    const r = await db.run(
      'SELECT completeness(time, value) AS c, consistency(time, value) AS k, timeliness(time, value) AS t, validity(time, value) AS v FROM q',
    );
    expect(r.rows).toEqual(['0.8235294117647058 | 0.8666666666666667 | 0.9333333333333333 | 0.8']);
  });

  it('needs two finite values', async () => {
    const db = testDb();
    await db.exec(`CREATE TABLE q (value DOUBLE);
INSERT q VALUES (1, 12.34), (2, acos(12345)), (3, acos(12345))`);
    expect(await db.error('SELECT validity(time, value) FROM q')).toMatch(/At least two non-NaN values are needed/);
  });
});
