// CnosDB's regular expressions (Rust's regex crate syntax) on RE2JS (issue 24): what the dialect
// translation keeps (Unicode classes, flags, escapes), what it refuses in Rust's own words (with
// the pattern and carets under the span), and that pathological patterns stay linear.

import { describe, expect, it } from 'vitest';
import { testDb } from '../support/run-sql.js';
import {
  compileRustRegex,
  compileRustTest,
  RegexError,
  requiredLiteral,
} from '../../../host/engine/functions/rust-regex.js';
import { mulberry32 as rng } from '../../support/rng.js';

const MATCHES: Array<[pattern: string, flags: string | undefined, input: string, expected: boolean]> = [
  // Rust's \d, \s and \w are Unicode; (?-u) makes them ASCII.
  ['^\\d+$', undefined, '١٢٣', true],
  ['^(?-u:\\d)+$', undefined, '١٢٣', false],
  ['^\\w+$', undefined, 'héllo_wörld1', true],
  ['^\\s$', undefined, '\u3000', true],
  ['^\\S$', undefined, '\u3000', false],
  ['^[\\W_]+$', undefined, '_ -!', true],
  ['^[\\W_]+$', undefined, '_a', false],
  ['^[^\\w\\s]+$', undefined, '!?', true],
  ['^\\D$', undefined, 'x', true],
  ['^[\\D]$', undefined, '7', false],
  // Flags, from the argument or inline; x drops whitespace and comments.
  ['abc', 'i', 'xABCx', true],
  ['^a.c$', 's', 'a\nc', true],
  ['^a.c$', undefined, 'a\nc', false],
  ['^b$', 'm', 'a\nb', true],
  ['(?x) a b # comment\n c', undefined, 'abc', true],
  ['(?i:A)b', undefined, 'ab', true],
  ['(?i:A)b', undefined, 'aB', false],
  // Escapes RE2 spells otherwise; Unicode classes by Rust's names.
  ['\\u{1F600}', undefined, '😀', true],
  ['\\u00e9', undefined, 'é', true],
  ['^\\p{Letter}+$', undefined, 'Ωmega', true],
  ['^\\p{gc=Lu}$', undefined, 'Ω', true],
  ['^\\p{Greek}+$', undefined, 'αβγ', true],
  ['^\\pN$', undefined, '5', true],
  ['^[[:alpha:]]+$', undefined, 'ab', true],
  ['(?P<year>\\d{4})-(?<m>\\d{2})', undefined, '2024-05', true],
  ['\\$\\.', undefined, 'a$.', true],
  // `.` matches a whole character, `$` only the end (not before a final newline).
  ['^.$', undefined, '😀', true],
  ['^a$', undefined, 'a\n', false],
];

const TILDES = '~'.repeat(79);

const REFUSED: Array<[pattern: string, flags: string | undefined, display: string]> = [
  ['(a)\\1', undefined, 'regex parse error:\n    (a)\\1\n       ^^\nerror: backreferences are not supported'],
  [
    'a(?=b)',
    undefined,
    'regex parse error:\n    a(?=b)\n     ^^^\nerror: look-around, including look-ahead and look-behind, is not supported',
  ],
  [
    'a(?<!b)',
    undefined,
    'regex parse error:\n    a(?<!b)\n     ^^^^\nerror: look-around, including look-ahead and look-behind, is not supported',
  ],
  ['(a', undefined, 'regex parse error:\n    (a\n    ^\nerror: unclosed group'],
  ['a)', undefined, 'regex parse error:\n    a)\n     ^\nerror: unopened group'],
  ['[a', undefined, 'regex parse error:\n    [a\n    ^\nerror: unclosed character class'],
  ['\\q', undefined, 'regex parse error:\n    \\q\n    ^^\nerror: unrecognized escape sequence'],
  ['\\<', undefined, 'regex parse error:\n    \\<\n    ^^\nerror: unrecognized escape sequence'],
  [
    'a{2,1}',
    undefined,
    'regex parse error:\n    a{2,1}\n     ^^^^^\nerror: invalid repetition count range, the start must be <= the end',
  ],
  ['*a', undefined, 'regex parse error:\n    *a\n    ^\nerror: repetition operator missing expression'],
  // RE2 would repeat the `c` before the flags; Rust has no atom to repeat.
  ['c(?s)?', undefined, 'regex parse error:\n    c(?s)?\n         ^\nerror: repetition operator missing expression'],
  ['abc', 'z', 'regex parse error:\n    (?z)abc\n      ^\nerror: unrecognized flag'],
  ['(?i-)a', undefined, 'regex parse error:\n    (?i-)a\n       ^\nerror: dangling flag negation operator'],
  [
    '\\x{110000}',
    undefined,
    'regex parse error:\n    \\x{110000}\n    ^^^^^^^^^^\nerror: hexadecimal literal is not a Unicode scalar value',
  ],
  ['a\nb(', undefined, `regex parse error:\n${TILDES}\n1: a\n2: b(\n    ^\n${TILDES}\nerror: unclosed group`],
  // Rust runs these; RE2 cannot, so they are refused naming the construct.
  [
    '[a[bc]]',
    undefined,
    'regex parse error:\n    [a[bc]]\n      ^\nerror: nested character classes are not supported by this engine',
  ],
  [
    '[a-z&&[^aeiou]]',
    undefined,
    'regex parse error:\n    [a-z&&[^aeiou]]\n        ^^\nerror: character class set operations (&&) are not supported by this engine',
  ],
  [
    '[^\\W_]',
    undefined,
    'regex parse error:\n    [^\\W_]\n      ^^\nerror: a negated perl class (\\W, \\S) inside a negated class is not supported by this engine; name the characters to keep, e.g. [\\p{L}\\p{Nd}]',
  ],
  [
    'a{1001}',
    undefined,
    'regex parse error:\n    a{1001}\n     ^^^^^^\nerror: repetition counts above 1000 are not supported by this engine',
  ],
  [
    '(?R)a',
    undefined,
    'regex parse error:\n    (?R)a\n      ^\nerror: CRLF mode (the R flag) is not supported by this engine',
  ],
];

