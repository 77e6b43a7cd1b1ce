// The InfluxQL parser's base: tokens (lexer.ts) with one token of look-ahead, InfluxDB's
// "found X, expected Y at line L, char C" errors, and expressions by precedence climbing with
// InfluxDB 1.x's precedence (OR < AND < comparisons < + - | ^ < * / % &). parser.ts adds the
// statements.

import type { BinaryOp, Expr } from './ast.js';
import { InfluxQLParseError } from './errors.js';
import { durationNanos, Lexer, type Token } from './lexer.js';

/** Deepest expression nesting accepted (the SQL parser's cap; a stack overflow is no answer). */
const MAX_DEPTH = 200;

/** InfluxQL's keywords: never an unquoted name in an expression (quote them: "from"); DISTINCT is also a function. */
const KEYWORDS = new Set(
  (
    'ALL ALTER ANALYZE ANY AS ASC BEGIN BY CARDINALITY CREATE CONTINUOUS DATABASE DATABASES DEFAULT DELETE DESC DESTINATIONS ' +
    'DIAGNOSTICS DROP DURATION END EVERY EXACT EXPLAIN FIELD FOR FROM GRANT GRANTS GROUP GROUPS IN INF INSERT INTO KEY ' +
    'KEYS KILL LIMIT MEASUREMENT MEASUREMENTS NAME OFFSET ON ORDER PASSWORD POLICY POLICIES PRIVILEGES QUERIES QUERY READ ' +
    'REPLICATION RESAMPLE RETENTION REVOKE SELECT SERIES SET SHARD SHARDS SLIMIT SOFFSET STATS SUBSCRIPTION SUBSCRIPTIONS ' +
    'TAG TO USER USERS VALUES WHERE WITH WRITE'
  ).split(' '),
);

const PRECEDENCE: Readonly<Record<string, number>> = {
  OR: 1,
  AND: 2,
  '=': 4,
  '!=': 4,
  '<': 4,
  '<=': 4,
  '>': 4,
  '>=': 4,
  '=~': 4,
  '!~': 4,
  '+': 5,
  '-': 5,
  '|': 5,
  '^': 5,
  '*': 6,
  '/': 6,
  '%': 6,
  '&': 6,
};

export class ParserBase {
  protected readonly lx: Lexer;
  protected tok: Token;
  private depth = 0;

  constructor(text: string) {
    this.lx = new Lexer(text);
    this.tok = this.lx.next();
  }

  // --- token helpers -------------------------------------------------------------------------

  protected advance(): Token {
    const t = this.tok;
    this.tok = this.lx.next();
    return t;
  }

  /** A method, not an inline test: TypeScript narrows `this.tok` and forgets that advance() changes it. */
  protected atEof(): boolean {
    return this.tok.kind === 'eof';
  }

  protected isOp(op: string): boolean {
    return this.tok.kind === 'op' && this.tok.text === op;
  }

  protected isKeyword(word: string): boolean {
    return this.tok.kind === 'ident' && this.tok.upper === word;
  }

  protected acceptKeyword(word: string): boolean {
    if (!this.isKeyword(word)) return false;
    this.advance();
    return true;
  }

  protected expectKeyword(word: string): void {
    if (!this.acceptKeyword(word)) this.fail(`expected ${word}`);
  }

  protected expectOp(op: string): void {
    if (!this.isOp(op)) this.fail(`expected ${op}`);
    this.advance();
  }

  protected found(t: Token = this.tok): string {
    if (t.kind === 'eof') return 'EOF';
    if (t.kind === 'string') return `'${t.text}'`;
    if (t.kind === 'quotedIdent') return `"${t.text}"`;
    return t.text;
  }

  protected fail(expected: string, t: Token = this.tok): never {
    throw new InfluxQLParseError(`found ${this.found(t)}, ${expected}`, t.line, t.char);
  }

  /** An identifier, quoted or not (keywords allowed where InfluxQL allows them: names). */
  protected ident(): string {
    const t = this.tok;
    if (t.kind !== 'ident' && t.kind !== 'quotedIdent') this.fail('expected identifier');
    this.advance();
    return t.text;
  }

  protected nonNegativeInt(what: string): number {
    const t = this.tok;
    if (t.kind !== 'integer') this.fail('expected integer');
    this.advance();
    const v = Number(t.text);
    if (!Number.isSafeInteger(v)) throw new InfluxQLParseError(`unable to parse ${what} ${t.text}`, t.line, t.char);
    return v;
  }

  protected regex(): string {
    const r = this.lx.regex();
    if (r === undefined) this.fail('expected regex');
    this.tok = this.lx.next();
    return r.text;
  }

  /** The current token is `/`: re-scan it as a regex (the lexer read it as division). */
  protected regexAtSlash(): string {
    const t = this.tok;
    this.lx.reset({ pos: t.offset, line: t.line, lineStart: t.offset - (t.char - 1) });
    return this.regex();
  }

