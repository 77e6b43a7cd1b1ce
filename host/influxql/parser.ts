// InfluxQL text -> statements (ast.ts), by recursive descent after InfluxDB 1.x's influxql
// parser (expressions and tokens in parser-base.ts), statements separated by `;`. Statements
// InfluxQL has but Sundial does not run parse as `unsupported`, so that they fail alone, with a
// clear statement error, instead of failing the whole request as a syntax error.

import type { Dimension, Field, Fill, Measurement, SelectStatement, ShowMeta, Statement, TagKeyMatch } from './ast.js';
import { InfluxQLParseError } from './errors.js';
import { ParserBase } from './parser-base.js';

const STATEMENT_STARTS = 'SELECT, DELETE, SHOW, CREATE, DROP, EXPLAIN, GRANT, REVOKE, ALTER, SET, KILL';

/** Parses every `;`-separated statement of `text` (empty ones are skipped, as InfluxDB does). */
export function parseInfluxQL(text: string): Statement[] {
  return new Parser(text).statements();
}

class Parser extends ParserBase {
  statements(): Statement[] {
    const out: Statement[] = [];
    for (;;) {
      while (this.isOp(';')) this.advance();
      if (this.tok.kind === 'eof') return out;
      out.push(this.statement());
      if (this.atEof()) return out;
      if (!this.isOp(';')) this.fail('expected ;');
    }
  }

  statement(): Statement {
    const t = this.tok;
    if (t.kind !== 'ident') this.fail(`expected ${STATEMENT_STARTS}`);
    switch (t.upper) {
      case 'SELECT':
        this.advance();
        return this.select();
      case 'SHOW':
        this.advance();
        return this.show();
      case 'CREATE':
        this.advance();
        if (this.acceptKeyword('DATABASE')) return this.createDatabase();
        return this.unsupported(`CREATE ${this.tok.text.toUpperCase()}`);
      case 'DROP':
        this.advance();
        if (this.acceptKeyword('DATABASE')) return { kind: 'dropDatabase', name: this.ident() };
        if (this.acceptKeyword('MEASUREMENT')) return { kind: 'dropMeasurement', name: this.ident() };
        return this.unsupported(`DROP ${this.tok.text.toUpperCase()}`);
      case 'DELETE':
      case 'EXPLAIN':
      case 'GRANT':
      case 'REVOKE':
      case 'ALTER':
      case 'SET':
      case 'KILL':
        this.advance();
        return this.unsupported(t.upper);
      default:
        return this.fail(`expected ${STATEMENT_STARTS}`);
    }
  }

  /** Skips to the end of the statement: it parses, and fails alone when run. */
  unsupported(what: string): Statement {
    while (this.tok.kind !== 'eof' && !this.isOp(';')) {
      if (this.isOp('=~') || this.isOp('!~')) {
        this.advance();
        if (this.isOp('/')) this.regexAtSlash();
        continue;
      }
      this.advance();
    }
    return { kind: 'unsupported', what };
  }

  createDatabase(): Statement {
    const name = this.ident();
    let durationNs: bigint | undefined;
    if (this.acceptKeyword('WITH')) {
      for (;;) {
        if (this.acceptKeyword('DURATION')) durationNs = this.duration(true);
        else if (this.acceptKeyword('REPLICATION')) this.nonNegativeInt('replication');
        else if (this.acceptKeyword('SHARD')) {
          this.expectKeyword('DURATION');
          this.duration(false);
        } else if (this.acceptKeyword('NAME')) this.ident();
        else break;
      }
    }
    return durationNs === undefined ? { kind: 'createDatabase', name } : { kind: 'createDatabase', name, durationNs };
  }

  show(): Statement {
    const t = this.tok;
    if (t.kind !== 'ident')
      this.fail(
        'expected CONTINUOUS, DATABASES, DIAGNOSTICS, FIELD, GRANTS, MEASUREMENT, MEASUREMENTS, QUERIES, RETENTION, SERIES, SHARD, SHARDS, STATS, SUBSCRIPTIONS, TAG, USERS',
      );
    switch (t.upper) {
      case 'DATABASES':
        this.advance();
        return { kind: 'showDatabases' };
      case 'USERS':
        this.advance();
        return { kind: 'showUsers' };
      case 'MEASUREMENTS':
        this.advance();
        return this.showMeasurements();
      case 'SERIES':
        this.advance();
        if (this.isKeyword('CARDINALITY') || this.isKeyword('EXACT'))
          return this.unsupported('SHOW SERIES CARDINALITY');
        return { kind: 'showSeries', ...this.showMeta(true, true) };
      case 'FIELD':
        this.advance();
        if (this.isKeyword('KEY')) return this.unsupported('SHOW FIELD KEY CARDINALITY');
        this.expectKeyword('KEYS');
        return { kind: 'showFieldKeys', ...this.showMeta(true, false) };
      case 'TAG': {
        this.advance();
        if (this.acceptKeyword('KEYS')) return { kind: 'showTagKeys', ...this.showMeta(true, true) };
        if (this.isKeyword('KEY')) return this.unsupported('SHOW TAG KEY CARDINALITY');
        this.expectKeyword('VALUES');
        if (this.isKeyword('CARDINALITY') || this.isKeyword('EXACT'))
          return this.unsupported('SHOW TAG VALUES CARDINALITY');
        const database = this.onDatabase();
        const sources = this.acceptKeyword('FROM') ? this.sources() : [];
        this.expectKeyword('WITH');
        this.expectKeyword('KEY');
        const keys = this.tagKeyMatch();
        const rest = this.showMeta(false, true);
        return { kind: 'showTagValues', keys, ...rest, sources, ...(database === undefined ? {} : { database }) };
      }
      case 'RETENTION': {
        this.advance();
        this.expectKeyword('POLICIES');
        const database = this.onDatabase();
        return database === undefined ? { kind: 'showRetentionPolicies' } : { kind: 'showRetentionPolicies', database };
      }
      default:
        this.advance();
        return this.unsupported(`SHOW ${t.upper}`);
    }
  }

