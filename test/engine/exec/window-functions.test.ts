// Window functions over a hand-checked table: partition a holds v = 10, 20, 20, 40 at 0, 10, 20
// and 40 s (a tie for rank and for RANGE peers), partition b holds 5 and a NULL. Ranking,
// distribution, offset and value functions, aggregates over default, ROWS, RANGE (numeric and
// interval offsets) and GROUPS frames, the names DataFusion gives and the frame errors.

import { beforeAll, describe, expect, it } from 'vitest';
import { testDb, type TestDb } from '../support/run-sql.js';

const SETUP = `CREATE TABLE w (v BIGINT, d DOUBLE, TAGS(g));
INSERT INTO w (time, g, v, d) VALUES
  ('2024-01-01T00:00:00', 'a', 10, 1.0),
  ('2024-01-01T00:00:10', 'a', 20, 2.0),
  ('2024-01-01T00:00:20', 'a', 20, 3.0),
  ('2024-01-01T00:00:40', 'a', 40, 4.0),
  ('2024-01-01T00:00:05', 'b', 5, 5.0),
  ('2024-01-01T00:00:06', 'b', NULL, 6.0)`;

const ORDER = 'ORDER BY g, time';
const cases: [string, string[]][] = [
  [
    `SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v) AS rn, rank() OVER (PARTITION BY g ORDER BY v) AS r, dense_rank() OVER (PARTITION BY g ORDER BY v) AS dr FROM w ${ORDER}`,
    [
      'a | 10 | 1 | 1 | 1',
      'a | 20 | 2 | 2 | 2',
      'a | 20 | 3 | 2 | 2',
      'a | 40 | 4 | 4 | 3',
      'b | 5 | 1 | 1 | 1',
      'b | NULL | 2 | 2 | 2',
    ],
  ],
  [
    `SELECT v, percent_rank() OVER (PARTITION BY g ORDER BY v) AS pr, cume_dist() OVER (PARTITION BY g ORDER BY v) AS cd FROM w WHERE g = 'a' ${ORDER}`,
    ['10 | 0.0 | 0.25', '20 | 0.3333333333333333 | 0.75', '20 | 0.3333333333333333 | 0.75', '40 | 1.0 | 1.0'],
  ],
  // DataFusion 27's ntile: floor(i * n / rows) + 1.
  [
    `SELECT ntile(2) OVER (ORDER BY time) AS n2, ntile(3) OVER (ORDER BY time) AS n3 FROM w WHERE g = 'a' ${ORDER}`,
    ['1 | 1', '1 | 1', '2 | 2', '2 | 3'],
  ],
  [
    `SELECT g, lag(v) OVER (PARTITION BY g ORDER BY time) AS l1, lead(v, 1, 0) OVER (PARTITION BY g ORDER BY time) AS ld, lag(v, 2, -1) OVER (PARTITION BY g ORDER BY time) AS l2 FROM w ${ORDER}`,
    [
      'a | NULL | 20 | -1',
      'a | 10 | 20 | -1',
      'a | 20 | 40 | 10',
      'a | 20 | 0 | 20',
      'b | NULL | NULL | -1',
      'b | 5 | 0 | -1',
    ],
  ],
  [
    `SELECT first_value(v) OVER (PARTITION BY g ORDER BY time) AS f, last_value(v) OVER (PARTITION BY g ORDER BY time) AS l, last_value(v) OVER (PARTITION BY g ORDER BY time ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS lw, nth_value(v, 2) OVER (PARTITION BY g ORDER BY time) AS n FROM w WHERE g = 'a' ${ORDER}`,
    ['10 | 10 | 40 | NULL', '10 | 20 | 40 | 20', '10 | 20 | 40 | 20', '10 | 40 | 40 | 20'],
  ],
  // Running sums; count(*) over the whole partition.
  [
    `SELECT g, sum(v) OVER (PARTITION BY g ORDER BY time) AS s, count(*) OVER (PARTITION BY g) AS c FROM w ${ORDER}`,
    ['a | 10 | 4', 'a | 30 | 4', 'a | 50 | 4', 'a | 90 | 4', 'b | 5 | 2', 'b | 5 | 2'],
  ],
  // The default frame with ORDER BY takes peers: both 20s see 55; NULL sorts last and sees all.
  [
    'SELECT v, sum(v) OVER (ORDER BY v) AS s FROM w ORDER BY v',
    ['5 | 5', '10 | 15', '20 | 55', '20 | 55', '40 | 95', 'NULL | 95'],
  ],
  [
    `SELECT avg(v) OVER (PARTITION BY g ORDER BY time ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS a, min(d) OVER (PARTITION BY g ORDER BY time ROWS BETWEEN CURRENT ROW AND 2 FOLLOWING) AS m FROM w WHERE g = 'a' ${ORDER}`,
    ['15.0 | 1.0', '16.666666666666668 | 2.0', '26.666666666666668 | 3.0', '30.0 | 4.0'],
  ],
  [
    `SELECT v, sum(v) OVER (PARTITION BY g ORDER BY v RANGE BETWEEN 10 PRECEDING AND CURRENT ROW) AS r, count(*) OVER (PARTITION BY g ORDER BY v GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW) AS gr FROM w WHERE g = 'a' ORDER BY v, time`,
    ['10 | 10 | 1', '20 | 50 | 3', '20 | 50 | 3', '40 | 40 | 3'],
  ],
  [
    `SELECT sum(v) OVER (PARTITION BY g ORDER BY time RANGE BETWEEN INTERVAL '15 seconds' PRECEDING AND CURRENT ROW) AS s FROM w WHERE g = 'a' ${ORDER}`,
    ['10', '30', '40', '40'],
  ],
  // Descending keys: PRECEDING means larger values.
  [
    `SELECT v, max(v) OVER (ORDER BY v DESC RANGE BETWEEN 15 PRECEDING AND CURRENT ROW) AS m FROM w WHERE g = 'a' ORDER BY v, time`,
    ['10 | 20', '20 | 20', '20 | 20', '40 | 40'],
  ],
  // An empty frame: the aggregate of no rows.
  [
    `SELECT count(v) OVER (ORDER BY time ROWS BETWEEN 3 PRECEDING AND 2 PRECEDING) AS c, sum(v) OVER (ORDER BY time ROWS BETWEEN 3 PRECEDING AND 2 PRECEDING) AS s FROM w WHERE g = 'a' ${ORDER}`,
    ['0 | NULL', '0 | NULL', '1 | 10', '2 | 30'],
  ],
  [
    `SELECT array_agg(v) OVER (PARTITION BY g ORDER BY time ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS a FROM w WHERE g = 'a' ${ORDER}`,
    ['[10]', '[10, 20]', '[20, 20]', '[20, 40]'],
  ],
];

