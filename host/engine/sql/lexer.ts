// The SQL tokenizer: source text -> tokens with 1-based line and column. It switches on char
// codes (STYLE §23) and never backtracks; backslash is not an escape inside '...' (CnosDB's own
// tests insert the string '}\'), and unquoted words are lowercased here, once. It reads one
// token at a time into its own fields and makes a Token object only when asked, so the parser
// holds a few tokens of lookahead, not a token array (a 13.4 MB INSERT made 2.6 million token
// objects, 267 MB); a pass that makes none checks the whole text first, so that a tokenizer error
// anywhere still comes before any parse error, as when the text was tokenized whole.

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

/** Where the lexer stands between two tokens; restore() goes back there (the parser's marks). */
export interface LexState {
  readonly i: number;
  readonly line: number;
  readonly lineStart: number;
  readonly prevEndsOperand: boolean;
}

/** A token read by the lexer; `text` is cut from the source only when read (error messages). */
class SourceToken implements Token {
  readonly kind: TokenKind;
  readonly value: string;
  readonly upper: string;
  readonly line: number;
  readonly column: number;
  readonly #sql: string;
  readonly #start: number;
  readonly #end: number;

  constructor(
    sql: string,
    kind: TokenKind,
    value: string,
    upper: string,
    start: number,
    end: number,
    line: number,
    column: number,
  ) {
    this.#sql = sql;
    this.kind = kind;
    this.value = value;
    this.upper = upper;
    this.#start = start;
    this.#end = end;
    this.line = line;
    this.column = column;
  }

  get text(): string {
    return this.#sql.slice(this.#start, this.#end);
  }
}

export class Lexer {
  readonly #sql: string;
  readonly #n: number;
  #i = 0;
  #line = 1;
  #lineStart = 0;
  #prevEndsOperand = false;
  // The token just read: kind, source range, position, and for quoted text its quote character.
  #kind: TokenKind = 'eof';
  #start = 0;
  #startLine = 1;
  #startColumn = 1;
  #quote = 0;

  constructor(sql: string) {
    this.#sql = sql;
    this.#n = sql.length;
  }

