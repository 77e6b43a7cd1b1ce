// COPY INTO (issue 29) in CnosDB's syntax: parsed, printed and parsed again; malformed forms fail
// with the parser's "Expected ..." error.

import { describe, expect, it } from 'vitest';
import { parseStatement } from '../../../host/engine/sql/index.js';
import { expectRoundTrip } from './ast-utils.js';

const cases: { name: string; sql: string; printed: string }[] = [
  { name: 'into a table, defaults', sql: "copy into t from 'a.csv'", printed: "COPY INTO t FROM 'a.csv'" },
  {
    name: 'into a table, every list',
    sql: "COPY INTO db.t(time, Tag1, \"F\") FROM 'dir/' CONNECTION = (region = 'x') file_format = (type = 'csv', delimiter = ';', with_header = false) copy_options = (auto_infer_schema = true)",
    printed:
      "COPY INTO db.t (time, tag1, \"F\") FROM 'dir/' CONNECTION = (region = 'x') FILE_FORMAT = (type = 'csv', delimiter = ';', with_header = FALSE) COPY_OPTIONS = (auto_infer_schema = TRUE)",
  },
  {
    name: 'lists in either order',
    sql: "COPY INTO t FROM 'a' COPY_OPTIONS = (auto_infer_schema = true) FILE_FORMAT = (TYPE = 'JSON')",
    printed: "COPY INTO t FROM 'a' FILE_FORMAT = (type = 'JSON') COPY_OPTIONS = (auto_infer_schema = TRUE)",
  },
  {
    name: 'a table into a location',
    sql: "COPY INTO 'file:///x/' FROM t FILE_FORMAT = (TYPE = 'PARQUET')",
    printed: "COPY INTO 'file:///x/' FROM t FILE_FORMAT = (type = 'PARQUET')",
  },
  {
    name: 'a query into a location',
    sql: "COPY INTO 'x.json' FROM (SELECT a FROM t WHERE a > 1)",
    printed: "COPY INTO 'x.json' FROM (SELECT a FROM t WHERE a > 1)",
  },
];

const errors: { name: string; sql: string; message: RegExp }[] = [
  { name: 'no FROM', sql: "COPY INTO t 'a.csv'", message: /^sql parser error: Expected FROM, found: 'a\.csv'/ },
  {
    name: 'a table after FROM of a table',
    sql: 'COPY INTO t FROM u',
    message: /^sql parser error: Expected a string literal, found: u/,
  },
  {
    name: 'a list without =',
    sql: "COPY INTO t FROM 'a' FILE_FORMAT (TYPE = 'CSV')",
    message: /^sql parser error: Expected =, found: \(/,
  },
  {
    name: 'an option without a value',
    sql: "COPY INTO t FROM 'a' FILE_FORMAT = (TYPE)",
    message: /^sql parser error: Expected =, found: \)/,
  },
  {
    name: 'neither INTO nor VNODE',
    sql: 'COPY t',
    message: /^sql parser error: Expected VNODE or INTO after COPY, found: t/,
  },
];

describe('COPY INTO', () => {
  for (const c of cases) it(`round-trips ${c.name}`, () => expectRoundTrip(c.sql, c.printed));
  it('parses to its statement', () => {
    expect(parseStatement("COPY INTO 'o/' FROM t")).toMatchObject({
      kind: 'copyIntoLocation',
      location: 'o/',
      source: { kind: 'table', name: ['t'] },
      fileFormat: [],
      copyOptions: [],
    });
  });
  for (const c of errors) it(`refuses ${c.name}`, () => expect(() => parseStatement(c.sql)).toThrow(c.message));
});
