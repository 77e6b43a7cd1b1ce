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
import { undoZigzagInPlace, unzigzag } from './zigzag';

/** Quotients from CAP up are escaped. */
const CAP: u64 = 32;
/** Largest k: a k-bit field at any bit offset fits one unaligned u64 load (7 + 56 bits). */
export const RICE_MAX_K: u32 = 56;

// Filled by riceCost for the k it was asked about, used by encodeRice.
let unaryBits: u64 = 0;
let escapes: u32 = 0;

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
  return riceTotal(cnt, k, bits, esc, escB);
}

/** Bits per unary code at estimated quotient q, escapes included (see riceCost). */
@inline function unaryEstimate(q: f64, extraBits: u32): f64 {
  return q < <f64>CAP ? q + 1 : <f64>CAP + 1 + 8 * <f64>((extraBits + 6) / 7);
}

/**
 * The k with the smallest Rice form of the values, estimated from a histogram of their bit
 * lengths (a value of bit length b > k has a quotient of about 1.5 * 2^(b-1-k)) and confirmed
 * exactly for the estimate and its neighbours in one pass. Sets `bestRiceSize`.
 */
export let bestRiceSize: u64 = 0;
export function chooseRiceK(src: usize, cnt: u32): u32 {
  const mark = scratchMark();
  const hist = scratchTake(65 << 2);
  memory.fill(hist, 0, 65 << 2);
  let or: u64 = 0;
  for (let i: u32 = 0; i < cnt; i++) {
    const v = load<u64>(src + (<usize>i << 3));
    or |= v;
    const b: usize = 64 - <usize>clz<u64>(v);
    store<u32>(hist + (b << 2), load<u32>(hist + (b << 2)) + 1);
  }
  const top: u32 = 64 - <u32>clz<u64>(or);
  const kMax = top < RICE_MAX_K ? top : RICE_MAX_K;
  let bestK: u32 = 0;
  let bestBits: f64 = Infinity;
  for (let k: u32 = 0; k <= kMax; k++) {
    let bits: f64 = 0;
    for (let b: u32 = 0; b <= top; b++) {
      const h = <f64>load<u32>(hist + (<usize>b << 2));
      if (h == 0) continue;
      let q: f64 = 0;
      if (b > k + 1) q = 1.5 * <f64>(<u64>1 << <u64>(b - 1 - k));
      else if (b == k + 1) q = 1;
      bits += h * (<f64>k + unaryEstimate(q, b > k ? b - k : 0));
    }
    if (bits < bestBits) {
      bestBits = bits;
      bestK = k;
    }
  }
  scratchRelease(mark);
  // Exact sizes of k - 1, k, k + 1 in one pass.
  const k0: u32 = bestK > 0 ? bestK - 1 : 0;
  const k2: u32 = bestK < RICE_MAX_K ? bestK + 1 : bestK;
  const kk0 = <u64>k0;
  const kk1 = <u64>bestK;
  const kk2 = <u64>k2;
  let b0: u64 = 0, b1: u64 = 0, b2: u64 = 0;
  let e0: u64 = 0, e1: u64 = 0, e2: u64 = 0;
  let n0: u32 = 0, n1: u32 = 0, n2: u32 = 0;
  for (let i: u32 = 0; i < cnt; i++) {
    const v = load<u64>(src + (<usize>i << 3));
    const q0 = v >> kk0;
    const q1 = v >> kk1;
    const q2 = v >> kk2;
    b0 += (q0 < CAP ? q0 : CAP) + 1;
    b1 += (q1 < CAP ? q1 : CAP) + 1;
    b2 += (q2 < CAP ? q2 : CAP) + 1;
    if (q0 >= CAP) {
      n0++;
      e0 += varintSize(q0 - CAP);
      if (q1 >= CAP) {
        n1++;
        e1 += varintSize(q1 - CAP);
        if (q2 >= CAP) {
          n2++;
          e2 += varintSize(q2 - CAP);
        }
      }
    }
  }
  const s0 = riceTotal(cnt, k0, b0, n0, e0);
  const s1 = riceTotal(cnt, bestK, b1, n1, e1);
  const s2 = riceTotal(cnt, k2, b2, n2, e2);
  // Ties go to the smaller k: fewer low bits to unpack.
  let k = bestK;
  let size = s1;
  if (s0 <= size) {
    size = s0;
    k = k0;
  }
  if (s2 < size) {
    size = s2;
    k = k2;
  }
  bestRiceSize = size;
  return k;
}