  /** A duration literal; `INF` (0: keep forever) where allowed. */
  protected duration(infAllowed: boolean): bigint {
    const t = this.tok;
    if (infAllowed && t.kind === 'ident' && t.upper === 'INF') {
      this.advance();
      return 0n;
    }
    if (t.kind !== 'duration') this.fail('expected duration');
    this.advance();
    return durationNanos(t.text)!;
  }

  // --- expressions ---------------------------------------------------------------------------

  protected expr(selectItem = false): Expr {
    if (++this.depth > MAX_DEPTH)
      throw new InfluxQLParseError(`expression nested deeper than ${MAX_DEPTH}`, this.tok.line, this.tok.char);
    try {
      return this.binary(0, selectItem);
    } finally {
      this.depth--;
    }
  }

  private binaryOp(): BinaryOp | undefined {
    const t = this.tok;
    if (t.kind === 'ident' && (t.upper === 'AND' || t.upper === 'OR')) return t.upper;
    if (t.kind === 'op' && PRECEDENCE[t.text] !== undefined) return t.text as BinaryOp;
    return undefined;
  }

  private binary(minPrec: number, selectItem: boolean): Expr {
    let left = this.unary(selectItem);
    for (;;) {
      const op = this.binaryOp();
      if (op === undefined) return left;
      const prec = PRECEDENCE[op]!;
      if (prec <= minPrec) return left;
      this.advance();
      let right: Expr;
      if (op === '=~' || op === '!~') {
        if (!this.isOp('/')) this.fail('expected regex');
        right = { kind: 'regex', pattern: this.regexAtSlash() };
      } else right = this.binary(prec, false);
      left = { kind: 'binary', op, left, right };
    }
  }

  private unary(selectItem: boolean): Expr {
    if (this.isOp('-') || this.isOp('+')) {
      const negative = this.advance().text === '-';
      const t = this.tok;
      if (t.kind === 'integer' || t.kind === 'number' || t.kind === 'duration') {
        const e = this.primary(false);
        if (!negative) return e;
        if (e.kind === 'integer') return { kind: 'integer', value: -e.value };
        if (e.kind === 'number') return { kind: 'number', value: -e.value, text: `-${e.text}` };
        if (e.kind === 'duration') return { kind: 'duration', ns: -e.ns, text: `-${e.text}` };
        return e;
      }
      const operand = this.unary(false);
      return negative ? { kind: 'binary', op: '*', left: { kind: 'integer', value: -1n }, right: operand } : operand;
    }
    return this.primary(selectItem);
  }

  private primary(selectItem: boolean): Expr {
    const t = this.tok;
    switch (t.kind) {
      case 'integer':
        this.advance();
        return { kind: 'integer', value: BigInt(t.text) };
      case 'number':
        this.advance();
        return { kind: 'number', value: Number(t.text), text: t.text };
      case 'duration':
        this.advance();
        return { kind: 'duration', ns: durationNanos(t.text)!, text: t.text };
      case 'string':
        this.advance();
        return { kind: 'string', value: t.text };
      case 'quotedIdent':
        this.advance();
        return this.varRefCast(t.text);
      case 'ident': {
        if (t.upper === 'TRUE' || t.upper === 'FALSE') {
          this.advance();
          return { kind: 'boolean', value: t.upper === 'TRUE' };
        }
        if (KEYWORDS.has(t.upper)) break;
        this.advance();
        if (this.isOp('(')) return this.call(t.text.toLowerCase());
        return this.varRefCast(t.text);
      }
      case 'op':
        if (t.text === '(') {
          this.advance();
          const inner = this.expr();
          this.expectOp(')');
          return { kind: 'paren', expr: inner };
        }
        if (t.text === '*' && selectItem) {
          this.advance();
          return this.wildcardCast();
        }
        if (t.text === '/') return { kind: 'regex', pattern: this.regexAtSlash() };
        break;
      default:
        break;
    }
    return this.fail('expected identifier, string, number, bool');
  }

  private varRefCast(name: string): Expr {
    if (!this.isOp('::')) return { kind: 'varRef', name };
    this.advance();
    const type = this.ident().toLowerCase();
    return { kind: 'varRef', name, type };
  }

  protected wildcardCast(): Expr {
    if (!this.isOp('::')) return { kind: 'wildcard' };
    this.advance();
    const t = this.tok;
    const type = this.ident().toLowerCase();
    if (type !== 'field' && type !== 'tag') this.fail('expected field, tag', t);
    return { kind: 'wildcard', type };
  }

  private call(name: string): Expr {
    this.advance(); // (
    const args: Expr[] = [];
    if (!this.isOp(')')) {
      for (;;) {
        if (this.isOp('*')) {
          this.advance();
          args.push(this.wildcardCast());
        } else args.push(this.expr());
        if (!this.isOp(',')) break;
        this.advance();
      }
    }
    this.expectOp(')');
    return { kind: 'call', name, args };
  }
}
