// Typed logical expressions (DataFusion's `Expr` after type coercion). Every node knows its
// result type; columns are referenced by (qualifier, name), not by position, so optimizer rules
// can move expressions between plan nodes without renumbering; the physical planner binds names
// to positions once. Implicit casts the planner inserts are ordinary `cast` nodes. The types are
// in plan-nodes.ts, beside the plan nodes a subquery expression holds.

import { BOOLEAN, type DataType, type Scalar } from '../types/index.js';
import type { ColumnExpr, LExpr } from './plan-nodes.js';

export type { ColumnExpr, FrameBoundSpec, LExpr, SortExpr, WindowFrameSpec } from './plan-nodes.js';

export function col(qualifier: string | undefined, name: string, type: DataType): ColumnExpr {
  return { kind: 'column', qualifier, name, type };
}

export function lit(value: Scalar, type: DataType): LExpr {
  return { kind: 'literal', value, type };
}

export function and(left: LExpr, right: LExpr): LExpr {
  return { kind: 'binary', op: 'AND', left, right, type: BOOLEAN };
}

/** `a AND b AND c` of a list (undefined when empty). */
export function conjunction(exprs: readonly LExpr[]): LExpr | undefined {
  let out: LExpr | undefined;
  for (const e of exprs) out = out === undefined ? e : and(out, e);
  return out;
}

/** The conjuncts of `a AND (b AND c)`: [a, b, c]. */
export function splitConjunction(e: LExpr): LExpr[] {
  if (e.kind === 'binary' && e.op === 'AND') return [...splitConjunction(e.left), ...splitConjunction(e.right)];
  return [e];
}

/** The direct children of an expression (not descending into subquery plans). */
export function children(e: LExpr): LExpr[] {
  switch (e.kind) {
    case 'column':
    case 'outerColumn':
    case 'literal':
    case 'scalarSubquery':
    case 'exists':
      return [];
    case 'alias':
    case 'cast':
    case 'not':
    case 'negative':
    case 'isNull':
    case 'isBool':
    case 'getField':
      return [e.expr];
    case 'inSubquery':
      return [e.expr];
    case 'binary':
      return [e.left, e.right];
    case 'inList':
      return [e.expr, ...e.list];
    case 'between':
      return [e.expr, e.low, e.high];
    case 'like':
      return [e.expr, e.pattern];
    case 'case': {
      const out: LExpr[] = [];
      if (e.operand) out.push(e.operand);
      for (const w of e.whens) out.push(w.when, w.then);
      if (e.elseResult) out.push(e.elseResult);
      return out;
    }
    case 'scalarFn':
      return [...e.args];
    case 'aggregate': {
      const out = [...e.args];
      if (e.filter) out.push(e.filter);
      for (const o of e.orderBy) out.push(o.expr);
      return out;
    }
    case 'windowFn':
      return [...e.args, ...e.partitionBy, ...e.orderBy.map((o) => o.expr)];
  }
}

/**
 * Rebuilds `e` bottom-up: `f` sees every node after its children were rewritten and returns a
 * replacement (or the node itself). Subquery plans are left alone.
 */
export function transformExpr(e: LExpr, f: (e: LExpr) => LExpr): LExpr {
  const t = (x: LExpr): LExpr => transformExpr(x, f);
  let out: LExpr;
  switch (e.kind) {
    case 'column':
    case 'outerColumn':
    case 'literal':
    case 'scalarSubquery':
    case 'exists':
      out = e;
      break;
    case 'alias':
    case 'cast':
    case 'not':
    case 'negative':
    case 'isNull':
    case 'isBool':
    case 'getField':
    case 'inSubquery':
      out = { ...e, expr: t(e.expr) } as LExpr;
      break;
    case 'binary':
      out = { ...e, left: t(e.left), right: t(e.right) };
      break;
    case 'inList':
      out = { ...e, expr: t(e.expr), list: e.list.map(t) };
      break;
    case 'between':
      out = { ...e, expr: t(e.expr), low: t(e.low), high: t(e.high) };
      break;
    case 'like':
      out = { ...e, expr: t(e.expr), pattern: t(e.pattern) };
      break;
    case 'case':
      out = {
        ...e,
        operand: e.operand && t(e.operand),
        whens: e.whens.map((w) => ({ when: t(w.when), then: t(w.then) })),
        elseResult: e.elseResult && t(e.elseResult),
      };
      break;
    case 'scalarFn':
      out = { ...e, args: e.args.map(t) };
      break;
    case 'aggregate':
      out = {
        ...e,
        args: e.args.map(t),
        filter: e.filter && t(e.filter),
        orderBy: e.orderBy.map((o) => ({ ...o, expr: t(o.expr) })),
      };
      break;
    case 'windowFn':
      out = {
        ...e,
        args: e.args.map(t),
        partitionBy: e.partitionBy.map(t),
        orderBy: e.orderBy.map((o) => ({ ...o, expr: t(o.expr) })),
      };
      break;
  }
  return f(out);
}

