// The operators through SQL: joins of every type, set operations, subqueries (scalar, IN,
// EXISTS, correlated), CTEs, window functions and the top-k per partition, sorting with NULLs,
// LIMIT/OFFSET, sliding time windows, and what the scan asks the catalog for.

import { beforeAll, describe, expect, it } from 'vitest';
import { testDb, type TestDb } from '../support/run-sql.js';

const SETUP = `CREATE TABLE l (v BIGINT, TAGS(k));
INSERT INTO l (time, k, v) VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3), (4, NULL, 4);
CREATE TABLE r (w BIGINT, TAGS(k));
INSERT INTO r (time, k, w) VALUES (1, 'b', 20), (2, 'c', 30), (3, 'c', 31), (4, 'd', 40), (5, NULL, 50)`;

const cases: [string, string[]][] = [
  // Joins
  ['SELECT l.k, v, w FROM l JOIN r ON l.k = r.k ORDER BY v, w', ['b | 2 | 20', 'c | 3 | 30', 'c | 3 | 31']],
  [
    'SELECT l.k, v, w FROM l LEFT JOIN r ON l.k = r.k ORDER BY v, w',
    ['a | 1 | NULL', 'b | 2 | 20', 'c | 3 | 30', 'c | 3 | 31', 'NULL | 4 | NULL'],
  ],
  [
    'SELECT r.k, v, w FROM l RIGHT JOIN r ON l.k = r.k ORDER BY w',
    ['b | 2 | 20', 'c | 3 | 30', 'c | 3 | 31', 'd | NULL | 40', 'NULL | NULL | 50'],
  ],
  [
    'SELECT l.k, r.k, v, w FROM l FULL JOIN r ON l.k = r.k ORDER BY v NULLS LAST, w',
    [
      'a | NULL | 1 | NULL',
      'b | b | 2 | 20',
      'c | c | 3 | 30',
      'c | c | 3 | 31',
      'NULL | NULL | 4 | NULL',
      'NULL | d | NULL | 40',
      'NULL | NULL | NULL | 50',
    ],
  ],
  ['SELECT l.k, w FROM l JOIN r ON l.k = r.k AND w > 30', ['c | 31']],
  [
    'SELECT l.k, w FROM l LEFT JOIN r ON l.k = r.k AND w > 30 ORDER BY v',
    ['a | NULL', 'b | NULL', 'c | 31', 'NULL | NULL'],
  ],
  ['SELECT count(*) FROM l JOIN r ON true', ['20']],
  ['SELECT l.k, r.w FROM l JOIN r USING (k) ORDER BY w', ['b | 20', 'c | 30', 'c | 31']],
  // A USING column may be named bare (the left side's, as in DataFusion), and SELECT * shows it once.
  ["SELECT k, w FROM l JOIN r USING (k) WHERE k <> 'b' ORDER BY w", ['c | 30', 'c | 31']],
  ['SELECT k, count(*) FROM l LEFT JOIN r USING (k) GROUP BY k ORDER BY k', ['a | 1', 'b | 1', 'c | 2', 'NULL | 1']],
  ['SELECT * FROM l JOIN r USING (k, time) ORDER BY v', ['1970-01-01T00:00:00.000000003 | c | 3 | 31']],
  ['SELECT k FROM l JOIN r USING (k) JOIN l AS l2 USING (k) ORDER BY k', ['b', 'c', 'c']],
  ['SELECT v, w FROM l JOIN r ON v * 10 < w AND w < 25 ORDER BY v', ['1 | 20']],
  // Set operations
  ['SELECT k FROM l UNION SELECT k FROM r ORDER BY k', ['a', 'b', 'c', 'd', 'NULL']],
  ['SELECT k FROM l UNION ALL SELECT k FROM r ORDER BY k', ['a', 'b', 'b', 'c', 'c', 'c', 'd', 'NULL', 'NULL']],
  ['SELECT k FROM l INTERSECT SELECT k FROM r ORDER BY k', ['b', 'c', 'NULL']],
  ['SELECT k FROM l EXCEPT SELECT k FROM r ORDER BY k', ['a']],
  ['SELECT v FROM l UNION ALL SELECT 2.5 ORDER BY 1', ['1.0', '2.0', '2.5', '3.0', '4.0']],
  // Subqueries
  ['SELECT k FROM l WHERE v = (SELECT max(v) FROM l)', ['NULL']],
  ['SELECT k FROM l WHERE k IN (SELECT k FROM r) ORDER BY k', ['b', 'c']],
  ['SELECT k FROM l WHERE k NOT IN (SELECT k FROM r WHERE k IS NOT NULL) ORDER BY k', ['a']],
  ['SELECT k FROM l WHERE k NOT IN (SELECT k FROM r)', []],
  ['SELECT k FROM l WHERE EXISTS (SELECT 1 FROM r WHERE r.k = l.k) ORDER BY k', ['b', 'c']],
  ['SELECT k FROM l WHERE NOT EXISTS (SELECT 1 FROM r WHERE r.k = l.k) ORDER BY k', ['a', 'NULL']],
  [
    'SELECT k, (SELECT sum(w) FROM r WHERE r.k = l.k) AS s FROM l ORDER BY v',
    ['a | NULL', 'b | 20', 'c | 61', 'NULL | NULL'],
  ],
  // Correlated on a column the outer query does not select: the scan (and the filter over a
  // join) must still read it for the subquery (it was projected away, and the subquery failed).
  ['SELECT v FROM l WHERE EXISTS (SELECT 1 FROM r WHERE r.k = l.k) ORDER BY v', ['2', '3']],
  ['SELECT v FROM l WHERE v * 10 < (SELECT max(w) FROM r WHERE r.k = l.k) ORDER BY v', ['3']],
  ['SELECT count(*) FROM l WHERE NOT EXISTS (SELECT 1 FROM r WHERE r.k = l.k)', ['2']],
  [
    'SELECT time FROM l WHERE v - 1 IN (SELECT count(*) FROM r WHERE r.k = l.k) ORDER BY time',
    ['1970-01-01T00:00:00.000000001', '1970-01-01T00:00:00.000000002', '1970-01-01T00:00:00.000000003'],
  ],
  ['SELECT v FROM l WHERE v > (SELECT avg(v) FROM l AS l2 WHERE l2.k <> l.k OR l.k IS NULL) ORDER BY v', ['3', '4']],
  // ... and a filter with such a subquery stays where its outer columns are: above a join when
  // it reads both sides, above the projection, alias, aggregate or union that names them.
  [
    'SELECT l.v FROM l JOIN r ON l.k = r.k WHERE r.w = (SELECT min(w) FROM r AS r2 WHERE r2.k = l.k) ORDER BY l.v',
    ['2', '3'],
  ],
  [
    'SELECT l.v FROM l JOIN r ON l.k = r.k WHERE (SELECT count(*) FROM r AS r2 WHERE r2.k = l.k AND r2.w <= r.w) = 2',
    ['3'],
  ],
  [
    'SELECT * FROM (SELECT k AS kk, v * 2 AS v2 FROM l) AS s WHERE v2 < (SELECT max(w) FROM r WHERE r.k = s.kk) ORDER BY v2',
    ['b | 4', 'c | 6'],
  ],
  [
    'SELECT kk, c FROM (SELECT k AS kk, count(*) AS c FROM l GROUP BY k) AS s WHERE c = (SELECT count(*) FROM r WHERE r.k = s.kk)',
    ['b | 1'],
  ],
  [
    'SELECT k FROM (SELECT k FROM l UNION ALL SELECT k FROM r) AS u WHERE EXISTS (SELECT 1 FROM l AS l2 WHERE l2.k = u.k AND l2.v > 2)',
    ['c', 'c', 'c'],
  ],
  ['SELECT * FROM (SELECT k, v * 2 AS d FROM l) AS t WHERE d > 4 ORDER BY d', ['c | 6', 'NULL | 8']],
  ['SELECT x FROM (VALUES (1), (2)) AS t (x) ORDER BY x DESC', ['2', '1']],
  // CTEs
  [
    'WITH a AS (SELECT k, v FROM l WHERE v > 1), b AS (SELECT k FROM a WHERE v < 4) SELECT * FROM b ORDER BY k',
    ['b', 'c'],
  ],
  ['WITH c (n) AS (SELECT count(*) FROM r) SELECT n + 1 FROM c', ['6']],
  // Window functions
  [
    'SELECT k, w, row_number() OVER (PARTITION BY k ORDER BY w DESC) AS rn, rank() OVER (ORDER BY k) AS rk FROM r ORDER BY w',
    ['b | 20 | 1 | 1', 'c | 30 | 2 | 2', 'c | 31 | 1 | 2', 'd | 40 | 1 | 4', 'NULL | 50 | 1 | 5'],
  ],
  [
    'SELECT k, dense_rank() OVER (ORDER BY k NULLS FIRST) AS d FROM r ORDER BY w',
    ['b | 2', 'c | 3', 'c | 3', 'd | 4', 'NULL | 1'],
  ],
  [
    'SELECT * FROM (SELECT k, w, row_number() OVER (PARTITION BY k ORDER BY time DESC) AS rn FROM r) WHERE rn = 1 ORDER BY w',
    ['b | 20 | 1', 'c | 31 | 1', 'd | 40 | 1', 'NULL | 50 | 1'],
  ],
  [
    'SELECT * FROM (SELECT k, w, row_number() OVER (PARTITION BY k ORDER BY w) AS rn FROM r) WHERE rn <= 2 ORDER BY w',
    ['b | 20 | 1', 'c | 30 | 1', 'c | 31 | 2', 'd | 40 | 1', 'NULL | 50 | 1'],
  ],
  // Sorting and LIMIT
  ['SELECT k FROM l ORDER BY k DESC', ['NULL', 'c', 'b', 'a']],
  ['SELECT k FROM l ORDER BY k DESC NULLS LAST', ['c', 'b', 'a', 'NULL']],
  ['SELECT v FROM l ORDER BY v DESC LIMIT 2 OFFSET 1', ['3', '2']],
  ['SELECT v FROM l ORDER BY v LIMIT 0', []],
  ['SELECT v FROM l ORDER BY v LIMIT 2 OFFSET 3', ['4']],
  ['SELECT k, v FROM l ORDER BY 2 DESC LIMIT 1', ['NULL | 4']],
];

