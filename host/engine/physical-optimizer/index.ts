// The physical rules in the order the physical planner tries them on each node (one file each,
// STYLE §2); the first that changes a node gives its operators.

import type { ExecNode } from '../exec/exec-plan.js';
import type { LogicalPlan } from '../plan/logical-plan.js';
import { bucketLimit } from './bucket-limit.js';
import { orderedAggregate } from './ordered-aggregate.js';
import { partitionTopK } from './partition-top-k.js';
import { applyPhysicalRules, type PhysicalRule, type PlanInput } from './physical-rule.js';
import { timeBucketAggregation } from './time-bucket-aggregate.js';

/** bucket_limit before ordered_aggregate (as before they had files): with a LIMIT on the bucket order only k buckets are aggregated. */
export const PHYSICAL_RULES: readonly PhysicalRule[] = [
  partitionTopK,
  timeBucketAggregation,
  bucketLimit,
  orderedAggregate,
];

/** The operators a physical rule gives for `plan`, or undefined: the plain operator applies. */
export function rewritePhysical(plan: LogicalPlan, planInput: PlanInput): ExecNode | undefined {
  return applyPhysicalRules(plan, PHYSICAL_RULES, planInput);
}
