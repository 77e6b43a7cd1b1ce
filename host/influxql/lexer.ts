// InfluxQL tokens, scanned on demand: a `/` is division or the start of a regular expression
// depending on where the parser is (InfluxDB's scanner has ScanRegex for the same reason), so the
// parser asks for a regex explicitly. Positions are 1-based line and char, as InfluxDB reports them.

import { InfluxQLParseError } from './errors.js';

export type TokenKind =
  | 'ident' // unquoted (keywords too: the parser compares `upper`)
  | 'quotedIdent' // "x"
  | 'string' // 'x'
  | 'integer'
  | 'number'
  | 'duration' // 10s, 1h30m, 1700000000000ms
  | 'regex'
  | 'op' // = != <> < <= > >= =~ !~ + - * / % & | ^ ( ) , ; . ::
  | 'eof';

export interface Token {
  readonly kind: TokenKind;
  /** The text as written (for idents and strings: the value with escapes undone). */
  readonly text: string;
  /** Unquoted identifiers upper-cased (keywords); '' for other kinds. */
  readonly upper: string;
  readonly line: number;
  readonly char: number;
  /** The offset in the source where the token starts. */
  readonly offset: number;
}

/** Nanoseconds per duration unit (InfluxQL: ns, u and µ, ms, s, m, h, d, w). */
const DURATION_UNITS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  u: 1_000n,
  µ: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
  d: 86_400_000_000_000n,
  w: 604_800_000_000_000n,
};

const TWO_CHAR_OPS = new Set(['!=', '<>', '<=', '>=', '=~', '!~', '::']);
const ONE_CHAR_OPS = new Set(['=', '<', '>', '+', '-', '*', '/', '%', '&', '|', '^', '(', ')', ',', ';', '.']);

const isIdentStart = (c: string): boolean => /[A-Za-z_]/.test(c) || c.charCodeAt(0) > 0x7f;
const isIdentChar = (c: string): boolean => /[A-Za-z0-9_]/.test(c) || c.charCodeAt(0) > 0x7f;
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

export class Lexer {
  readonly #src: string;
  #pos = 0;
  #line = 1;
  #lineStart = 0;

  constructor(src: string) {
    this.#src = src;
  }

  get source(): string {
    return this.#src;
  }

