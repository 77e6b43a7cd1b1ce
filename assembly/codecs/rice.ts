// Rice codes (Golomb codes with a power-of-two divisor 2^k) of a u64 stream, in three planes:
//   unary plane: per value, q = min(v >> k, CAP) zero bits then a one bit (LSB first);
//   low plane:   per value, the k low bits of v, fixed width (LSB first);
//   escapes:     per value with q == CAP, varint((v >> k) - CAP), in order.
// Splitting the planes lets the decoder find every code with ctz over whole words of the unary
// plane (its one bits are the code ends), a short dependency chain per value, and unpack the
// low bits independently. For TSBS-like integer fields (zigzag deltas mostly 0..4) k = 0 gives
// about 2.2 bits per value against Simple-8b's 3.2 (bench/codecs.ts); the cap keeps one outlier
// from costing thousands of bits.
import { ERR_COUNT, ERR_PADDING, ERR_TRAILING, ERR_VALUE, fail } from './errors';
import { rdErr, rdFailAt, rdInit, rdPos, rdTake, rdU8, rdVarint, rdVarintMax } from './reader';
import { scratchMark, scratchRelease, scratchTake } from './scratch';
import { varintSize, writeVarint } from './varint';

/** Quotients from CAP up are escaped. */
const CAP: u64 = 32;
/** Largest k: a k-bit field at any bit offset fits one unaligned u64 load (7 + 56 bits). */
export const RICE_MAX_K: u32 = 56;

// Filled by riceCost for the k it was asked about, used by encodeRice.
let unaryBits: u64 = 0;
let escapes: u32 = 0;
let escapeBytes: u64 = 0;

/** Exact byte size of the Rice form of `cnt` values at `src` with parameter k. */
export function riceCost(src: usize, cnt: u32, k: u32): u64 {
  let bits: u64 = 0;
  let esc: u32 = 0;
  let escB: u64 = 0;
  const kk = <u64>k;
  for (let i: u32 = 0; i < cnt; i++) {
    const q = load<u64>(src + (<usize>i << 3)) >> kk;
    if (q < CAP) {
      bits += q + 1;
    } else {
      bits += CAP + 1;
      esc++;
      escB += varintSize(q - CAP);
    }
  }
  unaryBits = bits;
  escapes = esc;
  escapeBytes = escB;
  const unaryBytes = (bits + 7) >> 3;
  return 1 + <u64>varintSize(esc) + <u64>varintSize(unaryBytes) + unaryBytes + ((<u64>cnt * kk + 7) >> 3) + escB;
}

/**
 * The k with the smallest Rice form of the values, estimated from a histogram of their bit
 * lengths and confirmed exactly for the best estimate and its neighbours. Sets `bestRiceSize`.
 */
export let bestRiceSize: u64 = 0;
export function chooseRiceK(src: usize, cnt: u32): u32 {
  const mark = scratchMark();
  const hist = scratchTake(65 << 2);
  memory.fill(hist, 0, 65 << 2);
  for (let i: u32 = 0; i < cnt; i++) {
    const b: usize = 64 - <usize>clz<u64>(load<u64>(src + (<usize>i << 3)));
    store<u32>(hist + (b << 2), load<u32>(hist + (b << 2)) + 1);
  }
  // Estimated bits for each k: a value of bit length b > k has q of about 1.5 * 2^(b-1-k).
  let bestK: u32 = 0;
  let bestBits: f64 = Infinity;
  for (let k: u32 = 0; k <= RICE_MAX_K; k++) {
    let bits: f64 = 0;
    for (let b: u32 = 0; b <= 64; b++) {
      const h = <f64>load<u32>(hist + (<usize>b << 2));
      if (h == 0) continue;
      let q: f64 = 0;
      if (b > k + 1) q = 1.5 * Math.pow(2, <f64>(b - 1 - k));
      else if (b == k + 1) q = 1;
      const unary = q < <f64>CAP ? q + 1 : <f64>CAP + 1 + 8 * Math.ceil((<f64>(b - k) - 5) / 7 + 0.01);
      bits += h * (<f64>k + unary);
    }
    if (bits < bestBits) {
      bestBits = bits;
      bestK = k;
    }
  }
  scratchRelease(mark);
  let k = bestK;
  let size = riceCost(src, cnt, k);
  if (bestK > 0) {
    const s = riceCost(src, cnt, bestK - 1);
    if (s < size) {
      size = s;
      k = bestK - 1;
    }
  }
  if (bestK < RICE_MAX_K) {
    const s = riceCost(src, cnt, bestK + 1);
    if (s < size) {
      size = s;
      k = bestK + 1;
    }
  }
  bestRiceSize = size;
  return k;
}

/**
 * Writes the Rice form of `cnt` values with parameter k at dst (room for riceCost(k) bytes plus
 * 8, as the bit planes are written with 8-byte read-modify-write); returns the end.
 */
