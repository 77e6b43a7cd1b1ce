// SELECT: FROM, WHERE, a sliding time_window's expansion, the select list (wildcards expanded),
// GROUP BY (expressions, select aliases, positions), aggregates, HAVING, window functions, the
// projection, DISTINCT, and ORDER BY, which may name select aliases (before input columns, as
// DataFusion plans ORDER BY over the projection), positions, or input columns that are not
// selected (then the projection is widened for the sort and trimmed after, as DataFusion does).

import { bug, UserError } from '../../core/errors.js';
import { planError, schemaError } from '../errors.js';
import { exprName } from '../plan/expr-display.js';
import { exprKey, type LExpr, type SortExpr } from '../plan/expr.js';
import type { Aggregate, GapFill, LogicalPlan } from '../plan/logical-plan.js';
import {
  aggregate,
  distinct,
  emptyRelation,
  filter,
  limit,
  projection,
  sort,
  subqueryOuterReferences,
  timeWindow,
  windowNode,
} from '../plan/logical-plan.js';
import { PlanSchema, qualifierMatches, quoteName } from '../plan/plan-schema.js';
import type * as ast from '../sql/ast.js';
import { checkWindowOverlap, windowParams, windowStructType } from '../functions/time-window.js';
import { BOOLEAN, type TimeUnit } from '../types/index.js';
import { coerce, constantOf, ExprPlanner, type Scope } from './expr-planner.js';
import { planFrom } from './from-planner.js';
import type { Ctes, StatementPlanner } from './statement-planner.js';
import { checkResolved, collectDistinct, rebase, type RebaseTarget } from './rebase.js';
import { gapfillStrategies, planGapfillWindows, type GapfillWindows } from './gapfill-planner.js';
import { findRepairItem, unnestRepairItem } from './series-repair.js';
import { Clause, type BlockErrors } from './deferred-errors.js';

interface Item {
  expr: LExpr;
  alias: string | undefined;
}

function findCalls(e: ast.Expr, name: string, out: ast.FunctionCall[]): void {
  if (e.kind === 'function' && e.name === name) out.push(e);
  for (const v of Object.values(e)) {
    if (v !== null && typeof v === 'object') {
      if (Array.isArray(v))
        for (const x of v)
          if (x && typeof x === 'object' && 'kind' in x && 'pos' in x) findCalls(x as ast.Expr, name, out);
      if ('kind' in v && 'pos' in v && (v as { kind: string }).kind !== 'query') findCalls(v as ast.Expr, name, out);
    }
  }
}

/** Adds the TimeWindow node for a sliding time_window and maps its calls to the new column. */
function planSlidingWindows(
  qp: StatementPlanner,
  sel: ast.Select,
  input: LogicalPlan,
  scope: Scope,
): { input: LogicalPlan; replacements: Map<ast.Expr, LExpr> } {
  const calls: ast.FunctionCall[] = [];
  for (const item of sel.items) findCalls(item.expr, 'time_window', calls);
  for (const g of sel.groupBy) findCalls(g, 'time_window', calls);
  const replacements = new Map<ast.Expr, LExpr>();
  if (calls.length === 0) return { input, replacements };
  const planner = new ExprPlanner(scope);
  const planned = calls.map((c) => ({ call: c, args: c.args.map((a) => planner.plan(a)) }));
  const distinctCalls = new Set(planned.map((p) => p.args.map((a) => exprKey(a)).join('|')));
  if (distinctCalls.size > 1) throw planError('Only one time_window is allowed in a query');
  const { args } = planned[0]!;
  const params = windowParams(
    args.map((a) => a.type),
    args.map((a) => constantOf(a)),
  );
  if (params.slideNs === params.windowNs) return { input, replacements };
  checkWindowOverlap(params.windowNs, params.slideNs);
  const time = args[0]!;
  const unit = (time.type as { unit: TimeUnit }).unit;
  const name = `TIME_WINDOW(${args.map(exprName).join(',')})`;
  const type = windowStructType(unit);
  const expanded = timeWindow(input, time, params.windowNs, params.slideNs, params.originNs, name, type);
  const column: LExpr = { kind: 'column', qualifier: undefined, name, type };
  for (const p of planned) replacements.set(p.call, column);
  void qp;
  return { input: expanded, replacements };
}

