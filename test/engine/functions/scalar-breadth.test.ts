// The DataFusion 27 scalar library beyond the everyday functions: math, strings, hashes (checked
// against the published test vectors), regular expressions, greatest/least, current_date, and
// DataFusion's typing: aliases named after the canonical function, the candidate lists of its
// uniform and exact signatures, and string functions that refuse a non-string first argument.

import { describe, expect, it } from 'vitest';
import { testDb } from '../support/run-sql.js';

const values: [string, string][] = [
  // Math. log(x) is ln(x) / ln(10), which DataFusion computes (hence CnosDB's -11.999999999999998).
  // log and atan2 of integers are Float32 in DataFusion 27 (their first candidates); of DOUBLEs, DOUBLE.
  [
    'SELECT log(100), log(2, 8), log(0.000000000001), ln(1), log10(1000), log2(8)',
    '2.0 | 3.0 | -11.999999999999998 | 0.0 | 3.0 | 3.0',
  ],
  [
    'SELECT log(2), log(2.0), atan2(10, 3), atan2(1.0, 1), arrow_typeof(log(2)), arrow_typeof(atan2(1.0, 1))',
    '0.30102998 | 0.30102999566398114 | 1.2793396 | 0.7853981633974483 | Float32 | Float64',
  ],
  [
    'SELECT atan2(1, 1), atan2(0, 0), pi(), degrees(pi()), radians(180) = pi()',
    '0.7853982 | 0.0 | 3.141592653589793 | 180.0 | true',
  ],
  [
    'SELECT sinh(0), cosh(0), tanh(0), asinh(0), acosh(1), atanh(0), cbrt(27), exp(0)',
    '0.0 | 1.0 | 0.0 | 0.0 | 0.0 | 0.0 | 3.0 | 1.0',
  ],
  [
    'SELECT factorial(0), factorial(5), factorial(20), gcd(12, 18), gcd(-4, 6), lcm(4, 6), lcm(0, 5)',
    '1 | 120 | 2432902008176640000 | 6 | 2 | 12 | 0',
  ],
  [
    'SELECT power(2, 3), pow(2, 3) AS p, power(2, -2), power(4.0, 0.5), round(2.5), round(-2.5), trunc(-1.7)',
    '8 | 8 | NULL | 2.0 | 3.0 | -3.0 | -1.0',
  ],
  ['SELECT random() >= 0 AND random() < 1', 'true'],
  ['SELECT sqrt(NULL), log(NULL), factorial(NULL)', 'NULL | NULL | NULL'],
  // Strings: lpad/rpad count graphemes; a fill of '' leaves the string as it is.
  [
    "SELECT lpad('Hello', 10, 'xy'), lpad('Hello', 3), rpad('Hi', 5, 'ab'), lpad('Hello', 10, ''), lpad('Hello', -1, ' ')",
    'xyxyxHello | Hel | Hiaba | Hello | ',
  ],
  ["SELECT lpad('世界', 5, '你好'), rpad('🌟', 3, '*'), lpad(NULL, 5, ' ')", '你好你世界 | 🌟** | NULL'],
  [
    "SELECT split_part('a,b,c', ',', 2), split_part('a,b', ',', 5), translate('12345', '143', 'ax'), initcap('hello wORLD')",
    'b |  | a2x5 | Hello World',
  ],
  // A character repeated in `from` maps by its last position: t -> d.
  ["SELECT translate('test', 'test', 'abcd'), translate('aXa', 'aa', 'bc')", 'dbcd | cXc'],
  // An empty delimiter splits before and after every character (Rust's str::split).
  [
    "SELECT split_part('ab', '', 1), split_part('ab', '', 2), split_part('ab', '', 3), split_part('ab', '', 4), split_part('ab', '', 5)",
    ' | a | b |  | ',
  ],
  // An empty pattern matches at every character boundary, the ends included (Rust's str::replace).
  [
    "SELECT replace('ab', '', 'X'), replace('', '', 'X'), replace('', 'a', 'X'), replace('héé', 'é', '')",
    'XaXbX | X |  | h',
  ],
  [
    "SELECT chr(NULL) IS NULL, chr(65), chr(20320), to_hex(255), to_hex(-1), ascii('A'), ascii(''), bit_length('ab'), octet_length('é')",
    'true | A | 你 | ff | ffffffffffffffff | 65 | 0 | 16 | 2',
  ],
  // ascii reads any value as its text, as DataFusion coerces it.
  ["SELECT ascii(98), ascii(3.5), ascii(TIMESTAMP '1999-12-31T00:00:00')", '57 | 51 | 49'],
  // starts_with/ends_with answer BOOLEAN whatever the text's type, so any value is cast to text.
  [
    "SELECT starts_with(123, '12'), starts_with(12.5, 12.5), starts_with(TRUE, 'T'), ends_with(123, 23), starts_with(NULL, 'a')",
    'true | true | false | true | NULL',
  ],
  [
    "SELECT repeat('ab', 3), reverse('abc'), left('hello', 2), right('hello', -2), strpos('hello', 'll'), starts_with('hello', 'he')",
    'ababab | cba | he | llo | 3 | true',
  ],
  // The FIPS 180-2 / RFC 1321 vectors for "abc".
  ["SELECT md5('abc'), md5('')", '900150983cd24fb0d6963f7d28e17f72 | d41d8cd98f00b204e9800998ecf8427e'],
  [
    "SELECT sha224('abc'), sha256('abc')",
    '23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7 | ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
  ],
  [
    "SELECT sha384('abc')",
    'cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7',
  ],
  [
    "SELECT sha512('abc')",
    'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f',
  ],
  [
    "SELECT digest('abc', 'sha256') = sha256('abc'), digest('abc', 'MD5') = md5('abc'), md5(NULL)",
    'true | true | NULL',
  ],
  // Regular expressions: the match's groups (or the whole match), first or every replacement, \1.
  [
    "SELECT regexp_match('abc123', '[a-z]+(\\d+)'), regexp_match('abc', '[a-z]+'), regexp_match('abc', 'x')",
    '[123] | [abc] | NULL',
  ],
  [
    "SELECT regexp_match('ABC', 'b', 'i'), regexp_replace('foo bar foo', 'foo', 'X'), regexp_replace('foo bar foo', 'foo', 'X', 'g'), regexp_replace('abc', '(b)', '[\\1]')",
    '[B] | X bar foo | X bar X | a[b]c',
  ],
  // greatest / least skip NULLs; the common type of the arguments.
  [
    "SELECT greatest(1, 2, NULL), least(3.5, 2, 7), greatest('a', 'b'), least(NULL, NULL), nvl(NULL, 3)",
    '2 | 2.0 | b | NULL | 3',
  ],
  // The tests' now() is 2024-01-01T00:00:00: day 19723 since the epoch, midnight.
  ['SELECT current_date()', '19723'],
  [
    "SELECT current_time(), CAST('10:11:12.5' AS TIME), CAST('23:59:59.000001' AS TIME), current_time() < '12:00', arrow_typeof(current_time())",
    '00:00:00 | 10:11:12.500 | 23:59:59.000001 | true | Time64(Nanosecond)',
  ],
  [
    "SELECT arrow_typeof(1), arrow_typeof('a'), arrow_typeof(now()), arrow_typeof(1.5)",
    'Int64 | Utf8 | Timestamp(Nanosecond, Some("+00:00")) | Float64',
  ],
];

