// median and the t-digest estimates (five values stay five centroids, so the estimates are the
// interpolations worked out below), array_agg with NULLs, ORDER BY and DISTINCT, approx_distinct,
// bool_and/bool_or, bit_and/bit_or/bit_xor, mode and sample: values, NULLs, empty groups, names,
// types and errors.

import { beforeAll, describe, expect, it } from 'vitest';
import { testDb, type TestDb } from '../support/run-sql.js';
import { TDigest } from '../../../host/engine/functions/t-digest.js';

const SETUP = `CREATE TABLE p (v DOUBLE, i BIGINT, s STRING, b BOOLEAN, TAGS(g));
INSERT INTO p (time, g, v, i, s, b) VALUES
  (1, 'a', 64.5, 1, 'x', true),
  (2, 'a', 64.7, 2, 'y', true),
  (3, 'a', 64.9, 3, 'x', NULL),
  (4, 'a', 65.0, 4, NULL, true),
  (5, 'a', 65.1, 10, 'x', false),
  (6, 'b', 1.0, 5, 'q', NULL),
  (7, 'b', 3.0, 6, 'q', NULL);
CREATE TABLE empty (v DOUBLE, i BIGINT, TAGS(g));
CREATE TABLE pw (v DOUBLE, w DOUBLE);
INSERT INTO pw (time, v, w) VALUES (1, 10.0, 2.0), (2, 20.0, 1.0), (3, NULL, 1.0), (4, -4.0, NULL)`;

const cases: [string, string[]][] = [
  // a: 64.5 64.7 64.9 65.0 65.1. q = 0.1: rank 0.5 in the first centroid, 64.5 + (0.5 - 0.5) * 0.2.
  [
    "SELECT approx_percentile_cont(v, 0.1) AS p10, approx_percentile_cont(v, 0.5) AS p50, approx_percentile_cont(v, 0.9, 100) AS p90 FROM p WHERE g = 'a'",
    ['64.5 | 64.9 | 65.1'],
  ],
  [
    "SELECT approx_percentile_cont(v, 0.0) AS lo, approx_percentile_cont(v, 1.0) AS hi, approx_median(v), median(v) FROM p WHERE g = 'a'",
    ['64.5 | 65.1 | 64.9 | 64.9'],
  ],
  // b: 1 and 3 -> 2; integers 5 and 6: the mean 5.5 truncated to the input type.
  [
    'SELECT g, median(v), median(i), approx_median(v), approx_median(i) FROM p GROUP BY g ORDER BY g',
    ['a | 64.9 | 3 | 64.9 | 3', 'b | 2.0 | 5 | 2.0 | 5'],
  ],
  ['SELECT median(i) FROM p', ['4']],
  ["SELECT approx_percentile_cont_with_weight(v, 1, 0.5) FROM p WHERE g = 'a'", ['64.9']],
  // A NULL value or weight is a 0 (DataFusion reads the value buffers): centroids 0 (1), 10 (2),
  // 20 (1) and -4 with weight 0, whose mean 0/0 sorts last; q = 0.1: 0 + (0.4 - 0.5) * (10 - 0).
  [
    'SELECT approx_percentile_cont_with_weight(v, w, 0.5) AS p50, approx_percentile_cont_with_weight(v, w, 0.1) AS p10 FROM pw',
    ['10.0 | -0.9999999999999998'],
  ],
  ['SELECT median(v), approx_median(v), approx_percentile_cont(v, 0.5) FROM empty', ['NULL | NULL | NULL']],
  // array_agg keeps NULLs and honours ORDER BY; DISTINCT drops repeats.
  ["SELECT array_agg(i ORDER BY time DESC) FROM p WHERE g = 'a'", ['[10, 4, 3, 2, 1]']],
  ["SELECT array_agg(s ORDER BY time) FROM p WHERE g = 'a'", ['[x, y, x, NULL, x]']],
  ["SELECT array_agg(DISTINCT s ORDER BY s) FROM p WHERE g = 'a'", ['[x, y, NULL]']],
  [
    'SELECT g, array_agg(v ORDER BY v DESC) FROM p GROUP BY g ORDER BY g',
    ['a | [65.1, 65.0, 64.9, 64.7, 64.5]', 'b | [3.0, 1.0]'],
  ],
  ['SELECT approx_distinct(s), approx_distinct(i), approx_distinct(g) FROM p', ['3 | 7 | 2']],
  ['SELECT approx_distinct(i) FROM empty', ['0']],
  // NULLs do not count; a group of only NULLs gives NULL.
  ['SELECT g, bool_and(b), bool_or(b) FROM p GROUP BY g ORDER BY g', ['a | false | true', 'b | NULL | NULL']],
  // 1 & 2 & 3 & 4 & 10 = 0, 1 | 2 | 3 | 4 | 10 = 15, 1 ^ 2 ^ 3 ^ 4 ^ 10 = 14.
  ["SELECT bit_and(i), bit_or(i), bit_xor(i), bit_xor(DISTINCT i) FROM p WHERE g = 'a'", ['0 | 15 | 14 | 14']],
  ['SELECT g, mode(s), mode(b) FROM p GROUP BY g ORDER BY g', ['a | x | true', 'b | q | NULL']],
  ['SELECT mode(NULL)', ['NULL']],
  ["SELECT sample(i, 10) FROM p WHERE g = 'b'", ['[5, 6]']],
  ['SELECT sample(i, 3) FROM empty', ['NULL']],
  // max_n: the n largest non-NULL values, largest first, duplicates kept; fewer when fewer exist.
  [
    'SELECT g, max_n(v, 2), max_n(s, 3), max_n(time, 1) FROM p GROUP BY g ORDER BY g',
    [
      'a | [65.1, 65.0] | [y, x, x] | [1970-01-01T00:00:00.000000005]',
      'b | [3.0, 1.0] | [q, q] | [1970-01-01T00:00:00.000000007]',
    ],
  ],
  ['SELECT max_n(i, 3) FROM empty', ['NULL']],
];

