// The TypeScript side of the time-bucket aggregate's row work (time-bucket-groups.ts): the runs
// of a chunk's rows that fall into one bucket, found without BigInt arithmetic, and the
// aggregates folded over a run or a block's statistics. The Wasm kernels (bucket-kernels.ts) do
// the same for count/sum/avg/min/max of 64-bit columns; these loops serve first/last, other
// types, and a host without the core.

import type { DataType, Scalar } from '../types/index.js';
import type { ChunkColumn, SeriesChunk, SeriesStats } from '../catalog.js';
import { bug } from '../../core/errors.js';
import {
  CountAccumulator,
  FirstLastAccumulator,
  FloatMinMaxAccumulator,
  FloatSumAccumulator,
  IntMinMaxAccumulator,
  IntSumAccumulator,
} from '../functions/accumulators.js';
import type { GroupsAccumulator } from '../functions/function-types.js';

export type AggKind = 'count' | 'sum' | 'avg' | 'min' | 'max' | 'first' | 'last';

export interface AggSpec {
  kind: AggKind;
  /** The field (or tag/time for count) read; undefined for count(*). */
  column: string | undefined;
  columnKind: 'time' | 'tag' | 'field' | undefined;
  /** The column's type (before an AVG's cast to DOUBLE). */
  type: DataType;
  returnType: DataType;
}

const TWO32 = 4294967296;
const I64_MAX = 2n ** 63n - 1n;

/**
 * The first index in [from, to) whose time is >= v, by binary search over the times as 32-bit
 * word pairs (`w` aliases the BigInt64Array: no BigInt per probe).
 */
export function lowerBoundTime(w: Int32Array, from: number, to: number, v: bigint): number {
  if (v > I64_MAX) return to; // the bucket ends past the largest timestamp
  const hi = Number(BigInt.asIntN(32, v >> 32n));
  const lo = Number(v & 0xffffffffn);
  let a = from;
  let b = to;
  while (a < b) {
    const mid = (a + b) >>> 1;
    const h = w[2 * mid + 1]!;
    if (h < hi || (h === hi && w[2 * mid]! >>> 0 < lo)) a = mid + 1;
    else b = mid;
  }
  return a;
}

/** The accumulator of one aggregate. */
export function createAccumulator(a: AggSpec): GroupsAccumulator {
  switch (a.kind) {
    case 'count':
      return new CountAccumulator();
    case 'sum':
      return a.type.id === 'Float64' ? new FloatSumAccumulator(false) : new IntSumAccumulator(a.type);
    case 'avg':
      return new FloatSumAccumulator(true);
    case 'min':
    case 'max':
      return a.type.id === 'Float64'
        ? new FloatMinMaxAccumulator(a.kind === 'max')
        : new IntMinMaxAccumulator(a.type, a.kind === 'max');
    case 'first':
    case 'last':
      return new FirstLastAccumulator(a.returnType, a.kind === 'last');
  }
}