// DataFusion 27's readings of odd literal arguments: an offset that is no integer counts as 1, an
// integer default takes the value's type, a negative nth_value position is past every frame.
const A = "FROM w WHERE g = 'a' ORDER BY time";
const W = 'OVER (PARTITION BY g ORDER BY time)';
// A window over aggregates: the GROUP BY computes count(v) and max(v), the window sums them
// across the groups (a 4 of 4 values, b 1 of 2).
cases.push(
  [
    `SELECT g, count(v) AS c, sum(count(v)) OVER () AS total, sum(count(v)) OVER (ORDER BY g DESC) AS running FROM w GROUP BY g ORDER BY g`,
    ['a | 4 | 5 | 5', 'b | 1 | 5 | 1'],
  ],
  [
    `SELECT g, max(v) * 100 / sum(max(v)) OVER () AS pct, rank() OVER (ORDER BY max(v) DESC) AS r FROM w GROUP BY g ORDER BY g`,
    ['a | 88 | 1', 'b | 11 | 2'],
  ],
);

cases.push(
  [
    `SELECT lag(v, 'x', 0) ${W}, lag(v, 1.5) ${W}, lead(v, NULL, 7) ${W}, lag(v, true, 0) ${W} ${A}`,
    ['0 | NULL | 20 | 0', '10 | 10 | 20 | 10', '20 | 20 | 40 | 20', '20 | 20 | 7 | 20'],
  ],
  ['SELECT lag(b, 1, 1) OVER (ORDER BY n) AS l FROM (VALUES (1, false), (2, false)) AS v(n, b)', ['true', 'false']],
  [
    `SELECT lead(d, 1, 7) ${W}, nth_value(v, -1) OVER (PARTITION BY g ORDER BY time ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) ${A}`,
    ['2.0 | NULL', '3.0 | NULL', '4.0 | NULL', '7.0 | NULL'],
  ],
);

