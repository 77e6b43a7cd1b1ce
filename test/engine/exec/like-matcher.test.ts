// LIKE and ILIKE without a backtracking regex (issue 24): every path of like-matcher.ts (the
// literal shapes, pieces between `%`, pieces with `_`, case-insensitive pieces, RE2JS) against a
// dynamic-programming reference over code points, on seeded random patterns and strings.

import { describe, expect, it } from 'vitest';
import { compileLike } from '../../../host/engine/exec/like-matcher.js';
import { mulberry32 as rng } from '../../support/rng.js';

type Token = { any: true } | { one: true } | { char: string };

function tokens(pattern: string, escapeChar: string | undefined): Token[] {
  const chars = Array.from(pattern);
  const out: Token[] = [];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (escapeChar !== undefined && c === escapeChar && i + 1 < chars.length) out.push({ char: chars[++i]! });
    else if (c === '%') out.push({ any: true });
    else if (c === '_') out.push({ one: true });
    else out.push({ char: c });
  }
  return out;
}

/** The textbook LIKE: dp[i][j] = pattern tokens [0, i) match characters [0, j). */
function reference(pattern: string, s: string, escapeChar: string | undefined, fold: boolean): boolean {
  const p = tokens(pattern, escapeChar);
  const cs = Array.from(s);
  const eq = (a: string, b: string): boolean => (fold ? a.toLowerCase() === b.toLowerCase() : a === b);
  let prev = new Array<boolean>(cs.length + 1).fill(false);
  prev[0] = true;
  for (const t of p) {
    const cur = new Array<boolean>(cs.length + 1).fill(false);
    for (let j = 0; j <= cs.length; j++) {
      if ('any' in t) cur[j] = prev[j]! || (j > 0 && cur[j - 1]!);
      else if (j > 0) cur[j] = prev[j - 1]! && ('one' in t || eq(t.char, cs[j - 1]!));
    }
    prev = cur;
  }
  return prev[cs.length]!;
}

const CASES: Array<[pattern: string, s: string, expected: boolean, escapeChar?: string]> = [
  ['', '', true],
  ['', 'a', false],
  ['%', '', true],
  ['abc', 'abc', true],
  ['ab%', 'abc', true],
  ['%bc', 'abc', true],
  ['%b%', 'abc', true],
  ['a%c', 'ac', true],
  ['ab%ba', 'aba', false],
  ['a_c', 'a😀c', true],
  ['a_c', 'a😀😀c', false],
  ['%a_a%', 'xaya', true],
  ['%\n%', 'a\nb', true],
  ['a\\%c', 'a%c', true, '\\'],
  ['a\\%c', 'abc', false, '\\'],
  ['a!', 'a!', true, '!'],
];

describe('LIKE matching (issue 24)', () => {
  it('answers the named cases', () => {
    for (const [pattern, s, expected, escapeChar] of CASES)
      expect(compileLike(pattern, escapeChar, false)(s), `${JSON.stringify(s)} LIKE ${JSON.stringify(pattern)}`).toBe(
        expected,
      );
  });

  it('matches ILIKE by simple case folding, KELVIN SIGN and LONG S included', () => {
    expect(compileLike('%K%', undefined, true)('\u212a')).toBe(true);
    expect(compileLike('%S', undefined, true)('\u017f')).toBe(true);
    expect(compileLike('%ÉT_', undefined, true)('été')).toBe(true);
    expect(compileLike('strasse', undefined, true)('straße')).toBe(false);
  });

  it('agrees with the reference on random patterns and strings', () => {
    const random = rng(24_2024);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
    const patternChars = ['a', 'b', 'A', 'é', 'É', '😀', '%', '%', '_', '_', '\\', '\n'];
    const textChars = ['a', 'b', 'A', 'B', 'é', 'É', '😀', '%', '_', '\\', '\n'];
    for (let n = 0; n < 4000; n++) {
      const pattern = Array.from({ length: Math.floor(random() * 8) }, () => pick(patternChars)).join('');
      const s = Array.from({ length: Math.floor(random() * 12) }, () => pick(textChars)).join('');
      const escapeChar = random() < 0.3 ? '\\' : undefined;
      const fold = random() < 0.4;
      expect(
        compileLike(pattern, escapeChar, fold)(s),
        `${JSON.stringify(s)} ${fold ? 'ILIKE' : 'LIKE'} ${JSON.stringify(pattern)}${escapeChar ? ' ESCAPE \\' : ''}`,
      ).toBe(reference(pattern, s, escapeChar, fold));
    }
  });

  it('runs long pieces and long inputs in linear time', () => {
    const a = 'a'.repeat(100_000);
    // Each would take minutes on a backtracking matcher; here they are single passes.
    expect(compileLike('%a%a%a%a%a%b', undefined, false)(a)).toBe(false);
    expect(compileLike('%a%a%a%a%a%B', undefined, true)(a)).toBe(false);
    expect(compileLike(`%${'a_'.repeat(20)}b%`, undefined, false)(a)).toBe(false);
    expect(compileLike(`%${'a'.repeat(100)}_b%`, undefined, false)(a)).toBe(false);
    expect(compileLike(`%${'A'.repeat(100)}B%`, undefined, true)(a)).toBe(false);
  });
});
