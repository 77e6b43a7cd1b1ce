// CnosDB's data-repair algorithms, which follow Apache IoTDB's data-repair library (library-udf,
// drepair; Apache License 2.0): the same interval estimates, start points, dynamic program and
// fill / repair rules, so their answers agree to the last bit on the same input. Each works on one
// series sorted by time; a NaN value is a missing one. Errors carry DataFusion's prefix, as
// CnosDB raises them while the query runs.

import { executionError } from '../errors.js';

export type IntervalMethod = 'median' | 'mode' | 'cluster';
export type StartMode = 'linear' | 'mode';

const fail = (message: string): Error => executionError(`Datafusion: Execution error: ${message}`);

/** Java's long division (truncates towards zero). */
const jdiv = (a: bigint, b: bigint): bigint => a / b;

/** The most frequent key, the first seen winning ties (IoTDB counts in a LinkedHashMap). */
function mostFrequent(keys: readonly bigint[]): bigint {
  const counts = new Map<bigint, number>();
  for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1);
  let best = 0n;
  let bestCount = 0;
  for (const [k, c] of counts) {
    if (c > bestCount) {
      bestCount = c;
      best = k;
    }
  }
  return best;
}

function intervalByMedian(gaps: readonly bigint[]): bigint {
  const s = [...gaps].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const m = s.length;
  return m % 2 === 0 ? jdiv(s[m / 2 - 1]! + s[m / 2]!, 2n) : s[(m - 1) / 2]!;
}

/** k-means (k = 3) over the gaps, means seeded evenly between the smallest and largest gap. */
function intervalByCluster(gaps: readonly bigint[]): bigint {
  const k = 3;
  let lo = gaps[0]!;
  let hi = gaps[0]!;
  for (const g of gaps) {
    if (g < lo) lo = g;
    if (g > hi) hi = g;
  }
  const means = Array.from({ length: k }, (_, i) => lo + jdiv(BigInt(i + 1) * (hi - lo), BigInt(k + 1)));
  const assigned = new Array<number>(gaps.length).fill(-1);
  let largest = 0;
  let changed = true;
  while (changed) {
    changed = false;
    gaps.forEach((g, i) => {
      let best = 0;
      let bestDist: bigint | undefined;
      for (let j = 0; j < k; j++) {
        const d = g > means[j]! ? g - means[j]! : means[j]! - g;
        if (bestDist === undefined || d < bestDist) {
          bestDist = d;
          best = j;
        }
      }
      if (assigned[i] !== best) {
        changed = true;
        assigned[i] = best;
      }
    });
    let largestCount = 0;
    for (let j = 0; j < k; j++) {
      let sum = 0n;
      let count = 0;
      gaps.forEach((g, i) => {
        if (assigned[i] === j) {
          sum += g;
          count++;
        }
      });
      if (count === 0) continue;
      means[j] = jdiv(sum, BigInt(count));
      if (count > largestCount) {
        largest = j;
        largestCount = count;
      }
    }
  }
  return means[largest]!;
}

export interface TimestampRepairOptions {
  readonly method: IntervalMethod;
  /** The standard interval in the series' time unit; estimated by `method` when undefined. */
  readonly interval: bigint | undefined;
  readonly startMode: StartMode;
}

/** Most repaired slots times most input points the dynamic program may hold. */
const MAX_DP_CELLS = 50_000_000;
/** The cost of adding or deleting a point, against a move costing its distance in time units. */
const ADD_COST = 100_000;

/**
 * Moves the timestamps `time` (ascending; CnosDB works in milliseconds) onto an evenly spaced
 * grid at least cost: a point moved costs its distance, one added or deleted costs 100000. The
 * grid's step is the given interval or one estimated from the gaps, its start the mode of the
 * times modulo the step or the least-squares start. Added points have value NaN.
 */
