// The statistical aggregates: sample and population variance, deviation and covariance,
// correlation and the regr_* family on hand-checked data (x = 1, 2, 3, 4 has mean 2.5 and a sum
// of squared deviations of 5), NULLs skipped pairwise, one-row and empty groups, DataFusion's
// names, types and argument errors, and the same bits as CnosDB on its own unordered-data case.

import { beforeAll, describe, expect, it } from 'vitest';
import { testDb, type TestDb } from '../support/run-sql.js';

const SETUP = `CREATE TABLE s (x DOUBLE, y BIGINT, u BIGINT UNSIGNED, b BOOLEAN, t STRING, TAGS(g));
INSERT INTO s (time, g, x, y, u, b, t) VALUES
  (1, 'a', 1.0, 2, 1, true, 'p'),
  (2, 'a', 2.0, 4, 2, false, 'q'),
  (3, 'a', 3.0, 7, 3, NULL, 'r'),
  (4, 'b', 4.0, NULL, 4, true, 's'),
  (5, 'c', NULL, NULL, NULL, NULL, 'z');
CREATE TABLE empty (x DOUBLE, TAGS(g))`;

const cases: [string, string[]][] = [
  // x over all rows: n = 4, mean 2.5, m2 = 5.
  // var_samp is var (the same name, so aliased, as DataFusion requires).
  ['SELECT var(x), var_samp(x) AS vs, var_pop(x) FROM s', ['1.6666666666666667 | 1.6666666666666667 | 1.25']],
  [
    'SELECT stddev(x), stddev_samp(x) AS ss, stddev_pop(x) FROM s',
    ['1.2909944487358056 | 1.2909944487358056 | 1.118033988749895'],
  ],
  // Group a: 1, 2, 3 (m2 = 2); b: one row (sample NULL, population 0); c: only NULL.
  [
    'SELECT g, var(x), var_pop(x), stddev(x), stddev_pop(x) FROM s GROUP BY g ORDER BY g',
    [
      'a | 1.0 | 0.6666666666666666 | 1.0 | 0.816496580927726',
      'b | NULL | 0.0 | NULL | 0.0',
      'c | NULL | NULL | NULL | NULL',
    ],
  ],
  // Pairs with both values: (1, 2), (2, 4), (3, 7); co-moment 5.
  ['SELECT covar(x, y), covar_samp(x, y) AS cs, covar_pop(x, y) FROM s', ['2.5 | 2.5 | 1.6666666666666667']],
  [
    'SELECT g, covar(x, y), covar_pop(x, y) FROM s GROUP BY g ORDER BY g',
    ['a | 2.5 | 1.6666666666666667', 'b | NULL | NULL', 'c | NULL | NULL'],
  ],
  // regr(y, x): slope = 5 / 2 = 2.5, computed as DataFusion does, (5/3) / (2/3), one ulp above;
  // intercept = 13/3 - 2.5 * 2, r2 = 25 / (2 * 38/3).
  [
    'SELECT regr_slope(y, x), regr_count(y, x), regr_avgx(y, x), regr_sxx(y, x), regr_sxy(y, x) FROM s',
    ['2.5000000000000004 | 3 | 2.0 | 2.0 | 5.0'],
  ],
  [
    'SELECT round(regr_intercept(y, x), 12), round(regr_r2(y, x), 12), round(regr_avgy(y, x), 12), round(regr_syy(y, x), 12) FROM s',
    ['-0.666666666667 | 0.986842105263 | 4.333333333333 | 12.666666666667'],
  ],
  ['SELECT corr(x, x), round(corr(x, y), 12), corr(x, 1.0) FROM s', ['1.0 | 0.993399267799 | 0.0']],
  // DataFusion 27 checks only the first argument of covar* and corr; the second is cast to DOUBLE
  // as arrow casts, so text that is no number is NULL (CnosDB's covar.slt: covar(f1, f3) is NULL).
  [
    "SELECT covar(x, t), covar_pop(x, t), corr(x, t), covar(x, b), covar(x, '2') FROM s",
    ['NULL | NULL | NULL | 0.16666666666666674 | 0.0'],
  ],
  ['SELECT var(u), stddev_pop(y) IS NOT NULL FROM s', ['1.6666666666666667 | true']],
  // Empty input: one row of NULLs (regr_count 0).
  [
    'SELECT var(x), stddev_pop(x), covar(x, x), corr(x, x), regr_count(x, x) FROM empty',
    ['NULL | NULL | NULL | NULL | 0'],
  ],
  ['SELECT g, var(x) FROM empty GROUP BY g', []],
];

