// INSERT (VALUES and SELECT, CnosDB's insert casts, all-or-nothing), DELETE by tags and time,
// SHOW SERIES / TAG VALUES.

import { beforeEach, describe, expect, it } from 'vitest';
import { testDb, type TestDb } from '../support/run-sql.js';

describe('INSERT', () => {
  let db: TestDb;
  beforeEach(async () => {
    db = testDb();
    await db.run('CREATE TABLE t (i BIGINT, u BIGINT UNSIGNED, d DOUBLE, b BOOLEAN, s STRING, TAGS(g))');
  });

  it('casts each value to its column: times, integers, booleans', async () => {
    const r = await db.run("INSERT INTO t (time, g, i, u, d, b, s) VALUES ('2021-01-01', 'x', 23.9, 7, 1, 'yes', 5)");
    expect(r).toEqual({ columns: ['rows'], types: ['UInt64'], rows: ['1'] });
    await db.run("INSERT INTO t (time, g, i, u, d, b, s) VALUES (2, 3, -1, 0, '2.5', 0, NULL)");
    expect((await db.run('SELECT * FROM t ORDER BY time')).rows).toEqual([
      '1970-01-01T00:00:00.000000002 | 3 | -1 | 0 | 2.5 | false | NULL',
      '2021-01-01T00:00:00 | x | 23 | 7 | 1.0 | true | 5',
    ]);
  });

  it('takes the physical column order without a column list', async () => {
    await db.run("INSERT INTO t VALUES (5, 'g', 1, 2, 3.5, TRUE, 'z')");
    expect((await db.run('SELECT * FROM t')).rows).toEqual([
      '1970-01-01T00:00:00.000000005 | g | 1 | 2 | 3.5 | true | z',
    ]);
  });

  const rejected: [string, RegExp][] = [
    ['INSERT INTO t (time, u) VALUES (1, -5)', /^Arrow: Cast error: Can't cast value -5 to type UInt64$/],
    // A constant expression among the values is folded first, and fails in the simplifier's words.
    [
      'INSERT INTO t (time, i) VALUES (1, CAST(CAST(CAST(NOT TRUE AS STRING) AS TIMESTAMP) AS BIGINT))',
      /^Datafusion: Optimizer rule 'simplify_expressions' failed\ncaused by\nArrow error: Parser error: Error parsing timestamp from '0': timestamp must contain at least 10 characters$/,
    ],
    // The rows of a VALUES list must agree on each column's type (DataFusion 27's values plan).
    [
      'INSERT INTO t (time, d) VALUES (1, 1), (2, 0.5)',
      /^Datafusion: Error during planning: Inconsistent data type across values list at row 1 column 1$/,
    ],
    [
      "INSERT INTO t (time, d) VALUES ('2021-01-01', NULL), (2, 1.5)",
      /^Datafusion: Error during planning: Inconsistent data type across values list at row 1 column 0$/,
    ],
    [
      'SELECT * FROM (VALUES (1), (NULL), (2.5)) AS v(x)',
      /^Datafusion: Error during planning: Inconsistent data type across values list at row 2 column 0$/,
    ],
    [
      "INSERT INTO t (time, d) VALUES (1, 'failed')",
      /^Arrow: Cast error: Cannot cast string 'failed' to value of Float64 type$/,
    ],
    [
      'INSERT INTO t (time, d) VALUES (0.5, 1)',
      /^Datafusion: This feature is not implemented: Unsupported CAST from Float64 to Timestamp\(Nanosecond, None\)$/,
    ],
    ["INSERT INTO t (time, g) VALUES (1, 'x')", /^Coordinator: Fields can't be empty$/],
    ['INSERT INTO t (time, d) VALUES (1, 1), (2, NULL)', /^Coordinator: Fields can't be empty$/],
    ['INSERT INTO t (time, d) VALUES (NULL, 1)', /the time column cannot be NULL/],
    [
      'INSERT INTO t (time, nope) VALUES (1, 1)',
      /^Semantic error: Insert column 'nope' does not exist in target table, expect time,/,
    ],
    ['INSERT INTO t (time, d) VALUES (1, 2, 3)', /^Semantic error: Insert columns and Source columns not match$/],
    // The VALUES list is checked on its own first, as DataFusion plans it before the insert.
    [
      'INSERT INTO t (time, d) VALUES (1, 2), (2, 3, 4)',
      /^Datafusion: Error during planning: Inconsistent data length across values list: got 3 values in row 1 but expected 2$/,
    ],
    ['INSERT INTO nope (time, d) VALUES (1, 1)', /^Meta: Table not found: "cnosdb\.public\.nope"$/],
  ];
  for (const [sql, message] of rejected) {
    it(`rejects ${sql} and stores nothing`, async () => {
      expect(await db.error(sql)).toMatch(message);
      expect((await db.run('SELECT count(*) FROM t')).rows).toEqual(['0']);
    });
  }

  it('inserts the rows of a SELECT, with the columns matched by position', async () => {
    await db.run("INSERT INTO t (time, g, d) VALUES (1, 'a', 1.5), (2, 'b', 2.5)");
    const r = await db.run(
      "INSERT INTO t (time, g, i) SELECT time + INTERVAL '10 nanoseconds', g || '2', CAST(d * 2 AS BIGINT) FROM t",
    );
    expect(r.rows).toEqual(['2']);
    expect((await db.run('SELECT g, i FROM t WHERE i IS NOT NULL ORDER BY g')).rows).toEqual(['a2 | 3', 'b2 | 5']);
    expect(await db.error('INSERT INTO t (time, g) SELECT time FROM t')).toBe(
      'Semantic error: Insert columns and Source columns not match',
    );
  });
});

describe('DELETE', () => {
  it('deletes by tags and time range, not by field values', async () => {
    const db = testDb();
    await db.run('CREATE TABLE m (v BIGINT, TAGS(h))');
    await db.run("INSERT INTO m (time, h, v) VALUES (1, 'a', 1), (2, 'a', 2), (3, 'a', 3), (1, 'b', 4)");
    await db.run("DELETE FROM m WHERE h = 'a' AND time >= 2");
    expect((await db.run('SELECT h, v FROM m ORDER BY v')).rows).toEqual(['a | 1', 'b | 4']);
    expect(await db.error('DELETE FROM m WHERE v > 1')).toBe(
      'This feature is not implemented: Filtering on the field column on the tskv table in delete statement',
    );
    await db.run('DELETE FROM m');
    expect((await db.run('SELECT count(*) FROM m')).rows).toEqual(['0']);
  });

  it('reads a table alias, plans the predicate over unqualified columns and refuses computed operands', async () => {
    const db = testDb();
    await db.run('CREATE TABLE m (v BIGINT, TAGS(h))');
    await db.run("INSERT INTO m (time, h, v) VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)");
    // sqlparser reads the alias (even one named time) and DataFusion ignores it.
    await db.run("DELETE FROM m x WHERE h = 'a'");
    await db.run('DELETE FROM m time WHERE time = 2');
    expect((await db.run('SELECT h FROM m')).rows).toEqual(['c']);
    expect(await db.error('DELETE FROM m WHERE times = 1')).toBe(
      'Datafusion: Schema error: No field named times. Valid fields are time, h, v.',
    );
    expect(await db.error("DELETE FROM m WHERE h = h || 'x'")).toBe(
      'Datafusion: This feature is not implemented: operator || in delete statement',
    );
    await db.run("DELETE FROM m WHERE time < now() - INTERVAL '1 day'");
    expect((await db.run('SELECT count(*) FROM m')).rows).toEqual(['0']);
  });
});

describe('SHOW SERIES and SHOW TAG VALUES', () => {
  let db: TestDb;
  beforeEach(async () => {
    db = testDb();
    await db.run('CREATE TABLE s (f DOUBLE, TAGS(t0, t1))');
    await db.run(
      "INSERT INTO s (time, t0, t1, f) VALUES (1, 'a', 'b', 1), (2, 'a', NULL, 1), (3, NULL, 'c', 1), (4, '', NULL, 1)",
    );
  });

  it('lists series keys, NULL tags left out, an empty tag shown', async () => {
    expect((await db.run('SHOW SERIES FROM s ORDER BY key DESC')).rows).toEqual([
      's,t1=c',
      's,t0=a,t1=b',
      's,t0=a',
      's,t0=',
    ]);
    expect((await db.run("SHOW SERIES FROM s WHERE t0 != '' ORDER BY key")).rows).toEqual(['s,t0=a', 's,t0=a,t1=b']);
    expect((await db.run('SHOW SERIES FROM s WHERE time > 2 ORDER BY key LIMIT 1')).rows).toEqual(['s,t0=']);
    expect(await db.error('SHOW SERIES FROM s WHERE f > 1')).toBe(
      'Semantic error: SHOW SERIES does not support where clause contains field f',
    );
    expect(await db.error('SHOW SERIES FROM s ORDER BY time')).toBe(
      'Datafusion: Schema error: No field named time. Valid fields are key.',
    );
  });

  it('lists distinct tag values by key', async () => {
    expect((await db.run('SHOW TAG VALUES FROM s WITH KEY IN (t0, t1)')).rows).toEqual([
      't0 | ',
      't0 | a',
      't1 | b',
      't1 | c',
    ]);
    expect((await db.run('SHOW TAG VALUES FROM s WITH KEY != t0 ORDER BY value DESC')).rows).toEqual([
      't1 | c',
      't1 | b',
    ]);
    expect((await db.run("SHOW TAG VALUES FROM s WITH KEY = t1 WHERE t0 = 'a'")).rows).toEqual(['t1 | b']);
  });
});

describe('INSERT without a time column', () => {
  it("stamps every row with the statement's now(), so they are one point", async () => {
    const db = testDb();
    await db.run('CREATE TABLE r (v DOUBLE)');
    expect((await db.run('INSERT INTO r (v) VALUES (1.5), (2.5)')).rows).toEqual(['2']);
    expect((await db.run('SELECT time, v FROM r')).rows).toEqual(['2024-01-01T00:00:00 | 2.5']);
  });
});
