// Doubles that are short decimals (58.27, 0.5, 1200) stored as scaled integers, after
// VictoriaMetrics' decimal conversion and ALP (Afroozeh et al., SIGMOD 2024): with one exponent
// e per block, value i becomes the integer n_i with f64(n_i) / 10^e == value_i bit for bit.
// Division by an exact power of ten (10^e, e <= 18, exact in binary64) is correctly rounded, so
// it reproduces exactly the double that parsing the decimal text gave. The integers then go
// through the integer codec (deltas + Rice/Simple-8b/RLE). Values that are not such decimals
// (NaN, infinities, -0 since n = 0 gives +0, long fractions, |n| > 2^53) are exceptions stored
// as raw bits; their slot repeats the previous integer so that it costs a zero delta.
//   DECIMAL: id u8 | e u8 | exceptions varint | intLength varint | integer block (m values)
//            | exceptions x (position gap varint, bits u64)
import { decodeInts, encodeInts, intBound, intScratch } from './integer';
import { ERR_TRAILING, ERR_VALUE, fail } from './errors';
import { ENC_DECIMAL, MODE_AUTO } from './ids';
import { rdEnd, rdErr, rdFailAt, rdInit, rdPos, rdRestore, rdTake, rdU64, rdU8, rdVarint, rdVarintMax } from './reader';
import { scratchMark, scratchRelease, scratchTake } from './scratch';
import { varintSize, writeVarint } from './varint';

const MAX_E: u32 = 18;
const POW10: usize = memory.data<f64>([
  1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
]);
const TWO53: f64 = 9007199254740992;

/** The integer n with f64(n) / 10^e == v bit for bit, or NONE. */
const NONE: i64 = i64.MIN_VALUE;

@inline function scaled(v: f64, e: u32): i64 {
  const p = load<f64>(POW10 + (<usize>e << 3));
  const s = nearest(v * p);
  if (!(Math.abs(s) <= TWO53)) return NONE; // also NaN and infinities
  const n = <i64>s;
  return reinterpret<u64>(<f64>n / p) == reinterpret<u64>(v) ? n : NONE;
}

/**
 * Multiplies the integers of the first `count` values by 10^d; one that leaves the exact range
 * becomes an exception repeating its predecessor. Returns how many new exceptions there are.
 */
function rescale(ints: usize, isException: usize, count: u32, d: u32): u32 {
  const factor = <i64>load<f64>(POW10 + (<usize>d << 3));
  const limit = <i64>TWO53 / factor;
  let added: u32 = 0;
  let prev: i64 = 0;
  for (let i: u32 = 0; i < count; i++) {
    const at = ints + (<usize>i << 3);
    let n = load<i64>(at);
    if (load<u8>(isException + i) == 0) {
      if (n > limit || n < -limit) {
        store<u8>(isException + i, 1);
        added++;
        n = prev;
      } else {
        n *= factor;
      }
    } else {
      n = prev;
    }
    store<i64>(at, n);
    prev = n;
  }
  return added;
}

/** Scratch bytes encodeDecimal may take for m values. */
@inline export function decimalScratch(m: u32): usize {
  return (<usize>m << 3) + <usize>m + (<usize>m << 2) + intScratch(m) + intBound(m) + 1024;
}

/**
 * Writes the DECIMAL block of m values at dst (room for 1 + 8m + 32 bytes) if it is smaller
 * than `limit` bytes; returns its end, or 0 when the values are not decimals enough.
 */
