// Logical plan -> operators. Mostly one operator per node; the choices are: an Aggregate over a
// table scan grouped by tags and one date_bin/time bucket runs as the time-bucket aggregate;
// a Filter `row_number() OVER (...) <= k` over its Window runs as a top-k per partition, and
// when the partitions are tags and the order is time descending, the scan keeps only the last
// k rows of each series before anything is materialized (the lastpoint query).

import { bug } from '../core/errors.js';
import type { LExpr } from './plan/expr.js';
import type { LogicalPlan, Sort } from './plan/logical-plan.js';
import type { ExecNode } from './exec/exec-plan.js';
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
import { timeBucketAggregate } from './exec/time-bucket-aggregate-exec.js';
import type { GroupOrder } from './exec/time-bucket-groups.js';
import { UnionExec } from './exec/union-exec.js';
import { EmptyExec, ValuesExec } from './exec/values-exec.js';
import { PartitionTopKExec, WindowExec } from './exec/window-exec.js';

/** `rn = 1`, `rn <= k`, `rn < k` on the window column `name`: k, else undefined. */
function rowNumberBound(pred: LExpr, name: string): number | undefined {
  if (pred.kind !== 'binary') return undefined;
  let { op } = pred;
  let c = pred.left;
  let k = pred.right;
  if (k.kind === 'column' && c.kind === 'literal') {
    [c, k] = [k, c];
    op = op === '<' ? '>' : op === '<=' ? '>=' : op === '>' ? '<' : op === '>=' ? '<=' : op;
  }
  if (c.kind === 'cast') c = c.expr;
  if (k.kind === 'cast') k = k.expr;
  if (c.kind !== 'column' || c.name !== name || k.kind !== 'literal' || typeof k.value !== 'bigint') return undefined;
  const v = Number(k.value);
  if (op === '=' && v === 1) return 1;
  if (op === '<=' && v >= 1) return v;
  if (op === '<' && v > 1) return v - 1;
  return undefined;
}

export function createPhysicalPlan(plan: LogicalPlan): ExecNode {
  const schema = plan.schema.toSchema();
  switch (plan.kind) {
    case 'scan':
      return new ScanExec({ database: plan.database, table: plan.table, qualifier: plan.qualifier, projection: plan.projection, filters: plan.filters, fetch: plan.fetch });
    case 'values':
      return new ValuesExec(plan.rows, schema);
    case 'empty':
      return new EmptyExec(plan.produceOneRow);
    case 'projection':
      return new ProjectionExec(createPhysicalPlan(plan.input), plan.exprs, plan.input.schema, schema);
    case 'filter': {
      const w = plan.input;
      if (w.kind === 'window' && w.windowExprs.length === 1) {
        const we = w.windowExprs[0]!;
        const name = w.schema.field(w.schema.length - 1).name;
        const k = we.kind === 'windowFn' && we.fn.name === 'row_number' ? rowNumberBound(plan.predicate, name) : undefined;
        if (k !== undefined) return new PartitionTopKExec(topKInput(w.input, we, k), we, k, w.input.schema, schema);
      }
      return new FilterExec(createPhysicalPlan(plan.input), plan.predicate, plan.input.schema);
    }
    case 'aggregate':
      if (plan.groupingSets !== undefined) return groupingSetsAggregate(plan, createPhysicalPlan(plan.input));
      return timeBucketAggregate(plan) ?? new HashAggregateExec(createPhysicalPlan(plan.input), plan.groupBy, plan.aggregates, plan.input.schema, schema);
    case 'window':
      return new WindowExec(createPhysicalPlan(plan.input), plan.windowExprs, plan.input.schema, schema);
    case 'sort': {
      const limited = bucketLimitInput(plan);
      if (limited !== undefined) return new SortExec(limited, plan.orderBy, plan.input.schema, plan.fetch);
      const ordered = orderedAggregateInput(plan);
      if (ordered !== undefined) return plan.fetch === undefined ? ordered : new LimitExec(ordered, 0, plan.fetch);
      return new SortExec(createPhysicalPlan(plan.input), plan.orderBy, plan.input.schema, plan.fetch);
    }
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
      const groupBy: LExpr[] = plan.input.schema.fields.map((f) => ({ kind: 'column', qualifier: f.qualifier, name: f.name, type: f.type }));
      return new HashAggregateExec(createPhysicalPlan(plan.input), groupBy, [], plan.input.schema, schema);
    }
    case 'subqueryAlias':
      return createPhysicalPlan(plan.input);
    case 'timeWindow':
      return new TimeWindowExec(createPhysicalPlan(plan.input), plan.time, plan.windowNs, plan.slideNs, plan.originNs, plan.input.schema, schema);
    case 'gapFill':
      return new GapFillExec(createPhysicalPlan(plan.input), plan, schema);
    case 'unnestSeries':
      return new UnnestSeriesExec(createPhysicalPlan(plan.input), plan.column, schema);
  }
}

/**
 * ORDER BY the time bucket [DESC] LIMIT k over a time-bucket aggregate (through a projection of
 * its columns): the aggregate is told that only the k latest (earliest) buckets can matter.
 */
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

/**
 * ORDER BY every group column of a time-bucket aggregate (through a projection of its columns):
 * the aggregate emits its groups in that order, and the sort goes away.
 */
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

/**
 * The input of a top-k per partition; a scan underneath keeps only the last k rows per series
 * when the partitions are tags and the order is time descending (exact: each partition's top k
 * rows are among the top k of its series).
 */
function topKInput(input: LogicalPlan, we: LExpr, k: number): ExecNode {
  if (we.kind !== 'windowFn') throw bug('top-k over a non-window expression');
  let scan: LogicalPlan = input;
  const mapping = new Map<string, LExpr>();
  if (scan.kind === 'projection') {
    for (let i = 0; i < scan.exprs.length; i++) {
      const f = scan.schema.field(i);
      mapping.set(`${f.qualifier ?? ''}|${f.name}`, scan.exprs[i]!.kind === 'alias' ? (scan.exprs[i] as { expr: LExpr }).expr : scan.exprs[i]!);
    }
    scan = scan.input;
  }
  const underlying = (e: LExpr): LExpr | undefined => {
    if (e.kind !== 'column') return undefined;
    return mapping.size === 0 ? e : mapping.get(`${e.qualifier ?? ''}|${e.name}`);
  };
  if (scan.kind === 'scan' && scan.fetch === undefined) {
    const kinds = new Map(scan.table.columns.map((c) => [c.name, c.kind]));
    const partsAreTags = we.partitionBy.every((p) => {
      const u = underlying(p);
      return u !== undefined && u.kind === 'column' && kinds.get(u.name) === 'tag';
    });
    const o = we.orderBy[0];
    const timeDesc = we.orderBy.length === 1 && o !== undefined && !o.asc && (() => {
      const u = underlying(o.expr);
      return u !== undefined && u.kind === 'column' && kinds.get(u.name) === 'time';
    })();
    if (partsAreTags && timeDesc) {
      const node = new ScanExec({ database: scan.database, table: scan.table, qualifier: scan.qualifier, projection: scan.projection, filters: scan.filters, fetch: undefined, lastPerSeries: k });
      if (input.kind === 'projection') return new ProjectionExec(node, input.exprs, input.input.schema, input.schema.toSchema());
      return node;
    }
  }
  return createPhysicalPlan(input);
}

