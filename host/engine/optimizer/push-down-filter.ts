// Predicate pushdown (DataFusion's PushDownFilter): a Filter's conjuncts move down through
// projections (column references replaced by the expressions they name), aliases, sorts,
// DISTINCT, unions, group keys of an aggregate and the matching side of a join, until they land
// in the table scan, where time bounds and tag tests prune series and blocks before anything
// is read. A comparison across the two sides of a join without keys (`ON true`) makes it an
// equi-join.

import { anyExpr, columnsOf, conjunction, replaceExpr, splitConjunction, type LExpr } from '../plan/expr.js';
import type { LogicalPlan } from '../plan/logical-plan.js';
import { filter, inputsOf, subqueryOuterReferences, withInputs, type ColumnName } from '../plan/logical-plan.js';
import type { PlanSchema } from '../plan/plan-schema.js';
import type { OptimizerRule, RuleResult } from './optimizer-rule.js';

function fieldKey(qualifier: string | undefined, name: string): string {
  return `${qualifier ?? ''}|${name}`;
}

/** Replaces column references by the expressions `map` gives for them. */
function substitute(e: LExpr, map: ReadonlyMap<string, LExpr>): LExpr {
  return replaceExpr(e, (x) => (x.kind === 'column' ? map.get(fieldKey(x.qualifier, x.name)) : undefined));
}

function unsafe(e: LExpr): boolean {
  return anyExpr(
    e,
    (x) => x.kind === 'windowFn' || x.kind === 'aggregate' || (x.kind === 'scalarFn' && x.fn.volatile === true),
  );
}

/**
 * The fields of `scope` (the rows the predicate is evaluated on) that the subqueries of `e` read
 * as outer references: `EXISTS (SELECT 1 FROM r WHERE r.k = l.k)` reads l.k. References to
 * queries further out are bound from those and do not count.
 */
function correlated(e: LExpr, scope: PlanSchema): ColumnName[] {
  return subqueryOuterReferences(e).filter((r) => scope.has(r.qualifier, r.name));
}

/** Whether every column `e` reads from `scope`'s rows (correlated subqueries included) is in `s`. */
function resolvesIn(e: LExpr, s: PlanSchema, scope: PlanSchema): boolean {
  return [...columnsOf(e), ...correlated(e, scope)].every((c) => s.has(c.qualifier, c.name));
}

/** A map from the fields of `outer` to columns of `inner`, position by position. */
function positional(outer: PlanSchema, inner: PlanSchema): Map<string, LExpr> {
  const m = new Map<string, LExpr>();
  outer.fields.forEach((f, i) => {
    const g = inner.field(i);
    m.set(fieldKey(f.qualifier, f.name), { kind: 'column', qualifier: g.qualifier, name: g.name, type: g.type });
  });
  return m;
}

function keep(plan: LogicalPlan, preds: readonly LExpr[]): LogicalPlan {
  const p = conjunction(preds);
  return p === undefined ? plan : filter(plan, p);
}

function pushChildren(plan: LogicalPlan): LogicalPlan {
  const inputs = inputsOf(plan);
  if (inputs.length === 0) return plan;
  const next = inputs.map((i) => push(i, []));
  return next.some((n, k) => n !== inputs[k]) ? withInputs(plan, next) : plan;
}

