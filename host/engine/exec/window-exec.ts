// Window functions over the whole input (kept within the memory limit): for each window
// expression the rows are ordered by PARTITION BY then ORDER BY, each partition's frames are
// computed (window-frames.ts), the function runs once per partition (a built-in window function,
// or an aggregate over the frames: window-aggregate.ts), and the results go back to the rows'
// input order. The input stays in its batches and is ordered by sorted runs (sorted-runs.ts), and
// results land in one typed array per expression: no step but one partition's function holds the
// event loop (a window over 10 million rows held it 17 s in one sort and 10 million boxed results).

import {
  type DataType,
  getValue,
  isValid,
  type RecordBatch,
  type Scalar,
  type Schema,
  sliceBatch,
  sliceVector,
  takeVector,
  type Vector,
  vectorFrom,
  type VectorValues,
} from '../types/index.js';
import type { LExpr, SortExpr } from '../plan/expr.js';
import { exprDisplay } from '../plan/expr-display.js';
import type { PlanSchema } from '../plan/plan-schema.js';
import { BatchList } from './batch-list.js';
import { concatBatches, slices } from './batches.js';
import { compileExprs } from './evaluate.js';
import { describeNode, type ExecContext, type ExecNode } from './exec-plan.js';
import { batchBytes, Reservation, SLOT_BYTES, vectorBytes } from '../memory/index.js';
import { rowComparator } from './sort-comparators.js';
import { RUN_ROWS, SortedRuns } from './sorted-runs.js';
import { aggregateOverFrames } from './window-aggregate.js';
import { windowFrames } from './window-frames.js';

type WindowExpr = Extract<LExpr, { kind: 'windowFn' }>;

/** Partition rows compared between two looks at the clock. */
const ROWS_PER_SLICE = 1 << 16;

/** One window expression's value for every input row, filled partition by partition. */
class WindowResult {
  readonly #type: DataType;
  readonly #n: number;
  readonly #values: VectorValues;
  readonly #words: Int32Array | undefined;
  readonly #valid: Uint8Array;

  constructor(type: DataType, n: number) {
    this.#type = type;
    this.#n = n;
    this.#valid = new Uint8Array(n);
    switch (type.id) {
      case 'Float64':
      case 'Float32':
        this.#values = new Float64Array(n);
        break;
      case 'Int64':
      case 'Timestamp':
      case 'Time64':
        this.#values = new BigInt64Array(n);
        break;
      case 'UInt64':
        this.#values = new BigUint64Array(n);
        break;
      case 'Boolean':
        this.#values = new Uint8Array(n);
        break;
      case 'Date32':
        this.#values = new Int32Array(n);
        break;
      default:
        this.#values = new Array<Scalar>(n).fill(null) as VectorValues;
    }
    const v = this.#values;
    this.#words = v instanceof BigInt64Array || v instanceof BigUint64Array ? new Int32Array(v.buffer) : undefined;
  }

  /** Bytes held (JS values of other types are charged as they are scattered). */
  get bytes(): number {
    const v = this.#values;
    return this.#n + (ArrayBuffer.isView(v) ? v.byteLength : SLOT_BYTES * this.#n);
  }

