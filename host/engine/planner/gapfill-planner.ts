// Planning of CnosDB 2.4.2's gap filling: `time_window_gapfill(time, window[, slide[, origin]])`
// in GROUP BY (usually through a select alias) with `locf(agg)` / `interpolate(agg)` in the
// select list. The rows are expanded into their windows (a TimeWindow node, and a filter for
// windows shorter than their slide, which leave gaps between them), the call becomes the window
// start, the Aggregate groups by it, and a GapFill node above the Aggregate adds the missing
// windows of each series between the time bounds the WHERE clause gives (an upper bound is
// required, as in CnosDB and IOx; without a lower bound each series starts at its first window).

import {
  BOOLEAN,
  type DataType,
  floorDiv,
  intervalNanos,
  parseInterval,
  parseTimestampNanos,
  type Scalar,
  timestamp,
  type TimeUnit,
  unitNanos,
} from '../types/index.js';
import { planError } from '../errors.js';
import { exprName } from '../plan/expr-display.js';
import { exprKey, replaceExpr, splitConjunction, type LExpr } from '../plan/expr.js';
import type { FilledColumn, LogicalPlan } from '../plan/logical-plan.js';
import type { PlanField } from '../plan/plan-schema.js';
import { filter, timeWindow } from '../plan/logical-plan.js';
import type * as ast from '../sql/ast.js';
import { checkWindowOverlap, windowStructType } from '../functions/time-window.js';
import { constantOf, ExprPlanner, type Scope } from './expr-planner.js';

export interface GapfillWindows {
  /** The input expanded into windows. */
  readonly input: LogicalPlan;
  /** The gapfill call (AST node) -> the window start, named as the call. */
  readonly replacements: Map<ast.Expr, LExpr>;
  readonly start: LExpr;
  readonly slideNs: bigint;
  readonly originNs: bigint;
  readonly windowNs: bigint;
  readonly firstNs: bigint | undefined;
  readonly lastNs: bigint;
}

function findCalls(e: unknown, out: ast.FunctionCall[]): void {
  if (e === null || typeof e !== 'object') return;
  if (Array.isArray(e)) {
    for (const x of e) findCalls(x, out);
    return;
  }
  const node = e as { kind?: string; name?: string };
  if (node.kind === 'query') return;
  if (node.kind === 'function' && node.name === 'time_window_gapfill') out.push(e as ast.FunctionCall);
  for (const v of Object.values(e)) findCalls(v, out);
}

function durationNs(v: Scalar | undefined, t: DataType, what: string): bigint {
  const iv =
    t.id === 'Interval' && v !== undefined && v !== null
      ? v
      : t.id === 'Utf8' && typeof v === 'string'
        ? parseInterval(v)
        : undefined;
  const ns = iv === undefined ? undefined : intervalNanos(iv as never);
  if (ns === undefined || ns <= 0n)
    throw planError(
      `Invalid time_window_gapfill parameter: the ${what} must be a positive constant interval without months`,
    );
  return ns;
}

/** The expansion for a query with time_window_gapfill, or undefined when it has none. */
export function planGapfillWindows(
  sel: ast.Select,
  input: LogicalPlan,
  where: LExpr | undefined,
  scope: Scope,
): GapfillWindows | undefined {
  const calls: ast.FunctionCall[] = [];
  findCalls(sel.items, calls);
  findCalls(sel.groupBy, calls);
  if (calls.length === 0) return undefined;
  const planner = new ExprPlanner(scope);
  const planned = calls.map((c) => c.args.map((a) => planner.plan(a)));
  if (new Set(planned.map((args) => args.map(exprKey).join('|'))).size > 1)
    throw planError('Only one time_window_gapfill is allowed in a query');
  const args = planned[0]!;
  if (args.length < 2 || args.length > 4)
    throw planError(`The function time_window_gapfill expects 2 to 4 arguments, but ${args.length} were provided`);
  const time = args[0]!;
  if (time.type.id !== 'Timestamp')
    throw planError(`The first argument of time_window_gapfill must be a timestamp, got ${time.type.id}`);
  const unit = (time.type as { unit: TimeUnit }).unit;
  const windowNs = durationNs(constantOf(args[1]!), args[1]!.type, 'window');
  const slideNs = args.length > 2 ? durationNs(constantOf(args[2]!), args[2]!.type, 'slide') : windowNs;
  let originNs = 0n;
  if (args.length > 3) {
    const o = constantOf(args[3]!);
    const t = args[3]!.type;
    const parsed =
      typeof o === 'string'
        ? parseTimestampNanos(o)
        : typeof o === 'bigint' && t.id === 'Timestamp'
          ? o * unitNanos(t.unit)
          : undefined;
    if (parsed === undefined)
      throw planError('Invalid time_window_gapfill parameter: the origin must be a constant timestamp');
    originNs = parsed;
  }
  checkWindowOverlap(windowNs, slideNs);

  const range = timeRange(where, time);
  if (range.upper === undefined)
    throw planError('time_window_gapfill needs an upper time bound in WHERE (time < ... or time <= ...)');
  // Window starts on the grid: the first window that can hold a row at or after the lower bound,
  // the last one starting at or before the upper bound.
  const onGrid = (ns: bigint): bigint => originNs + floorDiv(ns - originNs, slideNs) * slideNs;
  const lastNs = onGrid(range.upper);
  const firstNs = range.lower === undefined ? undefined : onGrid(range.lower - windowNs) + slideNs;

  const name = `time_window_gapfill(${args.map(exprName).join(',')})`;
  const columnName = `__gapfill_window(${args.map(exprName).join(',')})`;
  const type = windowStructType(unit);
  let expanded: LogicalPlan = timeWindow(
    input,
    time,
    windowNs,
    windowNs >= slideNs ? slideNs : windowNs,
    originNs,
    columnName,
    type,
  );
  const windowCol: LExpr = { kind: 'column', qualifier: undefined, name: columnName, type };
  const startOf: LExpr = { kind: 'getField', expr: windowCol, field: 'start', type: timestamp(unit) };
  if (slideNs > windowNs) {
    // Windows shorter than their slide: a row between two windows belongs to none.
    expanded = timeWindow(input, time, slideNs, slideNs, originNs, columnName, type);
    const endOfShort: LExpr = {
      kind: 'binary',
      op: '+',
      left: startOf,
      right: { kind: 'literal', value: { months: 0, days: 0, nanos: windowNs }, type: { id: 'Interval' } },
      type: timestamp(unit),
    };
    expanded = filter(expanded, { kind: 'binary', op: '<', left: time, right: endOfShort, type: BOOLEAN });
  }
  const start: LExpr = { kind: 'alias', expr: startOf, name, type: timestamp(unit) };
  const replacements = new Map<ast.Expr, LExpr>();
  for (const c of calls) replacements.set(c, start);
  return { input: expanded, replacements, start, slideNs, originNs, windowNs, firstNs, lastNs };
}