/** Finds a topk/bottom call among the select items and maps it to its column (one at most). */
function planSelector(
  sel: ast.Select,
  planner: ExprPlanner,
  scope: Scope,
): { column: LExpr; k: number; bottom: boolean } | undefined {
  const calls: ast.FunctionCall[] = [];
  for (const item of sel.items) {
    findCalls(item.expr, 'topk', calls);
    findCalls(item.expr, 'bottom', calls);
  }
  if (calls.length === 0) return undefined;
  const planned = calls.map((c) => ({ call: c, args: c.args.map((a) => planner.plan(a)) }));
  const nested = sel.items.some((i) => calls.includes(i.expr as ast.FunctionCall)) === false;
  if (planned.length > 1 || nested) {
    const names = planned.map((p) => `${p.call.name.toUpperCase()}(${p.args.map(exprName).join(',')})`);
    throw new UserError(
      'sqlPlan',
      `Datafusion: transform_bottom_func_to_topk_node\ncaused by\nError during planning: 1. There cannot be nested selection functions. 2. There cannot be multiple selection functions., found: [${names.join(', ')}]`,
    );
  }
  const { call, args } = planned[0]!;
  const k = args[1];
  if (args.length !== 2 || k === undefined || k.kind !== 'literal' || typeof k.value !== 'bigint' || k.value < 1n) {
    throw planError(`${call.name}(column, k) needs a column and a positive integer k`);
  }
  (scope.replacements as Map<ast.Expr, LExpr>).set(call, args[0]!);
  return { column: args[0]!, k: Number(k.value), bottom: call.name === 'bottom' };
}

/** Puts the GapFill node over the aggregate and points the select items' locf/interpolate at it. */
function addGapFill(
  pre: LogicalPlan,
  agg: Aggregate,
  groups: readonly LExpr[],
  g: GapfillWindows,
  items: Item[],
): LogicalPlan {
  if (agg.groupingSets !== undefined)
    throw planError('time_window_gapfill cannot be used with GROUPING SETS, ROLLUP or CUBE');
  const startKey = exprKey(g.start);
  const time = groups.findIndex((e) => exprKey(e) === startKey);
  if (time < 0) throw planError('time_window_gapfill must be used in GROUP BY');
  const keys = groups.flatMap((_e, i) => (i === time ? [] : [i]));
  const {
    fills,
    fields,
    items: rewritten,
  } = gapfillStrategies(
    items.map((i) => i.expr),
    agg.schema.fields,
  );
  rewritten.forEach((e, i) => {
    items[i]!.expr = e;
  });
  const schema = new PlanSchema([...pre.schema.fields, ...fields]);
  const node: GapFill = {
    kind: 'gapFill',
    input: pre,
    keys,
    time,
    fills,
    slideNs: g.slideNs,
    originNs: g.originNs,
    firstNs: g.firstNs,
    lastNs: g.lastNs,
    schema,
  };
  return node;
}

/** The grouping sets of ROLLUP (prefixes, longest first), CUBE (every subset) or GROUPING SETS. */
function groupingSetsOf(g: ast.GroupingExpr): ast.Expr[][] {
  const elems = g.sets;
  if (g.kind === 'groupingSets') return elems.map((e) => [...e]);
  if (g.kind === 'rollup')
    return Array.from({ length: elems.length + 1 }, (_, i) => elems.slice(0, elems.length - i).flat());
  if (elems.length > 12) throw planError(`CUBE of ${elems.length} elements has too many grouping sets`);
  // DataFusion's powerset order: by bit mask, element 0 the lowest bit.
  return Array.from({ length: 1 << elems.length }, (_, mask) =>
    elems.filter((_e, i) => (mask & (1 << i)) !== 0).flat(),
  );
}