describe('CnosDB regular expressions on RE2JS (issue 24)', () => {
  it('matches as Rust does', () => {
    for (const [pattern, flags, input, expected] of MATCHES) {
      expect(
        compileRustRegex(pattern, flags).test(input),
        `${JSON.stringify(pattern)} ${flags ?? ''} on ${JSON.stringify(input)}`,
      ).toBe(expected);
      expect(compileRustTest(pattern, flags)(input), `test of ${JSON.stringify(pattern)}`).toBe(expected);
    }
  });

  it('refuses what it cannot run with Rust error texts', () => {
    for (const [pattern, flags, display] of REFUSED) {
      let error: unknown;
      try {
        compileRustRegex(pattern, flags);
      } catch (e) {
        error = e;
      }
      expect(error, pattern).toBeInstanceOf(RegexError);
      expect((error as RegexError).message, pattern).toBe(display);
      expect((error as RegexError).debug, pattern).toBe(`Syntax(\n${TILDES}\n${display}\n${TILDES}\n)`);
    }
  });

  it('refuses programs too large to run on one shared thread', () => {
    expect(() => compileRustRegex('\\pL{1000}')).toThrow(
      /^Compiled regex exceeds size limit: the pattern would compile to about \d+ instructions and class ranges, at most 250000$/,
    );
    expect(() => compileRustRegex('a'.repeat(20_000))).toThrow(
      /^Compiled regex exceeds size limit: the pattern compiles to \d+ instructions, at most 10000$/,
    );
    expect(() => compileRustRegex('\\pL{100}')).not.toThrow();
  });

  it('tests literals without the regex engine, by simple case folding under i', () => {
    expect(compileRustTest('connection', undefined)('error: connection reset')).toBe(true);
    expect(compileRustTest('CONNECTION', 'i')('error: connection reset')).toBe(true);
    expect(compileRustTest('k', 'i')('\u212a')).toBe(true);
    expect(compileRustTest('a\\.b', undefined)('axb')).toBe(false);
    expect(compileRustTest('', undefined)('x')).toBe(true);
  });

  it('stays linear on patterns that backtracking takes minutes over', () => {
    const a = 'a'.repeat(50_000);
    expect(compileRustRegex('^(a+)+$').exec(`${a}!`)).toBeNull();
    expect(compileRustRegex('(a|aa)+b').test(a)).toBe(false);
    expect(compileRustRegex('^(\\w+\\s?)*$').test(`${a}!`)).toBe(false);
    expect(compileRustTest('(?i)^(A|a)+$')(`${a}!`)).toBe(false);
  });

  it('finds the literals every match needs, and only those', () => {
    const cases: Array<[string, string | undefined, string | undefined]> = [
      ['users/[0-9]+ 200', undefined, 'users/'],
      ['ab+c', undefined, 'ab'],
      ['abc*d', undefined, 'ab'],
      ['a{0,3}bcd', undefined, 'bcd'],
      ['x(abc)yz', undefined, 'yz'],
      ['\\.com$', undefined, '.com'],
      ['\\u00e9xy', undefined, 'xy'],
      ['a|bcd', undefined, undefined],
      ['(?i)abc', undefined, undefined],
      ['abc', 'i', undefined],
    ];
    for (const [pattern, flags, needed] of cases) expect(requiredLiteral(pattern, flags), pattern).toBe(needed);
    // Whatever a random pattern matches contains its literal.
    const random = rng(24);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
    const tokens = [
      'a',
      'b',
      'ab',
      'c',
      '.',
      '*',
      '+',
      '?',
      '{0,2}',
      '{1}',
      '(',
      ')',
      '(?:',
      '[ab]',
      '[^a]',
      '|',
      '\\.',
      '\\d',
      '^',
      '$',
      '(?s)',
      '(?i)',
      '😀',
    ];
    for (let n = 0; n < 3000; n++) {
      const pattern = Array.from({ length: 1 + Math.floor(random() * 8) }, () => pick(tokens)).join('');
      let re: ReturnType<typeof compileRustRegex>;
      try {
        re = compileRustRegex(pattern);
      } catch {
        continue;
      }
      const needed = requiredLiteral(pattern);
      if (needed === undefined) continue;
      for (let k = 0; k < 10; k++) {
        const s = Array.from({ length: Math.floor(random() * 8) }, () =>
          pick(['a', 'b', 'c', '.', '1', '😀', '\n']),
        ).join('');
        if (re.test(s))
          expect(
            s.includes(needed),
            `${JSON.stringify(pattern)} matched ${JSON.stringify(s)} without ${JSON.stringify(needed)}`,
          ).toBe(true);
      }
    }
  });

  it('gives regexp_match the groups of the first match, an unmatched group as NULL', async () => {
    const r = await testDb().run(
      "SELECT regexp_match('b', '(a)?b'), regexp_match('abc', '[a-z]+'), regexp_match('abc', 'x'), regexp_match('a1b2', '([a-z])(\\d)')",
    );
    expect(r.rows).toEqual(['[NULL] | [abc] | NULL | [a, 1]']);
  });
});
