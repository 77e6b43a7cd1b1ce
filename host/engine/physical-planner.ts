// Logical plan -> operators, one operator per node unless a rule of physical-optimizer/ gives a
// better one for the node (a top-k per partition, the time-bucket aggregate and its ordered and
// limited forms). The rules are tried first on every node; the plain mapping is the fallback.

import type { LExpr } from './plan/expr.js';
import type { LogicalPlan } from './plan/logical-plan.js';
import type { ExecNode } from './exec/exec-plan.js';
import { ExternalScanExec } from './exec/external-scan-exec.js';
import { FilterExec } from './exec/filter-exec.js';
import { GapFillExec } from './exec/gap-fill-exec.js';
import { groupingSetsAggregate } from './exec/grouping-sets-exec.js';
import { HashAggregateExec } from './exec/hash-aggregate-exec.js';
import { HashJoinExec } from './exec/hash-join-exec.js';
import { LimitExec } from './exec/limit-exec.js';
import { ProjectionExec } from './exec/projection-exec.js';
import { ScanExec } from './exec/scan-exec.js';
import { SortExec } from './exec/sort-exec.js';
import { TimeWindowExec } from './exec/time-window-exec.js';
import { UnnestSeriesExec } from './exec/unnest-series-exec.js';
import { UnionExec } from './exec/union-exec.js';
import { EmptyExec, ValuesExec } from './exec/values-exec.js';
import { WindowExec } from './exec/window-exec.js';
import { rewritePhysical } from './physical-optimizer/index.js';

export function createPhysicalPlan(plan: LogicalPlan): ExecNode {
  return rewritePhysical(plan, createPhysicalPlan) ?? plainOperator(plan);
}

/** The operator a node maps to when no physical rule applies. */
function plainOperator(plan: LogicalPlan): ExecNode {
  const schema = plan.schema.toSchema();
  switch (plan.kind) {
    case 'scan':
      return new ScanExec({
        database: plan.database,
        table: plan.table,
        qualifier: plan.qualifier,
        projection: plan.projection,
        filters: plan.filters,
        fetch: plan.fetch,
      });
    case 'externalScan':
      return new ExternalScanExec(plan.table, schema);
    case 'values':
      return new ValuesExec(plan.rows, schema);
    case 'empty':
      return new EmptyExec(plan.produceOneRow);
    case 'projection':
      return new ProjectionExec(createPhysicalPlan(plan.input), plan.exprs, plan.input.schema, schema);
    case 'filter':
      return new FilterExec(createPhysicalPlan(plan.input), plan.predicate, plan.input.schema);
    case 'aggregate':
      if (plan.groupingSets !== undefined) return groupingSetsAggregate(plan, createPhysicalPlan(plan.input));
      return new HashAggregateExec(
        createPhysicalPlan(plan.input),
        plan.groupBy,
        plan.aggregates,
        plan.input.schema,
        schema,
      );
    case 'window':
      return new WindowExec(createPhysicalPlan(plan.input), plan.windowExprs, plan.input.schema, schema);
    case 'sort':
      return new SortExec(createPhysicalPlan(plan.input), plan.orderBy, plan.input.schema, plan.fetch);
    case 'limit':
      return new LimitExec(createPhysicalPlan(plan.input), plan.skip, plan.fetch);
    case 'join':
      return new HashJoinExec(
        createPhysicalPlan(plan.left),
        createPhysicalPlan(plan.right),
        {
          joinType: plan.joinType === 'CROSS' ? 'INNER' : plan.joinType,
          leftKeys: plan.on.map(([l]) => l),
          rightKeys: plan.on.map(([, r]) => r),
          filter: plan.filter,
          nullEqualsNull: plan.nullEqualsNull === true,
          leftSchema: plan.left.schema,
          rightSchema: plan.right.schema,
          joinedSchema: plan.left.schema.concat(plan.right.schema),
        },
        schema,
      );
    case 'union':
      return new UnionExec(plan.inputs.map(createPhysicalPlan), schema);
    case 'distinct': {
      const groupBy: LExpr[] = plan.input.schema.fields.map((f) => ({
        kind: 'column',
        qualifier: f.qualifier,
        name: f.name,
        type: f.type,
      }));
      return new HashAggregateExec(createPhysicalPlan(plan.input), groupBy, [], plan.input.schema, schema);
    }
    case 'subqueryAlias':
      return createPhysicalPlan(plan.input);
    case 'timeWindow':
      return new TimeWindowExec(
        createPhysicalPlan(plan.input),
        plan.time,
        plan.windowNs,
        plan.slideNs,
        plan.originNs,
        plan.input.schema,
        schema,
      );
    case 'gapFill':
      return new GapFillExec(createPhysicalPlan(plan.input), plan, schema);
    case 'unnestSeries':
      return new UnnestSeriesExec(createPhysicalPlan(plan.input), plan.column, schema);
  }
}