function expandWildcard(w: ast.Wildcard, input: LogicalPlan, hasFrom: boolean): Item[] {
  if (!hasFrom) throw planError('SELECT * with no tables specified is not valid');
  const skip = input.schema.usingColumnsToSkip();
  const fields =
    w.qualifier === undefined
      ? input.schema.fields.filter((_, i) => !skip.has(i))
      : input.schema.fields.filter((f) => qualifierMatches(w.qualifier!.join('.'), f.qualifier));
  if (fields.length === 0 && w.qualifier !== undefined) throw planError(`Invalid qualifier ${w.qualifier.join('.')}`);
  return fields.map((f) => ({
    expr: { kind: 'column', qualifier: f.qualifier, name: f.name, type: f.type },
    alias: undefined,
  }));
}

function isAggregate(e: LExpr): boolean {
  return e.kind === 'aggregate';
}

/**
 * A select item named by GROUP BY (by position or alias), refused as the same expression written
 * in GROUP BY is (groupPlanner) when it holds an aggregate or a window function: grouping runs
 * before both.
 */
function groupableItem(e: LExpr): LExpr {
  const agg = collectDistinct([e], isAggregate)[0];
  if (agg !== undefined && agg.kind === 'aggregate')
    throw planError(`Aggregate functions are not allowed here: ${agg.fn.displayName}`);
  const win = collectDistinct([e], isWindow)[0];
  if (win !== undefined && win.kind === 'windowFn')
    throw planError(`Window functions are not allowed here: ${win.fn.name}`);
  return e;
}

function isWindow(e: LExpr): boolean {
  return e.kind === 'windowFn';
}

/** The output expression of an item: aliased when it has an alias. */
function itemExpr(item: Item): LExpr {
  return item.alias === undefined
    ? item.expr
    : { kind: 'alias', expr: item.expr, name: item.alias, type: item.expr.type };
}

/** The name and qualifier of an item's output column (as `exprField` names it in the projection). */
function outputField(item: Item): { qualifier: string | undefined; name: string } {
  if (item.alias !== undefined) return { qualifier: undefined, name: item.alias };
  if (item.expr.kind === 'column') return { qualifier: item.expr.qualifier, name: item.expr.name };
  return { qualifier: undefined, name: exprName(item.expr) };
}

/**
 * The select item a bare name in ORDER BY refers to, or undefined when no output column has that
 * name (the name is then an input column). DataFusion 27 plans ORDER BY against the projection's
 * schema (sql/src/query.rs `order_by`), whose bare-name lookup prefers the one match without a
 * qualifier: `SELECT c.host AS host, m.host ... ORDER BY host` sorts by the alias, and an alias
 * hides an input column of its name.
 */
function outputItemNamed(items: readonly Item[], name: string): number | undefined {
  const matches = items.flatMap((it, k) => (outputField(it).name === name ? [k] : []));
  if (matches.length <= 1) return matches[0];
  const unqualified = matches.filter((k) => outputField(items[k]!).qualifier === undefined);
  if (unqualified.length === 1) return unqualified[0];
  // The same qualified column twice (`SELECT fa, * ...`): DataFusion's projection fails first
  // ("Projections require unique expression names"), which building it here reports.
  if (matches.every((k) => outputField(items[k]!).qualifier === outputField(items[matches[0]!]!).qualifier))
    return matches[0];
  throw schemaError(`Ambiguous reference to unqualified field ${quoteName(name)}`);
}

/**
 * The bare names inside an ORDER BY expression that name select items, mapped to the items'
 * expressions (`ORDER BY lower(host)` over `c.host AS host`). Subqueries keep their own scope.
 */