  /** Puts `out[k]` at row idx[k]; returns the bytes of the JS values it added. */
  scatter(out: Vector, idx: Int32Array): number {
    const n = idx.length;
    const valid = this.#valid;
    for (let k = 0; k < n; k++) valid[idx[k]!] = isValid(out, k) ? 1 : 0;
    const src = out.values;
    if (src === null) return 0;
    const w = this.#words;
    if (w !== undefined) {
      const s = src as BigInt64Array;
      const sw = new Int32Array(s.buffer, s.byteOffset, n * 2);
      for (let k = 0; k < n; k++) {
        const i = 2 * idx[k]!;
        w[i] = sw[2 * k]!;
        w[i + 1] = sw[2 * k + 1]!;
      }
      return 0;
    }
    const dst = this.#values as unknown as { [i: number]: unknown };
    if (ArrayBuffer.isView(this.#values)) {
      const s = src as unknown as ArrayLike<number>;
      for (let k = 0; k < n; k++) dst[idx[k]!] = s[k];
      return 0;
    }
    let bytes = 0;
    for (let k = 0; k < n; k++) {
      const x = getValue(out, k);
      dst[idx[k]!] = x;
      if (typeof x === 'string') bytes += 24 + 2 * x.length;
      else if (x !== null && typeof x === 'object') bytes += 64;
    }
    return bytes;
  }

  finish(): Vector {
    const v = this.#values;
    if (ArrayBuffer.isView(v)) return { type: this.#type, length: this.#n, values: v, validity: this.#valid };
    return vectorFrom(this.#type, v as Scalar[], this.#valid);
  }
}

export class WindowExec implements ExecNode {
  readonly name = 'WindowExec';
  readonly schema: Schema;
  readonly children: readonly ExecNode[];
  readonly #input: ExecNode;
  readonly #exprs: readonly WindowExpr[];
  readonly #inputSchema: PlanSchema;

  constructor(input: ExecNode, exprs: readonly LExpr[], inputSchema: PlanSchema, schema: Schema) {
    this.#input = input;
    this.#exprs = exprs as WindowExpr[];
    this.#inputSchema = inputSchema;
    this.schema = schema;
    this.children = [input];
  }

  describe(): string {
    return describeNode(this.name, `wdw=[${this.#exprs.map(exprDisplay).join(', ')}]`);
  }

  async *execute(ctx: ExecContext): AsyncGenerator<RecordBatch> {
    const mem = new Reservation(ctx.memory, 'window functions');
    try {
      const rows = new BatchList();
      for await (const batch of this.#input.execute(ctx)) {
        ctx.checkAbort();
        if (batch.length === 0) continue;
        mem.grow(batchBytes(batch));
        for (let from = 0; from < batch.length; from += RUN_ROWS)
          rows.add(sliceBatch(batch, from, Math.min(batch.length, from + RUN_ROWS)));
      }
      mem.grow(rows.indexBytes);
      const n = rows.length;
      if (n === 0) return;
      const outputs: Vector[] = [];
      for (const w of this.#exprs) outputs.push(await this.#evaluate(w, rows, ctx, mem));
      for (let b = 0; b < rows.batches.length; b++) {
        const batch = rows.batches[b]!;
        const s0 = rows.startOf(b);
        yield {
          schema: this.schema,
          length: batch.length,
          columns: [...batch.columns, ...outputs.map((o) => sliceVector(o, s0, s0 + batch.length))],
        };
      }
    } finally {
      mem.release();
    }
  }

  /** One window expression over all rows. */
  async #evaluate(w: WindowExpr, rows: BatchList, ctx: ExecContext, mem: Reservation): Promise<Vector> {
    const n = rows.length;
    const np = w.partitionBy.length;
    const partOrder: SortExpr[] = w.partitionBy.map((e) => ({ expr: e, asc: true, nullsFirst: true }));
    const keysC = compileExprs([...w.partitionBy, ...w.orderBy.map((o) => o.expr)], this.#inputSchema, ctx);
    const { runs, bytes } = await SortedRuns.over(rows, [...partOrder, ...w.orderBy], keysC, ctx);
    mem.grow(bytes + 4 * n);
    await runs.sort(ctx, mem);
    const perm = new Int32Array(n);
    let at = 0;
    for await (const { batches, rows: local } of runs.merged(ctx)) {
      for (let k = 0; k < local.length; k++) perm[at++] = rows.startOf(batches[k]!) + local[k]!;
    }
    const partCmp = runs.comparator(0, np);
    const orderCmp = runs.comparator(np, np + w.orderBy.length);
    const orderKey = w.orderBy.length > 0 ? runs.keys(np) : undefined;
    const argsC = compileExprs(w.args, this.#inputSchema, ctx);
    const args: Vector[][] = w.args.map(() => []);
    for (const batch of rows.batches) {
      if (argsC.needsPrepare) await argsC.prepare(batch);
      argsC.exprs.forEach((e, a) => {
        const v = e.evaluate(batch);
        if (!batch.columns.includes(v)) mem.grow(vectorBytes(v));
        args[a]!.push(v);
      });
      await ctx.maybeYield();
    }
    const result = new WindowResult(w.type, n);
    mem.grow(result.bytes);
    const sig = { argTypes: w.argTypes, returnType: w.type };
    let start = 0;
    while (start < n) {
      let end = start + 1;
      while (end < n && partCmp(perm[start]!, perm[end]!) === 0) {
        end++;
        if ((end & (ROWS_PER_SLICE - 1)) === 0) await ctx.maybeYield();
      }
      const idx = perm.subarray(start, end);
      const len = end - start;
      // What one partition holds while its function runs: peers, frames, its arguments and result.
      const part = new Reservation(ctx.memory, 'window functions');
      try {
        part.grow(16 * len);
        const peers = new Int32Array(len);
        for (let k = 1; k < len; k++) {
          peers[k] = orderCmp(idx[k - 1]!, idx[k]!) === 0 ? peers[k - 1]! : k;
          if ((k & (ROWS_PER_SLICE - 1)) === 0) await ctx.maybeYield();
        }
        const key = orderKey === undefined ? undefined : rows.gatherFrom(orderKey, orderKey[0]!.type, idx, len);
        const frames = windowFrames(w.frame, w.orderBy, len, peers, key);
        const partArgs = args.map((a, i) => rows.gatherFrom(a, w.args[i]!.type, idx, len));
        for (const a of partArgs) part.grow(vectorBytes(a));
        const out =
          w.fn.kind === 'window'
            ? w.fn.evaluatePartition(partArgs, len, peers, sig, frames)
            : await aggregateOverFrames(w.fn, sig, w.distinct === true, partArgs, len, frames, ctx);
        mem.grow(result.scatter(out, idx));
      } finally {
        part.release();
      }
      start = end;
      ctx.checkAbort();
      await ctx.maybeYield();
    }
    return result.finish();
  }
}

/**
 * `row_number() OVER (PARTITION BY p ORDER BY o) <= k` as a top-k per partition: keeps at most
 * k rows per partition key, so the lastpoint query never sorts the table. Outputs the input
 * columns plus the row number, like WindowExec followed by the filter.
 */
export class PartitionTopKExec implements ExecNode {
  readonly name = 'PartitionTopKExec';
  readonly schema: Schema;
  readonly children: readonly ExecNode[];
  readonly #input: ExecNode;
  readonly #expr: WindowExpr;
  readonly #k: number;
  readonly #inputSchema: PlanSchema;

  constructor(input: ExecNode, expr: LExpr, k: number, inputSchema: PlanSchema, schema: Schema) {
    this.#input = input;
    this.#expr = expr as WindowExpr;
    this.#k = k;
    this.#inputSchema = inputSchema;
    this.schema = schema;
    this.children = [input];
  }

  describe(): string {
    return describeNode(this.name, `${exprDisplay(this.#expr)}, k=${this.#k}`);
  }

  async *execute(ctx: ExecContext): AsyncGenerator<RecordBatch> {
    const w = this.#expr;
    const k = this.#k;
    const inSchema = this.#input.schema;
    const partC = compileExprs(w.partitionBy, this.#inputSchema, ctx);
    const orderC = compileExprs(
      w.orderBy.map((o) => o.expr),
      this.#inputSchema,
      ctx,
    );
    // The best rows so far of every partition, in one batch: `positions` maps a partition key to
    // its rows there, best first (partitions in the order they were first seen). Each input
    // batch costs one take per column for its candidates and one to rebuild `best`, whatever the
    // number of partitions.
    let best: RecordBatch | undefined;
    let positions = new Map<string, number[]>();
    let bytes = 0;
    try {
      for await (const batch of this.#input.execute(ctx)) {
        ctx.checkAbort();
        if (batch.length === 0) continue;
        if (partC.needsPrepare) await partC.prepare(batch);
        if (orderC.needsPrepare) await orderC.prepare(batch);
        const parts = partC.exprs.map((e) => e.evaluate(batch));
        const orders = orderC.exprs.map((e) => e.evaluate(batch));
        const cmp = rowComparator(orders, w.orderBy);
        // Rows by partition; a batch whose partition columns are constant (a series chunk's tags) is one partition.
        const groups = new Map<string, number[]>();
        if (parts.every((p) => p.constant === true)) {
          groups.set(
            partitionKey(parts, 0),
            Array.from({ length: batch.length }, (_, i) => i),
          );
        } else {
          for (let i = 0; i < batch.length; i++) {
            const key = partitionKey(parts, i);
            let list = groups.get(key);
            if (list === undefined) groups.set(key, (list = []));
            list.push(i);
          }
        }
        // This batch's top k of each partition, taken at once.
        const picked: number[] = [];
        const pickedOf = new Map<string, [number, number]>();
        for (const [key, rows] of groups) {
          const top = topK(rows, cmp, k);
          pickedOf.set(key, [picked.length, top.length]);
          for (const r of top) picked.push(r);
        }
        const cand: RecordBatch = {
          schema: inSchema,
          length: picked.length,
          columns: batch.columns.map((c) => takeVector(c, Int32Array.from(picked))),
        };
        // Merge with the best so far: the candidates follow `best` in `merged`.
        const merged = best === undefined ? cand : concatBatches(inSchema, [best, cand]);
        const offset = best === undefined ? 0 : best.length;
        const mergedOrders = orderC.exprs.map((e) => e.evaluate(merged));
        const mcmp = rowComparator(mergedOrders, w.orderBy);
        for (const [key, [start, count]] of pickedOf) {
          const fresh = Array.from({ length: count }, (_, i) => offset + start + i);
          const prev = positions.get(key);
          if (prev === undefined) {
            bytes += 64 * k;
            ctx.memory.reserve(64 * k, 'top-k per partition');
            positions.set(key, fresh);
          } else {
            positions.set(key, topK([...prev, ...fresh], mcmp, k));
          }
        }
        const keep: number[] = [];
        const next = new Map<string, number[]>();
        for (const [key, rows] of positions) {
          next.set(
            key,
            rows.map((_, i) => keep.length + i),
          );
          for (const r of rows) keep.push(r);
        }
        const keepIdx = Int32Array.from(keep);
        best = { schema: inSchema, length: keep.length, columns: merged.columns.map((c) => takeVector(c, keepIdx)) };
        positions = next;
        await ctx.maybeYield();
      }
      if (best === undefined) return;
      const rn = new BigUint64Array(best.length);
      for (const rows of positions.values())
        rows.forEach((r, i) => {
          rn[r] = BigInt(i + 1);
        });
      yield* slices({
        schema: this.schema,
        length: best.length,
        columns: [...best.columns, { type: w.type, length: best.length, values: rn }],
      });
    } finally {
      ctx.memory.release(bytes);
    }
  }
}

function partitionKey(parts: readonly Vector[], i: number): string {
  if (parts.length === 1) {
    const v = getValue(parts[0]!, i);
    return isValid(parts[0]!, i)
      ? typeof v === 'string'
        ? `s${v}`
        : JSON.stringify(v, (_x, y: unknown) => (typeof y === 'bigint' ? `${y}n` : y))
      : 'N';
  }
  return parts
    .map((p) =>
      isValid(p, i) ? JSON.stringify(getValue(p, i), (_x, y: unknown) => (typeof y === 'bigint' ? `${y}n` : y)) : 'N',
    )
    .join('\u0000');
}

/** The first k of `rows` by `cmp`, in order (a scan for k = 1, a sort otherwise). */
function topK(rows: number[], cmp: (i: number, j: number) => number, k: number): number[] {
  if (k === 1) {
    let b = rows[0]!;
    for (let i = 1; i < rows.length; i++) if (cmp(rows[i]!, b) < 0) b = rows[i]!;
    return [b];
  }
  return rows.sort(cmp).slice(0, k);
}
