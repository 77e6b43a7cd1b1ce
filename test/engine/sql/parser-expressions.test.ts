import { describe, expect, it } from 'vitest';
import { parseExpression } from '../../../host/engine/sql/index.js';
import { expectExprRoundTrip, tree } from './ast-utils.js';

/** Precedence and associativity: input -> tree shape. */
const precedence: [string, string][] = [
  ['1 + 2 * 3', '(+ 1 (* 2 3))'],
  ['(1 + 2) * 3', '(* (+ 1 2) 3)'],
  ['1 - 2 - 3', '(- (- 1 2) 3)'],
  ['1 - (2 - 3)', '(- 1 (- 2 3))'],
  ['8 / 4 / 2', '(/ (/ 8 4) 2)'],
  ['7 % 3 * 2', '(* (% 7 3) 2)'],
  ['a OR b AND c', '(OR a (AND b c))'],
  ['a AND b OR c', '(OR (AND a b) c)'],
  ['NOT a AND b', '(AND (NOT a) b)'],
  ['NOT a = b', '(NOT (= a b))'],
  ['NOT NOT a', '(NOT (NOT a))'],
  ['a = 1 OR NOT b', '(OR (= a 1) (NOT b))'],
  ['a = b = c', '(= (= a b) c)'],
  ['a < b + 1', '(< a (+ b 1))'],
  // Bitwise operators: between comparison and ||, in sqlparser 0.35's order (| < ^ << >> < &).
  ['1 | 2 ^ 3 & 6', '(| 1 (^ 2 (& 3 6)))'],
  ['a ^ b << c', '(<< (^ a b) c)'],
  ['a = b | c', '(= a (| b c))'],
  ['a || b & c', '(& (|| a b) c)'],
  ["a || 'x' = b", "(= (|| a 'x') b)"],
  ["'a' || 1 + 2", "(|| 'a' (+ 1 2))"],
  ['a || b || c', '(|| (|| a b) c)'],
  ['-a * b', '(* (- a) b)'],
  ['-a::int', '(- (CAST a INT))'],
  ['- - a', '(- (- a))'],
  ['+a - b', '(- (+ a) b)'],
  ['a::int + 1', '(+ (CAST a INT) 1)'],
  ['a::int::text', '(CAST (CAST a INT) TEXT)'],
  ['x[1] + 1', '(+ ([] x 1) 1)'],
  ['x[1][2]', '([] ([] x 1) 2)'],
  ['(x).f.g', '(. (. x f) g)'],
  ['a IS NULL AND b', '(AND (IS NULL a) b)'],
  ['a = b IS NULL', '(IS NULL (= a b))'],
  ['a + 1 IS NOT NULL', '(IS NOT NULL (+ a 1))'],
  ['NOT a IS NULL', '(NOT (IS NULL a))'],
  ['a IS TRUE', '(IS TRUE a)'],
  ['a IS NOT FALSE', '(IS NOT FALSE a)'],
  ['a IS UNKNOWN', '(IS UNKNOWN a)'],
  ['a IS DISTINCT FROM b + 1', '(IS DISTINCT FROM a (+ b 1))'],
  ['a IS NOT DISTINCT FROM b', '(IS NOT DISTINCT FROM a b)'],
  ['a BETWEEN 1 AND 2 AND b', '(AND (BETWEEN a 1 2) b)'],
  ['a NOT BETWEEN b + 1 AND c * 2', '(NOT BETWEEN a (+ b 1) (* c 2))'],
  ['a BETWEEN SYMMETRIC (1) AND 2', '(BETWEEN a symmetric(1) 2)'],
  ['a IN (1, 2) OR b', '(OR (IN a [1 2]) b)'],
  ['a + 1 NOT IN (1)', '(NOT IN (+ a 1) [1])'],
  ["a LIKE 'x' || 'y'", "(LIKE a (|| 'x' 'y'))"],
  ["a NOT ILIKE 'x' ESCAPE '!'", "(NOT ILIKE a 'x' '!')"],
  ["a SIMILAR TO 'x'", "(SIMILAR TO a 'x')"],
  ["a ~ 'x' AND b !~* 'y'", "(AND (~ a 'x') (!~* b 'y'))"],
  ['a <> b', '(!= a b)'],
  ['a != b', '(!= a b)'],
  ['NOT (a OR b)', '(NOT (OR a b))'],
  ["(NOT ((('TOk')=(m0.t0)))) IS NULL", "(IS NULL (NOT (= 'TOk' m0.t0)))"],
  ['0>-0.123', '(> 0 (- 0.123))'],
  ['f(a + 1, b) * 2', '(* f((+ a 1) b) 2)'],
  ['a = NOT b', '(= a (NOT b))'],
];

