// InfluxQL expressions -> SQL expressions over one measurement's table. InfluxDB's semantics kept:
// a tag a series does not have reads as '' (so `host = ''` finds series without `host`, and
// `host != 'a'` includes them), an unknown name reads as NULL (the comparison is false), a
// comparison with `time` takes a time literal (now() - 1h, RFC 3339, 1700000000000ms).

import type { TableInfo } from '../engine/catalog.js';
import type * as sql from '../engine/sql/ast.js';
import type { Expr } from './ast.js';
import { statementError } from './errors.js';
import { binary, boolean, call, column, isNull, nullLiteral, number, or, string, timestamp } from './sql-builders.js';
import { regexMatches } from './select-sources.js';
import { evalTime } from './time.js';

export type ColumnKind = 'time' | 'tag' | 'field' | 'missing';

/** What a name refers to in `table`, honouring `::tag` / `::field`. */
export function columnKind(table: TableInfo, name: string, type?: string): ColumnKind {
  if (name.toLowerCase() === 'time' && type === undefined) return 'time';
  const c = table.columns.find((x) => x.name === name);
  if (c === undefined || c.kind === 'time') return 'missing';
  if (type === 'tag' && c.kind !== 'tag') return 'missing';
  if (type === 'field' && c.kind !== 'field') return 'missing';
  return c.kind;
}

/** Scalar functions InfluxQL shares with SQL (InfluxDB 1.8's math functions), by InfluxQL name. */
const SCALARS: Readonly<Record<string, { sql: string; args: number }>> = {
  abs: { sql: 'abs', args: 1 },
  acos: { sql: 'acos', args: 1 },
  asin: { sql: 'asin', args: 1 },
  atan: { sql: 'atan', args: 1 },
  atan2: { sql: 'atan2', args: 2 },
  ceil: { sql: 'ceil', args: 1 },
  cos: { sql: 'cos', args: 1 },
  exp: { sql: 'exp', args: 1 },
  floor: { sql: 'floor', args: 1 },
  ln: { sql: 'ln', args: 1 },
  log2: { sql: 'log2', args: 1 },
  log10: { sql: 'log10', args: 1 },
  pow: { sql: 'power', args: 2 },
  round: { sql: 'round', args: 1 },
  sin: { sql: 'sin', args: 1 },
  sqrt: { sql: 'sqrt', args: 1 },
  tan: { sql: 'tan', args: 1 },
};

export interface ExprContext {
  readonly table: TableInfo;
  readonly nowNs: bigint;
  /** Translates an aggregate call (select lists only); absent: calls other than scalars are errors. */
  readonly aggregate?: (e: Extract<Expr, { kind: 'call' }>) => sql.Expr;
}

const COMPARISONS = new Set(['=', '!=', '<', '<=', '>', '>=']);

function unparen(e: Expr): Expr {
  return e.kind === 'paren' ? unparen(e.expr) : e;
}

export function translateExpr(e: Expr, ctx: ExprContext): sql.Expr {
  switch (e.kind) {
    case 'paren':
      return translateExpr(e.expr, ctx);
    case 'varRef': {
      const kind = columnKind(ctx.table, e.name, e.type);
      if (kind === 'time') return column('time');
      return kind === 'missing' ? nullLiteral() : column(e.name);
    }
    case 'integer':
      return number(String(e.value));
    case 'number':
      return number(e.text.startsWith('.') ? `0${e.text}` : e.text);
    case 'string':
      return string(e.value);
    case 'boolean':
      return boolean(e.value);
    case 'duration':
      return number(String(e.ns));
    case 'regex':
      throw statementError(`a regex (/${e.pattern}/) is only allowed after =~ or !~`);
    case 'wildcard':
      throw statementError('a wildcard is only allowed as a select item or a function argument');
    case 'call': {
      if (ctx.aggregate !== undefined && SCALARS[e.name] === undefined) return ctx.aggregate(e);
      const scalar = SCALARS[e.name];
      if (scalar === undefined) throw statementError(`undefined function ${e.name}()`);
      if (e.args.length !== scalar.args)
        throw statementError(
          `invalid number of arguments for ${e.name}, expected ${scalar.args}, got ${e.args.length}`,
        );
      return call(
        scalar.sql,
        e.args.map((a) => translateExpr(a, ctx)),
      );
    }
    case 'binary':
      return translateBinary(e, ctx);
  }
}

function translateBinary(e: Extract<Expr, { kind: 'binary' }>, ctx: ExprContext): sql.Expr {
  const left = unparen(e.left);
  const right = unparen(e.right);
  if (e.op === 'AND' || e.op === 'OR') return binary(e.op, translateExpr(left, ctx), translateExpr(right, ctx));
  if (e.op === '=~' || e.op === '!~') {
    if (right.kind !== 'regex') throw statementError(`${e.op} needs a regex on its right (/.../)`);
    const l = translateExpr(left, ctx);
    // Go's leading (?i), which the SQL engine's regexes do not read, is its case-insensitive operator.
    const folded = right.pattern.startsWith('(?i)');
    const op = e.op === '=~' ? (folded ? '~*' : '~') : folded ? '!~*' : '!~';
    const match = binary(op, l, string(folded ? right.pattern.slice(4) : right.pattern));
    // A series without the tag reads as '': it matches when the regex matches ''.
    if (
      left.kind === 'varRef' &&
      columnKind(ctx.table, left.name, left.type) === 'tag' &&
      regexMatches(right.pattern, '') === (e.op === '=~')
    ) {
      return or([match, isNull(l, false)])!;
    }
    return match;
  }
  if (COMPARISONS.has(e.op)) {
    const leftTime = left.kind === 'varRef' && columnKind(ctx.table, left.name, left.type) === 'time';
    const rightTime = right.kind === 'varRef' && columnKind(ctx.table, right.name, right.type) === 'time';
    if (leftTime || rightTime) {
      const other = leftTime ? right : left;
      return leftTime
        ? binary(e.op as sql.BinaryOp, column('time'), timestamp(evalTime(other, ctx.nowNs)))
        : binary(e.op as sql.BinaryOp, timestamp(evalTime(other, ctx.nowNs)), column('time'));
    }
    const tagSide =
      left.kind === 'varRef' && columnKind(ctx.table, left.name, left.type) === 'tag'
        ? left
        : right.kind === 'varRef' && columnKind(ctx.table, right.name, right.type) === 'tag'
          ? right
          : undefined;
    const valueSide = tagSide === left ? right : left;
    if (tagSide !== undefined && valueSide.kind === 'string' && (e.op === '=' || e.op === '!=')) {
      const tag = column((tagSide as { name: string }).name);
      const v = valueSide.value;
      if (e.op === '=') return v === '' ? isNull(tag, false) : binary('=', tag, string(v));
      return v === '' ? isNull(tag, true) : or([binary('!=', tag, string(v)), isNull(tag, false)])!;
    }
    return binary(e.op as sql.BinaryOp, translateExpr(left, ctx), translateExpr(right, ctx));
  }
  return binary(e.op as sql.BinaryOp, translateExpr(left, ctx), translateExpr(right, ctx));
}
