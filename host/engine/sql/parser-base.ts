// The token cursor every parse function shares: lookahead, keyword and operator matching, the
// "Expected X, found: Y" error, the nesting-depth guard, and names. The parse functions for each
// statement family live in parser-*.ts and take this cursor as their first argument.

import type { ObjectName, Query } from './ast.js';
import { objectNameProblem } from '../../core/object-names.js';
import { SqlParseError } from './errors.js';
import { checkTokens, Lexer, type LexState } from './lexer.js';
import { describeToken, type Pos, type Token } from './tokens.js';

/**
 * The nesting budget (STYLE §16, sqlparser-rs's RecursionCounter). Each recursive descent costs
 * one unit and so does each operator folded into a left-deep chain (`a OR b OR c ...`), so the
 * AST is never deeper than this: the printer, the planner and every other recursive walker are
 * safe from stack overflow. sqlparser-rs allows 50 levels of recursion; 500 keeps flat chains of
 * a few hundred terms usable and costs about 2,000 JavaScript frames at the deepest.
 */
export const MAX_DEPTH = 500;

/** A saved cursor position for the rare places that must try one reading, then another. */
export interface Mark {
  readonly index: number;
  readonly depth: number;
  /** The lexer before the token at `index`, to read it again once it left the lookahead. */
  readonly state: LexState;
}

/** Tokens behind the cursor kept for marks before they are dropped (and read again if needed). */
const KEEP_BEHIND = 256;

export class Parser {
  readonly #lexer: Lexer;
  /** Tokens read, from token number #base on, and the lexer state before each. */
  #tokens: Token[] = [];
  #states: LexState[] = [];
  #base = 0;
  #ended = false;
  #index = 0;
  #depth = 0;
  readonly #parseQuery: (p: Parser) => Query;

  /**
   * `parseQuery` is parser-queries.ts's, passed in by parser.ts: expressions hold subqueries and
   * queries hold expressions, and passing it keeps the two parser files from importing each other.
   */
  constructor(sql: string, parseQuery: (p: Parser) => Query) {
    checkTokens(sql);
    this.#lexer = new Lexer(sql);
    this.#parseQuery = parseQuery;
  }

  /** A query inside an expression (`IN (SELECT ...)`, `EXISTS (...)`, a scalar subquery). */
  parseSubquery(): Query {
    return this.#parseQuery(this);
  }

