// ORDER BY: SortExec keeps its whole input (within the memory limit; no spilling) as sorted runs
// and merges them (sorted-runs.ts), a batch at a time, so that no step holds the event loop for
// long; with a `fetch` (ORDER BY ... LIMIT k) TopKExec keeps only the best k rows, compacting its
// buffer through the same runs whenever it holds a few batches more than k. Keys that rank
// cheaply sort natively as one number per row (sort-keys.ts); the others through the comparators
// of sort-comparators.ts.

import type { RecordBatch, Schema } from '../types/index.js';
import type { SortExpr } from '../plan/expr.js';
import { exprDisplay } from '../plan/expr-display.js';
import type { PlanSchema } from '../plan/plan-schema.js';
import { compileExprs, type CompiledExprs } from './evaluate.js';
import { BATCH_ROWS, describeNode, type ExecContext, type ExecNode } from './exec-plan.js';
import { batchBytes, Reservation } from '../memory/index.js';
import { SortedRuns } from './sorted-runs.js';

/** The first `limit` rows of `runs` in order, gathered into batches. */
async function* sortedBatches(
  runs: SortedRuns,
  schema: Schema,
  ctx: ExecContext,
  limit?: number,
): AsyncGenerator<RecordBatch> {
  for await (const { batches, rows } of runs.merged(ctx, limit)) {
    yield {
      schema,
      length: rows.length,
      columns: schema.fields.map((f, c) => runs.rows.gatherAt(c, f.type, batches, rows, rows.length)),
    };
  }
}

export class SortExec implements ExecNode {
  readonly name: string;
  readonly schema: Schema;
  readonly children: readonly ExecNode[];
  readonly #input: ExecNode;
  readonly #order: readonly SortExpr[];
  readonly #inputSchema: PlanSchema;
  readonly #fetch: number | undefined;

  constructor(input: ExecNode, order: readonly SortExpr[], inputSchema: PlanSchema, fetch: number | undefined) {
    this.#input = input;
    this.#order = order;
    this.#inputSchema = inputSchema;
    this.#fetch = fetch;
    this.schema = input.schema;
    this.children = [input];
    this.name = fetch === undefined ? 'SortExec' : 'TopKExec';
  }

  describe(): string {
    const keys = this.#order
      .map((o) => `${exprDisplay(o.expr)} ${o.asc ? 'ASC' : 'DESC'} ${o.nullsFirst ? 'NULLS FIRST' : 'NULLS LAST'}`)
      .join(', ');
    return describeNode(this.name, `[${keys}]${this.#fetch === undefined ? '' : `, fetch=${this.#fetch}`}`);
  }

  async *execute(ctx: ExecContext): AsyncGenerator<RecordBatch> {
    const keysC = compileExprs(
      this.#order.map((o) => o.expr),
      this.#inputSchema,
      ctx,
    );
    if (this.#fetch !== undefined) {
      yield* this.#topK(ctx, keysC, this.#fetch);
      return;
    }
    const mem = new Reservation(ctx.memory, 'ORDER BY');
    try {
      const runs = new SortedRuns(this.#order, keysC);
      for await (const batch of this.#input.execute(ctx)) {
        ctx.checkAbort();
        if (batch.length === 0) continue;
        mem.grow(batchBytes(batch));
        mem.grow(await runs.add(batch, ctx));
      }
      await runs.sort(ctx, mem);
      yield* sortedBatches(runs, this.schema, ctx);
    } finally {
      mem.release();
    }
  }

  async *#topK(ctx: ExecContext, keysC: CompiledExprs, k: number): AsyncGenerator<RecordBatch> {
    if (k === 0) return;
    const mem = new Reservation(ctx.memory, 'ORDER BY ... LIMIT');
    let buffer: RecordBatch[] = [];
    let rows = 0;
    // The best k of the buffer, as one batch per BATCH_ROWS rows.
    const compact = async (): Promise<void> => {
      const runs = new SortedRuns(this.#order, keysC);
      let extra = 0;
      for (const b of buffer) extra += await runs.add(b, ctx);
      mem.grow(extra);
      await runs.sort(ctx, mem);
      const best: RecordBatch[] = [];
      for await (const b of sortedBatches(runs, this.schema, ctx, k)) best.push(b);
      let bytes = 0;
      for (const b of best) bytes += batchBytes(b);
      mem.grow(bytes);
      buffer = best;
      rows = 0;
      for (const b of best) rows += b.length;
      mem.set(bytes);
    };
    try {
      for await (const batch of this.#input.execute(ctx)) {
        ctx.checkAbort();
        if (batch.length === 0) continue;
        mem.grow(batchBytes(batch));
        buffer.push(batch);
        rows += batch.length;
        if (rows >= 2 * k + BATCH_ROWS) await compact();
      }
      if (rows === 0) return;
      await compact();
      yield* buffer;
    } finally {
      mem.release();
    }
  }
}