  onDatabase(): string | undefined {
    return this.acceptKeyword('ON') ? this.ident() : undefined;
  }

  /** `[ON db] [FROM sources] [WHERE cond] [LIMIT n] [OFFSET n]`, the parts a SHOW takes. */
  showMeta(from: boolean, where: boolean): ShowMeta {
    const database = this.onDatabase();
    const sources = from && this.acceptKeyword('FROM') ? this.sources() : [];
    const condition = where && this.acceptKeyword('WHERE') ? this.expr() : undefined;
    const limit = this.acceptKeyword('LIMIT') ? this.nonNegativeInt('LIMIT') : undefined;
    const offset = this.acceptKeyword('OFFSET') ? this.nonNegativeInt('OFFSET') : undefined;
    return {
      sources,
      ...(database === undefined ? {} : { database }),
      ...(condition === undefined ? {} : { condition }),
      ...(limit === undefined ? {} : { limit }),
      ...(offset === undefined ? {} : { offset }),
    };
  }

  showMeasurements(): Statement {
    const database = this.onDatabase();
    let match: { op: '=' | '!=' | '=~' | '!~'; value: string } | undefined;
    if (this.acceptKeyword('WITH')) {
      this.expectKeyword('MEASUREMENT');
      const op = this.tok;
      if (op.kind !== 'op' || !['=', '!=', '=~', '!~'].includes(op.text)) this.fail('expected =, !=, =~, !~');
      this.advance();
      const value =
        op.text === '=~' || op.text === '!~'
          ? this.isOp('/')
            ? this.regexAtSlash()
            : this.fail('expected regex')
          : this.ident();
      match = { op: op.text as '=' | '!=' | '=~' | '!~', value };
    }
    const rest = this.showMeta(false, true);
    return {
      kind: 'showMeasurements',
      ...rest,
      ...(database === undefined ? {} : { database }),
      ...(match === undefined ? {} : { match }),
    };
  }

  tagKeyMatch(): TagKeyMatch {
    const t = this.tok;
    if (this.acceptKeyword('IN')) {
      this.expectOp('(');
      const keys = [this.ident()];
      while (this.isOp(',')) {
        this.advance();
        keys.push(this.ident());
      }
      this.expectOp(')');
      return { op: '=', keys };
    }
    if (t.kind === 'op' && (t.text === '=' || t.text === '!=')) {
      this.advance();
      return { op: t.text, keys: [this.ident()] };
    }
    if (t.kind === 'op' && (t.text === '=~' || t.text === '!~')) {
      this.advance();
      if (!this.isOp('/')) this.fail('expected regex');
      return { op: t.text, regex: this.regexAtSlash() };
    }
    return this.fail('expected =, !=, =~, !~, IN');
  }

  // --- SELECT ----------------------------------------------------------------------------------

