// The row work of GROUP BY tags, date_bin(stride, time): cut a series chunk's sorted times into
// runs of one bucket (k_bucket_runs), fold each run's values into its group's accumulator
// (k_fold_groups), and turn the accumulators into result columns (k_finish_groups). The host
// keeps only per-run and per-chunk work: on a fresh server, TypeScript loops over rows run
// interpreted for several queries while V8 compiles and recompiles them (measured: TSBS "mean
// per host per hour", 864k rows, 15-20 ms of its first runs against 1.5 ms optimized), while a
// Wasm loop is compiled when the module loads. Semantics follow host/engine/functions/
// accumulators.ts exactly: doubles are summed per run in row order, then the run sums per
// group in run order; integer sums are exact (two 64-bit halves); NaN is the largest double.

export const FT_I64: u32 = 0;
export const FT_U64: u32 = 1;
export const FT_F64: u32 = 2;
/** Rows of each run, no values (count(*)). */
export const FT_ROWS: u32 = 3;

// Accumulator of `cap` groups: six arrays of cap 8-byte slots, at these multiples of cap * 8.
const A_COUNT = 0; // f64: present values (rows for FT_ROWS)
const A_FSUM = 1; // f64: run sums as doubles (DOUBLE sums; for integers, the exact run sum rounded once)
const A_HI = 2; // i64: sum of the values' high 32-bit words (signed for FT_I64)
const A_LO = 3; // i64: sum of the values' low 32-bit words (unsigned), carried into A_HI: always < 2^32
const A_MIN = 4; // the column's type
const A_MAX = 5;
/** Bytes of an accumulator per group. */
export const ACC_GROUP_BYTES: usize = 48;

/** k_finish_groups outputs. */
export const FIN_COUNT: u32 = 0;
export const FIN_AVG: u32 = 1;
export const FIN_FSUM: u32 = 2;
export const FIN_MIN: u32 = 3;
export const FIN_MAX: u32 = 4;
export const FIN_ISUM: u32 = 5;

const TWO32: f64 = 4294967296.0;

@inline
function slot(acc: usize, cap: usize, array: usize, g: usize): usize {
  return acc + ((array * cap + g) << 3);
}

/** floor(d / s) for s > 0. */
@inline
function floorDiv(d: i64, s: i64): i64 {
  const q = d / s;
  return d < 0 && q * s != d ? q - 1 : q;
}

/**
 * Cuts the `n` ascending times at `time` into runs of one bucket [origin + k * stride,
 * origin + (k + 1) * stride): writes nruns + 1 u32 row bounds at `bounds`, nruns i32 bucket
 * offsets (k minus the first run's k) at `offsets`, and the first run's k (i64) at `first`.
 * Returns nruns; -1 for stride <= 0 or a time whose distance to the origin leaves 64 bits;
 * -2 when the buckets span more than 2^31 (the host then bisects with BigInts).
 */
export function k_bucket_runs(time: usize, n: usize, origin: i64, stride: i64, bounds: usize, offsets: usize, first: usize): i32 {
  if (stride <= 0) return -1;
  if (n == 0) {
    store<u32>(bounds, 0);
    return 0;
  }
  let k0: i64 = 0;
  let runs: usize = 0;
  let s: usize = 0;
  while (s < n) {
    const t = load<i64>(time + (s << 3));
    const d = t - origin;
    if (((t ^ origin) & (t ^ d)) < 0) return -1;
    const k = floorDiv(d, stride);
    if (s == 0) k0 = k;
    const off = k - k0;
    if (off > 0x7fffffff || off < 0) return -2;
    // The bucket's end; past the largest time when it leaves 64 bits.
    const endD = (k + 1) * stride;
    let e: usize = n;
    if (endD / stride == k + 1 && !(origin > 0 && endD > i64.MAX_VALUE - origin) && !(origin < 0 && endD < i64.MIN_VALUE - origin)) {
      const end = origin + endD;
      // Gallop from s, then bisect: the first index with time >= end, or n.
      let lo = s;
      let step: usize = 1;
      let hi = s + 1;
      while (hi < n && load<i64>(time + (hi << 3)) < end) {
        lo = hi;
        step <<= 1;
        hi = s + step;
      }
      if (hi > n) hi = n;
      while (hi - lo > 1) {
        const m = (lo + hi) >>> 1;
        if (load<i64>(time + (m << 3)) >= end) hi = m;
        else lo = m;
      }
      e = hi;
    }
    store<u32>(bounds + (runs << 2), <u32>s);
    store<i32>(offsets + (runs << 2), <i32>off);
    runs++;
    s = e;
  }
  store<u32>(bounds + (runs << 2), <u32>n);
  store<i64>(first, k0);
  return <i32>runs;
}