  save(): LexState {
    return { i: this.#i, line: this.#line, lineStart: this.#lineStart, prevEndsOperand: this.#prevEndsOperand };
  }

  restore(state: LexState): void {
    this.#i = state.i;
    this.#line = state.line;
    this.#lineStart = state.lineStart;
    this.#prevEndsOperand = state.prevEndsOperand;
  }

  /** The token scan() read, as an object. */
  token(): Token {
    const sql = this.#sql;
    const kind = this.#kind;
    const raw = sql.slice(this.#start, this.#i);
    let value = raw;
    let upper = '';
    switch (kind) {
      case 'string':
      case 'quoted': {
        const q = String.fromCharCode(this.#quote);
        value = raw.slice(1, -1);
        if (value.includes(q)) value = value.replaceAll(q + q, q);
        break;
      }
      case 'word':
        value = asciiLower(raw);
        upper = raw.toUpperCase();
        break;
      case 'variable':
        value = asciiLower(raw);
        break;
      case 'eof':
        value = '';
        break;
    }
    return new SourceToken(sql, kind, value, upper, this.#start, this.#i, this.#startLine, this.#startColumn);
  }

  /**
   * Reads the next token (comments and whitespace skipped) into the lexer's fields, `eof` at the
   * end (again and again). Throws SqlTokenizeError on an unterminated string, quoted identifier
   * or block comment, and on a character that starts no token.
   */
  scan(): TokenKind {
    const sql = this.#sql;
    const n = this.#n;
    for (;;) {
      const i = this.#i;
      this.#start = i;
      this.#startLine = this.#line;
      this.#startColumn = i - this.#lineStart + 1;
      if (i >= n) return this.#emit('eof');
      const c = sql.charCodeAt(i);
      switch (c) {
        case 0x0a: // \n
        case 0x0d: // \r
        case 0x20:
        case 0x09:
        case 0x0b:
        case 0x0c:
          this.#advance();
          continue;
        case 0x27: // '
          this.#readQuoted(0x27, 'Unterminated string literal');
          return this.#emit('string');
        case 0x22: // "
          this.#readQuoted(0x22, `Expected close delimiter '"' before EOF.`);
          return this.#emit('quoted');
        case 0x60: // `
          this.#readQuoted(0x60, "Expected close delimiter '`' before EOF.");
          return this.#emit('quoted');
        case 0x2d: // -
          if (sql.charCodeAt(i + 1) === 0x2d) {
            let j = i;
            while (j < n && sql.charCodeAt(j) !== 0x0a && sql.charCodeAt(j) !== 0x0d) j++;
            this.#i = j;
            continue;
          }
          return this.#op(1);
        case 0x2f: // /
          if (sql.charCodeAt(i + 1) === 0x2a) {
            this.#i += 2;
            let nesting = 1;
            while (nesting > 0) {
              const j = this.#i;
              if (j >= n) this.#fail('Unexpected EOF while in a multi-line comment');
              const d = sql.charCodeAt(j);
              if (d === 0x2a && sql.charCodeAt(j + 1) === 0x2f) {
                nesting--;
                this.#i += 2;
              } else if (d === 0x2f && sql.charCodeAt(j + 1) === 0x2a) {
                nesting++;
                this.#i += 2;
              } else {
                this.#advance();
              }
            }
            continue;
          }
          return this.#op(1);
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
          return this.#op(1);
        case 0x7b: // { and } and \ are tokens of sqlparser's that no statement here takes: the
        case 0x7d: // parser rejects them with its usual "Expected ..., found: {" (as CnosDB does),
        case 0x5c: // not the lexer
          return this.#op(1);
        case 0x7c: // | (bitwise or) and ||
          return this.#op(sql.charCodeAt(i + 1) === 0x7c ? 2 : 1);
        case 0x26: // & (bitwise and)
        case 0x5e: // ^ (bitwise xor, as sqlparser reads it outside PostgreSQL)
          return this.#op(1);
        case 0x21: // ! alone is a token the expression parser rejects, as sqlparser's ExclamationMark
          if (sql.charCodeAt(i + 1) === 0x3d) return this.#op(2);
          if (sql.charCodeAt(i + 1) === 0x7e) return this.#op(sql.charCodeAt(i + 2) === 0x2a ? 3 : 2);
          return this.#op(1);
        case 0x7e: // ~
          return this.#op(sql.charCodeAt(i + 1) === 0x2a ? 2 : 1);
        case 0x3c: // <, <=, <>, <<
          return this.#op(
            sql.charCodeAt(i + 1) === 0x3d || sql.charCodeAt(i + 1) === 0x3e || sql.charCodeAt(i + 1) === 0x3c ? 2 : 1,
          );
        case 0x3e: // >, >=, >>
          return this.#op(sql.charCodeAt(i + 1) === 0x3d || sql.charCodeAt(i + 1) === 0x3e ? 2 : 1);
        case 0x3a: // :: and a lone : (a token to sqlparser too, which its parser rejects)
          return this.#op(sql.charCodeAt(i + 1) === 0x3a ? 2 : 1);
        case 0x2e: // .
          if (isDigit(sql.charCodeAt(i + 1)) && !this.#prevEndsOperand) return this.#readNumber();
          return this.#op(1);
        case 0x40: // @ starts a word in sqlparser's dialect, so `@` alone is a variable named "@" too
          this.#i += sql.charCodeAt(i + 1) === 0x40 ? 2 : 1;
          this.#skipIdentPart();
          return this.#emit('variable');
        default:
          if (isDigit(c)) return this.#readNumber();
          if (isAsciiIdentStart(c) || (c >= 0x80 && IDENT_START.test(String.fromCodePoint(sql.codePointAt(i)!)))) {
            this.#skipIdentPart();
            return this.#emit('word');
          }
          this.#fail(`Unexpected character '${String.fromCodePoint(sql.codePointAt(i)!)}'`);
      }
    }
  }

  #emit(kind: TokenKind): TokenKind {
    this.#kind = kind;
    const last = this.#sql.charCodeAt(this.#i - 1);
    this.#prevEndsOperand =
      kind === 'word' ||
      kind === 'quoted' ||
      (kind === 'op' && (last === 0x29 || last === 0x5d) && this.#i - this.#start === 1);
    return kind;
  }

  #op(width: number): TokenKind {
    this.#i += width;
    return this.#emit('op');
  }

  #fail(message: string): never {
    throw new SqlTokenizeError(message, { line: this.#startLine, column: this.#startColumn });
  }

  /** Advances over one character, keeping line and column right across newlines. */
  #advance(): void {
    const sql = this.#sql;
    const c = sql.charCodeAt(this.#i++);
    if (c === 0x0a || (c === 0x0d && sql.charCodeAt(this.#i) !== 0x0a)) {
      this.#line++;
      this.#lineStart = this.#i;
    }
  }

  #isIdentPart(c: number): boolean {
    return (
      isAsciiIdentStart(c) ||
      isDigit(c) ||
      c === 0x24 ||
      (c >= 0x80 && IDENT_PART.test(String.fromCodePoint(this.#sql.codePointAt(this.#i) ?? c)))
    );
  }

  #skipIdentPart(): void {
    const sql = this.#sql;
    while (this.#i < this.#n && this.#isIdentPart(sql.charCodeAt(this.#i)))
      this.#i += sql.codePointAt(this.#i)! > 0xffff ? 2 : 1;
  }

  /** Skips a quoted run up to the closing `quote`, where a doubled quote stands for one. */
  #readQuoted(quote: number, unterminated: string): void {
    const sql = this.#sql;
    this.#quote = quote;
    this.#i++;
    for (;;) {
      if (this.#i >= this.#n) this.#fail(unterminated);
      const c = sql.charCodeAt(this.#i);
      if (c === quote) {
        this.#i++;
        if (sql.charCodeAt(this.#i) !== quote) return;
        this.#i++;
        continue;
      }
      this.#advance();
    }
  }

  #readNumber(): TokenKind {
    const sql = this.#sql;
    let i = this.#i;
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
    this.#i = i;
    return this.#emit('number');
  }
}

/** Checks the whole text for tokenizer errors, making no tokens (SqlTokenizeError as scan() throws it). */
export function checkTokens(sql: string): void {
  const lexer = new Lexer(sql);
  while (lexer.scan() !== 'eof');
}

/** Every token of `sql`, ending with one `eof` token (tests; the parser reads them one by one). */
export function tokenize(sql: string): Token[] {
  const lexer = new Lexer(sql);
  const tokens: Token[] = [];
  for (;;) {
    const kind = lexer.scan();
    tokens.push(lexer.token());
    if (kind === 'eof') return tokens;
  }
}
