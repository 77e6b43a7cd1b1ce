// Issue 24, freezes: SQL regular expressions and LIKE patterns run in linear time, so a
// pathological pattern over a long input finishes (with its correct result) while the server
// keeps answering ping; what neither Rust's regex crate nor RE2 supports is refused with 422.
// A read-only member sends every statement; a fresh server per describe, so that one frozen by
// a case (before the fix) does not stall the others.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReader, errorOf, readerStatementWithPing } from '../support/reader-statement.js';
import { startServer, type ProcessServer } from '../support/server.js';

const A300 = 'a'.repeat(300);
const A2000 = 'a'.repeat(2000);
const A50K = 'a'.repeat(50_000);

/** Statements that froze the server for minutes, and their CSV answers. */
const FINISHING: Array<{ name: string; sql: string; csv: string }> = [
  { name: 'LIKE with five %a', sql: `SELECT '${A300}' LIKE '%a%a%a%a%a%b' AS m`, csv: 'm\nfalse\n' },
  { name: 'NOT LIKE with five %a', sql: `SELECT '${A300}' NOT LIKE '%a%a%a%a%a%b' AS m`, csv: 'm\ntrue\n' },
  { name: 'ILIKE with five %A', sql: `SELECT '${A300}' ILIKE '%A%A%A%A%A%B' AS m`, csv: 'm\nfalse\n' },
  { name: 'LIKE with _ between %a', sql: `SELECT '${A2000}' LIKE '%a_a%a_a%a_a%a_b' AS m`, csv: 'm\nfalse\n' },
  { name: 'regexp_match of ^(a+)+$', sql: `SELECT regexp_match('${A50K}!', '^(a+)+$') IS NULL AS m`, csv: 'm\ntrue\n' },
  { name: '~ with ^(a+)+$', sql: `SELECT '${A50K}!' ~ '^(a+)+$' AS m`, csv: 'm\nfalse\n' },
  { name: '!~* with ^(A|a)+$', sql: `SELECT '${A50K}!' !~* '^(A|a)+$' AS m`, csv: 'm\ntrue\n' },
  {
    name: 'regexp_replace of (a|aa)+$',
    sql: `SELECT regexp_replace('${A50K}!', '(a|aa)+b', 'x', 'g') = '${A50K}!' AS m`,
    csv: 'm\ntrue\n',
  },
];

const TILDES = '~'.repeat(79);

/** What neither engine supports: 422 with DataFusion's wrapper and Rust's text. */
const REFUSED: Array<{ name: string; sql: string; message: string }> = [
  {
    name: 'a backreference in regexp_match over a column',
    sql: "SELECT regexp_match(s, '(a)\\1') FROM (VALUES ('aa')) AS v(s)",
    message: `Arrow error: Compute error: Regular expression did not compile: Syntax(\n${TILDES}\nregex parse error:\n    (a)\\1\n       ^^\nerror: backreferences are not supported\n${TILDES}\n)`,
  },
  {
    // Constant arguments fail while the optimizer folds them, as in DataFusion.
    name: 'a backreference in regexp_match of constants',
    sql: "SELECT regexp_match('aa', '(a)\\1')",
    message: `Datafusion: Optimizer rule 'simplify_expressions' failed\ncaused by\nArrow error: Compute error: Regular expression did not compile: Syntax(\n${TILDES}\nregex parse error:\n    (a)\\1\n       ^^\nerror: backreferences are not supported\n${TILDES}\n)`,
  },
  {
    name: 'a look-ahead in ~',
    sql: "SELECT 'ab' ~ 'a(?=b)'",
    message: `Arrow error: Compute error: Regular expression did not compile: Syntax(\n${TILDES}\nregex parse error:\n    a(?=b)\n     ^^^\nerror: look-around, including look-ahead and look-behind, is not supported\n${TILDES}\n)`,
  },
  {
    name: 'a look-behind in regexp_replace',
    sql: "SELECT regexp_replace(s, '(?<=a)b', 'x') FROM (VALUES ('ab')) AS v(s)",
    message:
      'Datafusion: External error: regex parse error:\n    (?<=a)b\n    ^^^^\nerror: look-around, including look-ahead and look-behind, is not supported',
  },
];

describe('pathological patterns over long inputs (issue 24)', () => {
  for (const c of FINISHING) {
    describe(c.name, () => {
      let server: ProcessServer;
      beforeAll(async () => {
        server = await startServer();
        await createReader(server.url);
      });
      afterAll(async () => {
        await server.kill();
        server.cleanup();
      });

      it('finishes with its result while the server answers ping', async () => {
        const r = await readerStatementWithPing(server.url, c.sql);
        expect(r.status, r.text.slice(0, 500)).toBe(200);
        expect(r.text).toBe(c.csv);
      }, 120_000);
    });
  }
});

describe('patterns no linear-time engine runs (issue 24)', () => {
  let server: ProcessServer;
  beforeAll(async () => {
    server = await startServer();
    await createReader(server.url);
  });
  afterAll(async () => {
    await server.kill();
    server.cleanup();
  });

  for (const c of REFUSED) {
    it(`refuses ${c.name} with 422`, async () => {
      const r = await readerStatementWithPing(server.url, c.sql);
      expect(r.status, r.text).toBe(422);
      expect(errorOf(r)).toEqual({ error_code: '010001', error_message: c.message });
    });
  }
});
