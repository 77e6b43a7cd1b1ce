// Window functions over the whole input (buffered within the memory limit): for each window
// expression the rows are ordered by PARTITION BY then ORDER BY, the function runs once per
// partition with the peer groups marked, and the results go back to the rows' input order.

import type { RecordBatch, Schema, Vector } from '../batch.js';
import { getValue, isValid, takeVector, vectorFrom, type Scalar } from '../batch.js';
import type { WindowFunction } from '../functions/function-types.js';
import type { LExpr, SortExpr } from '../plan/expr.js';
import { exprDisplay } from '../plan/expr-display.js';
import type { PlanSchema } from '../plan/plan-schema.js';
import { collect, concatBatches, slices } from './batches.js';
import { compileExprs } from './evaluate.js';
import { describeNode, type ExecContext, type ExecNode } from './exec-plan.js';
import { rowComparator } from './sort-exec.js';
import { bug } from '../../core/errors.js';

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
        if (w.fn.kind !== 'window') throw bug(`aggregate ${w.fn.name} as a window function`);
        const fn: WindowFunction = w.fn;
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
        const result = new Array<Scalar>(n);
        let start = 0;
        while (start < n) {
          let end = start + 1;
          while (end < n && partCmp(perm[start]!, perm[end]!) === 0) end++;
          const idx = perm.subarray(start, end);
          const len = end - start;
          const peers = new Int32Array(len);
          for (let k = 1; k < len; k++) peers[k] = orderCmp(idx[k - 1]!, idx[k]!) === 0 ? peers[k - 1]! : k;
          const partArgs = args.map((a) => takeVector(a, idx));
          const out = fn.evaluatePartition(partArgs, len, peers, { argTypes: w.argTypes, returnType: w.type });
          for (let k = 0; k < len; k++) result[idx[k]!] = isValid(out, k) ? getValue(out, k) : null;
          start = end;
          ctx.checkAbort();
        }
        outputs.push(vectorFrom(w.type, result, Uint8Array.from(result, (v) => (v === null ? 0 : 1))));
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
    const partC = compileExprs(w.partitionBy, this.#inputSchema, ctx);
    const orderC = compileExprs(w.orderBy.map((o) => o.expr), this.#inputSchema, ctx);
    // Per partition: the best rows so far, kept as one small batch.
    const best = new Map<string, RecordBatch>();
    let bytes = 0;
    try {
      for await (const batch of this.#input.execute(ctx)) {
        ctx.checkAbort();
        if (batch.length === 0) continue;
        if (partC.needsPrepare) await partC.prepare(batch);
        if (orderC.needsPrepare) await orderC.prepare(batch);
        const parts = partC.exprs.map((e) => e.evaluate(batch));
        const orders = orderC.exprs.map((e) => e.evaluate(batch));
        const groups = new Map<string, number[]>();
        for (let i = 0; i < batch.length; i++) {
          const key = parts.map((p) => JSON.stringify(getValue(p, i), (_x, y: unknown) => (typeof y === 'bigint' ? `${y}n` : y))).join('\u0000');
          let list = groups.get(key);
          if (list === undefined) groups.set(key, (list = []));
          list.push(i);
        }
        const cmp = rowComparator(orders, w.orderBy);
        for (const [key, rows] of groups) {
          rows.sort(cmp);
          const top = Int32Array.from(rows.slice(0, k));
          let cand: RecordBatch = { schema: this.#input.schema, length: top.length, columns: batch.columns.map((c) => takeVector(c, top)) };
          const prev = best.get(key);
          if (prev !== undefined) {
            const merged = concatBatches(this.#input.schema, [prev, cand]);
            const mo = orderC.exprs.map((e) => e.evaluate(merged));
            const mc = rowComparator(mo, w.orderBy);
            const idx = Array.from({ length: merged.length }, (_, i) => i).sort(mc).slice(0, k);
            cand = { schema: this.#input.schema, length: idx.length, columns: merged.columns.map((c) => takeVector(c, idx)) };
          } else {
            bytes += 64 * k;
            ctx.memory.reserve(64 * k, 'top-k per partition');
          }
          best.set(key, cand);
        }
        await ctx.maybeYield();
      }
      const out: RecordBatch[] = [];
      for (const b of best.values()) {
        const rn = new BigUint64Array(b.length);
        for (let i = 0; i < b.length; i++) rn[i] = BigInt(i + 1);
        out.push({ schema: this.schema, length: b.length, columns: [...b.columns, { type: w.type, length: b.length, values: rn }] });
      }
      if (out.length > 0) yield* slices(concatBatches(this.schema, out));
    } finally {
      ctx.memory.release(bytes);
    }
  }
}