export function encodeRice(src: usize, cnt: u32, k: u32, dst: usize): usize {
  riceCost(src, cnt, k);
  const kk = <u64>k;
  const unaryBytes = <usize>((unaryBits + 7) >> 3);
  const lowBytes = <usize>((<u64>cnt * kk + 7) >> 3);
  store<u8>(dst, <u8>k);
  let p = writeVarint(dst + 1, escapes);
  p = writeVarint(p, unaryBytes);
  const unary = p;
  const low = unary + unaryBytes;
  let e = low + lowBytes;
  memory.fill(unary, 0, unaryBytes + lowBytes + 8);
  let bit: u64 = 0;
  let lowBit: u64 = 0;
  const mask: u64 = k == 0 ? 0 : (<u64>-1) >> (64 - kk);
  for (let i: u32 = 0; i < cnt; i++) {
    const v = load<u64>(src + (<usize>i << 3));
    let q = v >> kk;
    if (q >= CAP) {
      e = writeVarint(e, q - CAP);
      q = CAP;
    }
    bit += q;
    const a = unary + <usize>(bit >> 3);
    store<u8>(a, load<u8>(a) | <u8>(<u32>1 << <u32>(bit & 7)));
    bit++;
    if (k != 0) {
      const b = low + <usize>(lowBit >> 3);
      store<u64>(b, load<u64>(b) | ((v & mask) << (lowBit & 7)));
      lowBit += kk;
    }
  }
  return e;
}

/**
 * Decodes exactly `cnt` values from [p, end) to dst. Returns 0 or an error code. Uses scratch
 * for zero-padded copies of the bit planes, so that no load leaves the block.
 */
export function decodeRice(p: usize, end: usize, cnt: u32, dst: usize): i32 {
  rdInit(p, end - p);
  const kAt = p;
  const k = rdU8();
  const esc = rdVarintMax(cnt);
  const unaryBytes = rdVarintMax(<u32>((<u64>cnt * (CAP + 1) + 7) >> 3));
  const unaryAt = rdTake(unaryBytes);
  if (rdErr() != 0) return rdErr();
  if (k > RICE_MAX_K) return fail(ERR_VALUE, kAt);
  const kk = <u64>k;
  const lowBytes = <usize>((<u64>cnt * kk + 7) >> 3);
  const lowAt = rdTake(lowBytes);
  if (rdErr() != 0) return rdErr();

  const mark = scratchMark();
  const words = (unaryBytes + 7) >> 3;
  const u = scratchTake((words << 3) + 8);
  if (words > 0) store<u64>(u + ((<usize>words - 1) << 3), 0);
  memory.copy(u, unaryAt, unaryBytes);

  // Unary plane: each one bit ends a code; q = zero bits since the previous code.
  let count: u32 = 0;
  let next: u32 = 0;
  let over: u32 = 0;
  for (let wi: usize = 0; wi < words; wi++) {
    let w = load<u64>(u + (wi << 3));
    if (count + <u32>popcnt<u64>(w) > cnt) {
      scratchRelease(mark);
      return fail(ERR_COUNT, unaryAt + (wi << 3));
    }
    const base = <u32>(wi << 6);
    while (w != 0) {
      const pos = base + <u32>ctz<u64>(w);
      const q = pos - next;
      over |= <u32>(q > <u32>CAP);
      store<u64>(dst + (<usize>count << 3), <u64>q);
      count++;
      next = pos + 1;
      w &= w - 1;
    }
  }
  scratchRelease(mark);
  if (over != 0) return fail(ERR_VALUE, unaryAt);
  if (count != cnt) return fail(ERR_COUNT, unaryAt + unaryBytes);
  if (<usize>((next + 7) >> 3) != unaryBytes) return fail(ERR_PADDING, unaryAt);

  if (k == 0 && esc == 0) {
    if (rdPos() != end) return fail(ERR_TRAILING, rdPos());
    return 0;
  }
  // Low plane and escapes.
  const l = scratchTake(lowBytes + 8);
  memory.copy(l, lowAt, lowBytes);
  store<u64>(l + lowBytes, 0);
  const mask: u64 = k == 0 ? 0 : (<u64>-1) >> (64 - kk);
  let bit: u64 = 0;
  let seen: u32 = 0;
  for (let i: u32 = 0; i < cnt; i++) {
    const at = dst + (<usize>i << 3);
    let hi = load<u64>(at);
    if (hi == CAP) {
      const vAt = rdPos();
      const extra = rdVarint();
      if (rdErr() != 0) {
        scratchRelease(mark);
        return rdErr();
      }
      hi = CAP + extra;
      if (hi < CAP || (k != 0 && (hi >> (64 - kk)) != 0)) {
        scratchRelease(mark);
        return rdFailAt(ERR_VALUE, vAt);
      }
      seen++;
    }
    if (k != 0) {
      const low = (load<u64>(l + <usize>(bit >> 3)) >> (bit & 7)) & mask;
      bit += kk;
      store<u64>(at, (hi << kk) | low);
    } else {
      store<u64>(at, hi);
    }
  }
  scratchRelease(mark);
  if (seen != esc) return fail(ERR_COUNT, rdPos());
  if (k != 0 && (bit & 7) != 0 && (<u32>load<u8>(lowAt + lowBytes - 1) >> <u32>(bit & 7)) != 0) {
    return fail(ERR_PADDING, lowAt + lowBytes - 1);
  }
  if (rdPos() != end) return fail(ERR_TRAILING, rdPos());
  return 0;
}