  /** Where the lexer stands (to go back after a look-ahead). */
  mark(): { pos: number; line: number; lineStart: number } {
    return { pos: this.#pos, line: this.#line, lineStart: this.#lineStart };
  }

  reset(m: { pos: number; line: number; lineStart: number }): void {
    this.#pos = m.pos;
    this.#line = m.line;
    this.#lineStart = m.lineStart;
  }

  #skipSpace(): void {
    const s = this.#src;
    for (;;) {
      const c = s[this.#pos];
      if (c === '\n') {
        this.#pos++;
        this.#line++;
        this.#lineStart = this.#pos;
      } else if (c === ' ' || c === '\t' || c === '\r') this.#pos++;
      else if (c === '-' && s[this.#pos + 1] === '-') {
        while (this.#pos < s.length && s[this.#pos] !== '\n') this.#pos++;
      } else if (c === '/' && s[this.#pos + 1] === '*') {
        const end = s.indexOf('*/', this.#pos + 2);
        const stop = end < 0 ? s.length : end + 2;
        while (this.#pos < stop) {
          if (s[this.#pos] === '\n') {
            this.#line++;
            this.#lineStart = this.#pos + 1;
          }
          this.#pos++;
        }
      } else return;
    }
  }

  #token(kind: TokenKind, text: string, start: number, line: number, lineStart: number): Token {
    return {
      kind,
      text,
      upper: kind === 'ident' ? text.toUpperCase() : '',
      line,
      char: start - lineStart + 1,
      offset: start,
    };
  }

  next(): Token {
    this.#skipSpace();
    const s = this.#src;
    const start = this.#pos;
    const line = this.#line;
    const lineStart = this.#lineStart;
    if (start >= s.length) return this.#token('eof', '', start, line, lineStart);
    const c = s[start]!;
    if (c === '"' || c === "'") {
      const text = this.#quoted(c, line, lineStart);
      return this.#token(c === '"' ? 'quotedIdent' : 'string', text, start, line, lineStart);
    }
    if (isDigit(c) || (c === '.' && isDigit(s[start + 1]))) return this.#number(start, line, lineStart);
    if (isIdentStart(c)) {
      let end = start + 1;
      while (end < s.length && isIdentChar(s[end]!)) end++;
      this.#pos = end;
      return this.#token('ident', s.slice(start, end), start, line, lineStart);
    }
    const two = s.slice(start, start + 2);
    if (TWO_CHAR_OPS.has(two)) {
      this.#pos += 2;
      return this.#token('op', two === '<>' ? '!=' : two, start, line, lineStart);
    }
    if (ONE_CHAR_OPS.has(c)) {
      this.#pos++;
      return this.#token('op', c, start, line, lineStart);
    }
    throw new InfluxQLParseError(`found ${c}, expected identifier, string, number, bool`, line, start - lineStart + 1);
  }

  /** A regular expression `/.../` at the current position (after =~, !~, FROM or MEASUREMENT =~). */
  regex(): Token | undefined {
    this.#skipSpace();
    const s = this.#src;
    const start = this.#pos;
    if (s[start] !== '/') return undefined;
    let out = '';
    let i = start + 1;
    for (;;) {
      if (i >= s.length || s[i] === '\n')
        throw new InfluxQLParseError('unterminated regex', this.#line, start - this.#lineStart + 1);
      const ch = s[i]!;
      if (ch === '\\' && s[i + 1] === '/') {
        out += '/';
        i += 2;
        continue;
      }
      if (ch === '/') break;
      out += ch;
      i++;
    }
    this.#pos = i + 1;
    return this.#token('regex', out, start, this.#line, this.#lineStart);
  }

  #quoted(q: string, line: number, lineStart: number): string {
    const s = this.#src;
    const start = this.#pos;
    let out = '';
    let i = start + 1;
    for (;;) {
      if (i >= s.length)
        throw new InfluxQLParseError(
          q === '"' ? 'unterminated quoted identifier' : 'unterminated string',
          line,
          start - lineStart + 1,
        );
      const ch = s[i]!;
      if (ch === '\\') {
        const n = s[i + 1];
        if (n === q || n === '\\') out += n;
        else if (n === 'n') out += '\n';
        else if (n === undefined) continue;
        else throw new InfluxQLParseError(`bad escape \\${n}`, line, i - lineStart + 1);
        i += 2;
        continue;
      }
      if (ch === q) break;
      if (ch === '\n') {
        this.#line++;
        this.#lineStart = i + 1;
      }
      out += ch;
      i++;
    }
    this.#pos = i + 1;
    return out;
  }

  /** An integer, a decimal number, or a duration (integer followed by units, possibly several: 1h30m). */
  #number(start: number, line: number, lineStart: number): Token {
    const s = this.#src;
    let i = start;
    while (isDigit(s[i])) i++;
    let isFloat = false;
    if (s[i] === '.' && isDigit(s[i + 1])) {
      isFloat = true;
      i++;
      while (isDigit(s[i])) i++;
    }
    if (
      (s[i] === 'e' || s[i] === 'E') &&
      (isDigit(s[i + 1]) || ((s[i + 1] === '+' || s[i + 1] === '-') && isDigit(s[i + 2])))
    ) {
      isFloat = true;
      i += 2;
      while (isDigit(s[i])) i++;
    }
    if (!isFloat) {
      const unitAt = durationUnitAt(s, i);
      if (unitAt !== undefined) {
        // A duration: digits and units, repeated (1h30m).
        let j = i + unitAt.length;
        for (;;) {
          let k = j;
          while (isDigit(s[k])) k++;
          if (k === j) break;
          const u = durationUnitAt(s, k);
          if (u === undefined) break;
          j = k + u.length;
        }
        if (!isIdentChar(s[j] ?? ' ')) {
          this.#pos = j;
          return this.#token('duration', s.slice(start, j), start, line, lineStart);
        }
      }
    }
    this.#pos = i;
    return this.#token(isFloat ? 'number' : 'integer', s.slice(start, i), start, line, lineStart);
  }
}

/** The unit spelled at `i` (longest first: `ms` before `m`), or undefined. */
function durationUnitAt(s: string, i: number): string | undefined {
  const two = s.slice(i, i + 2);
  if (two === 'ns' || two === 'ms') return two;
  const one = s[i];
  if (one !== undefined && one !== 'n' && DURATION_UNITS[one] !== undefined) return one;
  return undefined;
}

/** A duration literal (`1h30m`, `10s`, `1700000000000ms`) in nanoseconds; undefined if not one. */
export function durationNanos(text: string): bigint | undefined {
  let total = 0n;
  let i = 0;
  if (text.length === 0) return undefined;
  while (i < text.length) {
    let j = i;
    while (isDigit(text[j])) j++;
    if (j === i) return undefined;
    const unit = durationUnitAt(text, j);
    if (unit === undefined) return undefined;
    total += BigInt(text.slice(i, j)) * DURATION_UNITS[unit]!;
    i = j + unit.length;
  }
  return total;
}
