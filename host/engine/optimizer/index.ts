// The optimizer's rules in the order they run (each in its own file, STYLE §2).

import type { LogicalPlan } from '../plan/logical-plan.js';
import { optimize, type OptimizerContext, type OptimizerRule } from './optimizer-rule.js';
import { pushDownFilter } from './push-down-filter.js';
import { pushDownLimit } from './push-down-limit.js';
import { pushDownProjection } from './push-down-projection.js';
import { simplifyExpressions } from './simplify-expressions.js';

export const RULES: readonly OptimizerRule[] = [
  simplifyExpressions,
  pushDownFilter,
  simplifyExpressions,
  pushDownLimit,
  pushDownProjection,
];

export function optimizePlan(plan: LogicalPlan, ctx: OptimizerContext): LogicalPlan {
  return optimize(plan, RULES, ctx);
}

export type { OptimizerContext, OptimizerRule };
