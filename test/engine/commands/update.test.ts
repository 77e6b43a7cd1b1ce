// UPDATE of fields (rows written again, NULL changes nothing) and of tags (series renamed), with
// the shapes CnosDB refuses.

import { beforeEach, describe, expect, it } from 'vitest';
import { testDb, type TestDb } from '../support/run-sql.js';

const ALL = 'SELECT time, t0, t1, f0, f1 FROM m ORDER BY time, t0, t1';

describe('UPDATE', () => {
  let db: TestDb;
  beforeEach(async () => {
    db = testDb();
    await db.exec(`CREATE TABLE m (f0 BIGINT, f1 BIGINT, TAGS(t0, t1));
INSERT INTO m (time, t0, t1, f0, f1) VALUES (1, 'a', 'x', 10, 100), (2, 'a', 'y', 20, NULL), (3, 'b', 'x', 30, 300), (4, 'a', 'x', 40, 400)`);
  });

  it('writes the selected rows again with the new field values and answers how many it selected', async () => {
    expect((await db.run("UPDATE m SET f0 = 7, f1 = length(t1) + f0 WHERE t0 = 'a' AND time < 3")).rows).toEqual(['2']);
    expect((await db.run(ALL)).rows).toEqual([
      '1970-01-01T00:00:00.000000001 | a | x | 7 | 11',
      '1970-01-01T00:00:00.000000002 | a | y | 7 | 21',
      '1970-01-01T00:00:00.000000003 | b | x | 30 | 300',
      '1970-01-01T00:00:00.000000004 | a | x | 40 | 400',
    ]);
  });

  it('leaves a field unchanged where the new value is NULL', async () => {
    expect((await db.run("UPDATE m SET f1 = NULL WHERE t0 = 'a'")).rows).toEqual(['3']);
    expect((await db.run('UPDATE m SET f1 = CASE WHEN f0 > 15 THEN 1 END WHERE true')).rows).toEqual(['4']);
    expect((await db.run(ALL)).rows).toEqual([
      '1970-01-01T00:00:00.000000001 | a | x | 10 | 100',
      '1970-01-01T00:00:00.000000002 | a | y | 20 | 1',
      '1970-01-01T00:00:00.000000003 | b | x | 30 | 1',
      '1970-01-01T00:00:00.000000004 | a | x | 40 | 1',
    ]);
  });

  it('renames series: their rows move to the new tag values, the old series are gone', async () => {
    await db.run("UPDATE m SET t1 = 'z' WHERE t0 = 'a' AND t1 = 'x'");
    expect((await db.run(ALL)).rows).toEqual([
      '1970-01-01T00:00:00.000000001 | a | z | 10 | 100',
      '1970-01-01T00:00:00.000000002 | a | y | 20 | NULL',
      '1970-01-01T00:00:00.000000003 | b | x | 30 | 300',
      '1970-01-01T00:00:00.000000004 | a | z | 40 | 400',
    ]);
    // A selected series that already has the new values keeps its rows; a NULL tag is allowed.
    await db.run("UPDATE m SET t0 = 'a' WHERE t1 = 'z'");
    await db.run("UPDATE m SET t0 = NULL WHERE t0 = 'b'");
    expect((await db.run(ALL)).rows).toEqual([
      '1970-01-01T00:00:00.000000001 | a | z | 10 | 100',
      '1970-01-01T00:00:00.000000002 | a | y | 20 | NULL',
      '1970-01-01T00:00:00.000000003 | NULL | x | 30 | 300',
      '1970-01-01T00:00:00.000000004 | a | z | 40 | 400',
    ]);
  });

  it('refuses what CnosDB refuses, before writing anything', async () => {
    const before = (await db.run(ALL)).rows;
    expect(await db.error("UPDATE m SET t0 = 'q', f0 = 1 WHERE true")).toBe(
      'Semantic error: Update tag and field columns at the same time is not supported',
    );
    expect(await db.error("UPDATE m SET t0 = t0 || 'x' WHERE t0 = 'a'")).toBe(
      'Semantic error: Updating tag t0: the new value must not read a column',
    );
    expect(await db.error("UPDATE m SET t0 = 'q' WHERE t0 = 'a' AND time < 3")).toBe(
      'Semantic error: Updating tags: the WHERE clause may only read tag columns, not time',
    );
    expect(await db.error("UPDATE m SET t0 = 'q' WHERE f1 = 100")).toBe(
      'Semantic error: Updating tags: the WHERE clause may only read tag columns, not f1',
    );
    expect(await db.error('UPDATE m SET t0 = NULL, t1 = NULL WHERE true')).toBe(
      'Semantic error: Updating tags: a series needs at least one tag that is not NULL',
    );
    expect(await db.error('UPDATE m SET f0 = 1, f0 = 2 WHERE true')).toBe(
      'Semantic error: Column f0 is assigned more than once',
    );
    expect(await db.error('UPDATE m SET time = 5 WHERE true')).toBe(
      'Semantic error: Update time column is not supported',
    );
    expect(await db.error('UPDATE m SET nope = 5 WHERE true')).toMatch(
      /^Semantic error: Column nope not found in table m/,
    );
    // Names resolve over the unqualified columns, as CnosDB's UPDATE plans them.
    expect(await db.error('UPDATE m SET f0 = T WHERE true')).toBe(
      'Datafusion: Schema error: No field named t. Valid fields are time, t0, t1, f0, f1.',
    );
    expect(await db.error('UPDATE m SET f0 = 1 WHERE zz = 1')).toBe(
      'Datafusion: Schema error: No field named zz. Valid fields are time, t0, t1, f0, f1.',
    );
    // A constant that does not fit the column fails where the simplifier folds its cast.
    await db.run('CREATE TABLE u (n BIGINT UNSIGNED, b BOOLEAN)');
    await db.run('INSERT INTO u (time, n, b) VALUES (1, 1, true)');
    expect(await db.error('UPDATE u SET n = -3 WHERE true')).toBe(
      "Datafusion: Optimizer rule 'simplify_expressions' failed\ncaused by\nArrow error: Cast error: Can't cast value -3 to type UInt64",
    );
    expect((await db.run("UPDATE u SET b = 'False' WHERE true")).rows).toEqual(['1']);
    expect((await db.run('UPDATE u SET b = 3 WHERE true')).rows).toEqual(['1']);
    expect((await db.run('SELECT n, b FROM u')).rows).toEqual(['1 | true']);
    // A WHERE is required, as in CnosDB; the check comes after the values are planned.
    expect(await db.error('UPDATE m SET f0 = 1')).toBe(
      'Datafusion: Error during planning: Disable updating of the entire table, if you want to continue, please add `where true`',
    );
    expect(await db.error("UPDATE m SET t0 = 'q'")).toBe(
      'Datafusion: Error during planning: Disable updating of the entire table, if you want to continue, please add `where true`',
    );
    expect(await db.error('UPDATE m SET f0 = zz')).toBe(
      'Datafusion: Schema error: No field named zz. Valid fields are time, t0, t1, f0, f1.',
    );
    expect((await db.run(ALL)).rows).toEqual(before);
  });

  it('stores a constant of any type as the text of a tag: booleans as words, numbers as CAST writes them', async () => {
    const cases: [string, string][] = [
      ['true', 'true'],
      ['false', 'false'],
      ['1', '1'],
      ['-2.5', '-2.5'],
      ["'x' || 'y'", 'xy'],
      ['1 + 2', '3'],
    ];
    for (const [value, text] of cases) {
      await db.run('DELETE FROM m WHERE true');
      await db.run("INSERT INTO m (time, t0, t1, f0) VALUES (1, 'a', 'x', 10)");
      expect((await db.run(`UPDATE m SET t0 = ${value} WHERE t0 = 'a'`)).rows, value).toEqual(['1']);
      expect((await db.run('SELECT time, t0, t1, f0 FROM m')).rows, value).toEqual([
        `1970-01-01T00:00:00.000000001 | ${text} | x | 10`,
      ]);
    }
  });

  it('changes nothing when a part fails at run time', async () => {
    const before = (await db.run(ALL)).rows;
    expect(await db.error("UPDATE m SET t0 = CAST('x' AS BIGINT) WHERE t0 = 'a'")).toMatch(
      /Cannot cast string 'x' to value of Int64 type/,
    );
    expect((await db.run(ALL)).rows).toEqual(before);
  });
});