/** Folds rows [s, e) of a chunk column into group g of `acc`. */
export function foldRun(
  a: AggSpec,
  acc: GroupsAccumulator,
  g: number,
  chunk: SeriesChunk,
  data: ChunkColumn | undefined,
  w: Int32Array | undefined,
  s: number,
  e: number,
): void {
  const m = data?.validity;
  if (a.kind === 'count') {
    if (a.columnKind !== 'field') {
      // count(*), count(time), count(tag): every row, unless the tag is missing.
      if (a.columnKind === 'tag' && !chunk.tags.has(a.column!)) return;
      (acc as CountAccumulator).add(g, e - s);
      return;
    }
    if (data === undefined) return;
    let c = e - s;
    if (m !== undefined) {
      c = 0;
      for (let i = s; i < e; i++) c += m[i]!;
    }
    (acc as CountAccumulator).add(g, c);
    return;
  }
  if (data === undefined) return;
  if (a.kind === 'first' || a.kind === 'last') {
    const step = a.kind === 'first' ? 1 : -1;
    for (let i = a.kind === 'first' ? s : e - 1; i >= s && i < e; i += step) {
      if (m !== undefined && m[i] === 0) continue;
      const v = (data.values as ArrayLike<unknown>)[i];
      const value: Scalar = a.type.id === 'Boolean' ? v === 1 : (v as Scalar);
      (acc as FirstLastAccumulator).offer(g, chunk.time[i]!, value);
      return;
    }
    return;
  }
  if (a.type.id === 'Float64') {
    const x = data.values as Float64Array;
    if (a.kind === 'sum' || a.kind === 'avg') {
      let sum = 0;
      let count = 0;
      if (m === undefined) {
        for (let i = s; i < e; i++) sum += x[i]!;
        count = e - s;
      } else {
        for (let i = s; i < e; i++) if (m[i] === 1) (sum += x[i]!), count++;
      }
      if (count > 0) (acc as FloatSumAccumulator).add(g, sum, count);
      return;
    }
    let best = NaN;
    let seen = false;
    const max = a.kind === 'max';
    for (let i = s; i < e; i++) {
      if (m !== undefined && m[i] === 0) continue;
      const v = x[i]!;
      // NaN is greater than every number (as in the hash aggregate).
      if (!seen || (max ? v > best || (v !== v && best === best) : v < best || (best !== best && v === v))) best = v;
      seen = true;
    }
    if (seen) (acc as FloatMinMaxAccumulator).add(g, best);
    return;
  }
  // BIGINT / BIGINT UNSIGNED through 32-bit words.
  if (w === undefined) return;
  const unsigned = a.type.id === 'UInt64';
  if (a.kind === 'sum' || a.kind === 'avg') {
    let hi = 0;
    let lo = 0;
    let count = 0;
    // One loop per case, no branch per value (STYLE §22): the common case has no NULLs.
    if (m === undefined && !unsigned) {
      for (let i = 2 * s, end = 2 * e; i < end; i += 2) {
        lo += w[i]! >>> 0;
        hi += w[i + 1]!;
      }
      count = e - s;
    } else {
      for (let i = s; i < e; i++) {
        if (m !== undefined && m[i] === 0) continue;
        lo += w[2 * i]! >>> 0;
        hi += unsigned ? w[2 * i + 1]! >>> 0 : w[2 * i + 1]!;
        count++;
      }
    }
    if (count === 0) return;
    if (a.kind === 'avg') (acc as FloatSumAccumulator).add(g, hi * TWO32 + lo, count);
    else (acc as IntSumAccumulator).add(g, BigInt(hi) * 4294967296n + BigInt(lo));
    return;
  }
  let bi = -1;
  const max = a.kind === 'max';
  for (let i = s; i < e; i++) {
    if (m !== undefined && m[i] === 0) continue;
    if (bi < 0) {
      bi = i;
      continue;
    }
    const h = w[2 * i + 1]!;
    const bh = w[2 * bi + 1]!;
    let c: number;
    if (h !== bh) c = unsigned ? (h >>> 0 > bh >>> 0 ? 1 : -1) : h > bh ? 1 : -1;
    else {
      const l = w[2 * i]! >>> 0;
      const bl = w[2 * bi]! >>> 0;
      c = l > bl ? 1 : l < bl ? -1 : 0;
    }
    if (max ? c > 0 : c < 0) bi = i;
  }
  if (bi >= 0) (acc as IntMinMaxAccumulator).add(g, (data.values as BigInt64Array)[bi]!);
}

/** Whether a run's statistics hold everything the aggregates need (min/max/sum are absent when inexact). */
export function statsComplete(aggs: readonly AggSpec[], st: SeriesStats): boolean {
  for (const a of aggs) {
    if (a.kind === 'count' || a.columnKind !== 'field') continue;
    const f = st.fields.get(a.column!);
    if (f === undefined || f.count === 0) continue;
    if (
      (a.kind === 'min' && f.min === undefined) ||
      (a.kind === 'max' && f.max === undefined) ||
      ((a.kind === 'sum' || a.kind === 'avg') && f.sum === undefined)
    )
      return false;
  }
  return true;
}

/** Folds a run known by its statistics into group g of `acc` (count/sum/avg/min/max of DOUBLE and BIGINT). */
export function foldStats(a: AggSpec, acc: GroupsAccumulator, g: number, st: SeriesStats): void {
  if (a.kind === 'count' && a.columnKind !== 'field') {
    if (a.columnKind === 'tag' && !st.tags.has(a.column!)) return;
    (acc as CountAccumulator).add(g, st.rows);
    return;
  }
  const f = st.fields.get(a.column!);
  if (f === undefined || f.count === 0) return;
  const float = a.type.id === 'Float64';
  switch (a.kind) {
    case 'count':
      (acc as CountAccumulator).add(g, f.count);
      return;
    case 'avg':
      (acc as FloatSumAccumulator).add(g, Number(f.sum!), f.count);
      return;
    case 'sum':
      if (float) (acc as FloatSumAccumulator).add(g, Number(f.sum!), f.count);
      else (acc as IntSumAccumulator).add(g, BigInt(f.sum!));
      return;
    case 'min':
    case 'max': {
      const v = a.kind === 'min' ? f.min! : f.max!;
      if (float) (acc as FloatMinMaxAccumulator).add(g, Number(v));
      else (acc as IntMinMaxAccumulator).add(g, BigInt(v));
      return;
    }
    default:
      throw bug(`statistics cannot fold ${a.kind}`);
  }
}

