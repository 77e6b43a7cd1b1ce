// row_number() OVER (...) <= k (or = 1, < k) filtering its Window runs as a top-k per partition
// (PartitionTopKExec) instead of numbering every row. When the partitions are tags and the order
// is time descending, the scan underneath keeps only the last k rows of each series before any
// vector is built (the lastpoint query): exact, as each partition's top k rows are among the top
// k of its series.

import { bug } from '../../core/errors.js';
import type { ExecNode } from '../exec/exec-plan.js';
import { ProjectionExec } from '../exec/projection-exec.js';
import { ScanExec } from '../exec/scan-exec.js';
import { PartitionTopKExec } from '../exec/window-exec.js';
import type { LExpr } from '../plan/expr.js';
import type { LogicalPlan } from '../plan/logical-plan.js';
import { UNCHANGED, type PhysicalRule, type PlanInput } from './physical-rule.js';

export const partitionTopK: PhysicalRule = {
  name: 'partition_top_k',
  rewrite(plan, planInput) {
    if (plan.kind !== 'filter') return UNCHANGED;
    const w = plan.input;
    if (w.kind !== 'window' || w.windowExprs.length !== 1) return UNCHANGED;
    const we = w.windowExprs[0]!;
    const name = w.schema.field(w.schema.length - 1).name;
    const k = we.kind === 'windowFn' && we.fn.name === 'row_number' ? rowNumberBound(plan.predicate, name) : undefined;
    if (k === undefined) return UNCHANGED;
    return {
      changed: true,
      plan: new PartitionTopKExec(topKInput(w.input, we, k, planInput), we, k, w.input.schema, plan.schema.toSchema()),
    };
  },
};

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

/**
 * The input of a top-k per partition; a scan underneath keeps only the last k rows per series
 * when the partitions are tags and the order is time descending.
 */
function topKInput(input: LogicalPlan, we: LExpr, k: number, planInput: PlanInput): ExecNode {
  if (we.kind !== 'windowFn') throw bug('top-k over a non-window expression');
  let scan: LogicalPlan = input;
  const mapping = new Map<string, LExpr>();
  if (scan.kind === 'projection') {
    for (let i = 0; i < scan.exprs.length; i++) {
      const f = scan.schema.field(i);
      mapping.set(
        `${f.qualifier ?? ''}|${f.name}`,
        scan.exprs[i]!.kind === 'alias' ? (scan.exprs[i] as { expr: LExpr }).expr : scan.exprs[i]!,
      );
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
    const timeDesc =
      we.orderBy.length === 1 &&
      o !== undefined &&
      !o.asc &&
      (() => {
        const u = underlying(o.expr);
        return u !== undefined && u.kind === 'column' && kinds.get(u.name) === 'time';
      })();
    if (partsAreTags && timeDesc) {
      const node = new ScanExec({
        database: scan.database,
        table: scan.table,
        qualifier: scan.qualifier,
        projection: scan.projection,
        filters: scan.filters,
        fetch: undefined,
        lastPerSeries: k,
      });
      if (input.kind === 'projection')
        return new ProjectionExec(node, input.exprs, input.input.schema, input.schema.toSchema());
      return node;
    }
  }
  return planInput(input);
}