/**
 * Rebuilds `e` bottom-up like transformExpr, but keeps every node whose children did not change
 * (and that `f` returns unchanged) as the same object, so callers can test `result === e`.
 */
export function rewriteExpr(e: LExpr, f: (e: LExpr) => LExpr): LExpr {
  let changed = false;
  const node = transformChildren(e, (c) => {
    const r = rewriteExpr(c, f);
    if (r !== c) changed = true;
    return r;
  });
  return f(changed ? node : e);
}

/**
 * Rewrites `e` top-down: where `f` returns an expression, that replaces the node and its
 * subtree is not visited; where it returns undefined, the children are visited.
 */
export function replaceExpr(e: LExpr, f: (e: LExpr) => LExpr | undefined): LExpr {
  const hit = f(e);
  if (hit !== undefined) return hit;
  let changed = false;
  const mapped = transformChildren(e, (c) => {
    const r = replaceExpr(c, f);
    if (r !== c) changed = true;
    return r;
  });
  return changed ? mapped : e;
}

function transformChildren(e: LExpr, t: (e: LExpr) => LExpr): LExpr {
  switch (e.kind) {
    case 'column':
    case 'outerColumn':
    case 'literal':
    case 'scalarSubquery':
    case 'exists':
      return e;
    case 'alias':
    case 'cast':
    case 'not':
    case 'negative':
    case 'isNull':
    case 'isBool':
    case 'getField':
    case 'inSubquery':
      return { ...e, expr: t(e.expr) } as LExpr;
    case 'binary':
      return { ...e, left: t(e.left), right: t(e.right) };
    case 'inList':
      return { ...e, expr: t(e.expr), list: e.list.map(t) };
    case 'between':
      return { ...e, expr: t(e.expr), low: t(e.low), high: t(e.high) };
    case 'like':
      return { ...e, expr: t(e.expr), pattern: t(e.pattern) };
    case 'case':
      return {
        ...e,
        operand: e.operand && t(e.operand),
        whens: e.whens.map((w) => ({ when: t(w.when), then: t(w.then) })),
        elseResult: e.elseResult && t(e.elseResult),
      };
    case 'scalarFn':
      return { ...e, args: e.args.map(t) };
    case 'aggregate':
      return {
        ...e,
        args: e.args.map(t),
        filter: e.filter && t(e.filter),
        orderBy: e.orderBy.map((o) => ({ ...o, expr: t(o.expr) })),
      };
    case 'windowFn':
      return {
        ...e,
        args: e.args.map(t),
        partitionBy: e.partitionBy.map(t),
        orderBy: e.orderBy.map((o) => ({ ...o, expr: t(o.expr) })),
      };
  }
}

/** Calls `f` on every node, parents before children. */
export function visitExpr(e: LExpr, f: (e: LExpr) => void): void {
  f(e);
  for (const c of children(e)) visitExpr(c, f);
}

/** Does any node satisfy `pred`? */
export function anyExpr(e: LExpr, pred: (e: LExpr) => boolean): boolean {
  if (pred(e)) return true;
  for (const c of children(e)) if (anyExpr(c, pred)) return true;
  return false;
}

