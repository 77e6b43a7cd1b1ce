// Limit pushdown (DataFusion's PushDownLimit): `ORDER BY ... LIMIT k` marks the sort with a
// fetch of skip + k, which runs as a top-k instead of a full sort; a limit reaches through
// projections and union inputs down to a scan, which then stops reading after that many rows
// (after its own predicates, so a scan with pushed filters still takes it).

import type { LogicalPlan } from '../plan/logical-plan.js';
import { limit as limitNode } from '../plan/logical-plan.js';
import type { OptimizerRule, RuleResult } from './optimizer-rule.js';
import { transformDown } from './plan-rewrite.js';

/** `plan` told that only its first `n` rows are needed. */
function withFetch(plan: LogicalPlan, n: number): LogicalPlan {
  switch (plan.kind) {
    case 'sort':
      return plan.fetch !== undefined && plan.fetch <= n ? plan : { ...plan, fetch: n };
    case 'scan':
      return plan.fetch !== undefined && plan.fetch <= n ? plan : { ...plan, fetch: n };
    case 'projection':
      return { ...plan, input: withFetch(plan.input, n) };
    case 'subqueryAlias':
      return { ...plan, input: withFetch(plan.input, n) };
    case 'union':
      return { ...plan, inputs: plan.inputs.map((i) => (i.kind === 'limit' ? i : limitNode(withFetch(i, n), 0, n))) };
    case 'limit': {
      const inner = plan.fetch === undefined ? n : Math.min(plan.fetch, n);
      return plan.fetch === inner ? plan : { ...plan, fetch: inner };
    }
    default:
      return plan;
  }
}

export const pushDownLimit: OptimizerRule = {
  name: 'push_down_limit',
  rewrite(plan: LogicalPlan): RuleResult {
    let changed = false;
    const out = transformDown(plan, (p) => {
      if (p.kind !== 'limit' || p.fetch === undefined) return p;
      const input = withFetch(p.input, p.skip + p.fetch);
      if (input === p.input) return p;
      changed = true;
      return { ...p, input };
    });
    return { plan: out, changed };
  },
};
