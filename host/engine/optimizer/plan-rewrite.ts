// Walking helpers for rules: rebuild a plan bottom-up, or map the expressions of every node.

import type { LExpr } from '../plan/expr.js';
import type { LogicalPlan } from '../plan/logical-plan.js';
import { inputsOf, withInputs } from '../plan/logical-plan.js';

/** Rebuilds `plan` bottom-up: `f` sees each node after its inputs were rewritten. */
export function transformUp(plan: LogicalPlan, f: (p: LogicalPlan) => LogicalPlan): LogicalPlan {
  const inputs = inputsOf(plan);
  let node = plan;
  if (inputs.length > 0) {
    const next = inputs.map((i) => transformUp(i, f));
    if (next.some((n, k) => n !== inputs[k])) node = withInputs(plan, next);
  }
  return f(node);
}

/** Rewrites `plan` top-down: `f` may replace a node before its inputs are visited. */
export function transformDown(plan: LogicalPlan, f: (p: LogicalPlan) => LogicalPlan): LogicalPlan {
  const node = f(plan);
  const inputs = inputsOf(node);
  if (inputs.length === 0) return node;
  const next = inputs.map((i) => transformDown(i, f));
  return next.some((n, k) => n !== inputs[k]) ? withInputs(node, next) : node;
}

/** Maps every expression a node holds (names of projections are the caller's concern). */
export type ExprMapper = (e: LExpr) => LExpr;