  select(): SelectStatement {
    const fields = this.fields();
    let into: Measurement | undefined;
    if (this.acceptKeyword('INTO')) into = this.measurement();
    this.expectKeyword('FROM');
    const sources = this.sources();
    const condition = this.acceptKeyword('WHERE') ? this.expr() : undefined;
    let dimensions: Dimension[] = [];
    if (this.acceptKeyword('GROUP')) {
      this.expectKeyword('BY');
      dimensions = this.dimensions();
    }
    let fill: Fill = { kind: 'null' };
    let fillWritten = false;
    if (this.isKeyword('FILL')) {
      fill = this.fill();
      fillWritten = true;
    }
    let descending = false;
    if (this.acceptKeyword('ORDER')) {
      this.expectKeyword('BY');
      descending = this.orderBy();
    }
    const limit = this.acceptKeyword('LIMIT') ? this.nonNegativeInt('LIMIT') : undefined;
    const offset = this.acceptKeyword('OFFSET') ? this.nonNegativeInt('OFFSET') : undefined;
    const slimit = this.acceptKeyword('SLIMIT') ? this.nonNegativeInt('SLIMIT') : undefined;
    const soffset = this.acceptKeyword('SOFFSET') ? this.nonNegativeInt('SOFFSET') : undefined;
    let tz: string | undefined;
    if (this.acceptKeyword('TZ')) {
      this.expectOp('(');
      if (this.tok.kind !== 'string') this.fail('expected string');
      tz = this.advance().text;
      this.expectOp(')');
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

  fields(): Field[] {
    const out: Field[] = [];
    for (;;) {
      const expr = this.expr(true);
      let alias: string | undefined;
      if (this.acceptKeyword('AS')) alias = this.ident();
      out.push(alias === undefined ? { expr } : { expr, alias });
      if (!this.isOp(',')) return out;
      this.advance();
    }
  }

  sources(): Measurement[] {
    const out = [this.measurement()];
    while (this.isOp(',')) {
      this.advance();
      out.push(this.measurement());
    }
    return out;
  }

  /** `m`, `rp.m`, `db.rp.m`, `db..m`, the last part possibly a `/regex/`. */
  measurement(): Measurement {
    const t0 = this.tok;
    const parts: Array<string | undefined> = [];
    let regex: string | undefined;
    for (;;) {
      if (this.isOp('/')) {
        regex = this.regexAtSlash();
        parts.push(undefined);
        break;
      }
      if (this.isOp('.')) {
        parts.push(undefined);
        this.advance();
        continue;
      }
      const t = this.tok;
      if (t.kind !== 'ident' && t.kind !== 'quotedIdent') this.fail('expected identifier, regex');
      parts.push(this.advance().text);
      if (!this.isOp('.')) break;
      this.advance();
    }
    if (parts.length > 3) this.fail('expected identifier', t0);
    const m: { database?: string; retentionPolicy?: string; name?: string; regex?: string } = {};
    const name = parts[parts.length - 1];
    if (parts.length === 3 && parts[0] !== undefined) m.database = parts[0];
    const rp = parts.length >= 2 ? parts[parts.length - 2] : undefined;
    if (rp !== undefined) m.retentionPolicy = rp;
    if (regex !== undefined) m.regex = regex;
    else if (name !== undefined) m.name = name;
    else this.fail('expected identifier');
    return m;
  }

  dimensions(): Dimension[] {
    const out: Dimension[] = [];
    for (;;) {
      if (this.isOp('*')) {
        this.advance();
        out.push({ kind: 'wildcard' });
      } else if (this.isOp('/')) out.push({ kind: 'regex', pattern: this.regexAtSlash() });
      else if (this.isKeyword('TIME')) {
        const t = this.advance();
        if (!this.isOp('(')) {
          out.push({ kind: 'tag', name: t.text });
        } else {
          this.advance();
          const intervalNs = this.duration(false);
          let offsetNs = 0n;
          if (this.isOp(',')) {
            this.advance();
            if (this.isKeyword('NOW')) {
              throw new InfluxQLParseError('time() offset of now() is not supported', this.tok.line, this.tok.char);
            }
            const negative = this.isOp('-');
            if (negative) this.advance();
            offsetNs = this.duration(false) * (negative ? -1n : 1n);
          }
          this.expectOp(')');
          if (intervalNs <= 0n)
            throw new InfluxQLParseError('time dimension must have a positive interval', t.line, t.char);
          out.push({ kind: 'time', intervalNs, offsetNs });
        }
      } else out.push({ kind: 'tag', name: this.ident() });
      if (!this.isOp(',')) return out;
      this.advance();
    }
  }

  fill(): Fill {
    this.advance();
    this.expectOp('(');
    const t = this.tok;
    let fill: Fill;
    if (t.kind === 'ident' && ['NULL', 'NONE', 'PREVIOUS', 'LINEAR'].includes(t.upper)) {
      this.advance();
      fill = { kind: t.upper.toLowerCase() as 'null' | 'none' | 'previous' | 'linear' };
    } else {
      const negative = this.isOp('-');
      if (negative) this.advance();
      const n = this.tok;
      if (n.kind === 'integer') fill = { kind: 'value', value: (negative ? -1n : 1n) * BigInt(n.text) };
      else if (n.kind === 'number') fill = { kind: 'value', value: (negative ? -1 : 1) * Number(n.text) };
      else throw new InfluxQLParseError('expected number argument in fill()', n.line, n.char);
      this.advance();
    }
    this.expectOp(')');
    return fill;
  }

  /** `ORDER BY time [ASC|DESC]` (InfluxQL sorts by time only); true for descending. */
  orderBy(): boolean {
    const t = this.tok;
    let desc = false;
    if (this.acceptKeyword('TIME')) {
      if (this.acceptKeyword('DESC')) desc = true;
      else this.acceptKeyword('ASC');
    } else if (this.acceptKeyword('DESC')) desc = true;
    else if (!this.acceptKeyword('ASC'))
      throw new InfluxQLParseError('only ORDER BY time supported at this time', t.line, t.char);
    if (this.isOp(',')) throw new InfluxQLParseError('only ORDER BY time supported at this time', t.line, t.char);
    return desc;
  }
}
