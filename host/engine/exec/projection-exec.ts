// Evaluates the select list over each batch. Plain column references pass the input vector
// through untouched.

import type { RecordBatch, Schema } from '../types/index.js';
import type { LExpr } from '../plan/expr.js';
import { exprDisplay } from '../plan/expr-display.js';
import type { PlanSchema } from '../plan/plan-schema.js';
import { compileExprs } from './evaluate.js';
import { describeNode, type ExecContext, type ExecNode } from './exec-plan.js';

export class ProjectionExec implements ExecNode {
  readonly name = 'ProjectionExec';
  readonly schema: Schema;
  readonly children: readonly ExecNode[];
  readonly #input: ExecNode;
  readonly #exprs: readonly LExpr[];
  readonly #inputSchema: PlanSchema;

  constructor(input: ExecNode, exprs: readonly LExpr[], inputSchema: PlanSchema, schema: Schema) {
    this.#input = input;
    this.#exprs = exprs;
    this.#inputSchema = inputSchema;
    this.schema = schema;
    this.children = [input];
  }

  describe(): string {
    return describeNode(this.name, `expr=[${this.#exprs.map(exprDisplay).join(', ')}]`);
  }

  async *execute(ctx: ExecContext): AsyncGenerator<RecordBatch> {
    const compiled = compileExprs(this.#exprs, this.#inputSchema, ctx);
    for await (const batch of this.#input.execute(ctx)) {
      ctx.checkAbort();
      if (compiled.needsPrepare) await compiled.prepare(batch);
      yield { schema: this.schema, length: batch.length, columns: compiled.exprs.map((e) => e.evaluate(batch)) };
    }
  }
}