/** `Filter(preds)` over `plan`, with the predicates pushed as deep as they go. */
function push(plan: LogicalPlan, preds: LExpr[]): LogicalPlan {
  switch (plan.kind) {
    case 'filter':
      // A conjunct that is the constant TRUE filters nothing.
      return push(plan.input, [
        ...preds,
        ...splitConjunction(plan.predicate).filter((c) => !(c.kind === 'literal' && c.value === true)),
      ]);
    case 'scan':
      if (preds.length === 0) return plan;
      return { ...plan, filters: [...plan.filters, ...preds] };
    case 'projection': {
      const map = new Map<string, LExpr>();
      plan.exprs.forEach((e, i) => {
        const f = plan.schema.field(i);
        map.set(fieldKey(f.qualifier, f.name), e.kind === 'alias' ? e.expr : e);
      });
      const down: LExpr[] = [];
      const up: LExpr[] = [];
      for (const p of preds) {
        const s = substitute(p, map);
        // A subquery's outer references name this projection's fields, which substitute does
        // not rewrite inside subquery plans: such a predicate stays above.
        if (
          unsafe(s) ||
          (anyExpr(s, (x) => x.kind === 'scalarSubquery' || x.kind === 'exists' || x.kind === 'inSubquery') &&
            s !== p) ||
          correlated(p, plan.schema).length > 0
        )
          up.push(p);
        else down.push(s);
      }
      return keep({ ...plan, input: push(plan.input, down) }, up);
    }
    case 'subqueryAlias': {
      const map = positional(plan.schema, plan.input.schema);
      const up = preds.filter((p) => correlated(p, plan.schema).length > 0);
      const down = preds.filter((p) => !up.includes(p)).map((p) => substitute(p, map));
      return keep({ ...plan, input: push(plan.input, down) }, up);
    }
    case 'sort':
      if (plan.fetch !== undefined) return keep(pushChildren(plan), preds);
      return { ...plan, input: push(plan.input, preds) };
    case 'distinct':
      return { ...plan, input: push(plan.input, preds) };
    case 'aggregate': {
      const map = new Map<string, LExpr>();
      plan.groupBy.forEach((g, i) => {
        // With grouping sets only keys of every set pass: the others are NULL in some rows.
        if (plan.groupingSets !== undefined && !plan.groupingSets.every((set) => set.includes(i))) return;
        const f = plan.schema.field(i);
        map.set(fieldKey(f.qualifier, f.name), g.kind === 'alias' ? g.expr : g);
      });
      const down: LExpr[] = [];
      const up: LExpr[] = [];
      for (const p of preds) {
        const cols = columnsOf(p);
        if (
          cols.length > 0 &&
          cols.every((c) => map.has(fieldKey(c.qualifier, c.name))) &&
          correlated(p, plan.schema).length === 0
        )
          down.push(substitute(p, map));
        else up.push(p);
      }
      return keep({ ...plan, input: push(plan.input, down) }, up);
    }
    case 'union': {
      const up = preds.filter((p) => correlated(p, plan.schema).length > 0);
      const down = preds.filter((p) => !up.includes(p));
      const inputs = plan.inputs.map((input) => {
        const map = positional(plan.schema, input.schema);
        return push(
          input,
          down.map((p) => substitute(p, map)),
        );
      });
      return keep({ ...plan, inputs }, up);
    }
    case 'timeWindow': {
      const windowField = plan.schema.field(plan.schema.length - 1);
      const down: LExpr[] = [];
      const up: LExpr[] = [];
      for (const p of preds)
        (columnsOf(p).some((c) => c.name === windowField.name && c.qualifier === windowField.qualifier) ||
        correlated(p, plan.schema).length > 0
          ? up
          : down
        ).push(p);
      return keep({ ...plan, input: push(plan.input, down) }, up);
    }
    case 'join': {
      const left: LExpr[] = [];
      const right: LExpr[] = [];
      const up: LExpr[] = [];
      let on = [...plan.on];
      let joinFilter: LExpr[] = plan.filter === undefined ? [] : [plan.filter];
      let joinType = plan.joinType;
      const innerish = joinType === 'INNER' || joinType === 'CROSS';
      const scope = plan.schema;
      for (const p of preds) {
        const l = resolvesIn(p, plan.left.schema, scope);
        const r = resolvesIn(p, plan.right.schema, scope);
        const hasCols = columnsOf(p).length > 0 || correlated(p, scope).length > 0;
        if (hasCols && l && (innerish || joinType === 'LEFT' || joinType === 'SEMI' || joinType === 'ANTI'))
          left.push(p);
        else if (hasCols && r && (innerish || joinType === 'RIGHT')) right.push(p);
        else if (innerish && hasCols) {
          if (
            p.kind === 'binary' &&
            p.op === '=' &&
            resolvesIn(p.left, plan.left.schema, scope) &&
            resolvesIn(p.right, plan.right.schema, scope)
          )
            on = [...on, [p.left, p.right]];
          else if (
            p.kind === 'binary' &&
            p.op === '=' &&
            resolvesIn(p.right, plan.left.schema, scope) &&
            resolvesIn(p.left, plan.right.schema, scope)
          )
            on = [...on, [p.right, p.left]];
          else joinFilter = [...joinFilter, p];
          joinType = 'INNER';
        } else up.push(p);
      }
      const next = {
        ...plan,
        left: push(plan.left, left),
        right: push(plan.right, right),
        on,
        filter: conjunction(joinFilter),
        joinType,
      };
      return keep(next, up);
    }
    default:
      return keep(pushChildren(plan), preds);
  }
}

/** Where the predicates are: node kinds in pre-order with their predicate counts. */
function shape(p: LogicalPlan): string {
  let s = p.kind;
  if (p.kind === 'scan') s += p.filters.length;
  if (p.kind === 'join') s += `${p.joinType}${p.on.length}${p.filter === undefined ? '' : 'f'}`;
  for (const i of inputsOf(p)) s += `(${shape(i)})`;
  return s;
}

export const pushDownFilter: OptimizerRule = {
  name: 'push_down_filter',
  rewrite(plan: LogicalPlan): RuleResult {
    const out = push(plan, []);
    if (out === plan) return { plan, changed: false };
    return { plan: out, changed: shape(out) !== shape(plan) };
  },
};
