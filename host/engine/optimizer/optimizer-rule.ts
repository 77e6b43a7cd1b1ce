// The optimizer driver (DataFusion's optimizer.rs): named rules, each a rewrite that reports
// whether it changed the plan, run in order until none changes anything (at most a few passes).
// After every rule the driver checks that the plan still produces the same columns, and an
// internal error names the rule that broke it.

import { bug } from '../../core/errors.js';
import type { LogicalPlan } from '../plan/logical-plan.js';
import { flatName } from '../plan/plan-schema.js';
import { typeName } from '../types/index.js';

export interface OptimizerContext {
  /** The statement's now(), for folding now() and casts of time literals. */
  readonly nowNs: bigint;
  /**
   * The query's memory limit, which a value folded from constants must fit (functions/
   * result-size.ts); absent: no limit but the longest string V8 holds.
   */
  readonly memoryLimitBytes?: number;
}

export interface RuleResult {
  readonly plan: LogicalPlan;
  readonly changed: boolean;
}

export interface OptimizerRule {
  readonly name: string;
  rewrite(plan: LogicalPlan, ctx: OptimizerContext): RuleResult;
}

const MAX_PASSES = 3;

function schemaText(p: LogicalPlan): string {
  return p.schema.fields.map((f) => `${flatName(f.qualifier, f.name)}:${typeName(f.type)}`).join(', ');
}

export function optimize(plan: LogicalPlan, rules: readonly OptimizerRule[], ctx: OptimizerContext): LogicalPlan {
  let current = plan;
  const expected = schemaText(plan);
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    let changed = false;
    for (const rule of rules) {
      let result: RuleResult;
      try {
        result = rule.rewrite(current, ctx);
      } catch (e) {
        if (e instanceof Error && e.message.startsWith('BUG:'))
          throw bug(`optimizer rule ${rule.name}: ${e.message.slice(5)}`);
        throw e;
      }
      if (!result.changed) continue;
      const got = schemaText(result.plan);
      if (got !== expected)
        throw bug(`optimizer rule ${rule.name} changed the output schema from [${expected}] to [${got}]`);
      current = result.plan;
      changed = true;
    }
    if (!changed) break;
  }
  return current;
}
