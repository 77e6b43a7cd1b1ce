// The time-bucket aggregate: GROUP BY tags and date_bin(stride, time) over a table scan, computed
// on the storage chunks directly. A chunk is one series sorted by time, so its tags are constant
// and each bucket is a run of consecutive rows; the runs are cut and folded into per-group
// accumulators by Wasm kernels (time-bucket-groups.ts, bucket-kernels.ts), or by TypeScript
// loops without them. Nothing is materialized per row: the TSBS "mean per host per hour" query
// reads 864k rows as 2,400 runs.
//
// Eligible plans are decided at planning time (shape); predicates that neither bound time nor
// test tags make the operator hand over to the general hash aggregate at run time.

import { scanRequest, statsRequest } from '../../core/scan.js';
import {
  floorDiv,
  intervalNanos,
  type IntervalValue,
  type RecordBatch,
  type Scalar,
  type Schema,
  type TimeUnit,
  unitNanos,
} from '../types/index.js';
import type { ScanRequest, SeriesChunk, StatsOrChunk, TableInfo } from '../catalog.js';
import type { LExpr, SortExpr } from '../plan/expr.js';
import { exprDisplay } from '../plan/expr-display.js';
import type { Aggregate, TableScan } from '../plan/logical-plan.js';
import { slices } from './batches.js';
import { bucketKernels } from './bucket-kernels.js';
import { describeNode, type ExecContext, type ExecNode } from './exec-plan.js';
import { HashAggregateExec } from './hash-aggregate-exec.js';
import { ScanExec } from './scan-exec.js';
import {
  analyzeScanPredicates,
  constantValue,
  seriesFilter,
  seriesTagTests,
  seriesTagValues,
} from './scan-predicates.js';
import { statsComplete, type AggKind, type AggSpec } from './time-bucket-fold.js';
import { BucketGroups, supportsOrder, type GroupOrder, type GroupSpec } from './time-bucket-groups.js';
import { SortExec } from './sort-exec.js';

const AGG_KINDS = new Set<string>(['count', 'sum', 'avg', 'mean', 'min', 'max', 'first', 'last']);
const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

function columnName(e: LExpr, scan: TableScan): string | undefined {
  const x =
    e.kind === 'cast' && (e.expr.type.id === 'Int64' || e.expr.type.id === 'UInt64') && e.type.id === 'Float64'
      ? e.expr
      : e;
  if (x.kind !== 'column') return undefined;
  return scan.table.columns.some((c) => c.name === x.name) ? x.name : undefined;
}

/**
 * ORDER BY the bucket LIMIT k above the aggregate: only the k latest (desc) or earliest buckets
 * with rows can reach the result, so the aggregate reads windows of time from the bounded end
 * until it has found k buckets, instead of the whole range.
 */
export interface BucketLimit {
  k: number;
  desc: boolean;
}

/**
 * The operator for an eligible Aggregate, or undefined. With `order` (an ORDER BY of every group
 * column) it emits its groups in that order, so that no sort is needed above it.
 */
