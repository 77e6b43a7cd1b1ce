// Scalar functions: values, NULL in gives NULL out, the types and names DataFusion gives, and
// their errors.

import { describe, expect, it } from 'vitest';
import { testDb } from '../support/run-sql.js';

const values: [string, string][] = [
  // Math
  ['SELECT abs(-3), abs(-2.5), abs(CAST(NULL AS BIGINT)), abs(-9 % 5)', '3.0 | 2.5 | NULL | 4.0'],
  // arrow_cast is a CAST to an Arrow type named by a string, named after its argument.
  [
    "SELECT arrow_cast(floor(2.7), 'Int64') + 1, arrow_cast('2024-01-01', 'Timestamp(Second, None)'), arrow_typeof(arrow_cast(3, 'UInt64'))",
    '3 | 2024-01-01T00:00:00 | UInt64',
  ],
  [
    'SELECT round(2.5), round(-2.5), round(1.2345, 2), round(7), floor(-1.5), ceil(1.2)',
    '3.0 | -3.0 | 1.23 | 7.0 | -2.0 | 2.0',
  ],
  [
    'SELECT sqrt(16), power(2, 10), power(2.0, 0.5), trunc(2.789), trunc(-2.789), signum(-3)',
    '4.0 | 1024 | 1.4142135623730951 | 2.0 | -2.0 | -1.0',
  ],
  // Rust's signum (+0.0 is positive); rounding toward zero gives +0.0, as CnosDB shows it.
  [
    'SELECT signum(0), signum(0.0), signum(7), ceil(-0.5), round(-0.4), round(-0.0001, 2), trunc(-0.5)',
    '1.0 | 1.0 | 1.0 | 0.0 | 0.0 | 0.0 | 0.0',
  ],
  // Strings
  [
    "SELECT lower('AbC'), upper('straße'), length('héllo'), character_length(''), length(NULL)",
    'abc | STRAßE | 5 | 0 | NULL',
  ],
  [
    "SELECT concat('a', 1, NULL, 'b'), concat_ws('-', 'x', NULL, 'y'), substr('hello', 2, 3), substr('hello', 4)",
    'a1b | x-y | ell | lo',
  ],
  [
    "SELECT starts_with('hello', 'he'), strpos('hello', 'l'), replace('aXbX', 'X', '-'), btrim('  x  '), ltrim('xxy', 'x')",
    'true | 3 | a-b- | x | y',
  ],
  ["SELECT trim(LEADING 'x' FROM 'xxyxx'), SUBSTRING('hello' FROM 2 FOR 2), POSITION('l' IN 'hello')", 'yxx | el | 3'],
  // Conditionals
  [
    'SELECT coalesce(NULL, 2, 3), coalesce(NULL, NULL), nullif(1, 1), nullif(1, 2), coalesce(NULL, 1.5, 2)',
    '2 | NULL | NULL | 1 | 1.5',
  ],
  // Time
  [
    "SELECT date_trunc('month', TIMESTAMP '2024-03-17 10:11:12'), date_trunc('week', TIMESTAMP '2024-03-17 10:11:12'), date_trunc('quarter', TIMESTAMP '2024-05-17 00:00:00')",
    '2024-03-01T00:00:00 | 2024-03-11T00:00:00 | 2024-04-01T00:00:00',
  ],
  [
    "SELECT date_bin(INTERVAL '15 minutes', TIMESTAMP '2024-01-01 10:37:00'), date_bin(INTERVAL '1 hour', TIMESTAMP '1969-12-31 23:30:00'), date_bin(INTERVAL '1 day', TIMESTAMP '2024-01-01 10:00:00', TIMESTAMP '2000-01-01 06:00:00')",
    '2024-01-01T10:30:00 | 1969-12-31T23:00:00 | 2024-01-01T06:00:00',
  ],
  ["SELECT date_bin(INTERVAL '1 month', TIMESTAMP '2024-03-17 10:00:00')", '2024-03-01T00:00:00'],
  [
    "SELECT date_part('year', TIMESTAMP '2024-03-17 10:11:12.5'), EXTRACT(MINUTE FROM TIMESTAMP '2024-03-17 10:11:12'), date_part('second', TIMESTAMP '2024-03-17 10:11:12.5'), date_part('dow', TIMESTAMP '2024-03-17 00:00:00')",
    '2024.0 | 11.0 | 12.5 | 0.0',
  ],
  [
    "SELECT to_timestamp('2024-01-02T03:04:05Z'), to_timestamp(1000), to_timestamp_seconds(1), to_timestamp_millis(1500)",
    '2024-01-02T03:04:05 | 1970-01-01T00:00:00.000001 | 1970-01-01T00:00:01 | 1970-01-01T00:00:01.500',
  ],
  ['SELECT now(), now() = now()', '2024-01-01T00:00:00Z | true'],
  [
    "SELECT time_window(TIMESTAMP '2024-01-01 00:00:07', INTERVAL '5 seconds')",
    '{start: 2024-01-01T00:00:05, end: 2024-01-01T00:00:10}',
  ],
];