/** Runs of one chunk: rows [bounds[r], bounds[r + 1]) lie in bucket `first + offsets[r]`. */
export interface BucketRuns {
  nruns: number;
  bounds: Uint32Array;
  offsets: Float64Array;
  first: bigint;
}

/** Scratch arrays reused across the chunks of one query. */
export class RunScratch {
  bounds = new Uint32Array(64);
  offsets = new Float64Array(64);

  reserve(n: number): void {
    if (this.bounds.length > n) return;
    const cap = Math.max(n + 1, this.bounds.length * 2);
    this.bounds = new Uint32Array(cap);
    this.offsets = new Float64Array(cap);
  }
}

const EXACT = 2n ** 52n;

/**
 * The first index in (lo, hi] whose relative time is >= target, given rel(hi) >= target and a
 * guess: gallops from the guess, then bisects. On regular timestamps the guess is the answer
 * and two probes confirm it.
 */
function seek(rel: (i: number) => number, a: number, b: number, target: number, guess: number): number {
  let lo: number;
  let hi: number;
  if (rel(guess) >= target) {
    hi = guess;
    lo = guess - 1;
    let step = 1;
    while (lo >= a && rel(lo) >= target) {
      hi = lo;
      step *= 2;
      lo = hi - step;
    }
    if (lo < a - 1) lo = a - 1;
  } else {
    lo = guess;
    hi = guess + 1;
    let step = 1;
    while (hi < b && rel(hi) < target) {
      lo = hi;
      step *= 2;
      hi = lo + step;
    }
    if (hi > b) hi = b;
  }
  while (hi - lo > 1) {
    const m = (lo + hi) >>> 1;
    if (rel(m) >= target) hi = m;
    else lo = m;
  }
  return hi;
}

/**
 * Cuts a chunk (sorted times) into runs of one bucket [origin + k * stride, origin + (k + 1) *
 * stride) each, in numbers relative to the first row (no BigInt per run); undefined when the
 * chunk's span or the stride is too large for exact doubles (the caller bisects with BigInts).
 */
export function bucketRuns(
  time: BigInt64Array,
  n: number,
  originUnits: bigint,
  strideUnits: bigint,
  scratch: RunScratch,
): BucketRuns | undefined {
  const t0 = time[0]!;
  const spanUnits = time[n - 1]! - t0;
  if (spanUnits + 2n * strideUnits >= EXACT) return undefined;
  const d = t0 - originUnits;
  let first = d / strideUnits;
  if (d < 0n && first * strideUnits !== d) first -= 1n;
  const start0 = Number(originUnits + first * strideUnits - t0); // in (-stride, 0]
  const stride = Number(strideUnits);
  const w = new Int32Array(time.buffer, time.byteOffset, n * 2);
  const hi0 = w[1]!;
  const lo0 = w[0]! >>> 0;
  const rel = (i: number): number => (w[2 * i + 1]! - hi0) * TWO32 + ((w[2 * i]! >>> 0) - lo0);
  const span = Number(spanUnits);
  scratch.reserve(n);
  const { bounds, offsets } = scratch;
  let runs = 0;
  let s = 0;
  while (s < n) {
    const rs = rel(s);
    let j = Math.floor((rs - start0) / stride);
    // A quotient may round up across an integer; the products below are exact.
    while (start0 + j * stride > rs) j--;
    while (start0 + (j + 1) * stride <= rs) j++;
    const end = start0 + (j + 1) * stride;
    let e = n;
    if (end <= span) {
      const guess = s + 1 + Math.min(n - 2 - s, Math.max(0, Math.ceil(((end - rs) * (n - 1 - s)) / (span - rs)) - 1));
      e = seek(rel, s + 1, n - 1, end, guess);
    }
    bounds[runs] = s;
    offsets[runs] = j;
    runs++;
    s = e;
  }
  bounds[runs] = n;
  return { nruns: runs, bounds, offsets, first };
}