function aliasReferences(e: ast.Expr, items: readonly Item[]): Map<ast.Expr, LExpr> {
  const out = new Map<ast.Expr, LExpr>();
  const visit = (x: ast.Expr): void => {
    if (x.kind === 'column') {
      const k = x.parts.length === 1 ? outputItemNamed(items, x.parts[0]!) : undefined;
      if (k !== undefined) out.set(x, items[k]!.expr);
      return;
    }
    for (const v of Object.values(x)) {
      if (v === null || typeof v !== 'object') continue;
      for (const y of Array.isArray(v) ? v : [v]) {
        if (
          y !== null &&
          typeof y === 'object' &&
          'kind' in y &&
          'pos' in y &&
          (y as { kind: string }).kind !== 'query'
        )
          visit(y as ast.Expr);
      }
    }
  };
  visit(e);
  return out;
}

interface SortItem {
  /** The position of a select item it names, or undefined. */
  item: number | undefined;
  expr: LExpr | undefined;
  asc: boolean;
  nullsFirst: boolean;
}

export function planSelect(
  qp: StatementPlanner,
  sel: ast.Select,
  orderBy: readonly ast.OrderByExpr[],
  outer: Scope | undefined,
  ctes: Ctes,
): LogicalPlan {
  const late = qp.lateErrors.block();
  const plan = planSelectBlock(qp, sel, orderBy, outer, ctes, late);
  late.close();
  return plan;
}