export function timeBucketAggregate(
  plan: Aggregate,
  limit?: BucketLimit,
  order?: readonly GroupOrder[],
): ExecNode | undefined {
  const scan = plan.input;
  if (scan.kind !== 'scan' || scan.fetch !== undefined) return undefined;
  const kinds = new Map(scan.table.columns.map((c) => [c.name, c]));
  const groups: GroupSpec[] = [];
  let buckets = 0;
  for (const grouped of plan.groupBy) {
    const g = grouped.kind === 'alias' ? grouped.expr : grouped;
    const name = g.kind === 'column' ? g.name : undefined;
    if (name !== undefined && kinds.get(name)?.kind === 'tag') {
      groups.push({ kind: 'tag', tag: name, type: g.type });
      continue;
    }
    if (g.kind === 'scalarFn' && g.fn.name === 'date_bin' && g.args.length >= 2) {
      const t = g.args[1]!;
      if (t.kind !== 'column' || kinds.get(t.name)?.kind !== 'time' || t.type.id !== 'Timestamp') return undefined;
      groups.push({ kind: 'bucket', stride: g.args[0]!, origin: g.args[2], type: g.type });
      buckets++;
      continue;
    }
    return undefined;
  }
  if (buckets > 1) return undefined;
  const aggs: AggSpec[] = [];
  for (const a of plan.aggregates) {
    if (
      a.kind !== 'aggregate' ||
      a.distinct ||
      a.filter !== undefined ||
      a.orderBy.length > 0 ||
      !AGG_KINDS.has(a.fn.name)
    )
      return undefined;
    const kind = (a.fn.name === 'mean' ? 'avg' : a.fn.name) as AggKind;
    if (kind === 'count') {
      if (a.args.length > 1) return undefined;
      const col = a.args.length === 0 ? undefined : columnName(a.args[0]!, scan);
      if (a.args.length === 1 && col === undefined) return undefined;
      aggs.push({
        kind,
        column: col,
        columnKind: col === undefined ? undefined : kinds.get(col)!.kind,
        type: a.type,
        returnType: a.type,
      });
      continue;
    }
    const valueArg = kind === 'first' || kind === 'last' ? a.args[1] : a.args[0];
    if (kind === 'first' || kind === 'last') {
      const t = a.args[0]!;
      if (t.kind !== 'column' || kinds.get(t.name)?.kind !== 'time') return undefined;
    }
    const col = valueArg === undefined ? undefined : columnName(valueArg, scan);
    if (col === undefined) return undefined;
    const info = kinds.get(col)!;
    if (info.kind !== 'field') return undefined;
    const t = info.type.id;
    if (kind !== 'first' && kind !== 'last' && t !== 'Float64' && t !== 'Int64' && t !== 'UInt64') return undefined;
    if ((kind === 'first' || kind === 'last') && a.type.id !== info.type.id) return undefined;
    aggs.push({ kind, column: col, columnKind: 'field', type: info.type, returnType: a.type });
  }
  if (order !== undefined && !supportsOrder(groups, order)) return undefined;
  // Built only when a run hands over (most never do).
  const fallback = (): ExecNode => {
    const hashed: ExecNode = new HashAggregateExec(
      new ScanExec({
        database: scan.database,
        table: scan.table,
        qualifier: scan.qualifier,
        projection: scan.projection,
        filters: scan.filters,
        fetch: undefined,
      }),
      plan.groupBy,
      plan.aggregates,
      scan.schema,
      plan.schema.toSchema(),
    );
    if (order === undefined) return hashed;
    // The general aggregate emits groups as it meets them: sorted here when an order is promised.
    const keys = order.map((o): SortExpr => {
      const f = plan.schema.field(o.group);
      return {
        expr: { kind: 'column', qualifier: f.qualifier, name: f.name, type: f.type },
        asc: o.asc,
        nullsFirst: o.nullsFirst,
      };
    });
    return new SortExec(hashed, keys, plan.schema, undefined);
  };
  return new TimeBucketAggregateExec(
    scan,
    groups,
    aggs,
    plan,
    fallback,
    groups.some((g) => g.kind === 'bucket') ? limit : undefined,
    order,
  );
}

/** Window grows: after this many doublings the rest of the range is read at once. */
const LIMIT_WINDOWS = 5;

export class TimeBucketAggregateExec implements ExecNode {
  readonly name = 'TimeBucketAggregateExec';
  readonly schema: Schema;
  readonly children: readonly ExecNode[];
  readonly #scan: TableScan;
  readonly #groups: readonly GroupSpec[];
  readonly #aggs: readonly AggSpec[];
  readonly #plan: Aggregate;
  /** The general plan for what this operator hands over at run time. */
  readonly #fallback: () => ExecNode;
  readonly #limit: BucketLimit | undefined;
  readonly #order: readonly GroupOrder[] | undefined;