/** Inclusive bounds, in nanoseconds, that the WHERE conjuncts put on `time`. */
function timeRange(where: LExpr | undefined, time: LExpr): { lower?: bigint; upper?: bigint } {
  const out: { lower?: bigint; upper?: bigint } = {};
  if (where === undefined) return out;
  const unit = (time.type as { unit: TimeUnit }).unit;
  const one = unitNanos(unit);
  const isTime = (e: LExpr): boolean => {
    const x = e.kind === 'cast' ? e.expr : e;
    return x.kind === 'column' && time.kind === 'column' && x.name === time.name && x.qualifier === time.qualifier;
  };
  const nanos = (e: LExpr): bigint | undefined => {
    const v = constantOf(e);
    if (typeof v === 'bigint' && e.type.id === 'Timestamp') return v * unitNanos(e.type.unit);
    if (typeof v === 'string') return parseTimestampNanos(v);
    return undefined;
  };
  const lower = (ns: bigint): void => void (out.lower = out.lower === undefined || ns > out.lower ? ns : out.lower);
  const upper = (ns: bigint): void => void (out.upper = out.upper === undefined || ns < out.upper ? ns : out.upper);
  for (const c of splitConjunction(where)) {
    if (c.kind === 'between' && !c.negated && isTime(c.expr)) {
      const lo = nanos(c.low);
      const hi = nanos(c.high);
      if (lo !== undefined) lower(lo);
      if (hi !== undefined) upper(hi);
      continue;
    }
    if (c.kind !== 'binary') continue;
    let { op, left, right } = c;
    if (isTime(right) && !isTime(left)) {
      [left, right] = [right, left];
      op = op === '<' ? '>' : op === '<=' ? '>=' : op === '>' ? '<' : op === '>=' ? '<=' : op;
    }
    if (!isTime(left)) continue;
    const v = nanos(right);
    if (v === undefined) continue;
    if (op === '>=') lower(v);
    else if (op === '>') lower(v + one);
    else if (op === '<=') upper(v);
    else if (op === '<') upper(v - one);
    else if (op === '=') {
      lower(v);
      upper(v);
    }
  }
  return out;
}

/**
 * The filled copies of aggregate output columns the select items ask for (`locf(AVG(x))` fills
 * the AVG column into a new column named after the call, so `AVG(x)` beside it stays unfilled),
 * and the items with each call replaced by a reference to its copy. `columns` are the
 * aggregate's output fields; the copies come after them.
 */
export function gapfillStrategies(
  items: readonly LExpr[],
  columns: readonly PlanField[],
): { fills: FilledColumn[]; fields: PlanField[]; items: LExpr[] } {
  const fills: FilledColumn[] = [];
  const fields: PlanField[] = [];
  const rewritten = items.map((item) =>
    replaceExpr(item, (e) => {
      if (e.kind !== 'scalarFn' || (e.fn.name !== 'locf' && e.fn.name !== 'interpolate')) return undefined;
      const arg = e.args[0]!;
      const target = arg.kind === 'cast' ? arg.expr : arg;
      const source =
        target.kind === 'column'
          ? columns.findIndex((c) => c.name === target.name && c.qualifier === target.qualifier)
          : -1;
      if (source < 0)
        throw planError(`${e.fn.name} must be called on an aggregate of the gap-filling query, got ${exprName(arg)}`);
      const name = exprName(e);
      if (!fills.some((f) => f.name === name)) {
        fills.push({ source, strategy: e.fn.name as FilledColumn['strategy'], name });
        fields.push({ qualifier: undefined, name, type: columns[source]!.type, nullable: true });
      }
      return { kind: 'column', qualifier: undefined, name, type: columns[source]!.type };
    }),
  );
  return { fills, fields, items: rewritten };
}
