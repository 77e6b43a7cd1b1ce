// ORDER BY every group column (in any order and direction) of a time-bucket aggregate, through a
// projection of its columns: the aggregate emits its groups in that order (the tag combinations
// sorted once, then their buckets by number) and the sort goes away; a LIMIT stays as one.

import type { ExecNode } from '../exec/exec-plan.js';
import { LimitExec } from '../exec/limit-exec.js';
import { ProjectionExec } from '../exec/projection-exec.js';
import { timeBucketAggregate } from '../exec/time-bucket-aggregate-exec.js';
import type { GroupOrder } from '../exec/time-bucket-groups.js';
import type { LExpr } from '../plan/expr.js';
import type { Sort } from '../plan/logical-plan.js';
import { UNCHANGED, type PhysicalRule } from './physical-rule.js';

export const orderedAggregate: PhysicalRule = {
  name: 'ordered_aggregate',
  rewrite(plan) {
    if (plan.kind !== 'sort') return UNCHANGED;
    const ordered = orderedAggregateInput(plan);
    if (ordered === undefined) return UNCHANGED;
    return { changed: true, plan: plan.fetch === undefined ? ordered : new LimitExec(ordered, 0, plan.fetch) };
  },
};

function orderedAggregateInput(sort: Sort): ExecNode | undefined {
  let node = sort.input;
  const proj = node.kind === 'projection' ? node : undefined;
  if (proj !== undefined) node = proj.input;
  if (node.kind !== 'aggregate' || node.groupingSets !== undefined || node.groupBy.length === 0) return undefined;
  const agg = node;
  const order: GroupOrder[] = [];
  for (const o of sort.orderBy) {
    let e: LExpr = o.expr;
    if (e.kind !== 'column') return undefined;
    if (proj !== undefined) {
      const i = proj.schema.find(e.qualifier, e.name);
      if (i < 0) return undefined;
      const pe = proj.exprs[i]!;
      e = pe.kind === 'alias' ? pe.expr : pe;
      if (e.kind !== 'column') return undefined;
    }
    const at = agg.schema.find(e.qualifier, e.name);
    if (at < 0 || at >= agg.groupBy.length) return undefined;
    // A key named twice orders nothing the first time did not.
    if (!order.some((x) => x.group === at)) order.push({ group: at, asc: o.asc, nullsFirst: o.nullsFirst });
  }
  const exec = timeBucketAggregate(agg, undefined, order);
  if (exec === undefined) return undefined;
  return proj === undefined ? exec : new ProjectionExec(exec, proj.exprs, proj.input.schema, proj.schema.toSchema());
}