export function timestampRepair(
  time: readonly bigint[],
  values: readonly number[],
  opts: TimestampRepairOptions,
): { time: bigint[]; values: number[] } {
  const m = time.length;
  if (m <= 2) return { time: [...time], values: [...values] };
  const gaps: bigint[] = [];
  for (let i = 0; i + 1 < m; i++) gaps.push(time[i + 1]! - time[i]!);
  const step =
    opts.interval ??
    (opts.method === 'median'
      ? intervalByMedian(gaps)
      : opts.method === 'mode'
        ? mostFrequent(gaps)
        : intervalByCluster(gaps));
  if (step <= 0n) return { time: [...time], values: [...values] };
  let start: bigint;
  if (opts.startMode === 'linear') {
    let sum = 0n;
    for (let i = 0; i < m; i++) sum += time[i]! - step * BigInt(i);
    start = jdiv(sum, BigInt(m));
  } else {
    const rems = time.map((t) => t % step);
    const mode = mostFrequent(rems);
    start = 0n;
    for (let i = 0; i < m; i++) {
      if (rems[i] !== mode) continue;
      start = time[i]!;
      // IoTDB steps back while past the first time (so the start may fall before it).
      while (start > time[0]!) start -= step;
    }
  }
  const slots = Math.ceil(Number(time[m - 1]! - start) / Number(step) + 1);
  if (slots <= 0) return { time: [...time], values: [...values] };
  if ((slots + 1) * (m + 1) > MAX_DP_CELLS)
    throw fail(`timestamp_repair: ${m} points over ${slots} slots of the repaired grid are more than it can align`);
  // f[i][j]: least cost of aligning the first i slots with the first j points (two rows kept);
  // steps: 0 move (or match), 1 add a slot's point, 2 delete a point.
  const width = m + 1;
  const steps = new Uint8Array((slots + 1) * width);
  let prev = new Float64Array(width);
  let cur = new Float64Array(width);
  for (let j = 0; j <= m; j++) {
    prev[j] = ADD_COST * j;
    steps[j] = 2;
  }
  for (let i = 1; i <= slots; i++) {
    cur[0] = ADD_COST * i;
    steps[i * width] = 1;
    const grid = start + BigInt(i - 1) * step;
    for (let j = 1; j <= m; j++) {
      const t = time[j - 1]!;
      if (t === grid) {
        cur[j] = prev[j - 1]!;
        steps[i * width + j] = 0;
        continue;
      }
      let best: number;
      let op: number;
      if (prev[j]! < cur[j - 1]!) {
        best = prev[j]! + ADD_COST;
        op = 1;
      } else {
        best = cur[j - 1]! + ADD_COST;
        op = 2;
      }
      const move = prev[j - 1]! + Number(t > grid ? t - grid : grid - t);
      if (move < best) {
        best = move;
        op = 0;
      }
      cur[j] = best;
      steps[i * width + j] = op;
    }
    [prev, cur] = [cur, prev];
  }
  // Slots the trace back does not reach (added before the first point) stay added points.
  const outTime = Array.from({ length: slots }, (_, i) => start + BigInt(i) * step);
  const outValues = new Array<number>(slots).fill(NaN);
  let i = slots;
  let j = m;
  while (i >= 1 && j >= 1) {
    const op = steps[i * width + j]!;
    if (op === 0) {
      outValues[i - 1] = values[j - 1]!;
      i--;
      j--;
    } else if (op === 1) i--;
    else j--;
  }
  return { time: outTime, values: outValues };
}

export type FillMethod = 'linear' | 'previous' | 'mean' | 'ar' | 'ma';

function meanOf(values: readonly number[]): number {
  let sum = 0;
  let n = 0;
  for (const v of values) {
    if (Number.isNaN(v)) continue;
    sum += v;
    n++;
  }
  if (n === 0) throw fail('All values are NaN');
  return sum / n;
}