export function encodeDecimal(src: usize, m: u32, dst: usize, limit: usize): usize {
  // One pass with the smallest exponent that makes the values so far exact: a value needing a
  // larger one raises it and rescales the integers before it (exactly: n * 10^d is the same
  // decimal); a value no exponent up to MAX_E makes exact is an exception and raises nothing.
  const mark = scratchMark();
  const ints = scratchTake(<usize>m << 3);
  const isException = scratchTake(m);
  const maxExceptions = m >> 3;
  let exceptions: u32 = 0;
  let e: u32 = 0;
  let prev: i64 = 0;
  for (let i: u32 = 0; i < m; i++) {
    const v = load<f64>(src + (<usize>i << 3));
    let n = scaled(v, e);
    let exception = false;
    if (n == NONE) {
      let f = e + 1;
      while (f <= MAX_E && (n = scaled(v, f)) == NONE) f++;
      if (f > MAX_E) {
        exception = true;
        n = prev;
      } else {
        exceptions += rescale(ints, isException, i, f - e);
        e = f;
      }
    }
    store<u8>(isException + i, exception ? 1 : 0);
    if (exception) exceptions++;
    if (exceptions > maxExceptions) {
      scratchRelease(mark);
      return 0;
    }
    store<i64>(ints + (<usize>i << 3), n);
    prev = n;
  }
  const excPos = scratchTake(<usize>(exceptions + 1) << 2);
  let listed: u32 = 0;
  for (let i: u32 = 0; i < m; i++) {
    if (load<u8>(isException + i) != 0) {
      store<u32>(excPos + (<usize>listed << 2), i);
      listed++;
    }
  }
  const block = scratchTake(intBound(m) + 32);
  const intLen = encodeInts(ints, m, MODE_AUTO, block) - block;
  let size: usize = 2 + varintSize(exceptions) + varintSize(intLen) + intLen;
  let last: u32 = 0;
  for (let j: u32 = 0; j < exceptions; j++) {
    const i = load<u32>(excPos + (<usize>j << 2));
    size += varintSize(j == 0 ? i : i - last - 1) + 8;
    last = i;
  }
  if (size >= limit) {
    scratchRelease(mark);
    return 0;
  }
  store<u8>(dst, ENC_DECIMAL);
  store<u8>(dst + 1, <u8>e);
  let p = writeVarint(dst + 2, exceptions);
  p = writeVarint(p, intLen);
  memory.copy(p, block, intLen);
  p += intLen;
  last = 0;
  for (let j: u32 = 0; j < exceptions; j++) {
    const i = load<u32>(excPos + (<usize>j << 2));
    p = writeVarint(p, j == 0 ? i : i - last - 1);
    store<u64>(p, load<u64>(src + (<usize>i << 3)));
    p += 8;
    last = i;
  }
  scratchRelease(mark);
  return p;
}

/** Decodes the DECIMAL block [p, end) of m values to dst. Returns 0 or an error code. */
export function decodeDecimal(p: usize, end: usize, m: u32, dst: usize): i32 {
  rdInit(p + 1, end - p - 1);
  const eAt = rdPos();
  const e = rdU8();
  const exceptions = rdVarintMax(m);
  const intLen = rdVarintMax(<u32>(end - p));
  const intAt = rdTake(intLen);
  if (rdErr() != 0) return rdErr();
  if (e > MAX_E) return fail(ERR_VALUE, eAt);
  const pos = rdPos();
  const rc = decodeInts(intAt, intLen, m, dst);
  if (rc != 0) return rc;
  rdRestore(pos, end);
  const scale = load<f64>(POW10 + (<usize>e << 3));
  const stop = dst + (<usize>m << 3);
  for (let q = dst; q < stop; q += 8) {
    store<f64>(q, <f64>load<i64>(q) / scale);
  }
  let i: u64 = 0;
  for (let j: u32 = 0; j < exceptions; j++) {
    const at = rdPos();
    const gap = rdVarint();
    const bits = rdU64();
    if (rdErr() != 0) return rdErr();
    if (gap >= <u64>m) return rdFailAt(ERR_VALUE, at);
    i = j == 0 ? gap : i + 1 + gap;
    if (i >= <u64>m) return rdFailAt(ERR_VALUE, at);
    store<u64>(dst + (<usize>i << 3), bits);
  }
  if (rdPos() != rdEnd()) return fail(ERR_TRAILING, rdPos());
  return 0;
}