const failures: [string, RegExp][] = [
  [
    "SELECT concat_ws(s) FROM (VALUES ('a')) AS v(s)",
    /^Datafusion: Internal error: concat_ws was called with 1 arguments\. It requires at least 2\.\. This was likely caused by a bug in DataFusion's code/,
  ],
  // Of a constant, the error comes from folding it, inside the optimizer rule's words.
  [
    "SELECT concat_ws('1')",
    /^Datafusion: Optimizer rule 'simplify_expressions' failed\ncaused by\nInternal error: concat_ws was called with 1 arguments\. It requires at least 2\.\. This was likely/,
  ],
  [
    "SELECT arrow_cast(1.5, 'Float128')",
    /^Datafusion: Error during planning: Unsupported type 'Float128'\. Must be a supported arrow type name such as 'Int32' or 'Timestamp\(Nanosecond, None\)'/,
  ],
  [
    'SELECT arrow_cast(1, 2)',
    /^Datafusion: Error during planning: arrow_cast requires its second argument to be a constant string/,
  ],
  ["SELECT sqrt('x')", /No function matches the given name and argument types 'sqrt\(Utf8\)'/],
  // DataFusion 27's abs is float only (integers come back DOUBLE); its candidate is Float64/Float32.
  [
    "SELECT abs('x')",
    /'abs\(Utf8\)'\. You might need to add explicit type casts\.\n\tCandidate functions:\n\tabs\(Float64\/Float32\)$/,
  ],
  // DataFusion 27 types a string function's result before casting its argument.
  ['SELECT lower(1)', /Internal error: The "lower" function can only accept strings\./],
  ['SELECT trunc(2.789, 1)', /'trunc\(Float64, Int64\)'.*\n\tCandidate functions:\n\ttrunc\(Float64\/Float32\)/],
  ["SELECT date_trunc('fortnight', now())", /Unsupported date_trunc granularity: fortnight/],
  ["SELECT date_bin(INTERVAL '0 seconds', now())", /DATE_BIN stride must be non-zero/],
  ["SELECT to_timestamp('yesterday')", /Error parsing timestamp from 'yesterday'/],
  // to_timestamp_seconds/millis/micros take no DOUBLE in DataFusion 27: it is coerced to text.
  [
    'SELECT to_timestamp_micros(1672539600.987654)',
    /caused by\nArrow error: Parser error: Error parsing timestamp from '1672539600\.987654': error parsing date$/,
  ],
  [
    'SELECT to_timestamp_seconds(x) FROM (VALUES (1.5)) AS v(x)',
    /^Arrow: Parser error: Error parsing timestamp from '1\.5'/,
  ],
  // to_timestamp too: DataFusion 27 coerces a DOUBLE to text (CnosDB's to_timestamp.slt).
  [
    'SELECT to_timestamp(x) FROM (VALUES (1672539600.987654)) AS v(x)',
    /^Arrow: Parser error: Error parsing timestamp from '1672539600\.987654': error parsing date$/,
  ],
  [
    'SELECT to_timestamp(1.5)',
    /caused by\nArrow error: Parser error: Error parsing timestamp from '1\.5': timestamp must contain at least 10 characters$/,
  ],
  ['SELECT nosuchfn(1)', /Invalid function 'nosuchfn'/],
  ['SELECT coalesce(1, TRUE)', /Coalesce could not find a common type/],
];

describe('scalar functions', () => {
  const db = testDb();
  for (const [sql, row] of values) it(`evaluates ${sql}`, async () => expect((await db.run(sql)).rows).toEqual([row]));
  for (const [sql, message] of failures) it(`fails ${sql}`, async () => expect(await db.error(sql)).toMatch(message));

  it('names calls as DataFusion does', async () => {
    const r = await db.run(
      "SELECT abs(-1), lower('A'), date_bin(INTERVAL '1 minute', TIMESTAMP '2024-01-01 00:00:00')",
    );
    expect(r.columns).toEqual([
      'abs(Int64(-1))',
      'lower(Utf8("A"))',
      'date_bin(IntervalMonthDayNano("60000000000"),Utf8("2024-01-01 00:00:00"))',
    ]);
    expect((await db.run("SELECT arrow_cast(7, 'Int64')")).columns).toEqual(['Int64(7)']);
  });
});
