// Small constructors of Sundial's SQL syntax tree (host/engine/sql/ast.ts) for the InfluxQL
// translator. Names go in as written (the SQL tree stores quoted names verbatim, so a tag named
// `Host` or `time zone` stays itself); generated nodes all carry line 1, column 1.

import type * as sql from '../engine/sql/ast.js';
import { timestampLiteral } from './time.js';

export const POS: sql.Pos = { line: 1, column: 1 };

export const column = (name: string): sql.Expr => ({ kind: 'column', pos: POS, parts: [name] });
export const string = (value: string): sql.Expr => ({ kind: 'string', pos: POS, value });
export const number = (text: string): sql.Expr => ({ kind: 'number', pos: POS, text });
export const boolean = (value: boolean): sql.Expr => ({ kind: 'boolean', pos: POS, value });
export const nullLiteral = (): sql.Expr => ({ kind: 'null', pos: POS });
export const binary = (op: sql.BinaryOp, left: sql.Expr, right: sql.Expr): sql.Expr => ({
  kind: 'binary',
  pos: POS,
  op,
  left,
  right,
});
export const isNull = (expr: sql.Expr, negated: boolean): sql.Expr => ({
  kind: 'is',
  pos: POS,
  expr,
  negated,
  test: 'NULL',
});
export const not = (expr: sql.Expr): sql.Expr => ({ kind: 'unary', pos: POS, op: 'NOT', expr });

export function call(
  name: string,
  args: readonly sql.Expr[],
  options: { distinct?: boolean; over?: sql.WindowSpec } = {},
): sql.Expr {
  return {
    kind: 'function',
    pos: POS,
    name,
    args,
    distinct: options.distinct ?? false,
    orderBy: [],
    bare: false,
    ...(options.over === undefined ? {} : { over: options.over }),
  };
}

/** `TIMESTAMP '...'` of nanoseconds since the epoch (exact to the nanosecond). */
export function timestamp(ns: bigint): sql.Expr {
  return {
    kind: 'typedString',
    pos: POS,
    dataType: { name: 'TIMESTAMP', custom: false, unsigned: false, params: [] },
    value: timestampLiteral(ns),
  };
}

/** `INTERVAL 'n nanoseconds'`. */
export function interval(ns: bigint): sql.Expr {
  return { kind: 'interval', pos: POS, value: string(`${ns} nanoseconds`) };
}

/** The conjunction of `parts` (undefined for none). */
export function and(parts: readonly sql.Expr[]): sql.Expr | undefined {
  let out: sql.Expr | undefined;
  for (const p of parts) out = out === undefined ? p : binary('AND', out, p);
  return out;
}

export function or(parts: readonly sql.Expr[]): sql.Expr | undefined {
  let out: sql.Expr | undefined;
  for (const p of parts) out = out === undefined ? p : binary('OR', out, p);
  return out;
}

export function table(database: string, name: string): sql.TableWithJoins {
  return { relation: { kind: 'table', pos: POS, name: [database, name] }, joins: [] };
}

export function select(parts: {
  items: readonly sql.SelectItem[];
  from: readonly sql.TableWithJoins[];
  where?: sql.Expr | undefined;
  groupBy?: readonly sql.Expr[];
  distinct?: boolean;
}): sql.Select {
  return {
    kind: 'select',
    pos: POS,
    distinct: parts.distinct ?? false,
    items: parts.items,
    from: parts.from,
    ...(parts.where === undefined ? {} : { where: parts.where }),
    groupBy: parts.groupBy ?? [],
    windows: [],
  };
}

export function query(
  body: sql.QueryBody,
  orderBy: readonly sql.OrderByExpr[] = [],
  limit?: number,
  offset?: number,
): sql.Query {
  return {
    kind: 'query',
    pos: POS,
    body,
    orderBy,
    ...(limit === undefined ? {} : { limit: number(String(limit)) }),
    ...(offset === undefined || offset === 0 ? {} : { offset: number(String(offset)) }),
  };
}

export function derived(q: sql.Query, alias: string): sql.TableWithJoins {
  return { relation: { kind: 'derived', pos: POS, query: q, alias: { name: alias, columns: [] } }, joins: [] };
}
