// An aggregate function over window frames (`sum(x) OVER (... ROWS BETWEEN 2 PRECEDING AND
// CURRENT ROW)`), on the aggregate's own GroupsAccumulator. Frames that all start at the
// partition's first row (the default frame, running totals) grow monotonically: one accumulator
// takes the rows as the frame end advances and its finish() is read per distinct end, O(n).
// Other frames make each row a group fed the rows of its frame, O(total frame width), a run of
// rows at a time (PAIRS_PER_SLICE), each run's pairs charged to the query's memory.

import {
  concatVectors,
  getValue,
  nonNullMask,
  type Scalar,
  sliceVector,
  takeVector,
  type Vector,
  vectorFrom,
} from '../types/index.js';
import type { AggregateFunction, BoundSignature, WindowFrames } from '../functions/function-types.js';
import type { ExecContext } from './exec-plan.js';

/** Bytes charged per (row, frame row) pair of a sliding frame: an index, a group id, the values. */
const PAIR_BYTES = 16;
/**
 * Frame rows fed to one accumulator at most: rows are taken a run at a time whose frames hold
 * this many pairs (a few milliseconds), then finished, so that a long partition neither holds the
 * event loop nor its whole total frame width in memory.
 */
const PAIRS_PER_SLICE = 1 << 18;
/** Rows of a running frame between two looks at the clock. */
const ROWS_PER_SLICE = 1 << 16;

export async function aggregateOverFrames(
  fn: AggregateFunction,
  sig: BoundSignature,
  distinct: boolean,
  args: readonly Vector[],
  n: number,
  frames: WindowFrames,
  ctx: ExecContext,
): Promise<Vector> {
  const { start, end } = frames;
  let running = true;
  for (let i = 0; i < n; i++) {
    if (start[i] !== 0 || (i > 0 && end[i]! < end[i - 1]!)) {
      running = false;
      break;
    }
  }
  if (running) return runningAggregate(fn, sig, distinct, args, n, end, ctx);

  const parts: Vector[] = [];
  for (let from = 0; from < n; ) {
    let pairs = 0;
    let to = from;
    while (to < n) {
      const width = Math.max(0, end[to]! - start[to]!);
      if (to > from && pairs + width > PAIRS_PER_SLICE) break;
      pairs += width;
      to++;
    }
    const bytes = pairs * PAIR_BYTES;
    ctx.memory.reserve(bytes, 'window frames');
    try {
      const rows = new Int32Array(pairs);
      const groups = new Int32Array(pairs);
      let k = 0;
      for (let i = from; i < to; i++) {
        for (let j = start[i]!; j < end[i]!; j++) {
          rows[k] = j;
          groups[k++] = i - from;
        }
      }
      const acc = fn.createAccumulator(sig, distinct);
      acc.update(
        args.map((a) => takeVector(a, rows)),
        groups,
        pairs,
        to - from,
      );
      parts.push(acc.finish(to - from));
    } finally {
      ctx.memory.release(bytes);
    }
    from = to;
    ctx.checkAbort();
    await ctx.maybeYield();
  }
  return parts.length === 1
    ? parts[0]!
    : n === 0
      ? fn.createAccumulator(sig, distinct).finish(0)
      : concatVectors(sig.returnType, parts);
}

async function runningAggregate(
  fn: AggregateFunction,
  sig: BoundSignature,
  distinct: boolean,
  args: readonly Vector[],
  n: number,
  end: Int32Array,
  ctx: ExecContext,
): Promise<Vector> {
  const acc = fn.createAccumulator(sig, distinct);
  // One value per row, read once per distinct frame end (not a vector per row: a partition of
  // millions of rows made millions of one-row vectors).
  const values = new Array<Scalar>(n);
  const zeros = new Int32Array(n);
  let fed = 0;
  let last: Scalar = null;
  let lastEnd = -1;
  for (let i = 0; i < n; i++) {
    const e = end[i]!;
    if (e > fed) {
      acc.update(
        args.map((a) => sliceVector(a, fed, e)),
        zeros,
        e - fed,
        1,
      );
      fed = e;
    }
    if (e !== lastEnd || i === 0) {
      last = getValue(acc.finish(1), 0);
      lastEnd = e;
    }
    values[i] = last;
    if ((i & (ROWS_PER_SLICE - 1)) === ROWS_PER_SLICE - 1) {
      ctx.checkAbort();
      await ctx.maybeYield();
    }
  }
  if (n === 0) return acc.finish(0);
  return vectorFrom(sig.returnType, values, nonNullMask(values));
}
