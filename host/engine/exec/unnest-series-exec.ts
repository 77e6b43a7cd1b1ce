// Unnests a data-repair aggregate's result (plan/logical-plan.ts UnnestSeries): the struct of
// two lists at `column` becomes one row per element, its time and its value, with the other
// columns of the input row repeated. A NULL struct gives no rows.

import { getValue, type RecordBatch, type Schema, takeVector, type Vector, vectorFrom } from '../types/index.js';
import { describeNode, type ExecContext, type ExecNode } from './exec-plan.js';

export class UnnestSeriesExec implements ExecNode {
  readonly name = 'UnnestSeriesExec';
  readonly schema: Schema;
  readonly children: readonly ExecNode[];
  readonly #input: ExecNode;
  readonly #column: number;

  constructor(input: ExecNode, column: number, schema: Schema) {
    this.#input = input;
    this.#column = column;
    this.schema = schema;
    this.children = [input];
  }

  describe(): string {
    return describeNode(this.name, `column=${this.#column}`);
  }

  async *execute(ctx: ExecContext): AsyncGenerator<RecordBatch> {
    const c = this.#column;
    const timeType = this.schema.fields[c]!.type;
    const valueType = this.schema.fields[c + 1]!.type;
    for await (const batch of this.#input.execute(ctx)) {
      ctx.checkAbort();
      const rows: number[] = [];
      const times: bigint[] = [];
      const values: number[] = [];
      const series = batch.columns[c]!;
      for (let i = 0; i < batch.length; i++) {
        const s = getValue(series, i) as { time: bigint[] | null; value: number[] | null } | null;
        if (s === null || s.time === null || s.value === null) continue;
        for (let k = 0; k < s.time.length; k++) {
          rows.push(i);
          times.push(s.time[k]!);
          values.push(s.value[k]!);
        }
      }
      if (rows.length === 0) continue;
      const idx = Int32Array.from(rows);
      const columns: Vector[] = [];
      batch.columns.forEach((col, k) => {
        if (k !== c) columns.push(takeVector(col, idx));
        else columns.push(vectorFrom(timeType, times), vectorFrom(valueType, values));
      });
      yield { schema: this.schema, length: rows.length, columns };
    }
  }
}