describe('operators', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = testDb();
    await db.exec(SETUP);
  });
  for (const [sql, rows] of cases) it(`runs ${sql}`, async () => expect((await db.run(sql)).rows).toEqual(rows));

  it('shows a USING column once in SELECT *, keeping the first qualifier in order, and refuses other bare duplicates', async () => {
    expect((await db.run('SELECT * FROM l JOIN r USING (k)')).columns).toEqual(['time', 'k', 'v', 'time', 'w']);
    // DataFusion keeps the column whose qualifier sorts first: r's when r is on the left.
    const rl = await db.run('SELECT * FROM r JOIN l USING (k) ORDER BY w');
    expect(rl.columns).toEqual(['time', 'w', 'time', 'k', 'v']);
    expect((await db.run('SELECT l.* FROM l JOIN r USING (k) LIMIT 1')).columns).toEqual(['time', 'k', 'v']);
    expect(await db.error('SELECT time FROM l JOIN r USING (k)')).toBe(
      'Datafusion: Schema error: Ambiguous reference to unqualified field time',
    );
  });

  it('runs a tumbling and a sliding time_window', async () => {
    const w = testDb();
    await w.exec(
      "CREATE TABLE m (v BIGINT, TAGS(h));\nINSERT INTO m (time, h, v) VALUES ('2024-01-01T00:00:00.000Z', 'a', 1), ('2024-01-01T00:00:00.005Z', 'a', 2), ('2024-01-01T00:00:00.012Z', 'a', 3)",
    );
    expect((await w.run("SELECT time_window(time, '10ms') AS w, sum(v) FROM m GROUP BY w ORDER BY w")).rows).toEqual([
      '{start: 2024-01-01T00:00:00, end: 2024-01-01T00:00:00.010} | 3',
      '{start: 2024-01-01T00:00:00.010, end: 2024-01-01T00:00:00.020} | 3',
    ]);
    expect(
      (await w.run("SELECT time_window(time, '10ms', '5ms') AS w, sum(v) FROM m GROUP BY w ORDER BY w")).rows,
    ).toEqual([
      '{start: 2023-12-31T23:59:59.995, end: 2024-01-01T00:00:00.005} | 1',
      '{start: 2024-01-01T00:00:00, end: 2024-01-01T00:00:00.010} | 3',
      '{start: 2024-01-01T00:00:00.005, end: 2024-01-01T00:00:00.015} | 5',
      '{start: 2024-01-01T00:00:00.010, end: 2024-01-01T00:00:00.020} | 3',
    ]);
    expect(
      (await w.run("SELECT w.start FROM (SELECT time_window(time, '10ms') AS w FROM m) ORDER BY 1 LIMIT 1")).rows,
    ).toEqual(['2024-01-01T00:00:00']);
    // Each row goes into window / slide windows: 100 are allowed, 101 are not (CnosDB's limit).
    expect((await w.run("SELECT count(*) FROM (SELECT time_window(time, '100ms', '1ms') AS w FROM m)")).rows).toEqual([
      '300',
    ]);
    expect(await w.error("SELECT time_window(time, '101ms', '1ms') AS w FROM m")).toBe(
      'Datafusion: transform_time_window\ncaused by\nError during planning: Too many overlapping windows: 101',
    );
  });

  it('asks the scan for the time range, the fields and the series it needs', async () => {
    db.catalog.scans.length = 0;
    await db.run("SELECT v FROM l WHERE k = 'b' AND time >= 2 AND time < 4 AND v > 0");
    const req = db.catalog.scans[0]!;
    expect(req.fields).toEqual(['v']);
    expect(req.minTime).toBe(2n);
    expect(req.maxTime).toBe(3n);
    expect(req.seriesFilter!(new Map([['k', 'b']]))).toBe(true);
    expect(req.seriesFilter!(new Map([['k', 'a']]))).toBe(false);
    expect(req.seriesFilter!(new Map())).toBe(false);
    expect(req.valueBounds).toEqual([{ field: 'v', min: 1n }]);
  });

  it('passes bounds on field values so that storage can skip blocks', async () => {
    const bounds = async (where: string): Promise<unknown> => {
      db.catalog.scans.length = 0;
      await db.run(`SELECT v FROM l WHERE ${where}`);
      return db.catalog.scans[0]!.valueBounds;
    };
    expect(await bounds('v BETWEEN 2 AND 3 AND 1 < v AND v <= 5')).toEqual([{ field: 'v', min: 2n, max: 3n }]);
    expect(await bounds('v = 4')).toEqual([{ field: 'v', min: 4n, max: 4n }]);
    // A cast column, an OR, a comparison of two fields: no bound.
    expect(await bounds('v > 2.5 OR v < 0')).toBeUndefined();
    expect(await bounds('v > 2.5')).toBeUndefined();
    expect(await bounds('v > v + 1')).toBeUndefined();
  });

  it('stops reading after LIMIT rows', async () => {
    const big = testDb();
    await big.run('CREATE TABLE b (v BIGINT, TAGS(s))');
    const rows = Array.from({ length: 500 }, (_, i) => `(${i}, 's${i % 50}', ${i})`);
    await big.run(`INSERT INTO b (time, s, v) VALUES ${rows.join(', ')}`);
    let pulled = 0;
    const scan = big.catalog.scan.bind(big.catalog);
    big.catalog.scan = async function* (d, t, r) {
      for await (const c of scan(d, t, r)) {
        pulled++;
        yield c;
      }
    };
    expect((await big.run('SELECT v FROM b LIMIT 3')).rows).toHaveLength(3);
    expect(pulled).toBe(1);
  });

  it('sorts long string columns with few or many distinct values in UTF-8 byte order', async () => {
    const t = testDb();
    await t.run('CREATE TABLE s (v BIGINT, TAGS(few, many))');
    const few = ['b', 'a', '\u{1F600}', '\uFFFD', 'ab'];
    const rows = Array.from(
      { length: 200 },
      (_, i) => `(${i}, ${i % 6 === 5 ? 'NULL' : `'${few[i % 6]}'`}, 'm${(i * 37) % 150}')`,
    );
    await t.run(
      `INSERT INTO s (time, few, many, v) VALUES ${rows.map((r, i) => r.replace(/\)$/, `, ${i})`)).join(', ')}`,
    );
    const byFew = (
      await t.run('SELECT DISTINCT few FROM (SELECT few, v FROM s ORDER BY few DESC NULLS LAST, v) ORDER BY few')
    ).rows;
    expect(byFew).toEqual(['a', 'ab', 'b', '\uFFFD', '\u{1F600}', 'NULL']);
    const sorted = (await t.run('SELECT few, v FROM s ORDER BY few, v')).rows;
    expect(sorted.slice(0, 2)).toEqual(['a | 1', 'a | 7']);
    expect(sorted.at(-1)).toBe('NULL | 197');
    const many = (await t.run('SELECT many FROM s ORDER BY many DESC')).rows;
    expect(many).toEqual([...many].sort((x, y) => (x < y ? 1 : x > y ? -1 : 0)));
  });

  it('keeps the top k per partition across batches as the window function does', async () => {
    const t = testDb();
    t.catalog.chunkRows = 3;
    await t.run('CREATE TABLE p (v BIGINT, g BIGINT, TAGS(s))');
    const rows = Array.from(
      { length: 30 },
      (_, i) => `(${i}, 's${i % 3}', ${(i * 7) % 11}, ${i % 4 === 0 ? 'NULL' : i % 5})`,
    );
    await t.run(`INSERT INTO p (time, s, v, g) VALUES ${rows.join(', ')}`);
    for (const [part, order, bound] of [
      ['g', 'v DESC', 'rn <= 2'],
      ['s, g', 'time', 'rn = 1'],
      ['s', 'v, time DESC', 'rn < 4'],
      ['g', 'time DESC', 'rn = 1'],
    ]) {
      const q = (b: string): string =>
        `SELECT s, g, v, time, rn FROM (SELECT *, row_number() OVER (PARTITION BY ${part} ORDER BY ${order}) AS rn FROM p) WHERE ${b} ORDER BY s, g, rn`;
      expect((await t.run(`EXPLAIN ${q(bound)}`)).rows.join('\n')).toContain('PartitionTopKExec');
      expect((await t.run(`EXPLAIN ${q(`rn + 0 ${bound.slice(3)}`)}`)).rows.join('\n')).not.toContain(
        'PartitionTopKExec',
      );
      const expected = (await t.run(q(`rn + 0 ${bound.slice(3)}`))).rows;
      expect(expected.length).toBeGreaterThan(3);
      expect((await t.run(q(bound))).rows).toEqual(expected);
    }
  });

  it('runs the lastpoint query as a top-k per partition over the last row of each series', async () => {
    const plan = (
      await db.run(
        'EXPLAIN SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY k ORDER BY time DESC) AS rn FROM r) WHERE rn = 1',
      )
    ).rows.join('\n');
    expect(plan).toContain('PartitionTopKExec');
    expect(plan).toContain('last_per_series=1');
  });
});
