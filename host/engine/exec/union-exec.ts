// UNION ALL: the inputs one after another (their column types were aligned by the planner).

import type { RecordBatch, Schema } from '../types/index.js';
import { describeNode, type ExecContext, type ExecNode } from './exec-plan.js';

export class UnionExec implements ExecNode {
  readonly name = 'UnionExec';
  readonly schema: Schema;
  readonly children: readonly ExecNode[];

  constructor(inputs: readonly ExecNode[], schema: Schema) {
    this.children = inputs;
    this.schema = schema;
  }

  describe(): string {
    return describeNode(this.name, '');
  }

  async *execute(ctx: ExecContext): AsyncGenerator<RecordBatch> {
    for (const input of this.children) {
      for await (const batch of input.execute(ctx)) {
        ctx.checkAbort();
        yield { schema: this.schema, length: batch.length, columns: batch.columns };
      }
    }
  }
}
