// Expression evaluation: SQL's three-valued logic, NULL propagation, integer wraparound, division
// by a constant zero as an error (a zero in a divisor column is NULL), casts with their error texts,
// LIKE / IN / BETWEEN / CASE.

import { describe, expect, it } from 'vitest';
import { testDb } from '../support/run-sql.js';

const values: [string, string][] = [
  // Three-valued logic
  [
    'SELECT NULL AND FALSE, NULL AND TRUE, NULL OR TRUE, NULL OR FALSE, NOT CAST(NULL AS BOOLEAN)',
    'false | NULL | true | NULL | NULL',
  ],
  [
    'SELECT NULL = NULL, NULL IS NULL, 1 IS NOT NULL, NULL IS DISTINCT FROM NULL, 1 IS DISTINCT FROM NULL',
    'NULL | true | true | false | true',
  ],
  [
    'SELECT CAST(NULL AS BOOLEAN) IS UNKNOWN, TRUE IS TRUE, FALSE IS NOT TRUE, CAST(NULL AS BOOLEAN) IS FALSE',
    'true | true | true | false',
  ],
  [
    'SELECT 1 IN (1, NULL), 2 IN (1, NULL), 2 NOT IN (1, NULL), NULL IN (1), 3 NOT IN (1, 2)',
    'true | NULL | NULL | NULL | true',
  ],
  ['SELECT 1 + NULL, NULL * 2.5, -CAST(NULL AS BIGINT)', 'NULL | NULL | NULL'],
  // Arithmetic and types
  ['SELECT 7 / 2, 7 % 3, 7.0 / 2, -7 / 2, 2 * 3 + 1', '3 | 1 | 3.5 | -3 | 7'],
  ['SELECT 9223372036854775807 - 1, -9223372036854775808 + 0', '9223372036854775806 | -9223372036854775808'],
  // Integer arithmetic wraps around in 64 bits, as arrow 42's kernels under DataFusion 27 do.
  [
    'SELECT 9223372036854775807 + 1, -(-9223372036854775807 - 1), 9223372036854775807 - -1826088151, 4294967296 * 4294967296',
    '-9223372036854775808 | -9223372036854775808 | -9223372035028687658 | 0',
  ],
  ['SELECT 18446744073709551615, 1e300 * 10', '18446744073709551615 | 1.0e301'],
  ["SELECT 'a' || 'b', 'n=' || 1, 'x' || NULL", 'ab | n=1 | NULL'],
  // Bitwise operators on integers; shifts wrap as Rust's wrapping_shl / wrapping_shr.
  ['SELECT 5 ^ 3, 6 & 3, 6 | 1, 1 << 65, -8 >> 1, 1 | 2 ^ 3 & 6, NULL ^ 1', '6 | 2 | 7 | 2 | -4 | 1 | NULL'],
  [
    "SELECT '2024-01-01T00:00:00Z' < now(), TIMESTAMP '2024-01-01 00:00:00' + INTERVAL '1 day'",
    'false | 2024-01-02T00:00:00',
  ],
  // date +/- interval is a date, as arrow adds to one: months clamp to the month's end, and only
  // whole days of the nanoseconds count, truncated toward zero (days since 1970 here).
  [
    "SELECT DATE '2023-01-31' + INTERVAL '1 month', DATE '2023-01-01' - INTERVAL '1 day', INTERVAL '2 days' + DATE '2023-01-01'",
    '19416 | 19357 | 19360',
  ],
  [
    "SELECT DATE '2023-01-01' + INTERVAL '25 hours', DATE '2023-01-01' - INTERVAL '1 hour', arrow_typeof(DATE '2023-01-01' + INTERVAL '1 month')",
    '19359 | 19358 | Date32',
  ],
  // Comparisons between types
  [
    "SELECT 1 = 1.0, 2 > 1.5, '10' < '9', 10 < 9, 'abc' = 'abc', 1 IN ('1', 2)",
    'true | true | true | false | true | true',
  ],
  // BETWEEN, LIKE, CASE
  ['SELECT 2 BETWEEN 1 AND 3, 5 NOT BETWEEN 1 AND 3, NULL BETWEEN 1 AND 2', 'true | true | NULL'],
  [
    "SELECT 'abc' LIKE 'a%', 'abc' LIKE '_b_', 'abc' NOT LIKE 'b%', 'a%c' LIKE 'a\\%c' ESCAPE '\\', 'ABC' ILIKE 'a%'",
    'true | true | true | true | true',
  ],
  [
    "SELECT CASE WHEN 1 > 2 THEN 'x' WHEN 2 > 1 THEN 'y' END, CASE 3 WHEN 1 THEN 'a' ELSE 'b' END, CASE WHEN FALSE THEN 1 END",
    'y | b | NULL',
  ],
  ['SELECT CASE WHEN 0 = 0 THEN 0 ELSE 1 / 0 END', '0'],
  // Casts
  [
    "SELECT CAST('12' AS BIGINT), CAST(3.9 AS BIGINT), CAST(-3.9 AS BIGINT), CAST(1 AS DOUBLE), CAST(TRUE AS STRING)",
    '12 | 3 | -3 | 1.0 | 1',
  ],
  [
    "SELECT CAST('yes' AS BOOLEAN), CAST('0' AS BOOLEAN), CAST(0 AS BOOLEAN), CAST('2021-01-01' AS TIMESTAMP), CAST(1.5 AS STRING)",
    'true | false | false | 2021-01-01T00:00:00 | 1.5',
  ],
  ["SELECT TRY_CAST('x' AS BIGINT), TRY_CAST('1' AS BIGINT), 1::STRING, '5'::BIGINT + 1", 'NULL | 1 | 1 | 6'],
  // Narrow integer types are computed as BIGINT, within their range (a value outside is an error, NULL under TRY_CAST).
  [
    "SELECT CAST(127 AS TINYINT), CAST(-128 AS TINYINT), CAST(3.7 AS INT), CAST('42' AS SMALLINT), CAST(NULL AS INT), TRY_CAST(300 AS TINYINT), TRY_CAST(65535 AS SMALLINT UNSIGNED)",
    '127 | -128 | 3 | 42 | NULL | NULL | 65535',
  ],
  [
    'SELECT CAST(1000 AS TIMESTAMP) AS t, CAST(CAST(1000 AS TIMESTAMP) AS BIGINT) AS n',
    '1970-01-01T00:00:00.000001 | 1000',
  ],
];

