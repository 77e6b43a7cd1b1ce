// Reads a table through EngineCatalog.scan: one batch per series chunk (split when large), with
// `time` and the field arrays shared with the store, not copied, and each tag as a constant
// column. The pushed predicates become the time range and series filter of the request; the
// rest is applied to the rows here, before columns only the filter needed are dropped.

import { lastRequest, scanRequest, type TagValues } from '../../core/scan.js';
import {
  constantVector,
  type RecordBatch,
  type Scalar,
  type Schema,
  sliceBatch,
  takeVector,
  type Vector,
  vectorFrom,
} from '../types/index.js';
import type { ChunkColumn, ColumnInfo, SeriesChunk, TableInfo } from '../catalog.js';
import type { LExpr } from '../plan/expr.js';
import { columnsOf } from '../plan/expr.js';
import { subqueryOuterReferences } from '../plan/logical-plan.js';
import { exprDisplay } from '../plan/expr-display.js';
import { PlanSchema, type PlanField } from '../plan/plan-schema.js';
import { conjunction } from '../plan/expr.js';
import { compileExpr } from './evaluate.js';
import { BATCH_ROWS, describeNode, type ExecContext, type ExecNode } from './exec-plan.js';
import { analyzeScanPredicates, seriesFilter, seriesTagTests, seriesTagValues } from './scan-predicates.js';
import { rethrowScanFilterError, storageConjuncts } from './storage-filter-error.js';

/**
 * Chunks are emitted whole up to this many rows (they share the store's arrays). Every operator
 * works a batch at a time between its looks at the clock: a GROUP BY of three keys spent 15-30 ms
 * of the event loop on a batch of 65,536 rows, a quarter of that on this many.
 */
const MAX_BATCH_ROWS = 2 * BATCH_ROWS;

export interface ScanOptions {
  readonly database: string;
  readonly table: TableInfo;
  readonly qualifier: string;
  /** Output columns, in order. */
  readonly projection: readonly string[];
  readonly filters: readonly LExpr[];
  readonly fetch: number | undefined;
  /** Keep only the last `k` rows of each series (a top-k per series by time, descending). */
  readonly lastPerSeries?: number;
}

/** Rows [start, end) of a chunk (shares its arrays). */
export function sliceChunk(chunk: SeriesChunk, start: number, end: number): SeriesChunk {
  if (start === 0 && end === chunk.length) return chunk;
  const fields = new Map<string, ChunkColumn>();
  for (const [name, c] of chunk.fields) {
    fields.set(name, {
      values: Array.isArray(c.values) ? c.values.slice(start, end) : c.values.subarray(start, end),
      validity: c.validity?.subarray(start, end),
    });
  }
  return { tags: chunk.tags, length: end - start, time: chunk.time.subarray(start, end), fields };
}

/** A column of a chunk as a vector of the column's type (shares the chunk's arrays). */
export function chunkVector(table: TableInfo, name: string, chunk: SeriesChunk): Vector {
  const col = table.columns.find((c) => c.name === name)!;
  const n = chunk.length;
  if (col.kind === 'time') return { type: col.type, length: n, values: chunk.time };
  if (col.kind === 'tag') {
    const v = chunk.tags.get(name);
    return constantVector(col.type, v ?? null, n);
  }
  const data: ChunkColumn | undefined = chunk.fields.get(name);
  if (data === undefined) return constantVector(col.type, null, n);
  return { type: col.type, length: n, values: data.values, validity: data.validity };
}

/** A column the predicate does not read, not built before the filter. */
const PENDING: Vector = { type: { id: 'Null' }, length: 0, values: null };

/** The rows where `mask` is a valid TRUE; undefined when all n are. */
function selection(mask: Vector, n: number): Int32Array | undefined {
  const m = mask.values as Uint8Array | null;
  if (m === null) return new Int32Array(0);
  const v = mask.validity;
  let count = 0;
  if (v === undefined) for (let i = 0; i < n; i++) count += m[i]!;
  else for (let i = 0; i < n; i++) count += m[i]! & v[i]!;
  if (count === n) return undefined;
  const out = new Int32Array(count);
  let k = 0;
  if (v === undefined) {
    for (let i = 0; i < n; i++) if (m[i] === 1) out[k++] = i;
  } else {
    for (let i = 0; i < n; i++) if (m[i] === 1 && v[i] === 1) out[k++] = i;
  }
  return out;
}

/** A column of a chunk at the selected rows only (tags as constants of that length). */
function chunkVectorAt(table: TableInfo, name: string, chunk: SeriesChunk, rows: Int32Array): Vector {
  const col = table.columns.find((c) => c.name === name)!;
  if (col.kind === 'tag') return constantVector(col.type, chunk.tags.get(name) ?? null, rows.length);
  const data = col.kind === 'time' ? { values: chunk.time, validity: undefined } : chunk.fields.get(name);
  if (data === undefined) return constantVector(col.type, null, rows.length);
  return takeVector({ type: col.type, length: chunk.length, values: data.values, validity: data.validity }, rows);
}