function planSelectBlock(
  qp: StatementPlanner,
  sel: ast.Select,
  orderBy: readonly ast.OrderByExpr[],
  outer: Scope | undefined,
  ctes: Ctes,
  late: BlockErrors,
): LogicalPlan {
  const hasFrom = sel.from.length > 0;
  let input: LogicalPlan = hasFrom ? planFrom(qp, sel.from, outer, ctes) : emptyRelation(true);
  const windows = new Map(sel.windows.map((w) => [w.name, w.spec]));

  let where: LExpr | undefined;
  if (sel.where !== undefined) {
    const pred = new ExprPlanner({
      ...qp.scope(input.schema, outer, ctes, false),
      windows,
      lateErrors: late,
      clause: Clause.Where,
      analyzed: true,
    }).plan(sel.where);
    where = coerce(pred, BOOLEAN);
    input = filter(input, where);
  }

  const base = {
    ...qp.scope(input.schema, outer, ctes, true),
    allowWindows: true,
    windows,
    lateErrors: late,
    clause: Clause.Select,
  };
  const beforeWindows = input;
  // time_window_gapfill: rows expanded into windows here, the gaps filled after the aggregate.
  const gapfill = planGapfillWindows(sel, input, where, base);
  if (gapfill !== undefined) input = gapfill.input;
  const sliding = planSlidingWindows(qp, sel, input, { ...base, schema: input.schema });
  input = sliding.input;
  const scope: Scope = {
    ...base,
    schema: input.schema,
    replacements: new Map([...(gapfill?.replacements ?? []), ...sliding.replacements]),
  };
  const planner = new ExprPlanner(scope);

  // CnosDB's selectors topk(col, k) / bottom(col, k): the column, from the k rows with the
  // largest / smallest values (a top-k under the projection).
  const selector = planSelector(sel, planner, scope);
  // Select list.
  const items: Item[] = [];
  for (const it of sel.items) {
    if (it.expr.kind === 'wildcard') items.push(...expandWildcard(it.expr, beforeWindows, hasFrom));
    else items.push({ expr: planner.plan(it.expr), alias: it.alias });
  }

  // GROUP BY: a position, a select alias (when not an input column), or an expression.
  const groupPlanner = new ExprPlanner({
    ...scope,
    allowAggregates: false,
    allowWindows: false,
    clause: Clause.GroupBy,
  });
  const planGroupItem = (g: ast.Expr): LExpr => {
    // A position names a select item; DataFusion 27 keeps any other number as a constant key.
    if (g.kind === 'number' && /^\d+$/.test(g.text)) {
      const item = items[Number(g.text) - 1];
      if (item !== undefined) return groupableItem(item.expr);
    }
    if (g.kind === 'column' && g.parts.length === 1 && input.schema.find(undefined, g.parts[0]!) < 0) {
      const aliased = items.find((i) => i.alias === g.parts[0]);
      if (aliased !== undefined) return groupableItem(aliased.expr);
    }
    return groupPlanner.plan(g);
  };
  // ROLLUP / CUBE / GROUPING SETS: the distinct expressions of all sets, and each set's positions.
  let groupBy: LExpr[];
  let groupingSets: number[][] | undefined;
  const setsItem = sel.groupBy.find(
    (g): g is ast.GroupingExpr => g.kind === 'rollup' || g.kind === 'cube' || g.kind === 'groupingSets',
  );
  if (setsItem !== undefined) {
    if (sel.groupBy.length > 1)
      throw planError('Invalid group by expressions, GroupingSet must be the only expression');
    const sets = groupingSetsOf(setsItem).map((set) => set.map(planGroupItem));
    groupBy = collectDistinct(sets.flat(), () => true);
    const keys = groupBy.map(exprKey);
    groupingSets = sets.map((set) => [...new Set(set.map((e) => keys.indexOf(exprKey(e))))]);
  } else groupBy = sel.groupBy.map(planGroupItem);

  const having =
    sel.having === undefined
      ? undefined
      : coerce(
          new ExprPlanner({ ...scope, clause: Clause.Having, analyzed: true, allowWindows: false }).plan(sel.having),
          BOOLEAN,
        );
  const orderPlanner = new ExprPlanner({ ...scope, clause: Clause.OrderBy });

  // ORDER BY items: positions and aliases refer to select items; the rest are planned here.
  const sortItems: SortItem[] = orderBy.map((o) => {
    const asc = o.asc ?? true;
    const nullsFirst = o.nullsFirst ?? !asc;
    if (o.expr.kind === 'number' && /^\d+$/.test(o.expr.text)) {
      const k = Number(o.expr.text);
      if (k < 1 || k > items.length)
        throw planError(`Order by column out of bounds, specified: ${k}, max: ${items.length}`);
      return { item: k - 1, expr: undefined, asc, nullsFirst };
    }
    if (o.expr.kind === 'column' && o.expr.parts.length === 1) {
      const k = outputItemNamed(items, o.expr.parts[0]!);
      if (k !== undefined) return { item: k, expr: undefined, asc, nullsFirst };
    }
    const aliases = aliasReferences(o.expr, items);
    const planner =
      aliases.size === 0
        ? orderPlanner
        : new ExprPlanner({
            ...scope,
            clause: Clause.OrderBy,
            replacements: new Map([...(scope.replacements ?? []), ...aliases]),
          });
    return { item: undefined, expr: planner.plan(o.expr), asc, nullsFirst };
  });

  // Aggregation.
  const aggSources = [
    ...items.map((i) => i.expr),
    ...(having ? [having] : []),
    ...sortItems.flatMap((s) => (s.expr ? [s.expr] : [])),
  ];
  const aggregates = collectDistinct(aggSources, isAggregate);
  let pre: LogicalPlan = input;
  let rewrite = (e: LExpr): LExpr => e;
  if (groupBy.length > 0 || aggregates.length > 0) {
    const groups = groupingSets !== undefined ? groupBy : collectDistinct(groupBy, () => true);
    const agg = aggregate(input, groups, aggregates, groupingSets);
    const targets: RebaseTarget[] = [
      ...groups.map((expr, index) => ({ expr, index })),
      ...aggregates.map((expr, k) => ({ expr, index: groups.length + k })),
    ];
    rewrite = (e: LExpr): LExpr => rebase(e, targets, agg.schema);
    const repairAt = findRepairItem(items, aggregates);
    pre = agg;
    for (const it of items) it.expr = rewrite(it.expr);
    checkResolved(
      items.map((i) => i.expr),
      agg.schema,
      input.schema,
    );
    if (gapfill !== undefined) pre = addGapFill(pre, agg, groups, gapfill, items);
    if (having !== undefined) {
      const h = rewrite(having);
      checkResolved([h], agg.schema, input.schema);
      pre = filter(pre, h);
    }
    for (const s of sortItems) if (s.expr) s.expr = rewrite(s.expr);
    // A sort key's subquery reading a column of the aggregate's input that is not a group key
    // fails as a plain column would (the widened projection cannot resolve it).
    for (const s of sortItems)
      if (s.expr)
        for (const r of subqueryOuterReferences(s.expr))
          if (input.schema.has(r.qualifier, r.name)) agg.schema.resolve(r.qualifier, r.name);
    if (repairAt !== undefined) {
      pre = unnestRepairItem(pre, items, repairAt);
      // The call's item is now two (time, value): positions after it move one on.
      for (const s of sortItems) if (s.item !== undefined && s.item >= repairAt) s.item++;
    }
  } else if (having !== undefined) {
    throw planError(
      'HAVING clause references: ' +
        exprName(having) +
        ' must appear in the GROUP BY clause or be used in an aggregate function',
    );
  }

  if (gapfill !== undefined && groupBy.length === 0) throw planError('time_window_gapfill must be used in GROUP BY');

  // Window functions.
  const windowExprs = collectDistinct(
    [...items.map((i) => i.expr), ...sortItems.flatMap((s) => (s.expr ? [s.expr] : []))],
    isWindow,
  );
  if (windowExprs.length > 0) {
    const w = windowNode(pre, windowExprs);
    const offset = pre.schema.length;
    const targets = windowExprs.map((expr, k) => ({ expr, index: offset + k }));
    for (const it of items) it.expr = rebase(it.expr, targets, w.schema);
    for (const s of sortItems) if (s.expr) s.expr = rebase(s.expr, targets, w.schema);
    pre = w;
  }

  const exprs = items.map(itemExpr);
  if (selector !== undefined) {
    pre = limit(
      sort(pre, [{ expr: selector.column, asc: selector.bottom, nullsFirst: false }], selector.k),
      0,
      selector.k,
    );
  }
  let plan: LogicalPlan = projection(pre, exprs);
  if (sel.distinct) plan = distinct(plan);
  if (sortItems.length === 0) return plan;

  // Resolve sort keys against the projection output; widen it for the others.
  const out = plan.schema;
  const keys: SortExpr[] = [];
  const extra: LExpr[] = [];
  const itemKeys = items.map((i) => exprKey(i.expr));
  for (const s of sortItems) {
    let index = s.item;
    if (index === undefined) {
      const k = exprKey(s.expr!);
      const hit = itemKeys.indexOf(k);
      if (hit >= 0) index = hit;
    }
    if (index !== undefined) {
      const f = out.field(index);
      keys.push({
        expr: { kind: 'column', qualifier: f.qualifier, name: f.name, type: f.type },
        asc: s.asc,
        nullsFirst: s.nullsFirst,
      });
      continue;
    }
    if (sel.distinct) throw planError('For SELECT DISTINCT, ORDER BY expressions must appear in select list');
    const e = s.expr!;
    extra.push(e);
    keys.push({ expr: e, asc: s.asc, nullsFirst: s.nullsFirst });
  }
  if (extra.length === 0) return sort(plan, keys);
  // Widen: the select items plus the extra sort expressions (named as DataFusion names them).
  const wide = projection(pre, [
    ...exprs,
    ...collectDistinct(extra, () => true).filter((e) => !exprs.some((x) => exprKey(x) === exprKey(e))),
  ]);
  const wideKeys = keys.map((k) => {
    if (k.expr.kind === 'column' && wide.schema.find(k.expr.qualifier, k.expr.name) >= 0) return k;
    const f = wide.schema.fields.find((x) => x.name === exprName(k.expr));
    if (f === undefined) throw bug(`sort key ${exprName(k.expr)} lost while widening the projection`);
    return { ...k, expr: { kind: 'column' as const, qualifier: f.qualifier, name: f.name, type: f.type } };
  });
  const sorted = sort(wide, wideKeys);
  return projection(
    sorted,
    out.fields.map((f) => ({ kind: 'column', qualifier: f.qualifier, name: f.name, type: f.type })),
  );
}
