// ORDER BY the time bucket [DESC] LIMIT k over a time-bucket aggregate (through a projection of
// its columns): the aggregate is told that only the k latest (earliest) buckets can matter, and
// the top-k sort above it sees only their groups.

import type { ExecNode } from '../exec/exec-plan.js';
import { ProjectionExec } from '../exec/projection-exec.js';
import { SortExec } from '../exec/sort-exec.js';
import { timeBucketAggregate } from '../exec/time-bucket-aggregate-exec.js';
import type { LExpr } from '../plan/expr.js';
import type { Sort } from '../plan/logical-plan.js';
import { UNCHANGED, type PhysicalRule } from './physical-rule.js';

export const bucketLimit: PhysicalRule = {
  name: 'bucket_limit',
  rewrite(plan) {
    if (plan.kind !== 'sort') return UNCHANGED;
    const limited = bucketLimitInput(plan);
    return limited === undefined
      ? UNCHANGED
      : { changed: true, plan: new SortExec(limited, plan.orderBy, plan.input.schema, plan.fetch) };
  },
};

function bucketLimitInput(sort: Sort): ExecNode | undefined {
  const first = sort.orderBy[0];
  if (sort.fetch === undefined || first === undefined || first.expr.kind !== 'column') return undefined;
  let expr: LExpr = first.expr;
  let node = sort.input;
  const proj = node.kind === 'projection' ? node : undefined;
  if (proj !== undefined) {
    const i = proj.schema.find(first.expr.qualifier, first.expr.name);
    if (i < 0) return undefined;
    const e = proj.exprs[i]!;
    expr = e.kind === 'alias' ? e.expr : e;
    node = proj.input;
  }
  if (node.kind !== 'aggregate' || expr.kind !== 'column') return undefined;
  const agg = node;
  const at = agg.schema.find(expr.qualifier, expr.name);
  if (at < 0 || at >= agg.groupBy.length) return undefined;
  const g = agg.groupBy[at]!;
  const bucket = g.kind === 'alias' ? g.expr : g;
  if (bucket.kind !== 'scalarFn' || bucket.fn.name !== 'date_bin') return undefined;
  const exec = timeBucketAggregate(agg, { k: sort.fetch, desc: !first.asc });
  if (exec === undefined) return undefined;
  return proj === undefined ? exec : new ProjectionExec(exec, proj.exprs, proj.input.schema, proj.schema.toSchema());
}
