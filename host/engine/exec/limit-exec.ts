// LIMIT / OFFSET: skips rows, passes at most `fetch`, and stops pulling its input as soon as
// it has them (breaking out of the loop calls the input's return(), which releases the scan).

import { type RecordBatch, type Schema, sliceBatch } from '../types/index.js';
import { describeNode, type ExecContext, type ExecNode } from './exec-plan.js';

export class LimitExec implements ExecNode {
  readonly name = 'LimitExec';
  readonly schema: Schema;
  readonly children: readonly ExecNode[];
  readonly #input: ExecNode;
  readonly #skip: number;
  readonly #fetch: number | undefined;

  constructor(input: ExecNode, skip: number, fetch: number | undefined) {
    this.#input = input;
    this.#skip = skip;
    this.#fetch = fetch;
    this.schema = input.schema;
    this.children = [input];
  }

  describe(): string {
    return describeNode(this.name, `skip=${this.#skip}, fetch=${this.#fetch ?? 'None'}`);
  }

  async *execute(ctx: ExecContext): AsyncGenerator<RecordBatch> {
    let skip = this.#skip;
    let remaining = this.#fetch ?? Infinity;
    if (remaining === 0) return;
    for await (const batch of this.#input.execute(ctx)) {
      ctx.checkAbort();
      let b = batch;
      if (skip > 0) {
        if (b.length <= skip) {
          skip -= b.length;
          continue;
        }
        b = sliceBatch(b, skip, b.length);
        skip = 0;
      }
      if (b.length > remaining) b = sliceBatch(b, 0, remaining);
      remaining -= b.length;
      if (b.length > 0) yield b;
      if (remaining <= 0) return;
    }
  }
}
