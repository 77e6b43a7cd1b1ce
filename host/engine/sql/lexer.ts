// The SQL tokenizer: source text -> tokens with 1-based line and column. It switches on char
// codes (STYLE §23) and never backtracks; backslash is not an escape inside '...' (CnosDB's own
// tests insert the string '}\'), and unquoted words are lowercased here, once.

import { SqlTokenizeError } from './errors.js';
import type { Token, TokenKind } from './tokens.js';

const IDENT_START = /[\p{L}_]/u;
const IDENT_PART = /[\p{L}\p{M}\p{N}_$]/u;

function isAsciiIdentStart(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;
}

/** DataFusion lowercases unquoted identifiers with `to_ascii_lowercase`: non-ASCII keeps case. */
function asciiLower(s: string): string {
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/**
 * Splits `sql` into tokens, ending with one `eof` token. Comments and whitespace are dropped.
 * Throws SqlTokenizeError on an unterminated string, quoted identifier or block comment, and on
 * a character that starts no token.
 */
export function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  const n = sql.length;
  let i = 0;
  let line = 1;
  let lineStart = 0;
  let startLine = 1;
  let startColumn = 1;
  let start = 0;

  const push = (kind: TokenKind, value: string, upper = ''): void => {
    tokens.push({ kind, value, upper, text: sql.slice(start, i), line: startLine, column: startColumn });
  };
  const fail = (message: string): never => {
    throw new SqlTokenizeError(message, { line: startLine, column: startColumn });
  };
  // Advances over one character, keeping line and column right across newlines.
  const advance = (): void => {
    const c = sql.charCodeAt(i++);
    if (c === 0x0a || (c === 0x0d && sql.charCodeAt(i) !== 0x0a)) {
      line++;
      lineStart = i;
    }
  };
  const isIdentPart = (c: number): boolean =>
    isAsciiIdentStart(c) || isDigit(c) || c === 0x24 || (c >= 0x80 && IDENT_PART.test(String.fromCodePoint(sql.codePointAt(i) ?? c)));
  const skipIdentPart = (): void => {
    while (i < n && isIdentPart(sql.charCodeAt(i))) i += sql.codePointAt(i)! > 0xffff ? 2 : 1;
  };
  // Reads a quoted run up to the closing `quote`, where a doubled quote stands for one.
  const readQuoted = (quote: number, unterminated: string): string => {
    let value = '';
    let from = ++i;
    for (;;) {
      if (i >= n) fail(unterminated);
      const c = sql.charCodeAt(i);
      if (c === quote) {
        value += sql.slice(from, i);
        i++;
        if (sql.charCodeAt(i) !== quote) return value;
        from = i++;
        continue;
      }
      advance();
    }
  };
  const prevEndsOperand = (): boolean => {
    const prev = tokens[tokens.length - 1];
    return prev !== undefined && (prev.kind === 'word' || prev.kind === 'quoted' || prev.value === ')' || prev.value === ']');
  };
  const readNumber = (): void => {
    while (isDigit(sql.charCodeAt(i))) i++;
    if (sql.charCodeAt(i) === 0x2e) {
      i++;
      while (isDigit(sql.charCodeAt(i))) i++;
    }
    const e = sql.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      const s = sql.charCodeAt(i + 1);
      const d = s === 0x2b || s === 0x2d ? 2 : 1;
      if (isDigit(sql.charCodeAt(i + d))) {
        i += d;
        while (isDigit(sql.charCodeAt(i))) i++;
      }
    }
    push('number', sql.slice(start, i));
  };
  const op = (width: number): void => {
    i += width;
    push('op', sql.slice(start, i));
  };

  while (i < n) {
    const c = sql.charCodeAt(i);
    start = i;
    startLine = line;
    startColumn = i - lineStart + 1;
    switch (c) {
      case 0x0a: // \n
      case 0x0d: // \r
      case 0x20:
      case 0x09:
      case 0x0b:
      case 0x0c:
        advance();
        continue;
      case 0x27: // '
        push('string', readQuoted(0x27, 'Unterminated string literal'));
        continue;
      case 0x22: // "
        push('quoted', readQuoted(0x22, `Expected close delimiter '"' before EOF.`));
        continue;
      case 0x60: // `
        push('quoted', readQuoted(0x60, "Expected close delimiter '`' before EOF."));
        continue;
      case 0x2d: // -
        if (sql.charCodeAt(i + 1) === 0x2d) {
          while (i < n && sql.charCodeAt(i) !== 0x0a && sql.charCodeAt(i) !== 0x0d) i++;
          continue;
        }
        op(1);
        continue;
      case 0x2f: // /
        if (sql.charCodeAt(i + 1) === 0x2a) {
          i += 2;
          let nesting = 1;
          while (nesting > 0) {
            if (i >= n) fail('Unexpected EOF while in a multi-line comment');
            const d = sql.charCodeAt(i);
            if (d === 0x2a && sql.charCodeAt(i + 1) === 0x2f) {
              nesting--;
              i += 2;
            } else if (d === 0x2f && sql.charCodeAt(i + 1) === 0x2a) {
              nesting++;
              i += 2;
            } else {
              advance();
            }
          }
          continue;
        }
        op(1);
        continue;
      case 0x2b: // +
      case 0x2a: // *
      case 0x25: // %
      case 0x28: // (
      case 0x29: // )
      case 0x2c: // ,
      case 0x3b: // ;
      case 0x5b: // [
      case 0x5d: // ]
      case 0x3d: // =
        op(1);
        continue;
      case 0x7b: // { and } and \ are tokens of sqlparser's that no statement here takes: the
      case 0x7d: // parser rejects them with its usual "Expected ..., found: {" (as CnosDB does),
      case 0x5c: // not the lexer
        op(1);
        continue;
      case 0x7c: // | (bitwise or) and ||
        op(sql.charCodeAt(i + 1) === 0x7c ? 2 : 1);
        continue;
      case 0x26: // & (bitwise and)
      case 0x5e: // ^ (bitwise xor, as sqlparser reads it outside PostgreSQL)
        op(1);
        continue;
      case 0x21: // ! alone is a token the expression parser rejects, as sqlparser's ExclamationMark
        if (sql.charCodeAt(i + 1) === 0x3d) op(2);
        else if (sql.charCodeAt(i + 1) === 0x7e) op(sql.charCodeAt(i + 2) === 0x2a ? 3 : 2);
        else op(1);
        continue;
      case 0x7e: // ~
        op(sql.charCodeAt(i + 1) === 0x2a ? 2 : 1);
        continue;
      case 0x3c: // <, <=, <>, <<
        op(sql.charCodeAt(i + 1) === 0x3d || sql.charCodeAt(i + 1) === 0x3e || sql.charCodeAt(i + 1) === 0x3c ? 2 : 1);
        continue;
      case 0x3e: // >, >=, >>
        op(sql.charCodeAt(i + 1) === 0x3d || sql.charCodeAt(i + 1) === 0x3e ? 2 : 1);
        continue;
      case 0x3a: // :: and a lone : (a token to sqlparser too, which its parser rejects)
        op(sql.charCodeAt(i + 1) === 0x3a ? 2 : 1);
        continue;
      case 0x2e: // .
        if (isDigit(sql.charCodeAt(i + 1)) && !prevEndsOperand()) readNumber();
        else op(1);
        continue;
      case 0x40: // @ starts a word in sqlparser's dialect, so `@` alone is a variable named "@" too
        i += sql.charCodeAt(i + 1) === 0x40 ? 2 : 1;
        skipIdentPart();
        push('variable', asciiLower(sql.slice(start, i)));
        continue;
      default:
        if (isDigit(c)) {
          readNumber();
          continue;
        }
        if (isAsciiIdentStart(c) || (c >= 0x80 && IDENT_START.test(String.fromCodePoint(sql.codePointAt(i)!)))) {
          skipIdentPart();
          const raw = sql.slice(start, i);
          push('word', asciiLower(raw), raw.toUpperCase());
          continue;
        }
        fail(`Unexpected character '${String.fromCodePoint(sql.codePointAt(i)!)}'`);
    }
  }
  start = i;
  startLine = line;
  startColumn = i - lineStart + 1;
  push('eof', '');
  return tokens;
}