@inline function riceTotal(cnt: u32, k: u32, bits: u64, esc: u32, escB: u64): u64 {
  const unaryBytes = (bits + 7) >> 3;
  return 1 + <u64>varintSize(esc) + <u64>varintSize(unaryBytes) + unaryBytes + ((<u64>cnt * <u64>k + 7) >> 3) + escB;
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
 * Decodes exactly `cnt` zigzag values from [p, end) to dst and turns them into integers as
 * undoZigzagInPlace(dst, cnt, v, d, order) does. Returns 0 or an error code. Uses scratch for
 * zero-padded copies of the bit planes, so that no load leaves the block.
 */
export function decodeRice(p: usize, end: usize, cnt: u32, dst: usize, order: i32, v: i64, d: i64): i32 {
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

  // Unary plane: each one bit ends a code; q = zero bits since the previous code. Without
  // escapes (the common case), low bits, zigzag and prefix sums are done in the same loop,
  // specialised for k = 0 (small deltas) and k > 0; with escapes, the quotients are stored and
  // finished below.
  const fused = esc == 0;
  const mask: u64 = k == 0 ? 0 : (<u64>-1) >> (64 - kk);
  let l: usize = 0;
  if (fused && k != 0) {
    l = scratchTake(lowBytes + 8);
    memory.copy(l, lowAt, lowBytes);
    store<u64>(l + lowBytes, 0);
  }
  let rc: i32;
  if (!fused) rc = unary(u, words, cnt, dst, 0, false, 0, 0, 0, 0, 0, unaryAt, unaryBytes);
  else if (k == 0 && order == 1) rc = unary(u, words, cnt, dst, 1, false, 0, 0, 0, v, d, unaryAt, unaryBytes);
  else if (k == 0) rc = unary(u, words, cnt, dst, 2, false, 0, 0, 0, v, d, unaryAt, unaryBytes);
  else if (order == 1) rc = unary(u, words, cnt, dst, 1, true, l, kk, mask, v, d, unaryAt, unaryBytes);
  else rc = unary(u, words, cnt, dst, 2, true, l, kk, mask, v, d, unaryAt, unaryBytes);
  scratchRelease(mark);
  if (rc != 0) return rc;
  if (<usize>((unaryNext + 7) >> 3) != unaryBytes) return fail(ERR_PADDING, unaryAt);
  const lastBits = (<u64>cnt * kk) & 7;
  if (lastBits != 0 && (<u32>load<u8>(lowAt + lowBytes - 1) >> <u32>lastBits) != 0) {
    return fail(ERR_PADDING, lowAt + lowBytes - 1);
  }
  if (fused) {
    if (rdPos() != end) return fail(ERR_TRAILING, rdPos());
    return 0;
  }
  // Escapes: the low plane and the escaped high parts.
  l = scratchTake(lowBytes + 8);
  memory.copy(l, lowAt, lowBytes);
  store<u64>(l + lowBytes, 0);
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
  if (rdPos() != end) return fail(ERR_TRAILING, rdPos());
  if (order == 1) undoZigzagInPlace(dst, cnt, v, d, 1);
  else undoZigzagInPlace(dst, cnt, v, d, 2);
  return 0;
}

/** Bit position after the last code of the last `unary` call. */
let unaryNext: u32 = 0;

/**
 * Walks the one bits of the unary plane (`words` zero-padded u64 at u) and stores per code its
 * quotient (order 0), or the integer after adding the k low bits from l (when `low`), zigzag
 * and one (order 1, each delta plus the base d) or two (order 2) prefix sums from v and d.
 * `order` and `low` are constants at every call, so each loop is specialised.
 */
@inline function unary(
  u: usize, words: usize, cnt: u32, dst: usize, order: i32, low: bool, l: usize, kk: u64, mask: u64,
  v: i64, d: i64, at: usize, bytes: usize,
): i32 {
  let count: u32 = 0;
  let next: u32 = 0;
  let over: u32 = 0;
  let lowBit: u64 = 0;
  for (let wi: usize = 0; wi < words; wi++) {
    let w = load<u64>(u + (wi << 3));
    if (count + <u32>popcnt<u64>(w) > cnt) return fail(ERR_COUNT, at + (wi << 3));
    const base = <u32>(wi << 6);
    while (w != 0) {
      const pos = base + <u32>ctz<u64>(w);
      const q = pos - next;
      if (order == 0) {
        over |= <u32>(q > <u32>CAP);
        store<u64>(dst + (<usize>count << 3), <u64>q);
      } else {
        // No escapes here: a quotient of CAP would need one.
        over |= <u32>(q >= <u32>CAP);
        let zz = <u64>q;
        if (low) {
          zz = (zz << kk) | ((load<u64>(l + <usize>(lowBit >> 3)) >> (lowBit & 7)) & mask);
          lowBit += kk;
        }
        const z = unzigzag(zz);
        if (order == 1) {
          v += z + d;
        } else {
          d += z;
          v += d;
        }
        store<i64>(dst + (<usize>count << 3), v);
      }
      count++;
      next = pos + 1;
      w &= w - 1;
    }
  }
  unaryNext = next;
  if (over != 0) return fail(ERR_VALUE, at);
  if (count != cnt) return fail(ERR_COUNT, at + bytes);
  return 0;
}
