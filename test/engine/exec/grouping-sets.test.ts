// GROUP BY ROLLUP, CUBE and GROUPING SETS: the sets each produces, subtotal rows kept apart from
// groups whose key is a real NULL, grouping(), HAVING over the subtotals, a filter above the
// aggregate that must not be pushed below it, and the plan text.

import { beforeAll, describe, expect, it } from 'vitest';
import { testDb, type TestDb } from '../support/run-sql.js';

const SETUP = `CREATE TABLE r (v BIGINT, TAGS(region, host));
INSERT INTO r (time, region, host, v) VALUES
  (1, 'east', 'h1', 1),
  (2, 'east', 'h2', 2),
  (3, 'west', 'h3', 4),
  (4, 'west', NULL, 8)`;

const cases: [string, string[]][] = [
  [
    'SELECT region, host, sum(v) FROM r GROUP BY ROLLUP (region, host) ORDER BY region NULLS LAST, host NULLS LAST, 3',
    [
      'east | h1 | 1',
      'east | h2 | 2',
      'east | NULL | 3',
      'west | h3 | 4',
      'west | NULL | 8',
      'west | NULL | 12',
      'NULL | NULL | 15',
    ],
  ],
  // grouping() tells the subtotal (1) from the group of real NULL hosts (0).
  [
    'SELECT region, host, grouping(host) AS gh, sum(v) FROM r GROUP BY ROLLUP (region, host) ORDER BY region NULLS LAST, gh, host NULLS LAST',
    [
      'east | h1 | 0 | 1',
      'east | h2 | 0 | 2',
      'east | NULL | 1 | 3',
      'west | h3 | 0 | 4',
      'west | NULL | 0 | 8',
      'west | NULL | 1 | 12',
      'NULL | NULL | 1 | 15',
    ],
  ],
  [
    'SELECT region, count(*) FROM r GROUP BY CUBE (region) ORDER BY region NULLS FIRST',
    ['NULL | 4', 'east | 2', 'west | 2'],
  ],
  [
    'SELECT region, host, sum(v) FROM r GROUP BY GROUPING SETS ((region), (host), ()) ORDER BY region NULLS LAST, host NULLS LAST, 3',
    [
      'east | NULL | 3',
      'west | NULL | 12',
      'NULL | h1 | 1',
      'NULL | h2 | 2',
      'NULL | h3 | 4',
      'NULL | NULL | 8',
      'NULL | NULL | 15',
    ],
  ],
  [
    'SELECT region, sum(v) AS s FROM r GROUP BY ROLLUP (region) HAVING sum(v) > 3 ORDER BY s',
    ['west | 12', 'NULL | 15'],
  ],
  // The filter on region stays above the aggregate: the grand total row has region NULL.
  [
    "SELECT * FROM (SELECT region, sum(v) AS s FROM r GROUP BY ROLLUP (region)) AS t WHERE region = 'east'",
    ['east | 3'],
  ],
  ['SELECT region, sum(v) FROM r WHERE v > 100 GROUP BY ROLLUP (region)', []],
];

describe('grouping sets', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = testDb();
    await db.exec(SETUP);
  });
  for (const [sql, rows] of cases) it(`computes ${sql}`, async () => expect((await db.run(sql)).rows).toEqual(rows));

  it('makes 2^n sets for a CUBE of n keys', async () => {
    // (region, host), (region), (host), (): 4 + 2 + 4 + 1 groups.
    expect((await db.run('SELECT count(*) FROM r GROUP BY CUBE (region, host)')).rows).toHaveLength(11);
  });

  it('refuses a grouping set beside other group keys, as DataFusion 27 does', async () => {
    expect(await db.error('SELECT region, host, sum(v) FROM r GROUP BY region, ROLLUP (host)')).toMatch(
      /Invalid group by expressions, GroupingSet must be the only expression/,
    );
  });

  it('fails grouping() outside grouping sets as DataFusion 27 does', async () => {
    expect(await db.error('SELECT grouping(region) FROM r GROUP BY region')).toMatch(
      /physical plan is not yet implemented for GROUPING aggregate function/,
    );
  });

  it('shows the sets in EXPLAIN', async () => {
    const r = await db.run('EXPLAIN SELECT region, host, sum(v) FROM r GROUP BY ROLLUP (region, host)');
    expect(r.rows[0]).toContain(
      'Aggregate: groupBy=[[GROUPING SETS ((r.region, r.host), (r.region), ())]], aggr=[[SUM(r.v)]]',
    );
  });
});
