// CnosDB 2.4.2's gap filling (after InfluxDB IOx's GapFill): over the output of an aggregate
// grouped by a time window's start and other keys, every series gets a row for each window start
// on the grid between the query's time bounds; the added rows have NULL aggregates, which
// locf() replaces by the last non-NULL value before it in the series and interpolate() by the
// linear interpolation between its non-NULL neighbours (integers in integer arithmetic, as
// IOx does; NULL before the first and after the last value). The aggregate output is small (one
// row per series and window), so it is buffered whole and sorted by keys, then time.

import {
  getValue,
  isValid,
  nonNullMask,
  type RecordBatch,
  type Scalar,
  type Schema,
  type TimeUnit,
  unitNanos,
  type Vector,
  vectorFrom,
} from '../types/index.js';
import type { GapFill } from '../plan/logical-plan.js';
import { collect, concatBatches, slices } from './batches.js';
import { describeNode, type ExecContext, type ExecNode } from './exec-plan.js';
import { rowComparator } from './sort-comparators.js';

/** Bytes charged per filled row and column. */
const CELL_BYTES = 16;

export class GapFillExec implements ExecNode {
  readonly name = 'GapFillExec';
  readonly schema: Schema;
  readonly children: readonly ExecNode[];
  readonly #input: ExecNode;
  readonly #plan: GapFill;

  constructor(input: ExecNode, plan: GapFill, schema: Schema) {
    this.#input = input;
    this.#plan = plan;
    this.schema = schema;
    this.children = [input];
  }

  describe(): string {
    const p = this.#plan;
    return describeNode(
      this.name,
      `keys=[${p.keys.join(', ')}], time=${p.time}, range=[${p.firstNs ?? 'first point'}ns, ${p.lastNs}ns], slide=${p.slideNs}ns`,
    );
  }

  async *execute(ctx: ExecContext): AsyncGenerator<RecordBatch> {
    const { batches, bytes } = await collect(this.#input, ctx, 'gap filling');
    let reserved = bytes;
    try {
      const p = this.#plan;
      const input = concatBatches(this.#input.schema, batches);
      const n = input.length;
      if (n === 0) return;
      const keyCols = p.keys.map((k) => input.columns[k]!);
      const timeCol = input.columns[p.time]!;
      const unit = (timeCol.type as { unit: TimeUnit }).unit;
      const per = unitNanos(unit);
      const keyCmp = rowComparator(
        keyCols,
        keyCols.map(() => ({
          expr: { kind: 'literal', value: null, type: timeCol.type },
          asc: true,
          nullsFirst: false,
        })),
      );
      const times = timeCol.values as BigInt64Array;
      const order = Array.from({ length: n }, (_, i) => i).sort(
        (a, b) => keyCmp(a, b) || (times[a]! < times[b]! ? -1 : times[a]! > times[b]! ? 1 : 0),
      );
      const width = input.columns.length;
      const out: Scalar[][] = [...input.columns, ...p.fills].map(() => []);
      let start = 0;
      while (start < n) {
        let end = start + 1;
        while (end < n && keyCmp(order[start]!, order[end]!) === 0) end++;
        const rows = order.slice(start, end);
        // Window starts of the series: the grid from the first bound (or its first row) to the last.
        const have = rows.map((r) => times[r]! * per);
        const grid: bigint[] = [];
        const from = p.firstNs ?? have[0]!;
        for (let t = from; t <= p.lastNs; t += p.slideNs) grid.push(t);
        const merged: { t: bigint; row: number | undefined }[] = [];
        let g = 0;
        let h = 0;
        while (g < grid.length || h < have.length) {
          if (h >= have.length || (g < grid.length && grid[g]! < have[h]!))
            merged.push({ t: grid[g++]!, row: undefined });
          else {
            if (g < grid.length && grid[g] === have[h]) g++;
            merged.push({ t: have[h]!, row: rows[h++]! });
          }
        }
        const add = merged.length * width * CELL_BYTES;
        ctx.memory.reserve(add, 'gap filling');
        reserved += add;
        const first = rows[0]!;
        const columnValues: Scalar[][] = [];
        for (let c = 0; c < width; c++) {
          const col = input.columns[c]!;
          const isKey = p.keys.includes(c);
          columnValues.push(
            merged.map((m) => {
              if (c === p.time) return m.t / per;
              if (isKey) return getValue(col, first);
              return m.row === undefined || !isValid(col, m.row) ? null : getValue(col, m.row);
            }),
          );
        }
        for (const f of p.fills) {
          const values = columnValues[f.source]!.slice();
          fill(
            f.strategy,
            values,
            merged.map((m) => m.t),
          );
          columnValues.push(values);
        }
        columnValues.forEach((values, c) => {
          for (const v of values) out[c]!.push(v);
        });
        start = end;
        ctx.checkAbort();
      }
      const columns: Vector[] = out.map((values, c) =>
        vectorFrom(this.schema.fields[c]!.type, values, nonNullMask(values)),
      );
      yield* slices({ schema: this.schema, length: out[0]!.length, columns });
    } finally {
      ctx.memory.release(reserved);
    }
  }
}

/** Fills the NULLs of one series' column in place. */
function fill(strategy: 'locf' | 'interpolate', values: Scalar[], times: readonly bigint[]): void {
  if (strategy === 'locf') {
    let last: Scalar = null;
    for (let i = 0; i < values.length; i++) {
      if (values[i] === null) values[i] = last;
      else last = values[i]!;
    }
    return;
  }
  let prev = -1;
  for (let i = 0; i < values.length; i++) {
    if (values[i] === null) continue;
    if (prev >= 0 && i > prev + 1) {
      const a = values[prev]!;
      const b = values[i]!;
      for (let j = prev + 1; j < i; j++) values[j] = interpolate(a, b, times[prev]!, times[i]!, times[j]!);
    }
    prev = i;
  }
}

function interpolate(a: Scalar, b: Scalar, ta: bigint, tb: bigint, t: bigint): Scalar {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a + ((b - a) * (t - ta)) / (tb - ta);
  if (typeof a === 'number' && typeof b === 'number') return a + ((b - a) * Number(t - ta)) / Number(tb - ta);
  return null;
}
