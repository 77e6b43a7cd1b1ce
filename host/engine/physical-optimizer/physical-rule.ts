// The physical rules' contract and driver, like the logical optimizer's (optimizer-rule.ts): a
// rule has a name and a rewrite that reports whether it changed the plan. A rule looks at one
// logical node while it is being planned and, where its pattern holds, answers with the
// specialised operators instead of the plain one a node maps to; the first rule that changes
// the node wins. Operators here are built once, so a rewrite reads the logical node it replaces
// rather than an operator tree.

import { bug } from '../../core/errors.js';
import type { ExecNode } from '../exec/exec-plan.js';
import type { LogicalPlan } from '../plan/logical-plan.js';
import { typeName, type Schema } from '../types/index.js';

/** Plans a node's input (the physical planner, passed in: it is the one that calls the rules). */
export type PlanInput = (plan: LogicalPlan) => ExecNode;

export type PhysicalRuleResult = { readonly changed: false } | { readonly changed: true; readonly plan: ExecNode };

export interface PhysicalRule {
  readonly name: string;
  rewrite(plan: LogicalPlan, planInput: PlanInput): PhysicalRuleResult;
}

export const UNCHANGED: PhysicalRuleResult = { changed: false };

function schemaText(s: Schema): string {
  return s.fields.map((f) => `${f.name}:${typeName(f.type)}`).join(', ');
}

/**
 * The operators the first rule that applies gives for `plan`, or undefined when none does. The
 * operators must produce the node's columns; an internal error names the rule.
 */
export function applyPhysicalRules(
  plan: LogicalPlan,
  rules: readonly PhysicalRule[],
  planInput: PlanInput,
): ExecNode | undefined {
  for (const rule of rules) {
    let result: PhysicalRuleResult;
    try {
      result = rule.rewrite(plan, planInput);
    } catch (e) {
      if (e instanceof Error && e.message.startsWith('BUG:'))
        throw bug(`physical rule ${rule.name}: ${e.message.slice(5)}`);
      throw e;
    }
    if (!result.changed) continue;
    const want = schemaText(plan.schema.toSchema());
    const got = schemaText(result.plan.schema);
    if (got !== want) throw bug(`physical rule ${rule.name} planned the columns [${got}] for [${want}]`);
    return result.plan;
  }
  return undefined;
}
