// Keeps the rows where the predicate is TRUE (NULL and FALSE drop the row), without copying a
// batch that passes whole.

import type { RecordBatch, Schema } from '../types/index.js';
import type { LExpr } from '../plan/expr.js';
import { exprDisplay } from '../plan/expr-display.js';
import type { PlanSchema } from '../plan/plan-schema.js';
import { filterBatch } from './batches.js';
import { compileExpr } from './evaluate.js';
import { describeNode, type ExecContext, type ExecNode } from './exec-plan.js';

export class FilterExec implements ExecNode {
  readonly name = 'FilterExec';
  readonly schema: Schema;
  readonly children: readonly ExecNode[];
  readonly #input: ExecNode;
  readonly #predicate: LExpr;
  readonly #inputSchema: PlanSchema;

  constructor(input: ExecNode, predicate: LExpr, inputSchema: PlanSchema) {
    this.#input = input;
    this.#predicate = predicate;
    this.#inputSchema = inputSchema;
    this.schema = input.schema;
    this.children = [input];
  }

  describe(): string {
    return describeNode(this.name, exprDisplay(this.#predicate));
  }

  async *execute(ctx: ExecContext): AsyncGenerator<RecordBatch> {
    const predicate = compileExpr(this.#predicate, this.#inputSchema, ctx);
    for await (const batch of this.#input.execute(ctx)) {
      ctx.checkAbort();
      if (batch.length === 0) continue;
      if (predicate.needsPrepare) await predicate.prepare(batch);
      const out = filterBatch(batch, predicate.evaluate(batch));
      if (out.length > 0) yield out.schema === this.schema ? out : { ...out, schema: this.schema };
    }
  }
}