/**
 * The last row of every series, as one batch of the `read` columns, from EngineCatalog.lastPoints.
 * The newest value of every field of the table is asked for, since the last row is the newest
 * time among them (a row has at least one field value); a field whose newest value is older is
 * NULL in that row.
 */
async function lastRowsBatch(
  ctx: ExecContext,
  database: string,
  table: TableInfo,
  read: readonly string[],
  schema: Schema,
  filter: ((tags: ReadonlyMap<string, string>) => boolean) | undefined,
  tagValues: readonly TagValues[] | undefined,
): Promise<RecordBatch> {
  // Arrays built by push, not by map and filter (storage.ts lastPoints says why).
  const all: string[] = [];
  for (const c of table.columns) if (c.kind === 'field') all.push(c.name);
  const lasts = await ctx.catalog.lastPoints!(database, table.name, lastRequest(all, filter, tagValues));
  const columns: ColumnInfo[] = [];
  const values: Scalar[][] = [];
  const valid: number[][] = [];
  for (const name of read) {
    columns.push(table.columns.find((c) => c.name === name)!);
    values.push([]);
    valid.push([]);
  }
  for (const s of lasts) {
    let time: bigint | undefined;
    for (const v of s.fields.values()) if (time === undefined || v.time > time) time = v.time;
    if (time === undefined) continue;
    for (let k = 0; k < columns.length; k++) {
      const c = columns[k]!;
      let x: Scalar = null;
      if (c.kind === 'time') x = time;
      else if (c.kind === 'tag') x = s.tags.get(c.name) ?? null;
      else {
        const v = s.fields.get(c.name);
        if (v !== undefined && v.time === time) x = scalarOf(c.type.id, v.value);
      }
      values[k]!.push(x);
      valid[k]!.push(x === null ? 0 : 1);
    }
  }
  const n = values[0]?.length ?? 0;
  return {
    schema,
    length: n,
    columns: columns.map((c, k) =>
      valid[k]!.every((x) => x === 1)
        ? vectorFrom(c.type, values[k]!)
        : vectorFrom(c.type, values[k]!, Uint8Array.from(valid[k]!)),
    ),
  };
}

function scalarOf(type: string, v: number | bigint | string | boolean): Scalar {
  switch (type) {
    case 'Float64':
      return Number(v);
    case 'Int64':
      return BigInt.asIntN(64, BigInt(v as bigint));
    case 'UInt64':
      return BigInt.asUintN(64, BigInt(v as bigint));
    case 'Boolean':
      return v === true || v === 1;
    default:
      return String(v);
  }
}

export class ScanExec implements ExecNode {
  readonly name = 'ScanExec';
  readonly schema: Schema;
  readonly children: readonly ExecNode[] = [];
  readonly opts: ScanOptions;

  constructor(opts: ScanOptions) {
    this.opts = opts;
    this.schema = {
      fields: opts.projection.map((n) => ({
        name: n,
        type: opts.table.columns.find((c) => c.name === n)!.type,
        nullable: true,
      })),
    };
  }

  describe(): string {
    const o = this.opts;
    let d = `${o.qualifier} projection=[${o.projection.join(', ')}]`;
    if (o.filters.length > 0) d += `, filters=[${o.filters.map(exprDisplay).join(', ')}]`;
    if (o.fetch !== undefined) d += `, fetch=${o.fetch}`;
    if (o.lastPerSeries !== undefined) d += `, last_per_series=${o.lastPerSeries}`;
    return describeNode(this.name, d);
  }

