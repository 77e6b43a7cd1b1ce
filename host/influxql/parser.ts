// InfluxQL text -> statements (ast.ts), by recursive descent after InfluxDB 1.x's influxql
// parser: the same operator precedence (OR < AND < comparisons < + - | ^ < * / % &), the same
// "found X, expected Y at line L, char C" errors, and statements separated by `;`. Statements
// InfluxQL has but Sundial does not run parse as `unsupported`, so that they fail alone, with a
// clear statement error, instead of failing the whole request as a syntax error.

import type { BinaryOp, Dimension, Expr, Field, Fill, Measurement, SelectStatement, ShowMeta, Statement, TagKeyMatch } from './ast.js';
import { InfluxQLParseError } from './errors.js';
import { durationNanos, Lexer, type Token } from './lexer.js';

/** Deepest expression nesting accepted (the SQL parser's cap; a stack overflow is no answer). */
const MAX_DEPTH = 200;

const STATEMENT_STARTS = 'SELECT, DELETE, SHOW, CREATE, DROP, EXPLAIN, GRANT, REVOKE, ALTER, SET, KILL';

/** InfluxQL's keywords: never an unquoted name in an expression (quote them: "from"); DISTINCT is also a function. */
const KEYWORDS = new Set(
  ('ALL ALTER ANALYZE ANY AS ASC BEGIN BY CARDINALITY CREATE CONTINUOUS DATABASE DATABASES DEFAULT DELETE DESC DESTINATIONS ' +
    'DIAGNOSTICS DROP DURATION END EVERY EXACT EXPLAIN FIELD FOR FROM GRANT GRANTS GROUP GROUPS IN INF INSERT INTO KEY ' +
    'KEYS KILL LIMIT MEASUREMENT MEASUREMENTS NAME OFFSET ON ORDER PASSWORD POLICY POLICIES PRIVILEGES QUERIES QUERY READ ' +
    'REPLICATION RESAMPLE RETENTION REVOKE SELECT SERIES SET SHARD SHARDS SLIMIT SOFFSET STATS SUBSCRIPTION SUBSCRIPTIONS ' +
    'TAG TO USER USERS VALUES WHERE WITH WRITE').split(' '),
);

const PRECEDENCE: Readonly<Record<string, number>> = {
  OR: 1,
  AND: 2,
  '=': 4, '!=': 4, '<': 4, '<=': 4, '>': 4, '>=': 4, '=~': 4, '!~': 4,
  '+': 5, '-': 5, '|': 5, '^': 5,
  '*': 6, '/': 6, '%': 6, '&': 6,
};

/** Parses every `;`-separated statement of `text` (empty ones are skipped, as InfluxDB does). */
export function parseInfluxQL(text: string): Statement[] {
  return new Parser(text).statements();
}

class Parser {
  readonly #lx: Lexer;
  #tok: Token;
  #depth = 0;

  constructor(text: string) {
    this.#lx = new Lexer(text);
    this.#tok = this.#lx.next();
  }

  statements(): Statement[] {
    const out: Statement[] = [];
    for (;;) {
      while (this.#isOp(';')) this.#advance();
      if (this.#tok.kind === 'eof') return out;
      out.push(this.#statement());
      if (this.#atEof()) return out;
      if (!this.#isOp(';')) this.#fail('expected ;');
    }
  }

  // --- token helpers -------------------------------------------------------------------------

  #advance(): Token {
    const t = this.#tok;
    this.#tok = this.#lx.next();
    return t;
  }

  /** A method, not an inline test: TypeScript narrows `this.#tok` and forgets that #advance changes it. */
  #atEof(): boolean {
    return this.#tok.kind === 'eof';
  }

  #isOp(op: string): boolean {
    return this.#tok.kind === 'op' && this.#tok.text === op;
  }

  #isKeyword(word: string): boolean {
    return this.#tok.kind === 'ident' && this.#tok.upper === word;
  }

  #acceptKeyword(word: string): boolean {
    if (!this.#isKeyword(word)) return false;
    this.#advance();
    return true;
  }

  #expectKeyword(word: string): void {
    if (!this.#acceptKeyword(word)) this.#fail(`expected ${word}`);
  }

  #expectOp(op: string): void {
    if (!this.#isOp(op)) this.#fail(`expected ${op}`);
    this.#advance();
  }

  #found(t: Token = this.#tok): string {
    if (t.kind === 'eof') return 'EOF';
    if (t.kind === 'string') return `'${t.text}'`;
    if (t.kind === 'quotedIdent') return `"${t.text}"`;
    return t.text;
  }