const failures: [string, RegExp][] = [
  // Arity as DataFusion 27's signatures check it: Any(n), and OneOf for lag and lead.
  [
    'SELECT dense_rank(v) OVER (ORDER BY time) FROM w',
    /^Datafusion: Error during planning: The function expected 0 arguments but received 1$/,
  ],
  [
    "SELECT first_value(v, 'x') OVER (ORDER BY time) FROM w",
    /^Datafusion: Error during planning: The function expected 1 arguments but received 2$/,
  ],
  [
    'SELECT lag(v, 1, 0, 5) OVER (ORDER BY time) FROM w',
    /^Datafusion: Error during planning: Coercion from \[Int64, Int64, Int64, Int64\] to the signature OneOf\(\[Any\(1\), Any\(2\), Any\(3\)\]\) failed\.$/,
  ],
  [
    "SELECT lag(v, 1, 'none') OVER (ORDER BY time) FROM w",
    /^Datafusion: Internal error: Expects default value to have Int64 type\. This was likely caused by a bug/,
  ],
  [
    'SELECT lead(v, 1, 2.5) OVER (ORDER BY time) FROM w',
    /^Datafusion: Internal error: Expects default value to have Int64 type\./,
  ],
  [
    'SELECT nth_value(v, 2.5) OVER (ORDER BY time) FROM w',
    /^Datafusion: Execution error: Internal\("Cannot convert Float64\(2\.5\) to i64"\)$/,
  ],
  // The offset and default are read from the plan: a column there is refused.
  [
    'SELECT lag(v, v) OVER (ORDER BY time) FROM w',
    /^Datafusion: This feature is not implemented: There is only support Literal types for field at idx: 1 in Window Function$/,
  ],
  // An integer default of a BOOLEAN value: 1 and 0 read as booleans, any other is a cast error.
  [
    'SELECT lag(b, 1, 2) OVER (ORDER BY n) FROM (VALUES (1, true), (2, false)) AS v(n, b)',
    /^Arrow: Cast error: Cannot cast string '2' to value of Boolean type$/,
  ],
  [
    "SELECT nth_value(v, 'second') OVER (ORDER BY time) FROM w",
    /^Datafusion: Execution error: Internal\("Cannot convert Utf8\(\\"second\\"\) to i64"\)$/,
  ],
  [
    'SELECT sum(v) OVER (ORDER BY time ROWS BETWEEN UNBOUNDED FOLLOWING AND CURRENT ROW) FROM w',
    /Invalid window frame: start bound cannot be UNBOUNDED FOLLOWING/,
  ],
  [
    'SELECT sum(v) OVER (ORDER BY time ROWS BETWEEN CURRENT ROW AND UNBOUNDED PRECEDING) FROM w',
    /Invalid window frame: end bound cannot be UNBOUNDED PRECEDING/,
  ],
  [
    'SELECT sum(v) OVER (ORDER BY time, v RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM w',
    /With window frame of type RANGE, the order by expression must be of length 1, got 2/,
  ],
  [
    'SELECT count(*) OVER (GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM w',
    /GROUPS mode requires an ORDER BY clause/,
  ],
  ['SELECT ntile(0) OVER (ORDER BY time) FROM w', /NTILE requires a positive integer/],
  ['SELECT nth_value(v, 0) OVER (ORDER BY time) FROM w', /nth_value expect n to be > 0/],
  // Without OVER a window-only function is no function to DataFusion 27; first_value and
  // last_value are aggregates then (below), so a bare column beside them is not grouped.
  [
    'SELECT row_number() FROM w',
    /^Datafusion: Error during planning: Invalid function 'row_number'\.\nDid you mean 'power'\?$/,
  ],
  [
    'SELECT cume_dist() FROM w',
    /^Datafusion: Error during planning: Invalid function 'cume_dist'\.\nDid you mean 'MEDIAN'\?$/,
  ],
  [
    'SELECT time, first_value(v) FROM w',
    /^Datafusion: Error during planning: Projection references non-aggregate values: Expression w\.time could not be resolved from available columns: FIRST_VALUE\(w\.v\)$/,
  ],
];

describe('first_value and last_value without OVER (aggregates)', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = testDb();
    await db.exec(SETUP);
  });
  it("take the first and last row of each group, NULL included, by the call's ORDER BY", async () => {
    const r = await db.run(
      'SELECT g, first_value(v ORDER BY time), last_value(v ORDER BY time), first_value(d ORDER BY v DESC) FROM w GROUP BY g ORDER BY g',
    );
    expect(r.rows).toEqual(['a | 10 | 40 | 4.0', 'b | 5 | NULL | 6.0']);
  });
});

describe('window functions', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = testDb();
    await db.exec(SETUP);
  });
  for (const [sql, rows] of cases) it(`computes ${sql}`, async () => expect((await db.run(sql)).rows).toEqual(rows));
  for (const [sql, message] of failures) it(`fails ${sql}`, async () => expect(await db.error(sql)).toMatch(message));

  it('names window expressions with their window as DataFusion does', async () => {
    const r = await db.run(
      'SELECT row_number() OVER (PARTITION BY g ORDER BY v), sum(v) OVER (PARTITION BY g ORDER BY time ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), lag(v, 1, 0) OVER (ORDER BY time), count(*) OVER () FROM w',
    );
    expect(r.columns).toEqual([
      'ROW_NUMBER() PARTITION BY [w.g] ORDER BY [w.v ASC NULLS LAST] RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW',
      'SUM(w.v) PARTITION BY [w.g] ORDER BY [w.time ASC NULLS LAST] ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING',
      'LAG(w.v,Int64(1),Int64(0)) ORDER BY [w.time ASC NULLS LAST] RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW',
      'COUNT(UInt8(1)) ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING',
    ]);
    expect(r.types).toEqual(['UInt64', 'Int64', 'Int64', 'Int64']);
  });

  it('gives percent_rank and cume_dist as DOUBLE and ntile as BIGINT UNSIGNED', async () => {
    const r = await db.run(
      'SELECT percent_rank() OVER (ORDER BY v), cume_dist() OVER (ORDER BY v), ntile(2) OVER (ORDER BY v) FROM w',
    );
    expect(r.types).toEqual(['Float64', 'Float64', 'UInt64']);
  });
});