const failures: [string, RegExp][] = [
  [
    'SELECT lpad(13233, 12)',
    /^Datafusion: Internal error: The "lpad" function can only accept strings\.\. This was likely caused by a bug/,
  ],
  ['SELECT md5(121324)', /The "md5" function can only accept strings\./],
  // to_hex types its result from the argument as given: NULL matches the signature, then fails.
  [
    'SELECT to_hex(NULL)',
    /^Datafusion: Internal error: The to_hex function can only accept integers\.\. This was likely caused by a bug/,
  ],
  [
    "SELECT lpad('Hello', 7.5, '-')",
    /'lpad\(Utf8, Float64, Utf8\)'\. You might need to add explicit type casts\.\n\tCandidate functions:\n\tlpad\(Utf8, Int64\)\n\tlpad\(LargeUtf8, Int64\)\n\tlpad\(Utf8, Int64, Utf8\)\n\tlpad\(LargeUtf8, Int64, Utf8\)\n\tlpad\(Utf8, Int64, LargeUtf8\)\n\tlpad\(LargeUtf8, Int64, LargeUtf8\)$/,
  ],
  [
    'SELECT md5()',
    /'md5\(\)'\. You might need to add explicit type casts\.\n\tCandidate functions:\n\tmd5\(Utf8\/LargeUtf8\/Binary\/LargeBinary\)$/,
  ],
  ["SELECT sqrt('x')", /Candidate functions:\n\tsqrt\(Float64\/Float32\)$/],
  ["SELECT atan2('a', 'b')", /Candidate functions:\n\tatan2\(Float32, Float32\)\n\tatan2\(Float64, Float64\)$/],
  [
    "SELECT log('a')",
    /Candidate functions:\n\tlog\(Float32\)\n\tlog\(Float64\)\n\tlog\(Float32, Float32\)\n\tlog\(Float64, Float64\)$/,
  ],
  ["SELECT lpad('x', 9223372036854775807, ' ')", /lpad requested length 9223372036854775807 too large/],
  ['SELECT chr(0)', /null character not permitted\./],
  ["SELECT split_part('a', ',', 0)", /field position must be greater than zero/],
  ["SELECT regexp_match('a', 'a', 'g')", /regexp_match\(\) does not support the "global" option/],
  ["SELECT digest('a', 'nope')", /There is no built-in digest algorithm named 'nope'/],
  ['SELECT factorial(21)', /Overflow happened on FACTORIAL\(21\)/],
  ['SELECT greatest(1, true)', /greatest could not find a common type/],
  [
    "SELECT current_time() + INTERVAL '1' HOUR",
    /Unsupported argument types\. Can not evaluate Time64\(Nanosecond\) \+ Interval\(MonthDayNano\)/,
  ],
  ['SELECT current_time(1)', /'current_time\(Int64\)'.*\n\tCandidate functions:\n\tcurrent_time\(\)$/],
  ["SELECT CAST('25:00' AS TIME)", /Cannot cast string '25:00' to value of Time64\(Nanosecond\) type/],
];

