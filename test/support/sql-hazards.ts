// Seeded generators of the statements issue 24 found ending or freezing the server: calls of
// functions that build strings and lists with huge size arguments, and pathological regular
// expressions and LIKE patterns over long inputs. Every statement's answer is kept small
// (length(), IS NULL, a comparison), so that what is measured is the building, not the transfer.

/** Sizes around every limit: small, the query budget (512 MiB and the engine tests' few MiB), V8's string and array maxima, i32, i64. */
const SIZES = [
  '0',
  '1',
  '7',
  '1000',
  '65536',
  '1000000',
  '3000000',
  '50000000',
  '134217728',
  '200000000',
  '268435456',
  '536870888',
  '536870889',
  '2000000000',
  '2147483647',
  '2147483648',
  '9007199254740993',
  '9223372036854775807',
  '-1',
];

/** A string argument: small, or itself built large. */
function text(pick: <T>(xs: readonly T[]) => T, depth: number): string {
  const base = pick(["'a'", "'ab'", "''", "'é😀'", "'x,y'", 's']);
  if (depth > 1) return base;
  switch (pick([0, 1, 2, 3])) {
    case 0:
      return base;
    case 1:
      return `repeat(${base}, ${pick(SIZES)})`;
    case 2:
      return call(pick, depth + 1);
    default:
      return `lpad(${base}, ${pick(SIZES)}, ${pick(["'-'", "'xy'", "'é'"])})`;
  }
}

/** One call of a string- or list-building function, nested up to three levels. */
function call(pick: <T>(xs: readonly T[]) => T, depth: number): string {
  const t = (): string => text(pick, depth + 1);
  const n = (): string => pick(SIZES);
  switch (pick([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17])) {
    case 0:
      return `lpad(${t()}, ${n()}${pick(['', `, ${t()}`])})`;
    case 1:
      return `rpad(${t()}, ${n()}${pick(['', `, ${t()}`])})`;
    case 2:
      return `repeat(${t()}, ${n()})`;
    case 3:
      return `replace(${t()}, ${pick(["'a'", "''", "'b'"])}, ${t()})`;
    case 4:
      return `translate(${t()}, ${pick(["'a'", "'ab'", "'é'"])}, ${pick(["'😀'", "''", "'xy'"])})`;
    case 5:
      return `concat(${t()}, ${t()}${pick(['', `, ${t()}`])})`;
    case 6:
      return `concat_ws(${t()}, ${t()}, ${t()})`;
    case 7:
      return `(${t()} || ${t()})`;
    case 8:
      return `array_to_string(make_array(${t()}, ${t()}), ${t()})`;
    case 9:
      return `array_to_string(array_concat(make_array(${t()}), make_array(${t()}, ${t()})), ',')`;
    case 10:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: ${1} is a regex replacement reference
      return `regexp_replace(${t()}, ${pick(["'a'", "'(a)'", "''", "'a*'", "'.'"])}, ${pick(["'bb'", "'\\1\\1'", "'${1}x'", "repeat('z', 1000)"])}, ${pick(["'g'", "''", "'gi'"])})`;
    case 11:
      return `substr(${t()}, ${n()}, ${n()})`;
    case 12:
      return `${pick(['upper', 'lower', 'initcap', 'reverse', 'btrim', 'ltrim'])}(${t()})`;
    case 13:
      return `split_part(${t()}, ${pick(["','", "''", "'a'"])}, ${n()})`;
    case 14:
      return `${pick(['left', 'right'])}(${t()}, ${n()})`;
    case 15:
      return `to_hex(${n()})`;
    case 16:
      return `array_to_string(array_append(make_array(${t()}), ${t()}), '')`;
    default:
      return `md5(${t()})`;
  }
}

/** A SELECT of a huge-size function call (over the string column `s` of table `t` when it reads it). */
export function hugeCallStatement(random: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const expr = call(pick, 0);
  const measured = pick([`length(${expr})`, `octet_length(${expr})`, `${expr} IS NULL`]);
  return /\bs\b/.test(expr) ? `SELECT count(${measured}) AS v FROM t` : `SELECT ${measured} AS v`;
}

/** Patterns that make a backtracking engine exponential or polynomial, refused ones and odd ones. */
const REGEXES = [
  '^(a+)+$',
  '(a|a)*b',
  '(a|aa)+c',
  '(.*a){20}',
  '^(\\w+\\s?)*$',
  '(a*)*b',
  '((a+)+)+b',
  '(?:a?){30}a{30}',
  '^(a|b|ab)*c$',
  '(a+)\\1',
  '(?=a)a',
  'a(?!b)',
  '(?<=a)b',
  '(',
  '[a',
  '\\',
  'a{1001}',
  '(\\pL{100}){3}',
  '[\\W_]+',
  '\\p{Greek}',
  '(?i)A+$',
  '(?x) a + \\!',
  '[^\\W_]',
  '[a-z&&[^b]]',
  '\\d+!',
  '(?s).*!$',
  'a{2,1}',
  '\\u{61}+b',
  '(?P<n>a)+$',
  '',
  '.*',
  '(?U)a+',
];
const LIKES = [
  "'%a%a%a%a%a%b'",
  "'%a_a%a_a%a_b'",
  "'a%'",
  "'%!'",
  "'%a%'",
  "'_%_%_%_%_b'",
  "'%%%%%%b'",
  "'%\\_%'",
  "'" + '%a'.repeat(40) + "'",
];

/** A pathological pattern over a long input, by every operator and function that takes one. */
export function patternStatement(random: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const input = `repeat('a', ${pick(['30', '300', '3000', '30000', '100000'])}) || ${pick(["'!'", "'b'", "''", "'c'"])}`;
  const re = `'${pick(REGEXES).replaceAll("'", "''")}'`;
  switch (pick([0, 1, 2, 3, 4, 5, 6, 7])) {
    case 0:
      return `SELECT (${input}) ${pick(['LIKE', 'NOT LIKE', 'ILIKE', 'NOT ILIKE'])} ${pick(LIKES)}${random() < 0.2 ? " ESCAPE '\\'" : ''} AS v`;
    case 1:
      return `SELECT (${input}) ${pick(['~', '~*', '!~', '!~*'])} ${re} AS v`;
    case 2:
      return `SELECT regexp_match(${input}, ${re}${pick(['', ", 'i'", ", 's'", ", 'x'", ", 'z'", ", 'g'"])}) IS NULL AS v`;
    case 3:
      return `SELECT length(regexp_replace(${input}, ${re}, ${pick(["'x'", "'\\\\1'", "''"])}${pick(['', ", 'g'", ", 'gi'"])})) AS v`;
    case 4:
      return `SELECT count(*) AS v FROM t WHERE s ${pick(['LIKE', 'ILIKE', '~', '!~*'])} ${pick([...LIKES, re])}`;
    case 5:
      return `SELECT regexp_match(s, ${re}) IS NULL AS v FROM t`;
    case 6:
      return `SELECT (${input}) LIKE ${pick(LIKES)} AND (${input}) ~ ${re} AS v`;
    default:
      return `SELECT max(length(regexp_replace(s, ${re}, 'y', 'g'))) AS v FROM t`;
  }
}
