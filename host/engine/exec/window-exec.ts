// Window functions over the whole input (buffered within the memory limit): for each window
// expression the rows are ordered by PARTITION BY then ORDER BY, each partition's frames are
// computed (window-frames.ts), the function runs once per partition (a built-in window function,
// or an aggregate over the frames: window-aggregate.ts), and the results go back to the rows'
// input order.

import type { RecordBatch, Schema, Vector } from '../batch.js';
import { getValue, isValid, nonNullMask, takeVector, vectorFrom, type Scalar } from '../batch.js';
import type { LExpr, SortExpr } from '../plan/expr.js';
import { exprDisplay } from '../plan/expr-display.js';
import type { PlanSchema } from '../plan/plan-schema.js';
import { collect, concatBatches, slices } from './batches.js';
import { compileExprs } from './evaluate.js';
import { describeNode, type ExecContext, type ExecNode } from './exec-plan.js';
import { rowComparator } from './sort-exec.js';
import { aggregateOverFrames } from './window-aggregate.js';
import { windowFrames } from './window-frames.js';

type WindowExpr = Extract<LExpr, { kind: 'windowFn' }>;

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
    const { batches, bytes } = await collect(this.#input, ctx, 'window functions');
    try {
      const input = concatBatches(this.#input.schema, batches);
      const n = input.length;
      const outputs: Vector[] = [];
      for (const w of this.#exprs) {
        const partC = compileExprs(w.partitionBy, this.#inputSchema, ctx);
        const orderC = compileExprs(w.orderBy.map((o) => o.expr), this.#inputSchema, ctx);
        const argsC = compileExprs(w.args, this.#inputSchema, ctx);
        for (const c of [partC, orderC, argsC]) if (c.needsPrepare && n > 0) await c.prepare(input);
        const parts = n === 0 ? [] : partC.exprs.map((e) => e.evaluate(input));
        const orders = n === 0 ? [] : orderC.exprs.map((e) => e.evaluate(input));
        const args = n === 0 ? [] : argsC.exprs.map((e) => e.evaluate(input));
        const partOrder: SortExpr[] = w.partitionBy.map((e) => ({ expr: e, asc: true, nullsFirst: true }));
        const partCmp = rowComparator(parts, partOrder);
        const orderCmp = rowComparator(orders, w.orderBy);
        const cmp = (i: number, j: number): number => partCmp(i, j) || orderCmp(i, j);
        const perm = new Int32Array(n);
        for (let i = 0; i < n; i++) perm[i] = i;
        perm.sort(cmp);
        const sig = { argTypes: w.argTypes, returnType: w.type };
        const result = new Array<Scalar>(n);
        let start = 0;
        while (start < n) {
          let end = start + 1;
          while (end < n && partCmp(perm[start]!, perm[end]!) === 0) end++;
          const idx = perm.subarray(start, end);
          const len = end - start;
          const peers = new Int32Array(len);
          for (let k = 1; k < len; k++) peers[k] = orderCmp(idx[k - 1]!, idx[k]!) === 0 ? peers[k - 1]! : k;
          const key = orders.length > 0 ? takeVector(orders[0]!, idx) : undefined;
          const frames = windowFrames(w.frame, w.orderBy, len, peers, key);
          const partArgs = args.map((a) => takeVector(a, idx));
          const out =
            w.fn.kind === 'window'
              ? w.fn.evaluatePartition(partArgs, len, peers, sig, frames)
              : aggregateOverFrames(w.fn, sig, w.distinct === true, partArgs, len, frames, ctx);
          for (let k = 0; k < len; k++) result[idx[k]!] = isValid(out, k) ? getValue(out, k) : null;
          start = end;
          ctx.checkAbort();
          await ctx.maybeYield();
        }
        outputs.push(vectorFrom(w.type, result, nonNullMask(result)));
      }
      if (n === 0) return;
      yield* slices({ schema: this.schema, length: n, columns: [...input.columns, ...outputs] });
    } finally {
      ctx.memory.release(bytes);
    }
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
    const orderC = compileExprs(w.orderBy.map((o) => o.expr), this.#inputSchema, ctx);
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
          groups.set(partitionKey(parts, 0), Array.from({ length: batch.length }, (_, i) => i));
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
        const cand: RecordBatch = { schema: inSchema, length: picked.length, columns: batch.columns.map((c) => takeVector(c, Int32Array.from(picked))) };
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
          next.set(key, rows.map((_, i) => keep.length + i));
          for (const r of rows) keep.push(r);
        }
        const keepIdx = Int32Array.from(keep);
        best = { schema: inSchema, length: keep.length, columns: merged.columns.map((c) => takeVector(c, keepIdx)) };
        positions = next;
        await ctx.maybeYield();
      }
      if (best === undefined) return;
      const rn = new BigUint64Array(best.length);
      for (const rows of positions.values()) rows.forEach((r, i) => (rn[r] = BigInt(i + 1)));
      yield* slices({ schema: this.schema, length: best.length, columns: [...best.columns, { type: w.type, length: best.length, values: rn }] });
    } finally {
      ctx.memory.release(bytes);
    }
  }
}

function partitionKey(parts: readonly Vector[], i: number): string {
  if (parts.length === 1) {
    const v = getValue(parts[0]!, i);
    return isValid(parts[0]!, i) ? (typeof v === 'string' ? `s${v}` : JSON.stringify(v, (_x, y: unknown) => (typeof y === 'bigint' ? `${y}n` : y))) : 'N';
  }
  return parts.map((p) => (isValid(p, i) ? JSON.stringify(getValue(p, i), (_x, y: unknown) => (typeof y === 'bigint' ? `${y}n` : y)) : 'N')).join('\u0000');
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