  constructor(
    scan: TableScan,
    groups: readonly GroupSpec[],
    aggs: readonly AggSpec[],
    plan: Aggregate,
    fallback: () => ExecNode,
    limit: BucketLimit | undefined,
    order?: readonly GroupOrder[],
  ) {
    this.#scan = scan;
    this.#groups = groups;
    this.#aggs = aggs;
    this.#plan = plan;
    this.#fallback = fallback;
    this.#limit = limit;
    this.#order = order;
    this.schema = plan.schema.toSchema();
    this.children = [];
  }

  describe(): string {
    const s = this.#scan;
    return describeNode(
      this.name,
      `gby=[${this.#plan.groupBy.map(exprDisplay).join(', ')}], aggr=[${this.#plan.aggregates.map(exprDisplay).join(', ')}], scan=${s.qualifier}${s.filters.length > 0 ? `, filters=[${s.filters.map(exprDisplay).join(', ')}]` : ''}${this.#limit === undefined ? '' : `, buckets=${this.#limit.desc ? 'last' : 'first'} ${this.#limit.k}`}${this.#order === undefined ? '' : `, order=[${this.#order.map((o) => `${exprDisplay(this.#plan.groupBy[o.group]!)} ${o.asc ? 'ASC' : 'DESC'} ${o.nullsFirst ? 'NULLS FIRST' : 'NULLS LAST'}`).join(', ')}]`}`,
    );
  }

  async *execute(ctx: ExecContext): AsyncGenerator<RecordBatch> {
    const scan = this.#scan;
    const table: TableInfo = scan.table;
    const preds = analyzeScanPredicates(scan.filters, table, ctx);
    if (preds.residual.length > 0) {
      yield* this.#fallback().execute(ctx);
      return;
    }
    const bucketSpec = this.#groups.find((g) => g.kind === 'bucket');
    let stride: IntervalValue | undefined;
    let originNs = 0n;
    let strideUnits: bigint | undefined;
    const timeCol = table.columns.find((c) => c.kind === 'time')!;
    const unit = (timeCol.type as { unit: TimeUnit }).unit;
    const per = unitNanos(unit);
    if (bucketSpec !== undefined) {
      const sv = constantValue(bucketSpec.stride!, ctx);
      const ov = bucketSpec.origin === undefined ? { value: 0n as Scalar } : constantValue(bucketSpec.origin, ctx);
      if (sv === undefined || ov === undefined || sv.value === null || ov.value === null) {
        yield* this.#fallback().execute(ctx);
        return;
      }
      stride = sv.value as IntervalValue;
      originNs = ov.value as bigint;
      const ns = intervalNanos(stride);
      // Runs by binary search need a fixed stride that is a whole number of time units.
      if (ns === undefined || ns <= 0n || ns % per !== 0n || originNs % per !== 0n) {
        yield* this.#fallback().execute(ctx);
        return;
      }
      strideUnits = ns / per;
    }
    if (preds.empty) {
      if (this.#groups.length === 0) yield* this.#fallback().execute(ctx);
      return;
    }

    const fields = [...new Set(this.#aggs.filter((a) => a.columnKind === 'field').map((a) => a.column!))];
    const request = scanRequest(
      fields,
      preds.minTime,
      preds.maxTime,
      seriesFilter(preds.tagPredicates, table, scan.qualifier, ctx),
      undefined,
      seriesTagValues(preds.tagPredicates),
      seriesTagTests(preds.tagPredicates, table, scan.qualifier, ctx),
    );
    const originUnits = originNs / per;
    const fieldTypes = new Map(table.columns.filter((c) => c.kind === 'field').map((c) => [c.name, c.type]));
    const groups = new BucketGroups(
      this.#groups,
      this.#aggs,
      fieldTypes,
      ctx,
      originUnits,
      strideUnits,
      bucketKernels(),
    );
    try {
      const limit = this.#limit;
      const bounded =
        limit === undefined || strideUnits === undefined ? undefined : limit.desc ? preds.maxTime : preds.minTime;
      if (bounded === undefined) await this.#fold(ctx, groups, request, fields, originUnits, strideUnits);
      else {
        // Windows of whole buckets from the bounded end: k buckets, then twice as many each time.
        const stride = strideUnits!;
        const far = limit!.desc ? preds.minTime : preds.maxTime;
        const edge = originUnits + floorDiv(bounded - originUnits, stride) * stride; // start of the bounded end's bucket
        let span = BigInt(limit!.k) * stride;
        let near = bounded;
        for (let w = 0; ; w++) {
          const last = w === LIMIT_WINDOWS;
          // desc: [edge + stride - span, near]; asc: [near, edge + span - 1]
          let lo = limit!.desc ? edge + stride - span : near;
          let hi = limit!.desc ? near : edge + span - 1n;
          if (last || (far !== undefined && (limit!.desc ? lo <= far : hi >= far))) {
            if (limit!.desc) lo = far ?? I64_MIN;
            else hi = far ?? I64_MAX;
          }
          await this.#fold(
            ctx,
            groups,
            scanRequest(fields, lo, hi, request.seriesFilter, undefined, request.seriesTags, request.seriesTagTests),
            fields,
            originUnits,
            strideUnits,
          );
          const done =
            (limit!.desc ? lo === (far ?? I64_MIN) : hi === (far ?? I64_MAX)) || groups.distinctBuckets >= limit!.k;
          if (done) break;
          near = limit!.desc ? lo - 1n : hi + 1n;
          span *= 2n;
        }
      }
      yield* slices(groups.finish(this.schema, this.#order));
    } finally {
      groups.release();
    }
  }

  async #fold(
    ctx: ExecContext,
    groups: BucketGroups,
    request: ScanRequest,
    fields: string[],
    originUnits: bigint,
    strideUnits: bigint | undefined,
  ): Promise<void> {
    const scan = this.#scan;
    // Statistics of whole stored blocks stand for their rows when every aggregate can fold them.
    const useStats =
      ctx.catalog.scanStats !== undefined &&
      this.#aggs.every(
        (a) =>
          a.kind === 'count' ||
          (a.kind !== 'first' && a.kind !== 'last' && (a.type.id === 'Float64' || a.type.id === 'Int64')),
      );
    if (useStats) {
      const stats = statsRequest(
        request,
        strideUnits === undefined ? undefined : { origin: originUnits, width: strideUnits },
      );
      await this.#foldStatsScan(ctx, groups, ctx.catalog.scanStats!(scan.database, scan.table.name, stats), fields);
    } else {
      await this.#foldScan(ctx, groups, ctx.catalog.scan(scan.database, scan.table.name, request));
    }
  }

  // The scan loops stay out of execute(): V8 compiles a loop's whole function on the spot once
  // it runs long (on-stack replacement), and a small function compiles in a fraction of the time.
  async #foldScan(ctx: ExecContext, groups: BucketGroups, chunks: AsyncIterable<SeriesChunk>): Promise<void> {
    for await (const chunk of chunks) {
      ctx.checkAbort();
      groups.addChunk(chunk);
      await ctx.maybeYield();
    }
  }

  async #foldStatsScan(
    ctx: ExecContext,
    groups: BucketGroups,
    batches: AsyncIterable<StatsOrChunk[]>,
    fields: string[],
  ): Promise<void> {
    const scan = this.#scan;
    for await (const items of batches) {
      ctx.checkAbort();
      for (const item of items) {
        if (item.kind === 'chunk') groups.addChunk(item.chunk);
        else if (statsComplete(this.#aggs, item.stats)) groups.addStats(item.stats);
        else {
          // Inexact statistics (NaN, an integer sum past 64 bits): read that run's rows.
          const st = item.stats;
          const same = (tags: ReadonlyMap<string, string>): boolean =>
            tags.size === st.tags.size && [...st.tags].every(([k, v]) => tags.get(k) === v);
          const tagValues = [...st.tags].map(([tag, v]) => ({ tag, values: [v] }));
          await this.#foldScan(
            ctx,
            groups,
            ctx.catalog.scan(
              scan.database,
              scan.table.name,
              scanRequest(fields, st.minTime, st.maxTime, same, undefined, tagValues),
            ),
          );
        }
      }
      await ctx.maybeYield();
    }
  }
}
