// CHECK DATABASE <name> [REPAIR] (issue 24): parsed, printed and parsed again; malformed forms
// fail with the parser's "Expected ..." error.

import { describe, expect, it } from 'vitest';
import { parseStatement } from '../../../host/engine/sql/index.js';
import { expectRoundTrip } from './ast-utils.js';

const cases: { name: string; sql: string; printed: string }[] = [
  { name: 'CHECK DATABASE', sql: 'check database db', printed: 'CHECK DATABASE db' },
  { name: 'CHECK DATABASE REPAIR', sql: 'Check Database db repair;', printed: 'CHECK DATABASE db REPAIR' },
  { name: 'a quoted name', sql: 'CHECK DATABASE "a b" REPAIR', printed: 'CHECK DATABASE "a b" REPAIR' },
];

const errors: { name: string; sql: string; message: RegExp }[] = [
  { name: 'no name', sql: 'CHECK DATABASE', message: /^sql parser error: Expected identifier, found: EOF/ },
  {
    name: 'another object',
    sql: 'CHECK TABLE t',
    message: /^sql parser error: Expected DATABASE after CHECK, found: TABLE/,
  },
  {
    name: 'words after REPAIR',
    sql: 'CHECK DATABASE db REPAIR now',
    message: /^sql parser error: Expected end of statement, found: now/,
  },
];

describe('CHECK DATABASE', () => {
  for (const c of cases) it(`round-trips ${c.name}`, () => expectRoundTrip(c.sql, c.printed));
  it('parses to its statement', () => {
    expect(parseStatement('check database db repair')).toMatchObject({
      kind: 'checkDatabase',
      name: 'db',
      repair: true,
    });
    expect(parseStatement('check database db')).toMatchObject({ kind: 'checkDatabase', name: 'db', repair: false });
  });
  for (const c of errors) it(`refuses ${c.name}`, () => expect(() => parseStatement(c.sql)).toThrow(c.message));
});