const failures: [string, RegExp][] = [
  [
    'SELECT stddev_pop(b) FROM s',
    /Error during planning: The function StddevPop does not support inputs of type Boolean\.$/,
  ],
  ['SELECT var(t) FROM s', /The function Variance does not support inputs of type Utf8\./],
  ['SELECT stddev(time) FROM s', /The function Stddev does not support inputs of type Timestamp\(Nanosecond, None\)\./],
  ['SELECT stddev_pop() FROM s', /The function StddevPop expects 1 arguments, but 0 were provided$/],
  ['SELECT covar(x) FROM s', /The function Covariance expects 2 arguments, but 1 were provided$/],
  ['SELECT corr(t, x) FROM s', /The function Correlation does not support inputs of type Utf8\./],
  ['SELECT regr_slope(x, t) FROM s', /The function RegrSlope does not support inputs of type Utf8\./],
];

describe('statistical aggregates', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = testDb();
    await db.exec(SETUP);
  });
  for (const [sql, rows] of cases) it(`computes ${sql}`, async () => expect((await db.run(sql)).rows).toEqual(rows));
  for (const [sql, message] of failures) it(`fails ${sql}`, async () => expect(await db.error(sql)).toMatch(message));

  it('rejects two aggregates of one name in a select list, as DataFusion does', async () => {
    expect(await db.error('SELECT var(x), var_samp(x) FROM s')).toMatch(
      /Projections require unique expression names but the expression "VARIANCE\(s\.x\)"/,
    );
  });

  it('names and types results as DataFusion 27 does', async () => {
    const r = await db.run(
      'SELECT var(x), var_pop(x), stddev(x), stddev_pop(x), covar(x, y), covar_pop(x, y), corr(x, y), regr_slope(y, x), regr_count(y, x) FROM s',
    );
    expect(r.columns).toEqual([
      'VARIANCE(s.x)',
      'VARIANCE_POP(s.x)',
      'STDDEV(s.x)',
      'STDDEV_POP(s.x)',
      'COVARIANCE(s.x,s.y)',
      'COVARIANCE_POP(s.x,s.y)',
      'CORRELATION(s.x,s.y)',
      'REGR_SLOPE(s.y,s.x)',
      'REGR_COUNT(s.y,s.x)',
    ]);
    expect(r.types).toEqual([
      'Float64',
      'Float64',
      'Float64',
      'Float64',
      'Float64',
      'Float64',
      'Float64',
      'Float64',
      'UInt64',
    ]);
  });

  it('gives the bits CnosDB gives on data whose covariance is a rounding error', async () => {
    // CnosDB's function/common/unorderdata_func.slt: x is 1 five times then 2, y runs 1..5 twice,
    // so the true covariance is 0; Welford's order of operations leaves these exact residues.
    const u = testDb();
    await u.exec(`CREATE TABLE u (x DOUBLE, y DOUBLE);
INSERT INTO u (time, x, y) VALUES (1, 1, 1), (2, 1, 2), (3, 1, 3), (4, 1, 4), (5, 1, 5), (6, 2, 1), (7, 2, 2), (8, 2, 3), (9, 2, 4), (10, 2, 5)`);
    expect((await u.run('SELECT corr(x, y), covar(x, y), covar_pop(x, y), stddev(y), var_pop(y) FROM u')).rows).toEqual(
      ['6.280369834735101e-17 | 4.9343245538895844e-17 | 4.4408920985006264e-17 | 1.4907119849998598 | 2.0'],
    );
  });
});
