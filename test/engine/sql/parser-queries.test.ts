import { describe, expect, it } from 'vitest';
import { parseStatement, type Query } from '../../../host/engine/sql/index.js';
import { expectRoundTrip } from './ast-utils.js';

/** Queries and DML: input -> canonical text; each also round-trips. */
const cases: { name: string; sql: string; printed: string }[] = [
  { name: 'a bare select', sql: 'select 1, 2, 3, 4;', printed: 'SELECT 1, 2, 3, 4' },
  { name: 'select star', sql: 'SELECT * FROM m0', printed: 'SELECT * FROM m0' },
  { name: 'SELECT ALL', sql: 'select ALL * from test0', printed: 'SELECT * FROM test0' },
  { name: 'SELECT DISTINCT', sql: 'SELECT DISTINCT a FROM t', printed: 'SELECT DISTINCT a FROM t' },
  { name: 'a qualified wildcard', sql: 'SELECT t.*, db.t.* FROM db.t', printed: 'SELECT t.*, db.t.* FROM db.t' },
  {
    name: 'aliases with and without AS',
    sql: 'SELECT a x, b AS "Y", c AS from, d AS \'e\' FROM t',
    printed: 'SELECT a AS x, b AS "Y", c AS "from", d AS e FROM t',
  },
  { name: 'a quoted implicit alias', sql: 'SELECT a "X" FROM t', printed: 'SELECT a AS "X" FROM t' },
  { name: 'a string alias after AS', sql: "SELECT a AS 'dd c' FROM t", printed: 'SELECT a AS "dd c" FROM t' },
  {
    name: 'table aliases with column lists',
    sql: 'select * from (values (1, 2)) as t (a, "B")',
    printed: 'SELECT * FROM (VALUES (1, 2)) AS t (a, "B")',
  },
  {
    name: 'an implicit table alias',
    sql: 'SELECT * FROM m0 M0 WHERE m0.t0 = 1',
    printed: 'SELECT * FROM m0 AS m0 WHERE m0.t0 = 1',
  },
  {
    name: 'a derived table without alias',
    sql: 'select count(*) from (select * from limit_test limit 5);',
    printed: 'SELECT count(*) FROM (SELECT * FROM limit_test LIMIT 5)',
  },
  {
    name: 'WHERE with boolean logic',
    sql: "select * from m0 where t0 = 'a' and f0 = 11 or time > 3",
    printed: "SELECT * FROM m0 WHERE t0 = 'a' AND f0 = 11 OR time > 3",
  },
  {
    name: 'GROUP BY, HAVING, ORDER BY',
    sql: 'select t0, sum(f0) from t group by t0 having sum(f0) > 1 order by t0 desc',
    printed: 'SELECT t0, sum(f0) FROM t GROUP BY t0 HAVING sum(f0) > 1 ORDER BY t0 DESC',
  },
  {
    name: 'GROUP BY ordinals',
    sql: 'SELECT a, count(*) FROM t GROUP BY 1 ORDER BY 2',
    printed: 'SELECT a, count(*) FROM t GROUP BY 1 ORDER BY 2',
  },
  {
    name: 'ROLLUP and CUBE',
    sql: 'select a from t group by rollup (a, (b, c)), cube (d)',
    printed: 'SELECT a FROM t GROUP BY ROLLUP (a, (b, c)), CUBE (d)',
  },
  {
    name: 'a ROLLUP element starting with a parenthesis',
    sql: 'select 1 from t group by rollup (((a + b) * c))',
    printed: 'SELECT 1 FROM t GROUP BY ROLLUP (((a + b) * c))',
  },
  {
    name: 'GROUPING SETS with an empty set',
    sql: 'select a from t group by grouping sets ((a), (), (a, b), c)',
    printed: 'SELECT a FROM t GROUP BY GROUPING SETS ((a), (), (a, b), (c))',
  },
  {
    name: 'a column named rollup',
    sql: 'select rollup from t group by rollup',
    printed: 'SELECT rollup FROM t GROUP BY rollup',
  },
  {
    name: 'ORDER BY with NULLS',
    sql: 'SELECT a FROM t ORDER BY a ASC NULLS FIRST, b NULLS LAST',
    printed: 'SELECT a FROM t ORDER BY a ASC NULLS FIRST, b NULLS LAST',
  },
  { name: 'LIMIT then OFFSET', sql: 'SELECT a FROM t LIMIT 10 OFFSET 5', printed: 'SELECT a FROM t LIMIT 10 OFFSET 5' },
  {
    name: 'OFFSET then LIMIT',
    sql: 'SELECT a FROM t OFFSET 5 ROWS LIMIT 10',
    printed: 'SELECT a FROM t LIMIT 10 OFFSET 5',
  },
  { name: 'LIMIT ALL', sql: 'SELECT a FROM t LIMIT ALL', printed: 'SELECT a FROM t' },
  {
    name: 'a named window',
    sql: 'SELECT rank() OVER w FROM t WINDOW w AS (PARTITION BY a ORDER BY b), v AS (w)',
    printed: 'SELECT rank() OVER w FROM t WINDOW w AS (PARTITION BY a ORDER BY b), v AS (w)',
  },
  {
    name: 'inner joins',
    sql: 'SELECT * FROM a JOIN b ON a.x = b.x INNER JOIN c USING (k, "L")',
    printed: 'SELECT * FROM a JOIN b ON a.x = b.x JOIN c USING (k, "L")',
  },
  {
    name: 'outer joins',
    sql: 'SELECT * FROM a LEFT OUTER JOIN b ON TRUE RIGHT JOIN c ON TRUE FULL OUTER JOIN d ON TRUE',
    printed: 'SELECT * FROM a LEFT JOIN b ON TRUE RIGHT JOIN c ON TRUE FULL JOIN d ON TRUE',
  },
  { name: 'a join without condition', sql: 'SELECT * FROM a JOIN b', printed: 'SELECT * FROM a JOIN b' },
  {
    name: 'cross and comma joins',
    sql: 'SELECT * FROM a CROSS JOIN b, c d',
    printed: 'SELECT * FROM a CROSS JOIN b, c AS d',
  },
  {
    name: 'a nested join',
    sql: 'SELECT * FROM (a JOIN b ON a.k = b.k) AS j',
    printed: 'SELECT * FROM (a JOIN b ON a.k = b.k) AS j',
  },
  {
    name: 'a doubly parenthesised derived table',
    sql: 'SELECT * FROM ((SELECT 1) UNION (SELECT 2)) u',
    printed: 'SELECT * FROM ((SELECT 1) UNION (SELECT 2)) AS u',
  },
  {
    name: 'a parenthesised nested join',
    sql: 'SELECT * FROM ((a JOIN b ON TRUE))',
    printed: 'SELECT * FROM ((a JOIN b ON TRUE))',
  },
  {
    name: 'a table function',
    sql: 'SELECT * FROM generate_series(1, 3) AS g (n)',
    printed: 'SELECT * FROM generate_series(1, 3) AS g (n)',
  },
  {
    name: 'a table named after a keyword',
    sql: 'select * from "limit".values',
    printed: 'SELECT * FROM "limit".values',
  },
  {
    name: 'WITH',
    sql: 'with tmp as (select 1 as a) select * from tmp order by a',
    printed: 'WITH tmp AS (SELECT 1 AS a) SELECT * FROM tmp ORDER BY a',
  },
  {
    name: 'WITH RECURSIVE with columns',
    sql: 'WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r), s AS (SELECT 2) SELECT * FROM r',
    printed: 'WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r), s AS (SELECT 2) SELECT * FROM r',
  },
  {
    name: 'UNION ALL chains',
    sql: 'SELECT 1 UNION ALL SELECT 2 UNION SELECT 3',
    printed: 'SELECT 1 UNION ALL SELECT 2 UNION SELECT 3',
  },
  { name: 'UNION DISTINCT', sql: 'SELECT 1 UNION DISTINCT SELECT 2', printed: 'SELECT 1 UNION SELECT 2' },
  {
    name: 'INTERSECT binding tighter than UNION',
    sql: 'SELECT 1 UNION SELECT 2 INTERSECT SELECT 3',
    printed: 'SELECT 1 UNION SELECT 2 INTERSECT SELECT 3',
  },
  {
    name: 'EXCEPT ALL',
    sql: 'SELECT a FROM t EXCEPT ALL SELECT a FROM u',
    printed: 'SELECT a FROM t EXCEPT ALL SELECT a FROM u',
  },
  {
    name: 'a parenthesised set operand with LIMIT',
    sql: '(SELECT a FROM t ORDER BY a LIMIT 1) UNION (SELECT 2) ORDER BY 1',
    printed: '(SELECT a FROM t ORDER BY a LIMIT 1) UNION (SELECT 2) ORDER BY 1',
  },
  {
    name: 'a right-nested set operation',
    sql: 'SELECT 1 EXCEPT (SELECT 2 UNION SELECT 3)',
    printed: 'SELECT 1 EXCEPT (SELECT 2 UNION SELECT 3)',
  },
  { name: 'VALUES as a statement', sql: "VALUES (1, 'a'), (2, 'b')", printed: "VALUES (1, 'a'), (2, 'b')" },
  {
    name: 'the struct field of a CTE column',
    sql: "with tmp as (select time_window(time, interval '10 milliseconds', interval '6 milliseconds') as window, * from time_window.m2) select * from tmp order by window.start, time;",
    printed:
      "WITH tmp AS (SELECT time_window(time, INTERVAL '10 milliseconds', INTERVAL '6 milliseconds') AS window, * FROM time_window.m2) SELECT * FROM tmp ORDER BY window.start, time",
  },
  {
    name: 'GROUP BY window',
    sql: 'select time_window(time, 1) as window, sum(f0) as sum from t group by window',
    printed: 'SELECT time_window(time, 1) AS window, sum(f0) AS sum FROM t GROUP BY window',
  },
  {
    name: 'a column named values',
    sql: "select date_trunc('day', subquery.TIME) from (select TIME from t WHERE values = 1) AS subquery",
    printed: "SELECT date_trunc('day', subquery.time) FROM (SELECT time FROM t WHERE values = 1) AS subquery",
  },
  {
    name: 'a subquery in WHERE',
    sql: 'SELECT * FROM t WHERE a IN (SELECT a FROM u) AND EXISTS (SELECT 1)',
    printed: 'SELECT * FROM t WHERE a IN (SELECT a FROM u) AND EXISTS (SELECT 1)',
  },
  { name: 'a parenthesised query statement', sql: '((SELECT 1))', printed: '((SELECT 1))' },
  {
    name: 'INSERT INTO with columns and VALUES',
    sql: "INSERT INTO test (TIME, t0, t1, f0) VALUES (1, '2', '3', 4), (5, '6', '7', 8);",
    printed: "INSERT INTO test (time, t0, t1, f0) VALUES (1, '2', '3', 4), (5, '6', '7', 8)",
  },
  {
    name: 'INSERT without INTO',
    sql: 'insert test0(TIME, column1) values (100, -1234)',
    printed: 'INSERT INTO test0 (time, column1) VALUES (100, -1234)',
  },
  {
    name: 'INSERT INTO TABLE',
    sql: 'insert into table bool_test.boolean_test(time, v1) values (0, 1), (1, 0);',
    printed: 'INSERT INTO bool_test.boolean_test (time, v1) VALUES (0, 1), (1, 0)',
  },
  {
    name: 'INSERT without columns',
    sql: "insert into m0 values('2021-01-01', 't0000', 3.1415);",
    printed: "INSERT INTO m0 VALUES ('2021-01-01', 't0000', 3.1415)",
  },
  {
    name: 'INSERT SELECT',
    sql: "insert public.t(TIME, ta) select column1, column2 from (values (1, 'a'))",
    printed: "INSERT INTO public.t (time, ta) SELECT column1, column2 FROM (VALUES (1, 'a'))",
  },
  { name: 'INSERT of a parenthesised query', sql: 'INSERT INTO t (SELECT 1)', printed: 'INSERT INTO t (SELECT 1)' },
  {
    name: 'INSERT with a column named values',
    sql: 'INSERT INTO t (values, x) VALUES (1, 2)',
    printed: 'INSERT INTO t (values, x) VALUES (1, 2)',
  },
  {
    name: 'INSERT of expressions',
    sql: "INSERT m0(TIME, f0) VALUES(CAST (1 AS TIMESTAMP), (((CAST(0.73 AS STRING))||(CAST(FALSE AS STRING)))) NOT IN ('a', 'k*G'))",
    printed:
      "INSERT INTO m0 (time, f0) VALUES (CAST(1 AS TIMESTAMP), CAST(0.73 AS STRING) || CAST(FALSE AS STRING) NOT IN ('a', 'k*G'))",
  },
  {
    name: 'DELETE',
    sql: "DELETE FROM db.t WHERE t0 = 'a' AND time < now()",
    printed: "DELETE FROM db.t WHERE t0 = 'a' AND time < now()",
  },
  { name: 'DELETE without WHERE', sql: 'delete from t', printed: 'DELETE FROM t' },
  {
    name: 'UPDATE',
    sql: "update t set a = 'x', B = NULL where true",
    printed: "UPDATE t SET a = 'x', b = NULL WHERE TRUE",
  },
  { name: 'UPDATE without WHERE', sql: 'UPDATE t SET f = f + 1', printed: 'UPDATE t SET f = f + 1' },
];

