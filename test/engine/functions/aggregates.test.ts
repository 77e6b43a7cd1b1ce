// Aggregates: results and types, NULLs ignored, empty input (one row without GROUP BY, none
// with), DISTINCT and FILTER, integer overflow, CnosDB's first/last, and the same results from
// the time-bucket aggregate (series chunks) as from the hash aggregate (rows).

import { beforeAll, describe, expect, it } from 'vitest';
import { testDb, type TestDb } from '../support/run-sql.js';

const SETUP = `CREATE TABLE t (v BIGINT, d DOUBLE, s STRING, b BOOLEAN, u BIGINT UNSIGNED, TAGS(g));
INSERT INTO t (time, g, v, d, s, b, u) VALUES
  (1, 'a', 1, 1.5, 'x', true, 10),
  (2, 'a', NULL, 2.5, 'y', false, 20),
  (3, 'a', 3, NULL, NULL, NULL, NULL),
  (4, 'b', 10, -1.0, 'z', true, 5),
  (5, 'b', 10, 0.25, 'z', NULL, 5);
CREATE TABLE empty (v BIGINT, TAGS(g))`;

const cases: [string, string[]][] = [
  ['SELECT count(*), count(v), count(d), count(g), count(v, d) FROM t', ['5 | 4 | 4 | 5 | 3']],
  [
    'SELECT sum(v), avg(v), min(v), max(v), sum(d), avg(d), min(d), max(d) FROM t',
    ['24 | 6.0 | 1 | 10 | 3.25 | 0.8125 | -1.0 | 2.5'],
  ],
  [
    'SELECT min(s), max(s), min(b), max(b), min(time), max(time), sum(u), max(u) FROM t',
    ['x | z | false | true | 1970-01-01T00:00:00.000000001 | 1970-01-01T00:00:00.000000005 | 40 | 20'],
  ],
  ['SELECT g, count(*), sum(v) FROM t GROUP BY g ORDER BY g', ['a | 3 | 4', 'b | 2 | 20']],
  [
    'SELECT count(DISTINCT v), sum(DISTINCT v), avg(DISTINCT v), count(DISTINCT s) FROM t',
    ['3 | 14 | 4.666666666666667 | 3'],
  ],
  ["SELECT count(*) FILTER (WHERE g = 'b'), sum(v) FILTER (WHERE v > 1) FROM t", ['2 | 23']],
  [
    'SELECT first(time, v), last(time, v), first(time, d), last(time, s), first(time, b) FROM t',
    ['1 | 10 | 1.5 | z | 1'],
  ],
  [
    'SELECT g, first(time, v), last(time, d), last(time, v) FROM t GROUP BY g ORDER BY g',
    ['a | 1 | 2.5 | 3', 'b | 10 | 0.25 | 10'],
  ],
  ['SELECT count(*), sum(v), avg(v), min(v), max(v) FROM empty', ['0 | NULL | NULL | NULL | NULL']],
  ['SELECT g, count(*) FROM empty GROUP BY g', []],
  ['SELECT sum(v) FROM t WHERE v IS NULL', ['NULL']],
  ['SELECT count(*) FROM t HAVING count(*) > 10', []],
  ['SELECT g, avg(d) AS m FROM t GROUP BY g HAVING avg(d) > 0 ORDER BY m DESC', ['a | 2.0']],
  ['SELECT DISTINCT g FROM t ORDER BY g', ['a', 'b']],
  ['SELECT exact_count(*), exact_count(v) FROM t', ['5 | 4']],
];