describe('scalar function breadth', () => {
  const db = testDb();
  for (const [sql, row] of values) it(`evaluates ${sql}`, async () => expect((await db.run(sql)).rows).toEqual([row]));
  for (const [sql, message] of failures) it(`fails ${sql}`, async () => expect(await db.error(sql)).toMatch(message));

  it('names an alias call after the canonical function, as DataFusion does', async () => {
    const r = await db.run("SELECT length('x'), char_length('x') AS c, pow(2, 3), instr('ab', 'b')");
    expect(r.columns).toEqual([
      'character_length(Utf8("x"))',
      'c',
      'power(Int64(2),Int64(3))',
      'strpos(Utf8("ab"),Utf8("b"))',
    ]);
  });

  it('resolves datetrunc and datepart to date_trunc and date_part', async () => {
    const r = await db.run(
      "SELECT datetrunc('month', TIMESTAMP '2024-03-17 10:11:12'), datepart('day', TIMESTAMP '2024-03-17 10:11:12')",
    );
    expect(r.columns).toEqual([
      'date_trunc(Utf8("month"),Utf8("2024-03-17 10:11:12"))',
      'date_part(Utf8("day"),Utf8("2024-03-17 10:11:12"))',
    ]);
    expect(r.rows).toEqual(['2024-03-01T00:00:00 | 17.0']);
  });

  it('types results as DataFusion does (lengths BIGINT here, Int32 there)', async () => {
    const r = await db.run(
      "SELECT sqrt(4), power(2, 3), factorial(3), md5('a'), length('a'), regexp_match('a', 'a'), greatest(1, 2.5), current_date()",
    );
    expect(r.types).toEqual(['Float64', 'Int64', 'Int64', 'Utf8', 'Int64', 'List(Utf8)', 'Float64', 'Date32']);
    expect((await db.run('SELECT current_time()')).types).toEqual(['Time64(Nanosecond)']);
  });

  it('gives every row its own uuid', async () => {
    const u = testDb();
    await u.exec('CREATE TABLE t (v BIGINT);\nINSERT INTO t (time, v) VALUES (1, 1), (2, 2)');
    const rows = (await u.run('SELECT uuid() FROM t')).rows;
    expect(rows).toHaveLength(2);
    for (const r of rows) expect(r).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(rows[0]).not.toBe(rows[1]);
  });
});