/** Fills the NaNs of `values` (by position; only `previous`... none of the methods read times). */
export function valueFill(values: readonly number[], method: FillMethod): number[] {
  const n = values.length;
  const out = new Array<number>(n).fill(0);
  switch (method) {
    case 'previous': {
      // A NaN before the first value stays NaN.
      let last = NaN;
      for (let i = 0; i < n; i++) {
        if (!Number.isNaN(values[i]!)) last = values[i]!;
        out[i] = Number.isNaN(values[i]!) ? last : values[i]!;
      }
      return out;
    }
    case 'mean': {
      const mean = meanOf(values);
      return values.map((v) => (Number.isNaN(v) ? mean : v));
    }
    case 'linear': {
      // Between two values by position; before the first value its value (IoTDB starts the
      // slope only once the previous value sits past index 0), after the last the last.
      let prevAt = -1;
      for (let i = 0; i < n; i++) {
        if (Number.isNaN(values[i]!)) continue;
        const k = prevAt > 0 ? (values[i]! - values[prevAt]!) / (i - prevAt) : 0;
        for (let t = prevAt + 1; t < i; t++) out[t] = values[i]! + k * (t - i);
        out[i] = values[i]!;
        prevAt = i;
      }
      if (prevAt >= 0) for (let t = prevAt; t < n; t++) out[t] = values[prevAt]!;
      else out.fill(NaN);
      return out;
    }
    case 'ar': {
      // An AR(1) model x_t = theta x_{t-1} + e fitted over neighbouring pairs (NaN read as 0 in
      // theta, pairs with a NaN skipped in the mean residual); a leading NaN takes the mean.
      const mean = values.some((v) => !Number.isNaN(v)) ? meanOf(values) : 0;
      let acf = 0;
      let factor = 0;
      for (let i = 0; i + 1 < n; i++) {
        const l = Number.isNaN(values[i]!) ? 0 : values[i]!;
        const r = Number.isNaN(values[i + 1]!) ? 0 : values[i + 1]!;
        acf += l * r;
        factor += l * l;
      }
      const cannot = (): Error => fail('Cannot fit AR(1) model. Please try another method.');
      if (factor === 0) throw cannot();
      const theta = acf / factor;
      if (!Number.isFinite(theta) || theta >= 1) throw cannot();
      let eps = 0;
      let count = 0;
      for (let i = 0; i + 1 < n; i++) {
        if (Number.isNaN(values[i]!) || Number.isNaN(values[i + 1]!)) continue;
        count++;
        eps += values[i + 1]! - values[i]! * theta;
      }
      if (count === 0) throw cannot();
      eps /= count;
      for (let i = 0; i < n; i++) {
        if (!Number.isNaN(values[i]!)) out[i] = values[i]!;
        else out[i] = i === 0 ? mean : theta * out[i - 1]! + eps;
      }
      return out;
    }
    case 'ma': {
      // IoTDB's moving average: the window of 5 starts with the first 4 values and then only
      // grows (values enter on the right, none leave), from the third row to the third last.
      const size = 5;
      const half = (size - 1) / 2;
      let sum = 0;
      let count = 0;
      let r = size - 1;
      for (let i = 0; i < r && i < n; i++) {
        if (Number.isNaN(values[i]!)) continue;
        sum += values[i]!;
        count++;
      }
      for (let i = 0; i < n; i++) {
        out[i] = Number.isNaN(values[i]!) ? sum / count : values[i]!;
        if (i <= half || i >= n - half - 1) continue;
        if (!Number.isNaN(values[r]!)) {
          sum += values[r]!;
          count++;
        }
        r++;
      }
      return out;
    }
  }
}

/** Apache Commons Math's median (the mean of the middle two of an even count). */
function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 0 ? s[mid - 1]! + (s[mid]! - s[mid - 1]!) / 2 : s[mid]!;
}

function mad(xs: readonly number[]): number {
  const m = median(xs);
  return 1.4826 * median(xs.map((x) => Math.abs(x - m)));
}

function speeds(values: readonly number[], time: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i + 1 < values.length; i++) out.push((values[i + 1]! - values[i]!) / (time[i + 1]! - time[i]!));
  return out;
}

function diffs(xs: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i + 1 < xs.length; i++) out.push(xs[i + 1]! - xs[i]!);
  return out;
}

/** NaNs replaced by the line through their nearest values by time (extended at the ends). */
function interpolateMissing(time: readonly number[], values: readonly number[]): number[] {
  const v = [...values];
  const n = v.length;
  let a = 0;
  while (a < n && Number.isNaN(v[a]!)) a++;
  let b = a + 1;
  while (b < n && Number.isNaN(v[b]!)) b++;
  if (b >= n) throw fail('At least two non-NaN values are needed');
  const at = (i: number): number => v[a]! + ((v[b]! - v[a]!) * (time[i]! - time[a]!)) / (time[b]! - time[a]!);
  for (let i = 0; i < b; i++) v[i] = at(i);
  for (let i = b + 1; i < n; i++) {
    if (Number.isNaN(v[i]!)) continue;
    a = b;
    b = i;
    for (let j = a + 1; j < b; j++) v[j] = at(j);
  }
  for (let i = b + 1; i < n; i++) v[i] = at(i);
  return v;
}

