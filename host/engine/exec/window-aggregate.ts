// An aggregate function over window frames (`sum(x) OVER (... ROWS BETWEEN 2 PRECEDING AND
// CURRENT ROW)`), on the aggregate's own GroupsAccumulator. Frames that all start at the
// partition's first row (the default frame, running totals) grow monotonically: one accumulator
// takes the rows as the frame end advances and its finish() is read per distinct end, O(n).
// Other frames make each row a group fed the rows of its frame in one update call, O(total
// frame width), charged to the query's memory.

import type { Vector } from '../batch.js';
import { concatVectors, sliceVector, takeVector } from '../batch.js';
import type { AggregateFunction, BoundSignature, WindowFrames } from '../functions/function-types.js';
import type { ExecContext } from './exec-plan.js';

/** Bytes charged per (row, frame row) pair of a sliding frame: an index, a group id, the values. */
const PAIR_BYTES = 16;

export function aggregateOverFrames(fn: AggregateFunction, sig: BoundSignature, distinct: boolean, args: readonly Vector[], n: number, frames: WindowFrames, ctx: ExecContext): Vector {
  const { start, end } = frames;
  let running = true;
  for (let i = 0; i < n; i++) {
    if (start[i] !== 0 || (i > 0 && end[i]! < end[i - 1]!)) {
      running = false;
      break;
    }
  }
  if (running) return runningAggregate(fn, sig, distinct, args, n, end);

  let pairs = 0;
  for (let i = 0; i < n; i++) pairs += Math.max(0, end[i]! - start[i]!);
  const bytes = pairs * PAIR_BYTES;
  ctx.memory.reserve(bytes, 'window frames');
  try {
    const rows = new Int32Array(pairs);
    const groups = new Int32Array(pairs);
    let k = 0;
    for (let i = 0; i < n; i++) {
      for (let j = start[i]!; j < end[i]!; j++) {
        rows[k] = j;
        groups[k++] = i;
      }
    }
    const acc = fn.createAccumulator(sig, distinct);
    acc.update(
      args.map((a) => takeVector(a, rows)),
      groups,
      pairs,
      n,
    );
    return acc.finish(n);
  } finally {
    ctx.memory.release(bytes);
  }
}

function runningAggregate(fn: AggregateFunction, sig: BoundSignature, distinct: boolean, args: readonly Vector[], n: number, end: Int32Array): Vector {
  const acc = fn.createAccumulator(sig, distinct);
  const parts: Vector[] = [];
  const zeros = new Int32Array(n);
  let fed = 0;
  let last: Vector | undefined;
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
    if (e !== lastEnd || last === undefined) {
      last = acc.finish(1);
      lastEnd = e;
    }
    parts.push(last);
  }
  if (n === 0) return acc.finish(0);
  return concatVectors(sig.returnType, parts);
}
