import { describe, expect, it } from 'vitest';
import { parseStatement } from '../../../host/engine/sql/index.js';
import { expectRoundTrip } from './ast-utils.js';

/** SHOW, DESCRIBE, EXPLAIN: input -> canonical text; each also round-trips. */
const cases: { name: string; sql: string; printed: string }[] = [
  { name: 'SHOW DATABASES', sql: 'show databases;', printed: 'SHOW DATABASES' },
  { name: 'SHOW TABLES', sql: 'SHOW TABLES', printed: 'SHOW TABLES' },
  { name: 'SHOW TABLES ON', sql: 'show tables on "My DB"', printed: 'SHOW TABLES ON "My DB"' },
  { name: 'SHOW QUERIES', sql: 'SHOW QUERIES', printed: 'SHOW QUERIES' },
  { name: 'SHOW STREAMS', sql: 'show streams', printed: 'SHOW STREAMS' },
  { name: 'SHOW STREAMS VERBOSE', sql: 'show streams verbose', printed: 'SHOW STREAMS VERBOSE' },
  { name: 'SHOW SERIES', sql: 'SHOW SERIES FROM test;', printed: 'SHOW SERIES FROM test' },
  {
    name: 'SHOW SERIES ON',
    sql: 'SHOW SERIES ON show_series FROM test',
    printed: 'SHOW SERIES ON show_series FROM test',
  },
  {
    name: 'SHOW SERIES with every clause',
    sql: "SHOW SERIES FROM test WHERE t0 != '' AND time < now() ORDER BY key DESC LIMIT 2 OFFSET 1",
    printed: "SHOW SERIES FROM test WHERE t0 != '' AND time < now() ORDER BY key DESC LIMIT 2 OFFSET 1",
  },
  {
    name: 'SHOW SERIES with OFFSET first',
    sql: 'SHOW SERIES FROM test OFFSET 1 LIMIT 2',
    printed: 'SHOW SERIES FROM test LIMIT 2 OFFSET 1',
  },
  {
    name: 'SHOW TAG VALUES WITH KEY IN',
    sql: 'SHOW TAG VALUES FROM test WITH KEY IN (t0, t1, t2);',
    printed: 'SHOW TAG VALUES FROM test WITH KEY IN (t0, t1, t2)',
  },
  {
    name: 'SHOW TAG VALUES ON',
    sql: 'SHOW TAG VALUES ON show_tag_values FROM test WITH KEY IN (t0, t1, t2);',
    printed: 'SHOW TAG VALUES ON show_tag_values FROM test WITH KEY IN (t0, t1, t2)',
  },
  {
    name: 'SHOW TAG VALUES WITH KEY =',
    sql: 'SHOW TAG VALUES FROM test WITH KEY = "t0" ORDER BY key, value;',
    printed: 'SHOW TAG VALUES FROM test WITH KEY = t0 ORDER BY key, value',
  },
  {
    name: 'SHOW TAG VALUES WITH KEY !=',
    sql: 'SHOW TAG VALUES FROM test WITH KEY != "t0"',
    printed: 'SHOW TAG VALUES FROM test WITH KEY != t0',
  },
  {
    name: 'SHOW TAG VALUES WITH KEY <>',
    sql: 'SHOW TAG VALUES FROM test WITH KEY <> t0',
    printed: 'SHOW TAG VALUES FROM test WITH KEY != t0',
  },
  {
    name: 'SHOW TAG VALUES WITH KEY NOT IN',
    sql: 'SHOW TAG VALUES FROM test WITH KEY NOT IN (t0) ORDER BY key, value;',
    printed: 'SHOW TAG VALUES FROM test WITH KEY NOT IN (t0) ORDER BY key, value',
  },
  {
    name: 'SHOW TAG VALUES with WHERE',
    sql: "SHOW TAG VALUES FROM test WITH KEY IN (t0) WHERE t1 = 'b' ORDER BY key ASC, value DESC LIMIT 3",
    printed: "SHOW TAG VALUES FROM test WITH KEY IN (t0) WHERE t1 = 'b' ORDER BY key ASC, value DESC LIMIT 3",
  },
  { name: 'DESCRIBE TABLE', sql: 'describe table air;', printed: 'DESCRIBE TABLE air' },
  { name: 'DESC TABLE', sql: 'desc table ddl_tbl', printed: 'DESCRIBE TABLE ddl_tbl' },
  { name: 'DESC without TABLE', sql: 'desc db.t', printed: 'DESCRIBE TABLE db.t' },
  { name: 'DESCRIBE DATABASE', sql: 'DESCRIBE DATABASE alter_database;', printed: 'DESCRIBE DATABASE alter_database' },
  {
    name: 'EXPLAIN',
    sql: 'explain\nselect * from m0 \nwhere t0 = null;',
    printed: 'EXPLAIN SELECT * FROM m0 WHERE t0 = NULL',
  },
  {
    name: 'EXPLAIN ANALYZE VERBOSE',
    sql: 'EXPLAIN ANALYZE VERBOSE SELECT 1',
    printed: 'EXPLAIN ANALYZE VERBOSE SELECT 1',
  },
  { name: 'EXPLAIN of DDL', sql: 'explain verbose show tables', printed: 'EXPLAIN VERBOSE SHOW TABLES' },
];

describe('parse SHOW, DESCRIBE, EXPLAIN', () => {
  for (const c of cases) {
    it(`prints ${c.name}`, () => {
      expectRoundTrip(c.sql, c.printed);
    });
  }

  it('reads SHOW TAG VALUES into its parts', () => {
    expect(
      parseStatement('SHOW TAG VALUES ON db FROM t WITH KEY NOT IN (a, b) WHERE x = 1 ORDER BY key LIMIT 1 OFFSET 2'),
    ).toMatchObject({
      kind: 'showTagValues',
      database: 'db',
      table: 't',
      withKey: { op: 'NOT IN', keys: ['a', 'b'] },
      where: { kind: 'binary' },
      orderBy: [{ expr: { kind: 'column', parts: ['key'] } }],
      limit: { text: '1' },
      offset: { text: '2' },
    });
  });

  it('nests the explained statement', () => {
    expect(parseStatement('EXPLAIN ANALYZE DESC DATABASE d')).toMatchObject({
      kind: 'explain',
      analyze: true,
      verbose: false,
      statement: { kind: 'describeDatabase', name: 'd' },
    });
  });
});