  /** The token `offset` places ahead; the final `eof` token repeats past the end. */
  peek(offset = 0): Token {
    if (this.#index - this.#base > 2 * KEEP_BEHIND) {
      const drop = this.#index - this.#base - KEEP_BEHIND;
      this.#tokens.splice(0, drop);
      this.#states.splice(0, drop);
      this.#base += drop;
    }
    const at = this.#index + offset - this.#base;
    while (this.#tokens.length <= at && !this.#ended) {
      this.#states.push(this.#lexer.save());
      if (this.#lexer.scan() === 'eof') this.#ended = true;
      this.#tokens.push(this.#lexer.token());
    }
    const tokens = this.#tokens;
    return tokens[Math.min(at, tokens.length - 1)]!;
  }

  /** Consumes and returns the next token (never moves past `eof`). */
  next(): Token {
    const token = this.peek();
    if (token.kind !== 'eof') this.#index++;
    return token;
  }

  pos(): Pos {
    const { line, column } = this.peek();
    return { line, column };
  }

  mark(): Mark {
    this.peek();
    return {
      index: this.#index,
      depth: this.#depth,
      state: this.#states[Math.min(this.#index - this.#base, this.#states.length - 1)]!,
    };
  }

  reset(mark: Mark): void {
    if (mark.index < this.#base) {
      this.#lexer.restore(mark.state);
      this.#tokens = [];
      this.#states = [];
      this.#base = mark.index;
      this.#ended = false;
    }
    this.#index = mark.index;
    this.#depth = mark.depth;
  }

  atEnd(): boolean {
    return this.peek().kind === 'eof';
  }

  /** Is the token `offset` ahead the unquoted word `keyword` (upper case)? */
  peekKeyword(keyword: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.kind === 'word' && token.upper === keyword;
  }

  /** Consumes `keyword` if it is next. */
  parseKeyword(keyword: string): boolean {
    if (!this.peekKeyword(keyword)) return false;
    this.#index++;
    return true;
  }

  /** Consumes the whole sequence if all of it is next, and nothing otherwise. */
  parseKeywords(...keywords: string[]): boolean {
    for (let k = 0; k < keywords.length; k++) if (!this.peekKeyword(keywords[k]!, k)) return false;
    this.#index += keywords.length;
    return true;
  }

  expectKeyword(keyword: string): Token {
    if (!this.peekKeyword(keyword)) this.expected(keyword);
    return this.next();
  }

  expectKeywords(...keywords: string[]): void {
    for (const keyword of keywords) this.expectKeyword(keyword);
  }

  peekOp(op: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.kind === 'op' && token.value === op;
  }

  consumeOp(op: string): boolean {
    if (!this.peekOp(op)) return false;
    this.#index++;
    return true;
  }

  expectOp(op: string): Token {
    if (!this.peekOp(op)) this.expected(op);
    return this.next();
  }

  /** Throws "Expected `what`, found: <token>" at the token (the next one by default). */
  expected(what: string, token: Token = this.peek()): never {
    throw new SqlParseError(`Expected ${what}, found: ${describeToken(token)}`, token);
  }

  /** Throws a parse error with a message of its own at `pos`. */
  fail(detail: string, pos: Pos = this.peek()): never {
    throw new SqlParseError(detail, pos);
  }

  /** Spends `units` of the nesting budget; give them back with `leave`. */
  enter(units = 1): void {
    this.#depth += units;
    if (this.#depth > MAX_DEPTH) this.fail('recursion limit exceeded');
  }

  leave(units = 1): void {
    this.#depth -= units;
  }

  /**
   * An identifier, as sqlparser-rs reads one: any word (keywords included, so a database may be
   * called `limit`), a "quoted" name, or a 'single-quoted' string (CnosDB's `drop database 'dd c'`).
   */
  parseIdentifier(): string {
    const token = this.peek();
    if (token.kind === 'word' || token.kind === 'quoted' || token.kind === 'string') {
      this.#index++;
      return token.value;
    }
    return this.expected('identifier');
  }

  /** `a.b.c` as ['a', 'b', 'c']. */
  parseObjectName(): ObjectName {
    const parts = [this.parseIdentifier()];
    while (this.consumeOp('.')) parts.push(this.parseIdentifier());
    return parts;
  }

  /** `( a, b, ... )` of identifiers. */
  parseIdentifierList(): string[] {
    this.expectOp('(');
    const names = [this.parseIdentifier()];
    while (this.consumeOp(',')) names.push(this.parseIdentifier());
    this.expectOp(')');
    return names;
  }

  /** A comma-separated list of one or more items. */
  parseCommaSeparated<T>(item: (p: Parser) => T): T[] {
    const items = [item(this)];
    while (this.consumeOp(',')) items.push(item(this));
    return items;
  }

  /** A string literal's value, or "Expected a string literal, found: X". */
  parseStringLiteral(): string {
    const token = this.peek();
    if (token.kind !== 'string') return this.expected('a string literal');
    this.#index++;
    return token.value;
  }
}

/**
 * The checks on the name of a new database, table, tenant, user or role: CnosDB's (no `/`, not
 * empty or blank, in its words), then Sundial's (core/object-names.ts), with CnosDB's code for
 * an invalid name, its parse error's.
 */
export function checkObjectName(name: string, pos: Pos): string {
  if (name.includes('/')) throw new SqlParseError(`not supported keyword contains '/': ${name}`, pos);
  if (name.trim() === '') throw new SqlParseError('Name cannot be empty or contain only spaces', pos);
  const problem = objectNameProblem(name);
  if (problem !== undefined) throw new SqlParseError(problem, pos);
  return name;
}
