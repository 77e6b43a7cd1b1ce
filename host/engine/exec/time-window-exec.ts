// CnosDB's sliding time_window: every row comes out once per window, with the window as a
// struct {start, end}. As in CnosDB, a row's windows are the ceil(window / slide) windows whose
// starts are the row's time floored to the slide grid (from the origin) and the slides before
// it; when the slide divides the window these are exactly the windows containing the row (the
// conformance cases pin down the other case too).

import {
  type DataType,
  floorDiv,
  type RecordBatch,
  type Schema,
  takeVector,
  timestamp,
  type TimeUnit,
  unitNanos,
} from '../types/index.js';
import type { LExpr } from '../plan/expr.js';
import { exprDisplay } from '../plan/expr-display.js';
import type { PlanSchema } from '../plan/plan-schema.js';
import { executionError } from '../errors.js';
import { compileExpr } from './evaluate.js';
import { describeNode, type ExecContext, type ExecNode } from './exec-plan.js';

const I64_MAX = 2n ** 63n - 1n;

export class TimeWindowExec implements ExecNode {
  readonly name = 'TimeWindowExec';
  readonly schema: Schema;
  readonly children: readonly ExecNode[];
  readonly #input: ExecNode;
  readonly #time: LExpr;
  readonly #windowNs: bigint;
  readonly #slideNs: bigint;
  readonly #originNs: bigint;
  readonly #inputSchema: PlanSchema;
  readonly #structType: DataType;

  constructor(
    input: ExecNode,
    time: LExpr,
    windowNs: bigint,
    slideNs: bigint,
    originNs: bigint,
    inputSchema: PlanSchema,
    schema: Schema,
  ) {
    this.#input = input;
    this.#time = time;
    this.#windowNs = windowNs;
    this.#slideNs = slideNs;
    this.#originNs = originNs;
    this.#inputSchema = inputSchema;
    this.schema = schema;
    this.children = [input];
    this.#structType = schema.fields[schema.fields.length - 1]!.type;
  }

  describe(): string {
    return describeNode(
      this.name,
      `time=${exprDisplay(this.#time)}, window=${this.#windowNs}ns, slide=${this.#slideNs}ns`,
    );
  }

  async *execute(ctx: ExecContext): AsyncGenerator<RecordBatch> {
    const time = compileExpr(this.#time, this.#inputSchema, ctx);
    const unit = (this.#time.type as { unit: TimeUnit }).unit;
    const per = unitNanos(unit);
    const count = (this.#windowNs + this.#slideNs - 1n) / this.#slideNs;
    for await (const batch of this.#input.execute(ctx)) {
      ctx.checkAbort();
      const t = time.evaluate(batch);
      const ts = t.values as BigInt64Array;
      const rows: number[] = [];
      const starts: bigint[] = [];
      for (let i = 0; i < batch.length; i++) {
        if (t.validity !== undefined && t.validity[i] === 0) continue;
        const ns = ts[i]! * per;
        const last = this.#originNs + floorDiv(ns - this.#originNs, this.#slideNs) * this.#slideNs;
        for (let k = count - 1n; k >= 0n; k--) {
          rows.push(i);
          starts.push(last - k * this.#slideNs);
        }
      }
      const n = rows.length;
      if (n === 0) continue;
      const start = new BigInt64Array(n);
      const end = new BigInt64Array(n);
      for (let k = 0; k < n; k++) {
        const e = floorDiv(starts[k]! + this.#windowNs, per);
        if (e > I64_MAX)
          throw executionError(`time_window: the window end of ${starts[k]!}ns is past the largest timestamp`);
        start[k] = floorDiv(starts[k]!, per);
        end[k] = e;
      }
      const idx = Int32Array.from(rows);
      const st = timestamp(unit);
      yield {
        schema: this.schema,
        length: n,
        columns: [
          ...batch.columns.map((c) => takeVector(c, idx)),
          {
            type: this.#structType,
            length: n,
            values: [
              { type: st, length: n, values: start },
              { type: st, length: n, values: end },
            ],
          },
        ],
      };
    }
  }
}