export interface ValueRepairOptions {
  readonly method: 'screen' | 'lsgreedy';
  readonly minSpeed: number | undefined;
  readonly maxSpeed: number | undefined;
  readonly center: number;
  readonly sigma: number | undefined;
}

/** SCREEN: each value is clamped into the speed band reachable from its repaired predecessor. */
function screen(time: readonly number[], v: number[], opts: ValueRepairOptions): number[] {
  const sp = speeds(v, time);
  const mid = median(sp);
  const sigma = mad(sp);
  const smax = opts.maxSpeed ?? mid + 3 * sigma;
  const smin = opts.minSpeed ?? mid - 3 * sigma;
  const w = 5 * median(diffs(time));
  const n = v.length;
  const local = (index: number): void => {
    let m = 0;
    while (index + m + 1 < n && time[index + m + 1]! <= time[index]! + w) m++;
    const x = new Array<number>(2 * m + 1);
    x[0] = v[index]!;
    for (let i = 1; i <= m; i++) {
      x[i] = v[index + i]! + smin * (time[index]! - time[index + i]!);
      x[i + m] = v[index + i]! + smax * (time[index]! - time[index + i]!);
    }
    x.sort((a, b) => a - b);
    const candidate = x[m]!;
    if (index === 0) {
      v[index] = candidate;
      return;
    }
    const lo = v[index - 1]! + smin * (time[index]! - time[index - 1]!);
    const hi = v[index - 1]! + smax * (time[index]! - time[index - 1]!);
    v[index] = Math.max(lo, Math.min(hi, candidate));
  };
  let start = 0;
  for (let i = 1; i < n; i++) {
    while (time[start]! + w < time[i]!) local(start++);
  }
  while (start < n) local(start++);
  return v;
}

/** LsGreedy: the largest speed change beyond 3 sigma is eased first, then its neighbours again. */
function lsGreedy(time: readonly number[], v: number[], opts: ValueRepairOptions): number[] {
  const EPS = 1e-12;
  const center = opts.center;
  const sigma = opts.sigma ?? mad(diffs(speeds(v, time)));
  const n = v.length;
  const change = (i: number): number =>
    (v[i + 1]! - v[i]!) / (time[i + 1]! - time[i]!) - (v[i]! - v[i - 1]!) / (time[i]! - time[i - 1]!);
  // u[i]: the speed change at i when it is out of band (a candidate), else undefined.
  const u = new Array<number | undefined>(n);
  const refresh = (i: number): void => {
    const c = change(i);
    u[i] = Math.abs(c - center) > 3 * sigma ? c : undefined;
  };
  for (let i = 1; i < n - 1; i++) refresh(i);
  for (;;) {
    let top = -1;
    for (let i = 1; i < n - 1; i++)
      if (u[i] !== undefined && (top < 0 || Math.abs(u[i]! - center) > Math.abs(u[top]! - center))) top = i;
    if (top < 0 || Math.abs(u[top]! - center) < Math.max(EPS, 3 * sigma)) break;
    const c = u[top]!;
    let step = sigma < EPS ? Math.abs(c - center) : Math.max(sigma, Math.abs(c - center) / 3);
    step *= ((time[top + 1]! - time[top]!) * (time[top]! - time[top - 1]!)) / (time[top + 1]! - time[top - 1]!);
    v[top] = c > center ? v[top]! + step : v[top]! - step;
    for (let i = Math.max(1, top - 1); i <= Math.min(n - 2, top + 1); i++) refresh(i);
  }
  return v;
}

/** Repairs outlying values (and interpolates missing ones) of a series; `time` in any one unit. */
export function valueRepair(time: readonly number[], values: readonly number[], opts: ValueRepairOptions): number[] {
  const v = interpolateMissing(time, values);
  return opts.method === 'screen' ? screen(time, v, opts) : lsGreedy(time, v, opts);
}