/** Input -> canonical text; each also round-trips. */
const printed: [string, string][] = [
  ['1', '1'],
  ['1.50', '1.50'],
  ['.5e3', '.5e3'],
  ["'it''s'", "'it''s'"],
  ['TRUE', 'TRUE'],
  ['false', 'FALSE'],
  ['null', 'NULL'],
  ['Col', 'col'],
  ['"Col"', '"Col"'],
  ['"a b"."c"', '"a b".c'],
  ['db.t.c', 'db.t.c'],
  ['"select"', '"select"'],
  ['"time"', 'time'],
  ['values + 1', 'values + 1'],
  ['window.start', 'window.start'],
  ['@@Server_Version', '@@server_version'],
  ["INTERVAL '1 minute'", "INTERVAL '1 minute'"],
  ["interval '5' minute", "INTERVAL '5' MINUTE"],
  ['INTERVAL 5 DAYS', 'INTERVAL 5 DAYS'],
  ["INTERVAL '1 day' * 2", "INTERVAL '1 day' * 2"],
  ['-INTERVAL (1 + 2) HOUR', '-INTERVAL (1 + 2) HOUR'],
  ["timestamp '2021-01-01 00:00:00'", "TIMESTAMP '2021-01-01 00:00:00'"],
  ["date '2021-01-01'", "DATE '2021-01-01'"],
  ["time '10:00'", "TIME '10:00'"],
  ['CAST(x AS BIGINT UNSIGNED)', 'CAST(x AS BIGINT UNSIGNED)'],
  ['x::double precision', 'CAST(x AS DOUBLE)'],
  ['TRY_CAST(y AS timestamp(3) with time zone)', 'TRY_CAST(y AS TIMESTAMP(3) WITH TIME ZONE)'],
  ['cast(x as decimal(10,2))', 'CAST(x AS DECIMAL(10, 2))'],
  ['cast(x as varchar(20))', 'CAST(x AS VARCHAR(20))'],
  ['cast(x as character varying)', 'CAST(x AS VARCHAR)'],
  ['cast(x as bool)', 'CAST(x AS BOOLEAN)'],
  ['cast(x as int unsigned)', 'CAST(x AS INT UNSIGNED)'],
  ['cast(x as geometry(point, 4326))', 'CAST(x AS GEOMETRY(POINT, 4326))'],
  ['cast(x as Boole)', 'CAST(x AS Boole)'],
  ["cast('3 day' as interval)", "CAST('3 day' AS INTERVAL)"],
  ['count(*)', 'count(*)'],
  ['COUNT(DISTINCT a)', 'count(DISTINCT a)'],
  ['count(ALL a)', 'count(a)'],
  ['count(t.*)', 'count(t.*)'],
  ['now()', 'now()'],
  ['"MyFunc"(1)', '"MyFunc"(1)'],
  ['increase(time, v ORDER BY time)', 'increase(time, v ORDER BY time)'],
  ['array_agg(x ORDER BY y DESC NULLS FIRST, z)', 'array_agg(x ORDER BY y DESC NULLS FIRST, z)'],
  ['sum(v) FILTER (WHERE v > 1)', 'sum(v) FILTER (WHERE v > 1)'],
  ['row_number() OVER ()', 'row_number() OVER ()'],
  ['rank() OVER w', 'rank() OVER w'],
  ['rank() OVER (w ORDER BY a)', 'rank() OVER (w ORDER BY a)'],
  ['sum(v) OVER (PARTITION BY a, b ORDER BY t ASC)', 'sum(v) OVER (PARTITION BY a, b ORDER BY t ASC)'],
  ['sum(v) OVER (ORDER BY t ROWS UNBOUNDED PRECEDING)', 'sum(v) OVER (ORDER BY t ROWS UNBOUNDED PRECEDING)'],
  [
    'sum(v) OVER (ORDER BY t ROWS BETWEEN 1 PRECEDING AND 2 FOLLOWING)',
    'sum(v) OVER (ORDER BY t ROWS BETWEEN 1 PRECEDING AND 2 FOLLOWING)',
  ],
  [
    'sum(v) OVER (ORDER BY t RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)',
    'sum(v) OVER (ORDER BY t RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)',
  ],
  [
    'sum(v) OVER (GROUPS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)',
    'sum(v) OVER (GROUPS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)',
  ],
  [
    "sum(v) OVER (ORDER BY t RANGE INTERVAL '1' DAY PRECEDING)",
    "sum(v) OVER (ORDER BY t RANGE INTERVAL '1' DAY PRECEDING)",
  ],
  ['sum(v) OVER ("partition")', 'sum(v) OVER partition'],
  ['sum(v) OVER ("rows" ORDER BY t)', 'sum(v) OVER ("rows" ORDER BY t)'],
  ['CASE WHEN a THEN 1 WHEN b THEN 2 ELSE 3 END', 'CASE WHEN a THEN 1 WHEN b THEN 2 ELSE 3 END'],
  ['case x when 1 then 2 end', 'CASE x WHEN 1 THEN 2 END'],
  ['EXTRACT(year FROM t)', 'EXTRACT(YEAR FROM t)'],
  ['extract(a, b)', 'extract(a, b)'],
  ["date_part('hour', t)", "date_part('hour', t)"],
  ["POSITION('a' IN s)", "POSITION('a' IN s)"],
  ['position(a, b)', 'position(a, b)'],
  ['position()', 'position()'],
  ['SUBSTRING(s FROM 2 FOR 3)', 'SUBSTRING(s FROM 2 FOR 3)'],
  ['substring(s from 2)', 'SUBSTRING(s FROM 2)'],
  ['substring(s for 2)', 'SUBSTRING(s FOR 2)'],
  ['substring(s, 1, 2)', 'substring(s, 1, 2)'],
  ['TRIM(s)', 'TRIM(s)'],
  ["trim(both 'x' from s)", "TRIM(BOTH 'x' FROM s)"],
  ["trim('x' from s)", "TRIM('x' FROM s)"],
  ['"trim"(s)', '"trim"(s)'],
  ['left(s, 2)', 'left(s, 2)'],
  ['"all"(x)', '"all"(x)'],
  ['current_timestamp', 'CURRENT_TIMESTAMP'],
  ['current_date()', 'current_date()'],
  ['"current_date"', '"current_date"'],
  ['[1, 2, 3]', '[1, 2, 3]'],
  ['[]', '[]'],
  ['x[1]', 'x[1]'],
  ['(a + b)[1]', '(a + b)[1]'],
  ['f(x)[1]', 'f(x)[1]'],
  ['(x).field', '(x).field'],
  ['f(x).start', '(f(x)).start'],
  ['(x)."End"', '(x)."End"'],
  ['EXISTS (SELECT 1)', 'EXISTS (SELECT 1)'],
  ['NOT EXISTS (SELECT 1)', 'NOT EXISTS (SELECT 1)'],
  ['(SELECT max(a) FROM t)', '(SELECT max(a) FROM t)'],
  ['((SELECT 1))', '(SELECT 1)'],
  ['a IN (SELECT b FROM t)', 'a IN (SELECT b FROM t)'],
  ['a NOT IN (WITH c AS (SELECT 1) SELECT * FROM c)', 'a NOT IN (WITH c AS (SELECT 1) SELECT * FROM c)'],
  ['(a OR b) AND c', '(a OR b) AND c'],
  ['a - (b - c)', 'a - (b - c)'],
  ['(a - b) - c', 'a - b - c'],
  ['-(a + b)', '-(a + b)'],
  ['-(-1)', '-(-1)'],
  ['(NOT a) IS NULL', '(NOT a) IS NULL'],
  ['a BETWEEN (b AND c) AND d', 'a BETWEEN (b AND c) AND d'],
  ['a BETWEEN (b = c) AND d', 'a BETWEEN (b = c) AND d'],
  ['a = (b = c)', 'a = (b = c)'],
  ['a IS DISTINCT FROM (b IS NULL)', 'a IS DISTINCT FROM (b IS NULL)'],
  ["a LIKE (b LIKE 'c')", "a LIKE (b LIKE 'c')"],
  ['(a = b) IN (TRUE)', 'a = b IN (TRUE)'],
  ['POSITION((a IN (b)) IN s)', 'POSITION((a IN (b)) IN s)'],
  ['(a OR b)::int', 'CAST(a OR b AS INT)'],
  // sqlparser's ARRAY[...] (named) beside the bare [...]; `array` alone stays an identifier.
  ['ARRAY[1, 2 + 3]', 'ARRAY[1, 2 + 3]'],
  ['array[]', 'ARRAY[]'],
  ['[1, 2]', '[1, 2]'],
  ['array[1]', 'ARRAY[1]'],
  ['array', 'array'],
  [
    'sum(v) OVER (ROWS BETWEEN (unbounded) PRECEDING AND CURRENT ROW)',
    'sum(v) OVER (ROWS BETWEEN (unbounded) PRECEDING AND CURRENT ROW)',
  ],
];