const failures: [string, RegExp][] = [
  ['SELECT median(s) FROM p', /The function Median does not support inputs of type Utf8\./],
  [
    'SELECT approx_percentile_cont(v, 1.5) FROM p',
    /Error during planning: Percentile value must be between 0\.0 and 1\.0 inclusive, 1\.5 is invalid$/,
  ],
  [
    'SELECT approx_percentile_cont(v, 1) FROM p',
    /The percentile argument for ApproxPercentileCont must be Float64, not Int64\./,
  ],
  [
    'SELECT approx_percentile_cont(v, v) FROM p',
    /This feature is not implemented: Percentile value for 'APPROX_PERCENTILE_CONT' must be a literal/,
  ],
  [
    'SELECT approx_percentile_cont(v, 0.5, -10) FROM p',
    /Tdigest max_size value for 'APPROX_PERCENTILE_CONT' must be UInt > 0 literal \(got data type Int64\)\./,
  ],
  [
    'SELECT approx_percentile_cont(v) FROM p',
    /The function ApproxPercentileCont does not accept 1 function arguments\./,
  ],
  [
    'SELECT approx_percentile_cont_with_weight(v, 1) FROM p',
    /The function ApproxPercentileContWithWeight does not accept 2 function arguments\./,
  ],
  [
    'SELECT approx_distinct(v) FROM p',
    /Datafusion: This feature is not implemented: Support for 'approx_distinct' for data type Float64 is not implemented/,
  ],
  ['SELECT bool_and(i) FROM p', /The function BoolAnd does not support inputs of type Int64\./],
  ['SELECT bit_or(v) FROM p', /The function BitOr does not support inputs of type Float64\./],
  ['SELECT mode() FROM p', /The function "mode" expects 1 arguments, but 0 were provided/],
  ['SELECT mode(*) FROM p', /Internal error: Create physical name does not support wildcard/],
  ['SELECT sample(i, 0) FROM p', /The number of sample points for function 'sample' must be \(0, 2000\]/],
  ['SELECT array_agg(i, v) FROM p', /sql parser error: Expected \), found: ,/],
];