  #fail(expected: string, t: Token = this.#tok): never {
    throw new InfluxQLParseError(`found ${this.#found(t)}, ${expected}`, t.line, t.char);
  }

  /** An identifier, quoted or not (keywords allowed where InfluxQL allows them: names). */
  #ident(): string {
    const t = this.#tok;
    if (t.kind !== 'ident' && t.kind !== 'quotedIdent') this.#fail('expected identifier');
    this.#advance();
    return t.text;
  }

  #nonNegativeInt(what: string): number {
    const t = this.#tok;
    if (t.kind !== 'integer') this.#fail('expected integer');
    this.#advance();
    const v = Number(t.text);
    if (!Number.isSafeInteger(v)) throw new InfluxQLParseError(`unable to parse ${what} ${t.text}`, t.line, t.char);
    return v;
  }

  #regex(): string {
    const r = this.#lx.regex();
    if (r === undefined) this.#fail('expected regex');
    this.#tok = this.#lx.next();
    return r.text;
  }

  /** The current token is `/`: re-scan it as a regex (the lexer read it as division). */
  #regexAtSlash(): string {
    const t = this.#tok;
    this.#lx.reset({ pos: t.offset, line: t.line, lineStart: t.offset - (t.char - 1) });
    return this.#regex();
  }

  // --- statements ----------------------------------------------------------------------------

  #statement(): Statement {
    const t = this.#tok;
    if (t.kind !== 'ident') this.#fail(`expected ${STATEMENT_STARTS}`);
    switch (t.upper) {
      case 'SELECT':
        this.#advance();
        return this.#select();
      case 'SHOW':
        this.#advance();
        return this.#show();
      case 'CREATE':
        this.#advance();
        if (this.#acceptKeyword('DATABASE')) return this.#createDatabase();
        return this.#unsupported(`CREATE ${this.#tok.text.toUpperCase()}`);
      case 'DROP':
        this.#advance();
        if (this.#acceptKeyword('DATABASE')) return { kind: 'dropDatabase', name: this.#ident() };
        if (this.#acceptKeyword('MEASUREMENT')) return { kind: 'dropMeasurement', name: this.#ident() };
        return this.#unsupported(`DROP ${this.#tok.text.toUpperCase()}`);
      case 'DELETE':
      case 'EXPLAIN':
      case 'GRANT':
      case 'REVOKE':
      case 'ALTER':
      case 'SET':
      case 'KILL':
        this.#advance();
        return this.#unsupported(t.upper);
      default:
        return this.#fail(`expected ${STATEMENT_STARTS}`);
    }
  }

  /** Skips to the end of the statement: it parses, and fails alone when run. */
  #unsupported(what: string): Statement {
    while (this.#tok.kind !== 'eof' && !this.#isOp(';')) {
      if (this.#isOp('=~') || this.#isOp('!~')) {
        this.#advance();
        if (this.#isOp('/')) this.#regexAtSlash();
        continue;
      }
      this.#advance();
    }
    return { kind: 'unsupported', what };
  }

  #createDatabase(): Statement {
    const name = this.#ident();
    let durationNs: bigint | undefined;
    if (this.#acceptKeyword('WITH')) {
      for (;;) {
        if (this.#acceptKeyword('DURATION')) durationNs = this.#duration(true);
        else if (this.#acceptKeyword('REPLICATION')) this.#nonNegativeInt('replication');
        else if (this.#acceptKeyword('SHARD')) {
          this.#expectKeyword('DURATION');
          this.#duration(false);
        } else if (this.#acceptKeyword('NAME')) this.#ident();
        else break;
      }
    }
    return durationNs === undefined ? { kind: 'createDatabase', name } : { kind: 'createDatabase', name, durationNs };
  }

  /** A duration literal; `INF` (0: keep forever) where allowed. */
  #duration(infAllowed: boolean): bigint {
    const t = this.#tok;
    if (infAllowed && t.kind === 'ident' && t.upper === 'INF') {
      this.#advance();
      return 0n;
    }
    if (t.kind !== 'duration') this.#fail('expected duration');
    this.#advance();
    return durationNanos(t.text)!;
  }

  #show(): Statement {
    const t = this.#tok;
    if (t.kind !== 'ident') this.#fail('expected CONTINUOUS, DATABASES, DIAGNOSTICS, FIELD, GRANTS, MEASUREMENT, MEASUREMENTS, QUERIES, RETENTION, SERIES, SHARD, SHARDS, STATS, SUBSCRIPTIONS, TAG, USERS');
    switch (t.upper) {
      case 'DATABASES':
        this.#advance();
        return { kind: 'showDatabases' };
      case 'USERS':
        this.#advance();
        return { kind: 'showUsers' };
      case 'MEASUREMENTS':
        this.#advance();
        return this.#showMeasurements();
      case 'SERIES':
        this.#advance();
        if (this.#isKeyword('CARDINALITY') || this.#isKeyword('EXACT')) return this.#unsupported('SHOW SERIES CARDINALITY');
        return { kind: 'showSeries', ...this.#showMeta(true, true) };
      case 'FIELD':
        this.#advance();
        if (this.#isKeyword('KEY')) return this.#unsupported('SHOW FIELD KEY CARDINALITY');
        this.#expectKeyword('KEYS');
        return { kind: 'showFieldKeys', ...this.#showMeta(true, false) };
      case 'TAG': {
        this.#advance();
        if (this.#acceptKeyword('KEYS')) return { kind: 'showTagKeys', ...this.#showMeta(true, true) };
        if (this.#isKeyword('KEY')) return this.#unsupported('SHOW TAG KEY CARDINALITY');
        this.#expectKeyword('VALUES');
        if (this.#isKeyword('CARDINALITY') || this.#isKeyword('EXACT')) return this.#unsupported('SHOW TAG VALUES CARDINALITY');
        const database = this.#onDatabase();
        const sources = this.#acceptKeyword('FROM') ? this.#sources() : [];
        this.#expectKeyword('WITH');
        this.#expectKeyword('KEY');
        const keys = this.#tagKeyMatch();
        const rest = this.#showMeta(false, true);
        return { kind: 'showTagValues', keys, ...rest, sources, ...(database === undefined ? {} : { database }) };
      }
      case 'RETENTION': {
        this.#advance();
        this.#expectKeyword('POLICIES');
        const database = this.#onDatabase();
        return database === undefined ? { kind: 'showRetentionPolicies' } : { kind: 'showRetentionPolicies', database };
      }
      default:
        this.#advance();
        return this.#unsupported(`SHOW ${t.upper}`);
    }
  }

  #onDatabase(): string | undefined {
    return this.#acceptKeyword('ON') ? this.#ident() : undefined;
  }

  /** `[ON db] [FROM sources] [WHERE cond] [LIMIT n] [OFFSET n]`, the parts a SHOW takes. */
  #showMeta(from: boolean, where: boolean): ShowMeta {
    const database = this.#onDatabase();
    const sources = from && this.#acceptKeyword('FROM') ? this.#sources() : [];
    const condition = where && this.#acceptKeyword('WHERE') ? this.#expr() : undefined;
    const limit = this.#acceptKeyword('LIMIT') ? this.#nonNegativeInt('LIMIT') : undefined;
    const offset = this.#acceptKeyword('OFFSET') ? this.#nonNegativeInt('OFFSET') : undefined;
    return { sources, ...(database === undefined ? {} : { database }), ...(condition === undefined ? {} : { condition }), ...(limit === undefined ? {} : { limit }), ...(offset === undefined ? {} : { offset }) };
  }

  #showMeasurements(): Statement {
    const database = this.#onDatabase();
    let match: { op: '=' | '!=' | '=~' | '!~'; value: string } | undefined;
    if (this.#acceptKeyword('WITH')) {
      this.#expectKeyword('MEASUREMENT');
      const op = this.#tok;
      if (op.kind !== 'op' || !['=', '!=', '=~', '!~'].includes(op.text)) this.#fail('expected =, !=, =~, !~');
      this.#advance();
      const value = op.text === '=~' || op.text === '!~' ? (this.#isOp('/') ? this.#regexAtSlash() : this.#fail('expected regex')) : this.#ident();
      match = { op: op.text as '=' | '!=' | '=~' | '!~', value };
    }
    const rest = this.#showMeta(false, true);
    return { kind: 'showMeasurements', ...rest, ...(database === undefined ? {} : { database }), ...(match === undefined ? {} : { match }) };
  }

  #tagKeyMatch(): TagKeyMatch {
    const t = this.#tok;
    if (this.#acceptKeyword('IN')) {
      this.#expectOp('(');
      const keys = [this.#ident()];
      while (this.#isOp(',')) {
        this.#advance();
        keys.push(this.#ident());
      }
      this.#expectOp(')');
      return { op: '=', keys };
    }
    if (t.kind === 'op' && (t.text === '=' || t.text === '!=')) {
      this.#advance();
      return { op: t.text, keys: [this.#ident()] };
    }
    if (t.kind === 'op' && (t.text === '=~' || t.text === '!~')) {
      this.#advance();
      if (!this.#isOp('/')) this.#fail('expected regex');
      return { op: t.text, regex: this.#regexAtSlash() };
    }
    return this.#fail('expected =, !=, =~, !~, IN');
  }

  // --- SELECT ----------------------------------------------------------------------------------

  #select(): SelectStatement {
    const fields = this.#fields();
    let into: Measurement | undefined;
    if (this.#acceptKeyword('INTO')) into = this.#measurement();
    this.#expectKeyword('FROM');
    const sources = this.#sources();
    const condition = this.#acceptKeyword('WHERE') ? this.#expr() : undefined;
    let dimensions: Dimension[] = [];
    if (this.#acceptKeyword('GROUP')) {
      this.#expectKeyword('BY');
      dimensions = this.#dimensions();
    }
    let fill: Fill = { kind: 'null' };
    let fillWritten = false;
    if (this.#isKeyword('FILL')) {
      fill = this.#fill();
      fillWritten = true;
    }
    let descending = false;
    if (this.#acceptKeyword('ORDER')) {
      this.#expectKeyword('BY');
      descending = this.#orderBy();
    }
    const limit = this.#acceptKeyword('LIMIT') ? this.#nonNegativeInt('LIMIT') : undefined;
    const offset = this.#acceptKeyword('OFFSET') ? this.#nonNegativeInt('OFFSET') : undefined;
    const slimit = this.#acceptKeyword('SLIMIT') ? this.#nonNegativeInt('SLIMIT') : undefined;
    const soffset = this.#acceptKeyword('SOFFSET') ? this.#nonNegativeInt('SOFFSET') : undefined;
    let tz: string | undefined;
    if (this.#acceptKeyword('TZ')) {
      this.#expectOp('(');
      if (this.#tok.kind !== 'string') this.#fail('expected string');
      tz = this.#advance().text;
      this.#expectOp(')');
    }
    return {
      kind: 'select',
      fields,
      sources,
      dimensions,
      fill,
      fillWritten,
      descending,
      ...(condition === undefined ? {} : { condition }),
      ...(limit === undefined ? {} : { limit }),
      ...(offset === undefined ? {} : { offset }),
      ...(slimit === undefined ? {} : { slimit }),
      ...(soffset === undefined ? {} : { soffset }),
      ...(into === undefined ? {} : { into }),
      ...(tz === undefined ? {} : { tz }),
    };
  }

  #fields(): Field[] {
    const out: Field[] = [];
    for (;;) {
      const expr = this.#expr(true);
      let alias: string | undefined;
      if (this.#acceptKeyword('AS')) alias = this.#ident();
      out.push(alias === undefined ? { expr } : { expr, alias });
      if (!this.#isOp(',')) return out;
      this.#advance();
    }
  }

  #sources(): Measurement[] {
    const out = [this.#measurement()];
    while (this.#isOp(',')) {
      this.#advance();
      out.push(this.#measurement());
    }
    return out;
  }

  /** `m`, `rp.m`, `db.rp.m`, `db..m`, the last part possibly a `/regex/`. */
  #measurement(): Measurement {
    const t0 = this.#tok;
    const parts: Array<string | undefined> = [];
    let regex: string | undefined;
    for (;;) {
      if (this.#isOp('/')) {
        regex = this.#regexAtSlash();
        parts.push(undefined);
        break;
      }
      if (this.#isOp('.')) {
        parts.push(undefined);
        this.#advance();
        continue;
      }
      const t = this.#tok;
      if (t.kind !== 'ident' && t.kind !== 'quotedIdent') this.#fail('expected identifier, regex');
      parts.push(this.#advance().text);
      if (!this.#isOp('.')) break;
      this.#advance();
    }
    if (parts.length > 3) this.#fail('expected identifier', t0);
    const m: { database?: string; retentionPolicy?: string; name?: string; regex?: string } = {};
    const name = parts[parts.length - 1];
    if (parts.length === 3 && parts[0] !== undefined) m.database = parts[0];
    const rp = parts.length >= 2 ? parts[parts.length - 2] : undefined;
    if (rp !== undefined) m.retentionPolicy = rp;
    if (regex !== undefined) m.regex = regex;
    else if (name !== undefined) m.name = name;
    else this.#fail('expected identifier');
    return m;
  }

  #dimensions(): Dimension[] {
    const out: Dimension[] = [];
    for (;;) {
      if (this.#isOp('*')) {
        this.#advance();
        out.push({ kind: 'wildcard' });
      } else if (this.#isOp('/')) out.push({ kind: 'regex', pattern: this.#regexAtSlash() });
      else if (this.#isKeyword('TIME')) {
        const t = this.#advance();
        if (!this.#isOp('(')) {
          out.push({ kind: 'tag', name: t.text });
        } else {
          this.#advance();
          const intervalNs = this.#duration(false);
          let offsetNs = 0n;
          if (this.#isOp(',')) {
            this.#advance();
            if (this.#isKeyword('NOW')) {
              throw new InfluxQLParseError('time() offset of now() is not supported', this.#tok.line, this.#tok.char);
            }
            const negative = this.#isOp('-');
            if (negative) this.#advance();
            offsetNs = this.#duration(false) * (negative ? -1n : 1n);
          }
          this.#expectOp(')');
          if (intervalNs <= 0n) throw new InfluxQLParseError('time dimension must have a positive interval', t.line, t.char);
          out.push({ kind: 'time', intervalNs, offsetNs });
        }
      } else out.push({ kind: 'tag', name: this.#ident() });
      if (!this.#isOp(',')) return out;
      this.#advance();
    }
  }

  #fill(): Fill {
    this.#advance();
    this.#expectOp('(');
    const t = this.#tok;
    let fill: Fill;
    if (t.kind === 'ident' && ['NULL', 'NONE', 'PREVIOUS', 'LINEAR'].includes(t.upper)) {
      this.#advance();
      fill = { kind: t.upper.toLowerCase() as 'null' | 'none' | 'previous' | 'linear' };
    } else {
      const negative = this.#isOp('-');
      if (negative) this.#advance();
      const n = this.#tok;
      if (n.kind === 'integer') fill = { kind: 'value', value: (negative ? -1n : 1n) * BigInt(n.text) };
      else if (n.kind === 'number') fill = { kind: 'value', value: (negative ? -1 : 1) * Number(n.text) };
      else throw new InfluxQLParseError('expected number argument in fill()', n.line, n.char);
      this.#advance();
    }
    this.#expectOp(')');
    return fill;
  }

  /** `ORDER BY time [ASC|DESC]` (InfluxQL sorts by time only); true for descending. */
  #orderBy(): boolean {
    const t = this.#tok;
    let desc = false;
    if (this.#acceptKeyword('TIME')) {
      if (this.#acceptKeyword('DESC')) desc = true;
      else this.#acceptKeyword('ASC');
    } else if (this.#acceptKeyword('DESC')) desc = true;
    else if (!this.#acceptKeyword('ASC')) throw new InfluxQLParseError('only ORDER BY time supported at this time', t.line, t.char);
    if (this.#isOp(',')) throw new InfluxQLParseError('only ORDER BY time supported at this time', t.line, t.char);
    return desc;
  }

  // --- expressions ---------------------------------------------------------------------------

  #expr(selectItem = false): Expr {
    if (++this.#depth > MAX_DEPTH) throw new InfluxQLParseError(`expression nested deeper than ${MAX_DEPTH}`, this.#tok.line, this.#tok.char);
    try {
      return this.#binary(0, selectItem);
    } finally {
      this.#depth--;
    }
  }

  #binaryOp(): BinaryOp | undefined {
    const t = this.#tok;
    if (t.kind === 'ident' && (t.upper === 'AND' || t.upper === 'OR')) return t.upper;
    if (t.kind === 'op' && PRECEDENCE[t.text] !== undefined) return t.text as BinaryOp;
    return undefined;
  }

  #binary(minPrec: number, selectItem: boolean): Expr {
    let left = this.#unary(selectItem);
    for (;;) {
      const op = this.#binaryOp();
      if (op === undefined) return left;
      const prec = PRECEDENCE[op]!;
      if (prec <= minPrec) return left;
      this.#advance();
      let right: Expr;
      if (op === '=~' || op === '!~') {
        if (!this.#isOp('/')) this.#fail('expected regex');
        right = { kind: 'regex', pattern: this.#regexAtSlash() };
      } else right = this.#binary(prec, false);
      left = { kind: 'binary', op, left, right };
    }
  }

  #unary(selectItem: boolean): Expr {
    if (this.#isOp('-') || this.#isOp('+')) {
      const negative = this.#advance().text === '-';
      const t = this.#tok;
      if (t.kind === 'integer' || t.kind === 'number' || t.kind === 'duration') {
        const e = this.#primary(false);
        if (!negative) return e;
        if (e.kind === 'integer') return { kind: 'integer', value: -e.value };
        if (e.kind === 'number') return { kind: 'number', value: -e.value, text: `-${e.text}` };
        if (e.kind === 'duration') return { kind: 'duration', ns: -e.ns, text: `-${e.text}` };
        return e;
      }
      const operand = this.#unary(false);
      return negative ? { kind: 'binary', op: '*', left: { kind: 'integer', value: -1n }, right: operand } : operand;
    }
    return this.#primary(selectItem);
  }

  #primary(selectItem: boolean): Expr {
    const t = this.#tok;
    switch (t.kind) {
      case 'integer':
        this.#advance();
        return { kind: 'integer', value: BigInt(t.text) };
      case 'number':
        this.#advance();
        return { kind: 'number', value: Number(t.text), text: t.text };
      case 'duration':
        this.#advance();
        return { kind: 'duration', ns: durationNanos(t.text)!, text: t.text };
      case 'string':
        this.#advance();
        return { kind: 'string', value: t.text };
      case 'quotedIdent':
        this.#advance();
        return this.#varRefCast(t.text);
      case 'ident': {
        if (t.upper === 'TRUE' || t.upper === 'FALSE') {
          this.#advance();
          return { kind: 'boolean', value: t.upper === 'TRUE' };
        }
        if (KEYWORDS.has(t.upper)) break;
        this.#advance();
        if (this.#isOp('(')) return this.#call(t.text.toLowerCase());
        return this.#varRefCast(t.text);
      }
      case 'op':
        if (t.text === '(') {
          this.#advance();
          const inner = this.#expr();
          this.#expectOp(')');
          return { kind: 'paren', expr: inner };
        }
        if (t.text === '*' && selectItem) {
          this.#advance();
          return this.#wildcardCast();
        }
        if (t.text === '/') return { kind: 'regex', pattern: this.#regexAtSlash() };
        break;
      default:
        break;
    }
    return this.#fail('expected identifier, string, number, bool');
  }

  #varRefCast(name: string): Expr {
    if (!this.#isOp('::')) return { kind: 'varRef', name };
    this.#advance();
    const type = this.#ident().toLowerCase();
    return { kind: 'varRef', name, type };
  }

  #wildcardCast(): Expr {
    if (!this.#isOp('::')) return { kind: 'wildcard' };
    this.#advance();
    const t = this.#tok;
    const type = this.#ident().toLowerCase();
    if (type !== 'field' && type !== 'tag') this.#fail('expected field, tag', t);
    return { kind: 'wildcard', type };
  }

  #call(name: string): Expr {
    this.#advance(); // (
    const args: Expr[] = [];
    if (!this.#isOp(')')) {
      for (;;) {
        if (this.#isOp('*')) {
          this.#advance();
          args.push(this.#wildcardCast());
        } else args.push(this.#expr());
        if (!this.#isOp(',')) break;
        this.#advance();
      }
    }
    this.#expectOp(')');
    return { kind: 'call', name, args };
  }
}