describe('aggregates', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = testDb();
    await db.exec(SETUP);
  });
  for (const [sql, rows] of cases) it(`computes ${sql}`, async () => expect((await db.run(sql)).rows).toEqual(rows));

  it('names and types results as DataFusion does', async () => {
    const r = await db.run('SELECT count(*), sum(v), avg(v), max(d), first(time, b) FROM t');
    expect(r.columns).toEqual(['COUNT(UInt8(1))', 'SUM(t.v)', 'AVG(t.v)', 'MAX(t.d)', 'first(t.time,t.b)']);
  });

  it('wraps a BIGINT sum that overflows, as DataFusion 27 does', async () => {
    const o = testDb();
    await o.exec(
      "CREATE TABLE o (v BIGINT, u BIGINT UNSIGNED, TAGS(g));\nINSERT INTO o (time, g, v, u) VALUES (1, 'a', 9223372036854775807, 18446744073709551615);\nINSERT INTO o (time, g, v, u) VALUES (2, 'a', 1, 2)",
    );
    expect((await o.run('SELECT sum(v), sum(u) FROM o')).rows).toEqual(['-9223372036854775808 | 1']);
    // Back in range after wrapping twice: the exact sum is kept until the end.
    await o.exec("INSERT INTO o (time, g, v) VALUES (3, 'a', -1)");
    expect((await o.run('SELECT sum(v) FROM o')).rows).toEqual(['9223372036854775807']);
  });

  it('fails MIN and MAX of NULL when they run, as CnosDB does', async () => {
    expect(await db.error('SELECT max(NULL) FROM t')).toMatch(/Min\/Max accumulator not implemented for type Null/);
  });
});

describe('the time-bucket aggregate and the hash aggregate agree', () => {
  it('on many series in many chunks', async () => {
    const db = testDb();
    await db.run('CREATE TABLE m (v BIGINT, d DOUBLE, TAGS(h))');
    const rows: string[] = [];
    for (let h = 0; h < 5; h++)
      for (let i = 0; i < 300; i++)
        rows.push(
          `(${i * 7_000_000_000 + h}, 'h${h}', ${((i * 37 + h) % 101) - 50}, ${i % 13 === 0 ? 'NULL' : ((i * 1.25) % 17).toFixed(2)})`,
        );
    await db.run(`INSERT INTO m (time, h, v, d) VALUES ${rows.join(', ')}`);
    db.catalog.chunkRows = 37;
    const fused =
      "SELECT h, date_bin(INTERVAL '1 minute', time) AS t, count(*), count(d), sum(v), avg(v), min(v), max(v), sum(d), min(d), max(d), first(time, v), last(time, d) FROM m WHERE time >= 100000000000 GROUP BY h, t ORDER BY h, t";
    // A residual predicate on a field makes the operator fall back to the hash aggregate.
    const hashed = fused.replace('WHERE time >= 100000000000', 'WHERE time >= 100000000000 AND v > -1000');
    const a = await db.run(fused);
    const b = await db.run(hashed);
    expect(a.rows.length).toBeGreaterThan(100);
    expect(a.rows).toEqual(b.rows);
    const plan = (await db.run(`EXPLAIN ${fused}`)).rows.join('\n');
    expect(plan).toContain('TimeBucketAggregateExec');
  });

  it('before 1970 and up to the largest timestamp', async () => {
    const db = testDb();
    await db.run('CREATE TABLE e (v BIGINT, TAGS(h))');
    await db.run(
      "INSERT INTO e (time, h, v) VALUES (-10, 'a', 1), (-5, 'a', 2), (0, 'a', 3), (3600000000000, 'a', 6), (9223372036854775000, 'a', 4), (9223372036854775807, 'a', 5)",
    );
    const run = async (stride: string, where: string): Promise<string[]> =>
      (
        await db.run(
          `SELECT date_bin(INTERVAL '${stride}', time) AS t, sum(v), count(*) FROM e ${where} GROUP BY t ORDER BY t`,
        )
      ).rows;
    for (const stride of ['1 hour', '7 nanoseconds'])
      expect(await run(stride, '')).toEqual(await run(stride, 'WHERE v > -1'));
    expect(await run('7 nanoseconds', '')).toEqual([
      '1969-12-31T23:59:59.999999986 | 1 | 1',
      '1969-12-31T23:59:59.999999993 | 2 | 1',
      '1970-01-01T00:00:00 | 3 | 1',
      '1970-01-01T00:59:59.999999995 | 6 | 1',
      '2262-04-11T23:47:16.854774995 | 4 | 1',
      '2262-04-11T23:47:16.854775807 | 5 | 1',
    ]);
  });
});