const failures: [string, RegExp][] = [
  ['SELECT 1 / 0', /^Arrow error: Divide by zero error$/],
  ['SELECT 1.0 / 0', /^Arrow error: Divide by zero error$/],
  ['SELECT 5 % 0', /^Arrow error: Divide by zero error$/],
  // A cast of a literal fails in DataFusion's simplifier, which words it so (CnosDB's sqlancer cases).
  [
    "SELECT CAST('x' AS BIGINT)",
    /^Datafusion: Optimizer rule 'simplify_expressions' failed\ncaused by\nArrow error: Cast error: Cannot cast string 'x' to value of Int64 type$/,
  ],
  [
    'SELECT CAST(300 AS TINYINT)',
    /^Datafusion: Optimizer rule 'simplify_expressions' failed\ncaused by\nArrow error: Cast error: Can't cast value 300 to type Int8$/,
  ],
  ['SELECT CAST(2147483648 AS INTEGER)', /Arrow error: Cast error: Can't cast value 2147483648 to type Int32$/],
  ['SELECT CAST(65536 AS SMALLINT UNSIGNED)', /Arrow error: Cast error: Can't cast value 65536 to type UInt16$/],
  ["SELECT arrow_cast(300, 'Int8')", /Arrow error: Cast error: Can't cast value 300 to type Int8$/],
  ["SELECT arrow_cast(4294967296, 'UInt32')", /Can't cast value 4294967296 to type UInt32$/],
  [
    "SELECT CAST('maybe' AS BOOLEAN)",
    /caused by\nArrow error: Cast error: Cannot cast value 'maybe' to value of Boolean type$/,
  ],
  // arrow names the value lower-cased, as it compared it.
  [
    "SELECT CAST('Maybe NaN' AS BOOLEAN)",
    /caused by\nArrow error: Cast error: Cannot cast value 'maybe nan' to value of Boolean type$/,
  ],
  // A constant CAST arrow cannot do fails where DataFusion folds it, aggregate arguments included.
  [
    'SELECT count(CAST(CAST(to_timestamp(5) AS BOOLEAN) AS BIGINT))',
    /^Datafusion: Optimizer rule 'simplify_expressions' failed\ncaused by\nThis feature is not implemented: Unsupported CAST from Timestamp\(Nanosecond, None\) to Boolean$/,
  ],
  // An unsigned argument passes to_timestamp*'s coercion and fails at physical planning; of a
  // constant, when the optimizer folds it (DataFusion builds the physical expression to evaluate it).
  [
    'SELECT to_timestamp_seconds(CAST(x AS BIGINT UNSIGNED)) FROM (VALUES (5)) AS v(x)',
    /^Datafusion: Internal error: Unsupported data type Ok\(UInt64\) for function to_timestamp_seconds\. This was likely caused/,
  ],
  [
    'SELECT to_timestamp_seconds(CAST(5 AS BIGINT UNSIGNED))',
    /^Datafusion: Optimizer rule 'simplify_expressions' failed\ncaused by\nInternal error: Unsupported data type Ok\(UInt64\) for function to_timestamp_seconds\. This was likely caused/,
  ],
  [
    'SELECT date_part(now(), 1)',
    /date_part\(Utf8, Date32\)\n\tdate_part\(Utf8, Date64\)\n\tdate_part\(Utf8, Timestamp\(Second, None\)\)\n(\tdate_part\(Utf8, [^\n]+\n){3}\tdate_part\(Utf8, Timestamp\(Nanosecond, Some\("\+00:00"\)\)\)$/,
  ],
  ['SELECT CAST(-1 AS BIGINT UNSIGNED)', /caused by\nArrow error: Cast error: Can't cast value -1 to type UInt64$/],
  ["SELECT CAST('not a time' AS TIMESTAMP)", /Error parsing timestamp from 'not a time'/],
  ['SELECT 1 AND TRUE', /Cannot infer common argument type for logical boolean operation Int64 AND Boolean/],
  ["SELECT 'a' LIKE 1", /LIKE/],
  ['SELECT NOT 1', /NOT Int64/],
  // BOOLEAN and text meet at no type (DataFusion 27's comparison_coercion); an IN list says so in
  // its analyzer rule's words.
  [
    "SELECT TRUE NOT IN (TRUE, '0')",
    /^Datafusion: type_coercion\ncaused by\nError during planning: Can not find compatible types to compare Boolean with \[Boolean, Utf8\]$/,
  ],
  [
    "SELECT TRUE = 'true'",
    /^Datafusion: Error during planning: Cannot infer common argument type for comparison operation Boolean = Utf8$/,
  ],
  [
    'SELECT 1.5 ^ 2',
    /^Datafusion: Error during planning: Unsupported argument types\. Can not evaluate Float64 # Int64$/,
  ],
  ['SELECT ascii(!)', /^sql parser error: Expected an expression:, found: ! at Line: 1, Column 14$/],
];

describe('expressions', () => {
  const db = testDb();
  for (const [sql, row] of values) it(`evaluates ${sql}`, async () => expect((await db.run(sql)).rows).toEqual([row]));
  it('gives NULL where a divisor column is zero (DataFusion 27 divide_dyn_opt)', async () => {
    await db.exec(
      'CREATE TABLE dz (a BIGINT, b BIGINT, x DOUBLE, y DOUBLE);\nINSERT INTO dz (time, a, b, x, y) VALUES (1, 5, 0, 5.0, 0.0), (2, 7, 2, 7.0, 2.0), (3, NULL, 0, 1.0, NULL)',
    );
    expect((await db.run('SELECT a / b, x / y, b / a FROM dz ORDER BY time')).rows).toEqual([
      'NULL | NULL | 0',
      '3 | 3.5 | 0',
      'NULL | NULL | NULL',
    ]);
    expect(await db.error('SELECT a / 0 FROM dz')).toMatch(/^Arrow error: Divide by zero error$/);
    expect(await db.error('SELECT a % b FROM dz')).toMatch(/^Arrow error: Divide by zero error$/);
    // Unsigned columns wrap too.
    await db.exec('CREATE TABLE uw (u BIGINT UNSIGNED);\nINSERT INTO uw (time, u) VALUES (1, 0)');
    expect((await db.run('SELECT u - CAST(1 AS BIGINT UNSIGNED) FROM uw')).rows).toEqual(['18446744073709551615']);
    // DataFusion shows its bitwise XOR as `#` in names.
    expect((await db.run('SELECT a ^ b FROM dz ORDER BY time')).columns).toEqual(['dz.a # dz.b']);
  });
  it('folds a minus into a number literal only when the number is not in parentheses, as sqlparser and DataFusion', async () => {
    const r = await db.run('SELECT -5, (-6), - (5), -(2 + 3)');
    expect(r.columns).toEqual(['Int64(-5)', 'Int64(-6)', '(- Int64(5))', '(- Int64(2) + Int64(3))']);
    expect(r.rows).toEqual(['-5 | -6 | -5 | -5']);
  });
  it('reports a LIKE pattern that fits no signature at once, before late errors elsewhere in WHERE', async () => {
    await db.exec("CREATE TABLE lk (s STRING, TAGS(t));\nINSERT INTO lk (time, t, s) VALUES (1, 'a', 'x')");
    expect(await db.error('SELECT s FROM lk WHERE sha224(sha512(s, 1), 2) LIKE sha224(s, 3)')).toMatch(
      /^Datafusion: Error during planning: No function matches the given name and argument types 'sha224\(Utf8, Int64\)'/,
    );
  });
  for (const [sql, message] of failures) it(`fails ${sql}`, async () => expect(await db.error(sql)).toMatch(message));

  it('checks a narrow integer cast of a column row by row', async () => {
    const t = testDb();
    await t.exec('CREATE TABLE m (v BIGINT);\nINSERT INTO m (time, v) VALUES (1, 5), (2, 300)');
    expect(
      (await t.run('SELECT TRY_CAST(v AS TINYINT) AS a, CAST(v AS SMALLINT) AS b FROM m ORDER BY time')).rows,
    ).toEqual(['5 | 5', 'NULL | 300']);
    expect(await t.error('SELECT CAST(v AS TINYINT) FROM m')).toMatch(/Cast error: Can't cast value 300 to type Int8$/);
  });
});