/** The columns an expression reads (not counting outer references). */
export function columnsOf(e: LExpr, out: ColumnExpr[] = []): ColumnExpr[] {
  visitExpr(e, (x) => {
    if (x.kind === 'column') out.push(x);
  });
  return out;
}

/** Strips a top-level alias. */
export function unalias(e: LExpr): LExpr {
  return e.kind === 'alias' ? e.expr : e;
}

/**
 * A structural key: equal keys mean equal expressions (types included). Used to match select
 * items to GROUP BY expressions and to deduplicate aggregates.
 */
export function exprKey(e: LExpr): string {
  switch (e.kind) {
    case 'column':
      return `col(${e.qualifier ?? ''}|${e.name})`;
    case 'outerColumn':
      return `outer(${e.qualifier ?? ''}|${e.name})`;
    case 'literal':
      return `lit(${e.type.id}:${scalarKey(e.value)})`;
    case 'alias':
      return `alias(${exprKey(e.expr)} AS ${e.name})`;
    case 'cast':
      return `${e.try ? 'try_cast' : 'cast'}(${exprKey(e.expr)}:${typeKey(e.type)})`;
    case 'binary':
      return `(${exprKey(e.left)} ${e.op} ${exprKey(e.right)})`;
    case 'not':
      return `not(${exprKey(e.expr)})`;
    case 'negative':
      return `neg(${exprKey(e.expr)})`;
    case 'isNull':
      return `isnull(${exprKey(e.expr)},${e.negated})`;
    case 'isBool':
      return `is${e.test}(${exprKey(e.expr)},${e.negated})`;
    case 'inList':
      return `in(${exprKey(e.expr)},${e.negated},[${e.list.map(exprKey).join(',')}])`;
    case 'between':
      return `between(${exprKey(e.expr)},${exprKey(e.low)},${exprKey(e.high)},${e.negated})`;
    case 'like':
      return `like(${exprKey(e.expr)},${exprKey(e.pattern)},${e.caseInsensitive},${e.negated},${e.escape ?? ''})`;
    case 'case':
      return `case(${e.operand ? exprKey(e.operand) : ''};${e.whens.map((w) => `${exprKey(w.when)}=>${exprKey(w.then)}`).join(';')};${e.elseResult ? exprKey(e.elseResult) : ''})`;
    case 'scalarFn':
      return `${e.fn.name}(${e.args.map(exprKey).join(',')})`;
    case 'aggregate':
      return `agg:${e.fn.name}(${e.distinct ? 'distinct ' : ''}${e.args.map(exprKey).join(',')}${e.filter ? ` filter ${exprKey(e.filter)}` : ''}${e.orderBy.map((o) => ` order ${exprKey(o.expr)} ${o.asc} ${o.nullsFirst}`).join('')})`;
    case 'windowFn':
      return `win:${e.fn.name}(${e.distinct === true ? 'distinct ' : ''}${e.args.map(exprKey).join(',')};${e.partitionBy.map(exprKey).join(',')};${e.orderBy.map((o) => `${exprKey(o.expr)} ${o.asc} ${o.nullsFirst}`).join(',')};${e.frame ? scalarKey(e.frame as unknown as Scalar) : ''})`;
    case 'scalarSubquery':
    case 'exists':
    case 'inSubquery':
      // Subqueries are never merged: each keeps its identity.
      return `${e.kind}#${subqueryId(e.plan)}`;
    case 'getField':
      return `field(${exprKey(e.expr)}.${e.field})`;
  }
}

const subqueryIds = new WeakMap<object, number>();
let nextSubqueryId = 1;
function subqueryId(plan: object): number {
  let id = subqueryIds.get(plan);
  if (id === undefined) subqueryIds.set(plan, (id = nextSubqueryId++));
  return id;
}

function typeKey(t: DataType): string {
  return t.id === 'Timestamp' ? `ts(${t.unit},${t.tz ?? ''})` : t.id;
}

function scalarKey(v: Scalar): string {
  if (v === null) return 'null';
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'object') return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x));
  return `${typeof v}:${String(v)}`;
}
