// CnosDB's RejectCrossJoin, the first rule of its optimizer: a cross join in the statement (`a
// CROSS JOIN b`, `FROM a, b`, `a JOIN b` without ON or USING) fails with "This feature is not
// implemented: cross join", also when a WHERE condition would make it an equi-join (DataFusion
// 27 plans `FROM a, b` as a cross join under a filter, and the rule sees it first). A join whose
// ON condition holds no equality (`ON true`) is not a cross join and runs (nested loops).
// It runs on the planned statement, so planning errors come first, as in CnosDB.

import { notImplemented } from '../errors.js';
import { inputsOf, type LogicalPlan } from '../plan/logical-plan.js';
import type { OptimizerRule, RuleResult } from './optimizer-rule.js';

function check(plan: LogicalPlan): void {
  if (plan.kind === 'join' && plan.joinType === 'CROSS') throw notImplemented('cross join');
  for (const input of inputsOf(plan)) check(input);
}

export const rejectCrossJoin: OptimizerRule = {
  name: 'reject_cross_join',
  rewrite(plan: LogicalPlan): RuleResult {
    check(plan);
    return { plan, changed: false };
  },
};
