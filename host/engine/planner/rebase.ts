// Rewrites expressions to read the columns a lower node already computed: after an Aggregate,
// `SUM(t.v) + 1` reads the column "SUM(t.v)"; after a Window, `ROW_NUMBER() OVER (...)` reads
// its window column (DataFusion's rebase_expr). Matching is structural (exprKey), outermost
// first, so `GROUP BY a + b` also serves `a + b` in the select list.

import { planError } from '../errors.js';
import { children, columnsOf, exprKey, replaceExpr, type LExpr } from '../plan/expr.js';
import { subqueryOuterReferences } from '../plan/logical-plan.js';
import type { PlanSchema } from '../plan/plan-schema.js';
import { flatName } from '../plan/plan-schema.js';

export interface RebaseTarget {
  /** The expression computed below. */
  readonly expr: LExpr;
  /** Its column in the lower node's output. */
  readonly index: number;
}

/** Replaces every subexpression equal to a target by the target's output column. */
export function rebase(e: LExpr, targets: readonly RebaseTarget[], schema: PlanSchema): LExpr {
  const byKey = new Map<string, number>();
  for (const t of targets) byKey.set(exprKey(t.expr), t.index);
  return replaceExpr(e, (x) => {
    const i = byKey.get(exprKey(x));
    if (i === undefined) return undefined;
    const f = schema.field(i);
    return { kind: 'column', qualifier: f.qualifier, name: f.name, type: f.type };
  });
}

/** Collects the distinct subexpressions satisfying `pred` (outermost only), in order of appearance. */
export function collectDistinct(exprs: readonly LExpr[], pred: (e: LExpr) => boolean): LExpr[] {
  const out: LExpr[] = [];
  const seen = new Set<string>();
  const walk = (e: LExpr): void => {
    if (pred(e)) {
      const k = exprKey(e);
      if (!seen.has(k)) {
        seen.add(k);
        out.push(e);
      }
      return;
    }
    for (const c of children(e)) walk(c);
  };
  for (const e of exprs) walk(e);
  return out;
}

/** Throws DataFusion's error when a rebased select item still reads a column the node lacks. */
export function checkResolved(exprs: readonly LExpr[], schema: PlanSchema, input?: PlanSchema): void {
  const unresolved = (qualifier: string | undefined, name: string): never => {
    const available = schema.fields.map((f) => flatName(f.qualifier, f.name)).join(', ');
    throw planError(
      `Projection references non-aggregate values: Expression ${flatName(qualifier, name)} could not be resolved from available columns: ${available}`,
    );
  };
  for (const e of exprs) {
    for (const c of columnsOf(e)) {
      if (schema.find(c.qualifier, c.name) < 0) unresolved(c.qualifier, c.name);
    }
    // A subquery's outer reference to a column of the aggregate's input reads it from the
    // aggregate's rows, so it too must be a group key (else nothing binds it at run time).
    if (input === undefined) continue;
    for (const r of subqueryOuterReferences(e))
      if (input.has(r.qualifier, r.name) && !schema.has(r.qualifier, r.name)) unresolved(r.qualifier, r.name);
  }
}