  async *execute(ctx: ExecContext): AsyncGenerator<RecordBatch> {
    const { table, qualifier, projection, filters, database } = this.opts;
    const preds = analyzeScanPredicates(filters, table, ctx);
    if (preds.empty || this.opts.fetch === 0) return;

    // Columns read: the projection plus what the residual filter needs (its subqueries' outer
    // references to this table included), in table order.
    const predicateNames = new Set<string>();
    for (const r of preds.residual) {
      for (const c of columnsOf(r)) predicateNames.add(c.name);
      for (const c of subqueryOuterReferences(r))
        if (c.qualifier === undefined || c.qualifier === qualifier) predicateNames.add(c.name);
    }
    const needed = new Set(projection);
    for (const n of predicateNames) needed.add(n);
    const read = table.columns.filter((c) => needed.has(c.name)).map((c) => c.name);
    const fields = read.filter((n) => table.columns.find((c) => c.name === n)!.kind === 'field');
    const readFields: PlanField[] = read.map((n) => ({
      qualifier,
      name: n,
      type: table.columns.find((c) => c.name === n)!.type,
      nullable: true,
    }));
    const readSchema = new PlanSchema(readFields);
    const residual = conjunction(preds.residual);
    const predicate = residual === undefined ? undefined : compileExpr(residual, readSchema, ctx);
    const outIndex = projection.map((n) => read.indexOf(n));
    const identity = outIndex.every((i, k) => i === k) && outIndex.length === read.length;
    const batchSchema = readSchema.toSchema();

    // Late materialization: the predicate sees only the columns it reads, and the others are
    // built for the rows that pass (TSBS high-cpu-all keeps 9% of the rows; building ten tag
    // columns for every row cost more than the rest of the scan).
    const predicateCols = new Set<number>();
    for (const n of predicateNames) if (read.includes(n)) predicateCols.add(read.indexOf(n));
    const tagFilter =
      preds.tagPredicates.length > 0 ? seriesFilter(preds.tagPredicates, table, qualifier, ctx)! : undefined;
    const tagValues = seriesTagValues(preds.tagPredicates);
    const tagTests = tagFilter === undefined ? undefined : seriesTagTests(preds.tagPredicates, table, qualifier, ctx);
    const request = scanRequest(
      fields,
      preds.minTime,
      preds.maxTime,
      tagFilter,
      preds.valueBounds.length === 0 ? undefined : preds.valueBounds,
      tagValues,
      tagTests,
    );
    let remaining = this.opts.fetch ?? Infinity;
    const last = this.opts.lastPerSeries;
    // The last row of every series, unbounded in time, is what the store's last-point index holds.
    const fromLastPoints =
      last === 1 &&
      predicate === undefined &&
      preds.minTime === undefined &&
      preds.maxTime === undefined &&
      ctx.catalog.lastPoints !== undefined;
    const batches = async function* (): AsyncGenerator<RecordBatch> {
      if (fromLastPoints) {
        yield await lastRowsBatch(ctx, database, table, read, batchSchema, tagFilter, tagValues);
        return;
      }
      for await (const whole of ctx.catalog.scan(database, table.name, request)) {
        ctx.checkAbort();
        if (whole.length === 0) continue;
        // Without a row predicate the last rows of a series can be cut before any vector exists.
        const chunk =
          last !== undefined && predicate === undefined && whole.length > last
            ? sliceChunk(whole, whole.length - last, whole.length)
            : whole;
        if (predicate === undefined) {
          yield { schema: batchSchema, length: chunk.length, columns: read.map((n) => chunkVector(table, n, chunk)) };
          continue;
        }
        // A predicate with subqueries may read any column of the batch: build them all.
        const columns = read.map((n, k) =>
          predicateCols.has(k) || predicate.needsPrepare ? chunkVector(table, n, chunk) : PENDING,
        );
        const probe: RecordBatch = { schema: batchSchema, length: chunk.length, columns };
        if (predicate.needsPrepare) await predicate.prepare(probe);
        let mask: Vector;
        try {
          mask = predicate.evaluate(probe);
        } catch (e) {
          return await rethrowScanFilterError(e, storageConjuncts(preds.residual, table), readSchema, probe, ctx);
        }
        const selected = selection(mask, chunk.length);
        if (selected !== undefined && selected.length === 0) {
          // Nothing goes out, so the loop below never yields: a filter that kept no row of a
          // 100,000-row table held the thread for the whole scan (storage's awaits are microtasks).
          await ctx.maybeYield();
          continue;
        }
        let batch: RecordBatch = {
          schema: batchSchema,
          length: selected === undefined ? chunk.length : selected.length,
          columns: read.map((n, k) => {
            const v = columns[k] === PENDING ? undefined : columns[k]!;
            if (selected === undefined) return v ?? chunkVector(table, n, chunk);
            return v === undefined ? chunkVectorAt(table, n, chunk, selected) : takeVector(v, selected);
          }),
        };
        if (last !== undefined && batch.length > last) batch = sliceBatch(batch, batch.length - last, batch.length);
        yield batch;
      }
    };
    for await (const scanned of batches()) {
      let batch = scanned;
      if (batch.length === 0) continue;
      if (!identity)
        batch = { schema: this.schema, length: batch.length, columns: outIndex.map((i) => batch.columns[i]!) };
      for (let start = 0; start < batch.length; start += MAX_BATCH_ROWS) {
        let part = sliceBatch(batch, start, Math.min(batch.length, start + MAX_BATCH_ROWS));
        if (part.length > remaining) part = sliceBatch(part, 0, remaining);
        remaining -= part.length;
        yield part;
        if (remaining <= 0) return;
      }
      await ctx.maybeYield();
    }
  }
}