describe('parse queries and DML', () => {
  for (const c of cases) {
    it(`prints ${c.name}`, () => {
      expectRoundTrip(c.sql, c.printed);
    });
  }

  it('keeps the shape of a select', () => {
    const q = parseStatement('SELECT a AS x FROM t WHERE b ORDER BY a LIMIT 1') as Query;
    expect(q).toMatchObject({
      kind: 'query',
      pos: { line: 1, column: 1 },
      body: {
        kind: 'select',
        distinct: false,
        items: [{ expr: { kind: 'column', parts: ['a'] }, alias: 'x' }],
        from: [{ relation: { kind: 'table', name: ['t'] }, joins: [] }],
        where: { kind: 'column' },
        groupBy: [],
        windows: [],
      },
      orderBy: [{ expr: { kind: 'column', parts: ['a'] } }],
      limit: { kind: 'number', text: '1' },
    });
  });

  it('folds left-deep set operations with INTERSECT first', () => {
    const q = parseStatement('SELECT 1 UNION SELECT 2 INTERSECT SELECT 3 EXCEPT SELECT 4') as Query;
    expect(q.body).toMatchObject({
      kind: 'setOperation',
      op: 'EXCEPT',
      left: { op: 'UNION', right: { op: 'INTERSECT' } },
    });
  });

  it('keeps an empty column list for INSERT without one', () => {
    expect(parseStatement('INSERT INTO t VALUES (1)')).toMatchObject({
      kind: 'insert',
      columns: [],
      source: { body: { kind: 'values' } },
    });
  });
});
