// The size check of values functions build (issue 24), at the engine under a 1 MiB budget:
// every function that can grow a string or a list refuses with 010011 before building, sums the
// batch's values, and the string functions rewritten to need no array per character (chunked
// joins, code-point walks) answer as before, long inputs and surrogate pairs included.

import { describe, expect, it } from 'vitest';
import { UserError } from '../../../host/core/errors.js';
import { testDb } from '../support/run-sql.js';

const MIB = 1 << 20;

const REFUSED: Array<[sql: string, message: RegExp]> = [
  [
    "SELECT repeat('ab', 300000)",
    /^query memory limit exceeded: repeat would build a string of 600000 characters \(1200024 bytes, 0 bytes already held by the query and this batch\), the limit is 1048576 bytes \(limits\.query_memory_bytes\)$/,
  ],
  ["SELECT lpad('a', 600000)", /^query memory limit exceeded: lpad would build a string of 600000 characters/],
  ["SELECT rpad('é', 600000, 'xy')", /^query memory limit exceeded: rpad would build a string of 600000 characters/],
  [
    "SELECT lpad('a', 2000000000)",
    /^query memory limit exceeded: lpad would build a string of 2000000000 characters, more than the 536870888 a string can hold$/,
  ],
  [
    "SELECT repeat('a', 9223372036854775807)",
    /^query memory limit exceeded: repeat would build a string of 9223372036854776000 characters, more than/,
  ],
  [
    "SELECT replace(repeat('a', 200000), 'a', 'xyz')",
    /^query memory limit exceeded: replace would build a string of 600000 characters/,
  ],
  [
    "SELECT replace(repeat('a', 200000), '', 'xy')",
    /^query memory limit exceeded: replace would build a string of 600002 characters/,
  ],
  [
    "SELECT translate(repeat('a', 300000), 'a', '😀')",
    /^query memory limit exceeded: translate would build a string of 600000 characters/,
  ],
  [
    "SELECT concat(repeat('a', 300000), repeat('b', 300000))",
    /^query memory limit exceeded: concat would build a string of 600000 characters/,
  ],
  [
    "SELECT concat_ws(repeat(',', 200000), repeat('a', 300000), 'b', 'c')",
    /^query memory limit exceeded: concat_ws would build a string of 700002 characters/,
  ],
  [
    "SELECT repeat('a', 300000) || repeat('b', 300000)",
    /^query memory limit exceeded: \|\| would build a string of 600000 characters/,
  ],
  [
    "SELECT array_to_string(make_array(repeat('a', 300000), repeat('b', 300000)), '')",
    /^query memory limit exceeded: array_to_string would build a string of 600000 characters/,
  ],
  [
    "SELECT regexp_replace(repeat('a', 1000), 'a', repeat('b', 1000), 'g')",
    /^query memory limit exceeded: regexp_replace would build a string of \d+ characters/,
  ],
  // Two rows of 400 KB each: neither passes the limit alone; the batch does.
  [
    "SELECT repeat(s, 200000) FROM (VALUES ('a'), ('b'), ('c')) AS v(s)",
    /^query memory limit exceeded: repeat would build a string of 200000 characters \(400024 bytes, 800048 bytes already held by the query and this batch\)/,
  ],
  // array_agg's state counts its strings (it counted 64 bytes a row).
  [
    "SELECT array_agg(repeat(s, 100000)) FROM (VALUES ('a'), ('b'), ('c'), ('d'), ('e'), ('f')) AS v(s)",
    /^query memory limit exceeded: /,
  ],
];

describe('the size of values functions build (issue 24)', () => {
  it('is checked against the query memory budget before building', async () => {
    const db = testDb();
    for (const [sql, message] of REFUSED) {
      let error: unknown;
      try {
        await db.run(sql, { memoryLimitBytes: MIB });
      } catch (e) {
        error = e;
      }
      expect(error, sql).toBeInstanceOf(UserError);
      expect((error as UserError).code, sql).toBe('010011');
      expect((error as UserError).message, sql).toMatch(message);
    }
  });

  it('lets values within the budget through', async () => {
    const db = testDb();
    const r = await db.run(
      "SELECT length(repeat('ab', 200000)), length(lpad('a', 400000)), length(array_to_string(array_append(make_array('a'), 'b'), '-'))",
      { memoryLimitBytes: MIB },
    );
    expect(r.rows).toEqual(['400000 | 400000 | 3']);
  });

  it('does not fold values over 1 MiB into the plan', async () => {
    const db = testDb();
    const plan = (await db.run("EXPLAIN SELECT repeat('a', 2000000) AS big, repeat('a', 3) AS small")).rows.join('\n');
    expect(plan).toContain('repeat(Utf8("a"), Int64(2000000)) AS big');
    expect(plan).toContain('Utf8("aaa") AS small');
  });
});

/** The rewritten functions (no array per character, chunked joins) against plain JavaScript. */
describe('string functions over long inputs and surrogate pairs (issue 24)', () => {
  const many = 'ab'.repeat(100_000);
  const cases: Array<[sql: string, expected: string]> = [
    // More matches than String.replaceAll is left with (65,536): the chunked path.
    [`SELECT replace('${many}', 'a', 'xy') = '${many.split('a').join('xy')}'`, 'true'],
    [`SELECT replace('${'ab'.repeat(40_000)}', '', '-') = '-${Array.from('ab'.repeat(40_000)).join('-')}-'`, 'true'],
    [`SELECT translate('${many}', 'ab', '😀') = '${'😀'.repeat(100_000)}'`, 'true'],
    [`SELECT regexp_replace('${many}', 'b', '', 'g') = '${'a'.repeat(100_000)}'`, 'true'],
    [`SELECT length(reverse('${many}')), split_part('${many.replaceAll('b', ',')}', ',', 99999)`, '200000 | a'],
    [
      "SELECT reverse('a😀b'), left('😀a😀', 2), right('😀a😀', 2), left('😀a😀', -1), right('😀a😀', -1), substr('😀a😀b', 2, 2), substr('😀ab', 0, 2)",
      'b😀a | 😀a | a😀 | 😀a | a😀 | a😀 | 😀',
    ],
    [
      "SELECT btrim('😀xa😀', '😀'), ltrim('xxa', 'x'), rtrim('axx', 'x'), trim('  a  '), split_part('a😀b😀c', '😀', 3)",
      'xa | a | a | a | c',
    ],
    [
      "SELECT initcap('hello wORLD-foo bar_baz 1ab'), octet_length('a😀é'), bit_length('😀'), length('a😀é')",
      'Hello World-Foo Bar_Baz 1ab | 7 | 32 | 3',
    ],
    [
      "SELECT regexp_replace('baaa', 'a*', '-', 'g'), regexp_replace('abc', 'x*', '-', 'g'), regexp_replace('abc', '(b)', '[\\1]')",
      '-b- | -a-b-c- | a[b]c',
    ],
  ];

  it('answers as the array-based versions did', async () => {
    const db = testDb();
    for (const [sql, expected] of cases) expect((await db.run(sql)).rows, sql.slice(0, 120)).toEqual([expected]);
  });
});
