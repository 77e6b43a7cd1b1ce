// VALUES rows and the empty relation (`SELECT 1` reads one row of no columns).

import type { RecordBatch, Schema } from '../types/index.js';
import type { LExpr } from '../plan/expr.js';
import { PlanSchema } from '../plan/plan-schema.js';
import { compileExprs } from './evaluate.js';
import { concatBatches } from './batches.js';
import { describeNode, type ExecContext, type ExecNode } from './exec-plan.js';

const ONE_ROW: RecordBatch = { schema: { fields: [] }, columns: [], length: 1 };

export class ValuesExec implements ExecNode {
  readonly name = 'ValuesExec';
  readonly schema: Schema;
  readonly children: readonly ExecNode[] = [];
  readonly #rows: readonly (readonly LExpr[])[];

  constructor(rows: readonly (readonly LExpr[])[], schema: Schema) {
    this.#rows = rows;
    this.schema = schema;
  }

  describe(): string {
    return describeNode(this.name, `rows=${this.#rows.length}`);
  }

  async *execute(ctx: ExecContext): AsyncGenerator<RecordBatch> {
    const parts: RecordBatch[] = [];
    for (const row of this.#rows) {
      const compiled = compileExprs(row, PlanSchema.empty(), ctx);
      if (compiled.needsPrepare) await compiled.prepare(ONE_ROW);
      parts.push({ schema: this.schema, length: 1, columns: compiled.exprs.map((e) => e.evaluate(ONE_ROW)) });
    }
    if (parts.length > 0) yield concatBatches(this.schema, parts);
  }
}

export class EmptyExec implements ExecNode {
  readonly name = 'EmptyExec';
  readonly schema: Schema = { fields: [] };
  readonly children: readonly ExecNode[] = [];
  readonly #oneRow: boolean;

  constructor(oneRow: boolean) {
    this.#oneRow = oneRow;
  }

  describe(): string {
    return describeNode(this.name, `produce_one_row=${this.#oneRow}`);
  }

  async *execute(): AsyncGenerator<RecordBatch> {
    if (this.#oneRow) yield ONE_ROW;
  }
}