/**
 * Folds rows [s, e) of 64-bit integers (T: i64 or u64) into group g; one loop per NULL case.
 * Without `minmax` (no min or max reads the accumulator) only the sums are taken.
 */
@inline
function foldInt<T>(values: usize, valid: usize, s: usize, e: usize, acc: usize, cap: usize, g: usize, minmax: bool): void {
  let count: i32 = 0;
  let hi: i64 = 0;
  let lo: i64 = 0;
  let mn: T = isSigned<T>() ? <T>i64.MAX_VALUE : <T>u64.MAX_VALUE;
  let mx: T = isSigned<T>() ? <T>i64.MIN_VALUE : <T>0;
  if (valid == 0 && !minmax) {
    // Sums only: the low and high words two lanes at a time.
    let lo2 = i64x2.splat(0);
    let hi2 = i64x2.splat(0);
    const mask = i64x2.splat(0xffffffff);
    let i = s;
    for (; i + 2 <= e; i += 2) {
      const v = v128.load(values + (i << 3));
      lo2 = i64x2.add(lo2, v128.and(v, mask));
      hi2 = i64x2.add(hi2, isSigned<T>() ? i64x2.shr_s(v, 32) : i64x2.shr_u(v, 32));
    }
    lo = i64x2.extract_lane(lo2, 0) + i64x2.extract_lane(lo2, 1);
    hi = i64x2.extract_lane(hi2, 0) + i64x2.extract_lane(hi2, 1);
    if (i < e) {
      const v = load<T>(values + (i << 3));
      lo += <i64>v & 0xffffffff;
      hi += <i64>(v >> 32);
    }
    count = <i32>(e - s);
  } else if (valid == 0) {
    for (let i = s; i < e; i++) {
      const v = load<T>(values + (i << 3));
      lo += <i64>v & 0xffffffff;
      hi += <i64>(v >> 32); // arithmetic for i64, logical for u64
      mn = select<T>(v, mn, v < mn);
      mx = select<T>(v, mx, v > mx);
    }
    count = <i32>(e - s);
  } else {
    for (let i = s; i < e; i++) {
      if (load<u8>(valid + i) == 0) continue;
      const v = load<T>(values + (i << 3));
      lo += <i64>v & 0xffffffff;
      hi += <i64>(v >> 32);
      mn = select<T>(v, mn, v < mn);
      mx = select<T>(v, mx, v > mx);
      count++;
    }
  }
  if (count == 0) return;
  const pc = slot(acc, cap, A_COUNT, g);
  const seen = load<f64>(pc) > 0;
  store<f64>(pc, load<f64>(pc) + <f64>count);
  const pf = slot(acc, cap, A_FSUM, g);
  store<f64>(pf, load<f64>(pf) + (<f64>hi * TWO32 + <f64>lo));
  // The low-word sum stays below 2^32 by carrying into the high one (exact for any row count).
  const pl = slot(acc, cap, A_LO, g);
  const nlo = load<i64>(pl) + lo;
  const ph = slot(acc, cap, A_HI, g);
  store<i64>(ph, load<i64>(ph) + hi + (nlo >> 32));
  store<i64>(pl, nlo & 0xffffffff);
  if (!minmax) return;
  const pn = slot(acc, cap, A_MIN, g);
  const px = slot(acc, cap, A_MAX, g);
  if (!seen || mn < load<T>(pn)) store<T>(pn, mn);
  if (!seen || mx > load<T>(px)) store<T>(px, mx);
}

@inline
function foldF64(values: usize, valid: usize, s: usize, e: usize, acc: usize, cap: usize, g: usize): void {
  let count: i32 = 0;
  let sum: f64 = 0;
  let mn: f64 = 0;
  let mx: f64 = 0;
  for (let i = s; i < e; i++) {
    if (valid != 0 && load<u8>(valid + i) == 0) continue;
    const v = load<f64>(values + (i << 3));
    sum += v;
    // NaN is greater than every number; the first of equal values (0 and -0) stays.
    if (count == 0) {
      mn = v;
      mx = v;
    } else {
      if (v < mn || (mn != mn && v == v)) mn = v;
      if (v > mx || (v != v && mx == mx)) mx = v;
    }
    count++;
  }
  if (count == 0) return;
  const pc = slot(acc, cap, A_COUNT, g);
  const seen = load<f64>(pc) > 0;
  store<f64>(pc, load<f64>(pc) + <f64>count);
  const pf = slot(acc, cap, A_FSUM, g);
  store<f64>(pf, load<f64>(pf) + sum);
  const pn = slot(acc, cap, A_MIN, g);
  const px = slot(acc, cap, A_MAX, g);
  const bn = load<f64>(pn);
  const bx = load<f64>(px);
  if (!seen || mn < bn || (bn != bn && mn == mn)) store<f64>(pn, mn);
  if (!seen || mx > bx || (mx != mx && bx == bx)) store<f64>(px, mx);
}