describe('parseExpression', () => {
  describe('precedence', () => {
    for (const [sql, shape] of precedence) {
      it(`reads ${sql} as ${shape}`, () => {
        expect(tree(parseExpression(sql))).toBe(shape);
      });
    }
  });

  describe('print and re-parse', () => {
    for (const [sql, text] of printed) {
      it(`prints ${sql} as ${text}`, () => {
        expectExprRoundTrip(sql, text);
      });
    }
  });

  it('records the position of each node, the operator for binary expressions', () => {
    const e = parseExpression('a +\n  f(b)');
    expect(e).toMatchObject({
      kind: 'binary',
      pos: { line: 1, column: 3 },
      left: { pos: { line: 1, column: 1 } },
      right: { kind: 'function', pos: { line: 2, column: 3 } },
    });
  });

  it('refuses TRIM forms sqlparser 0.35 refuses: a comma, a side without characters', () => {
    expect(() => parseExpression("trim(s, 'x')")).toThrow(/Expected \), found: ,/);
    expect(() => parseExpression("trim(leading from 'dog')")).toThrow(/Expected \), found: 'dog'/);
  });

  it('reads anything else in a window specification as a frame, as sqlparser does', () => {
    expect(() => parseExpression("rank() OVER ('')")).toThrow(
      /^sql parser error: Expected ROWS, RANGE, GROUPS, found: '' at Line: 1, Column 14$/,
    );
    expect(() => parseExpression('rank() OVER (ORDER BY a b)')).toThrow(/Expected ROWS, RANGE, GROUPS, found: b/);
  });

  it('keeps the literal text of numbers for the planner', () => {
    expect(parseExpression('18446744073709551615')).toMatchObject({ kind: 'number', text: '18446744073709551615' });
    expect(parseExpression('1.0e10')).toMatchObject({ kind: 'number', text: '1.0e10' });
  });

  it('reads struct fields of a column as a qualified name for the planner to resolve', () => {
    expect(parseExpression('window.start')).toMatchObject({ kind: 'column', parts: ['window', 'start'] });
  });
});