describe('median, percentiles and collection aggregates', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = testDb();
    await db.exec(SETUP);
  });
  for (const [sql, rows] of cases) it(`computes ${sql}`, async () => expect((await db.run(sql)).rows).toEqual(rows));
  for (const [sql, message] of failures) it(`fails ${sql}`, async () => expect(await db.error(sql)).toMatch(message));

  it('draws n distinct values when there are more', async () => {
    const r = await db.run("SELECT sample(i, 2) FROM p WHERE g = 'a'");
    const values = r.rows[0]!.slice(1, -1).split(', ');
    expect(values).toHaveLength(2);
    expect(new Set(values).size).toBe(2);
    for (const v of values) expect(['1', '2', '3', '4', '10']).toContain(v);
  });

  it('names and types results as DataFusion 27 does', async () => {
    const r = await db.run(
      'SELECT median(i), approx_median(v), approx_percentile_cont(i, 0.5), array_agg(s), approx_distinct(s), bool_or(b), bit_and(i), mode(s), sample(v, 2) FROM p',
    );
    expect(r.columns).toEqual([
      'MEDIAN(p.i)',
      'APPROX_MEDIAN(p.v)',
      'APPROX_PERCENTILE_CONT(p.i,Float64(0.5))',
      'ARRAY_AGG(p.s)',
      'APPROX_DISTINCT(p.s)',
      'BOOL_OR(p.b)',
      'BIT_AND(p.i)',
      'mode(p.s)',
      'sample(p.v,Int64(2))',
    ]);
    expect(r.types).toEqual([
      'Int64',
      'Float64',
      'Int64',
      'List(Utf8)',
      'UInt64',
      'Boolean',
      'Int64',
      'Utf8',
      'List(Float64)',
    ]);
  });
});

describe('TDigest', () => {
  it('keeps few values as their own centroids and interpolates between them', () => {
    const d = new TDigest(100).mergeSorted([1, 2, 3, 4]);
    expect(d.centroids.map((c) => c.mean)).toEqual([1, 2, 3, 4]);
    // q = 0.5: rank 2 falls on the third centroid (1-based), 3 + (0 - 0.5) * (4 - 2) / 2.
    expect(d.quantile(0.5)).toBe(2.5);
    expect(d.quantile(0)).toBe(1);
    expect(d.quantile(1)).toBe(4);
  });

  it('compresses a long input into at most about maxSize centroids and stays close', () => {
    const values = Array.from({ length: 10_000 }, (_, i) => i);
    const d = new TDigest(100).mergeSorted(values);
    expect(d.centroids.length).toBeLessThanOrEqual(100);
    expect(Math.abs(d.quantile(0.5) - 5000)).toBeLessThan(50);
    expect(Math.abs(d.quantile(0.99) - 9900)).toBeLessThan(20);
  });

  it('merges digests with their counts', () => {
    const a = new TDigest(100).mergeSorted([1, 2]);
    const b = new TDigest(100).mergeSorted([3, 4]);
    const m = TDigest.merge([a, b], 100);
    expect(m.count).toBe(4);
    expect(m.min).toBe(1);
    expect(m.max).toBe(4);
    expect(m.quantile(0.5)).toBe(2.5);
  });

  it('orders a centroid of weight 0 (mean NaN) after all others, as OrderedFloat does', () => {
    const one = (m: number, w: number): TDigest => new TDigest(100, [{ mean: m, weight: w }], 1, m, m);
    const m = TDigest.merge([one(5, 1), one(-1, 0), one(1, 1)], 100);
    expect(m.centroids.map((c) => c.mean)).toEqual([1, 5, NaN]);
    expect(m.quantile(0.25)).toBe(2);
  });

  it('gives 0 for an empty digest', () => {
    expect(new TDigest(100).quantile(0.5)).toBe(0);
  });
});