/** `type` flag of k_fold_groups: the min and max slots are not read, so an integer fold may skip them. */
export const FT_NO_MINMAX: u32 = 0x100;

/**
 * Folds runs of a column into the accumulator at `acc` (capacity `cap` groups, zeroed by the
 * host): run r is rows [bounds[r], bounds[r + 1]) of the `n` values at `values` (8 bytes each;
 * `valid`: n bytes, 1 = present, or 0 when all are; FT_ROWS reads neither) and goes to group
 * groups[r] (u32). With FT_NO_MINMAX or'ed into `type` the min and max slots of integer columns
 * may be left as they are. Returns 0; -1 for an unknown type, bounds that go back or pass n, or
 * a group not below cap (nothing is folded then).
 */
export function k_fold_groups(values: usize, valid: usize, n: usize, typeAndFlags: u32, bounds: usize, groups: usize, nruns: usize, acc: usize, cap: usize): i32 {
  const minmax = (typeAndFlags & FT_NO_MINMAX) == 0;
  const type = typeAndFlags & ~FT_NO_MINMAX;
  if (type > FT_ROWS) return -1;
  let prev: usize = 0;
  for (let r: usize = 0; r <= nruns; r++) {
    const b = <usize>load<u32>(bounds + (r << 2));
    if (b < prev || b > n) return -1;
    prev = b;
    if (r < nruns && <usize>load<u32>(groups + (r << 2)) >= cap) return -1;
  }
  for (let r: usize = 0; r < nruns; r++) {
    const s = <usize>load<u32>(bounds + (r << 2));
    const e = <usize>load<u32>(bounds + (r << 2), 4);
    const g = <usize>load<u32>(groups + (r << 2));
    if (type == FT_ROWS) {
      const pc = slot(acc, cap, A_COUNT, g);
      store<f64>(pc, load<f64>(pc) + <f64>(e - s));
    } else if (type == FT_F64) foldF64(values, valid, s, e, acc, cap, g);
    else if (type == FT_U64) foldInt<u64>(values, valid, s, e, acc, cap, g, minmax);
    else foldInt<i64>(values, valid, s, e, acc, cap, g, minmax);
  }
  return 0;
}

/**
 * Writes one result column of the first `ngroups` groups of the accumulator at `acc`: FIN_COUNT
 * (i64), FIN_AVG and FIN_FSUM (f64), FIN_MIN / FIN_MAX (the column's 8 bytes), FIN_ISUM (the
 * integer sum modulo 2^64: the same bytes whether the host reads them as i64 or as u64), 8
 * bytes per group at `out`, and at `validity` one byte per group: 1 when the group has a value
 * (always for FIN_COUNT). Slots of groups without a value are 0. Returns 0, or -2 for an unknown
 * output.
 */
export function k_finish_groups(acc: usize, cap: usize, ngroups: usize, what: u32, out: usize, validity: usize): i32 {
  if (what > FIN_ISUM || ngroups > cap) return -2;
  for (let g: usize = 0; g < ngroups; g++) {
    const count = load<f64>(slot(acc, cap, A_COUNT, g));
    const o = out + (g << 3);
    const has = count > 0;
    store<u8>(validity + g, has || what == FIN_COUNT ? 1 : 0);
    if (what == FIN_COUNT) {
      store<i64>(o, <i64>count);
      continue;
    }
    if (!has) {
      store<i64>(o, 0);
      continue;
    }
    switch (what) {
      case FIN_AVG:
        store<f64>(o, load<f64>(slot(acc, cap, A_FSUM, g)) / count);
        break;
      case FIN_FSUM:
        store<f64>(o, load<f64>(slot(acc, cap, A_FSUM, g)));
        break;
      case FIN_MIN:
        store<i64>(o, load<i64>(slot(acc, cap, A_MIN, g)));
        break;
      case FIN_MAX:
        store<i64>(o, load<i64>(slot(acc, cap, A_MAX, g)));
        break;
      default: {
        // value = hi * 2^32 + lo with 0 <= lo < 2^32, wrapped into 64 bits as DataFusion 27's
        // SUM wraps (the shift drops what does not fit).
        const lo = load<i64>(slot(acc, cap, A_LO, g));
        const h = load<i64>(slot(acc, cap, A_HI, g));
        store<i64>(o, (h << 32) | lo);
      }
    }
  }
  return 0;
}
