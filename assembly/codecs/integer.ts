// The integer block codec, for BIGINT, BIGINT UNSIGNED and timestamps (and, nested, the scaled
// values of DECIMAL doubles and the indexes of DICT strings). Common cases first (STYLE.md
// §22): a constant block and a constant-step block (regular timestamps) cost a few bytes
// whatever their length. Otherwise the zigzag deltas (or deltas of deltas) are packed with
// Simple-8b, run-length or Rice, whichever is smallest for the block; all three sizes are
// exact, so the choice is too. Arithmetic wraps modulo 2^64, so u64 columns share the codec
// and i64 min/max neighbours round-trip.
import {
  ENC_CONST, ENC_DELTA_CONST, ENC_DELTA_RICE, ENC_DELTA_RLE, ENC_DELTA_SIMPLE8B, ENC_DOD_RICE,
  ENC_DOD_RLE, ENC_DOD_SIMPLE8B, ENC_PLAIN, MODE_DELTA, MODE_DOD, MODE_PLAIN,
} from './ids';
import { ERR_CODEC, ERR_COUNT, ERR_TRAILING, ERR_TRUNCATED, ERR_VALUE, fail } from './errors';
import { fill64, fillProgression } from './fill';
import { rdErr, rdInit, rdPos, rdVarint } from './reader';
import { bestRiceSize, chooseRiceK, decodeRice, encodeRice } from './rice';
import { decodeRle, encodeRle, rleSize } from './rle';
import { decodePlain64, writePlain64 } from './plain';
import { scratchMark, scratchRelease, scratchTake } from './scratch';
import { decodeSimple8b, encodeSimple8b } from './simple8b';
import { svarintSize, varintSize, writeSvarint, writeVarint } from './varint';
import { undoZigzagInPlace, unzigzag, zigzagDeltas, zigzagDeltasOfDeltas } from './zigzag';

const PACK_SIMPLE8B: u32 = 0;
const PACK_RLE: u32 = 1;
const PACK_RICE: u32 = 2;

/** Largest integer block of m values (PLAIN), for sizing outputs. */
@inline export function intBound(m: u32): usize {
  return 1 + (<usize>m << 3);
}

/** Scratch bytes encodeInts may take for m values (scaled values, two zigzag streams, two Simple-8b outputs). */
@inline export function intScratch(m: u32): usize {
  return (<usize>m << 5) + (<usize>m << 3) + 1024;
}

// The best packing of the last packCost call.
let packKind: u32 = 0;
let packSize: u64 = 0;
let packK: u32 = 0;

/**
 * Finds the smallest packing of `cnt` zigzag values at zz, given their best Rice size and k;
 * Simple-8b is written to s8b.
 */
function packCost(zz: usize, cnt: u32, s8b: usize, riceSize: u64, riceK: u32): void {
  packKind = PACK_RICE;
  packSize = riceSize;
  packK = riceK;
  const r = <u64>rleSize(zz, cnt);
  if (r <= packSize) {
    packKind = PACK_RLE;
    packSize = r;
  }
  const s = encodeSimple8b(zz, cnt, s8b);
  if (s >= 0 && <u64>s <= packSize) {
    packKind = PACK_SIMPLE8B;
    packSize = <u64>s;
  }
}

function writePack(kind: u32, k: u32, size: u64, zz: usize, cnt: u32, s8b: usize, p: usize): usize {
  if (kind == PACK_SIMPLE8B) {
    memory.copy(p, s8b, <usize>size);
    return p + <usize>size;
  }
  if (kind == PACK_RLE) return encodeRle(zz, cnt, p);
  return encodeRice(zz, cnt, k, p);
}

/**
 * Encodes m integers at src (i64 or u64, 8 bytes each) at dst (room for intBound(m) + 8
 * bytes) with `mode` (MODE_AUTO, MODE_PLAIN, MODE_DELTA, MODE_DOD); returns the end.
 */
export function encodeInts(src: usize, m: u32, mode: u32, dst: usize): usize {
  if (m == 0 || mode == MODE_PLAIN) return writePlain64(src, m, dst);
  const v0 = load<i64>(src);
  let i: u32 = 1;
  while (i < m && load<i64>(src + (<usize>i << 3)) == v0) i++;
  if (i == m) {
    store<u8>(dst, ENC_CONST);
    return writeSvarint(dst + 1, v0);
  }
  const d0 = load<i64>(src, 8) - v0;
  let prev = load<i64>(src, 8);
  i = 2;
  while (i < m) {
    const v = load<i64>(src + (<usize>i << 3));
    if (v - prev != d0) break;
    prev = v;
    i++;
  }
  if (i == m) {
    store<u8>(dst, ENC_DELTA_CONST);
    return writeSvarint(writeSvarint(dst + 1, v0), d0);
  }

  // m >= 3 from here: the general families. Rice sizes first (cheap, and close to the best
  // packing); Simple-8b and run-length are tried only for the family whose Rice size is
  // smallest, or for both when they are within 1/8 of each other.
  const mark = scratchMark();
  // When every delta is a multiple of some scale > 1 (timestamps written in ms into a ns
  // database: 10^6), the families work on w[i] = (v[i] - v[0]) / scale, built delta by delta
  // (wrapping), and the decoder multiplies back: v[i] = v[0] + scale * w[i].
  const scale = deltaGcd(src, m);
  let a = src;
  let a0 = v0;
  if (scale > 1) {
    a = scratchTake(<usize>m << 3);
    a0 = 0;
    let w: i64 = 0;
    store<i64>(a, 0);
    for (let j: u32 = 1; j < m; j++) {
      const at = src + (<usize>j << 3);
      w += (load<i64>(at) - load<i64>(at - 8)) / <i64>scale;
      store<i64>(a + (<usize>j << 3), w);
    }
  }
  // DELTA blocks store deltas minus their average (rounded toward zero, wrapping like all the
  // arithmetic here): 0 for gauges, the interval for jittered timestamps and steady counters.
  const base = (load<i64>(a + ((<usize>m - 1) << 3)) - a0) / <i64>(m - 1);
  const first = load<i64>(a, 8) - a0;
  const h = 1 + <u64>svarintSize(v0) + <u64>varintSize(scale);
  const hD = h + <u64>svarintSize(base);
  const hDD = h + <u64>svarintSize(first);
  const NO: u64 = <u64>-1;
  let riceD: u64 = NO;
  let riceDD: u64 = NO;
  let kD: u32 = 0;
  let kDD: u32 = 0;
  const zzD = scratchTake(<usize>m << 3);
  const zzDD = scratchTake(<usize>m << 3);
  const s8b = scratchTake(<usize>m << 3);
  if (mode != MODE_DOD) {
    zigzagDeltas(a, m, zzD, base);
    kD = chooseRiceK(zzD, m - 1);
    riceD = hD + bestRiceSize;
  }
  if (mode != MODE_DELTA) {
    zigzagDeltasOfDeltas(a, m, zzDD);
    kDD = chooseRiceK(zzDD, m - 2);
    riceDD = hDD + bestRiceSize;
  }
  let bestSize: u64 = 1 + (<u64>m << 3);
  let bestId: u8 = ENC_PLAIN;
  let bestKind: u32 = 0;
  let bestK: u32 = 0;
  let bestPack: u64 = 0;
  let bestZz: usize = 0;
  let bestS8b: usize = 0;
  const tryD = riceD != NO && (riceDD == NO || riceD - (riceD >> 3) <= riceDD);
  const tryDD = riceDD != NO && (riceD == NO || riceDD - (riceDD >> 3) <= riceD);
  if (tryD) {
    packCost(zzD, m - 1, s8b, riceD - hD, kD);
    if (hD + packSize < bestSize) {
      bestSize = hD + packSize;
      bestId = ENC_DELTA_SIMPLE8B + <u8>packKind;
      bestKind = packKind;
      bestK = packK;
      bestPack = packSize;
      bestZz = zzD;
      bestS8b = s8b;
    }
  }
  if (tryDD) {
    // Simple-8b of the deltas of deltas goes after that of the deltas, which may be the winner.
    const s8b2 = tryD ? scratchTake(<usize>m << 3) : s8b;
    packCost(zzDD, m - 2, s8b2, riceDD - hDD, kDD);
    if (hDD + packSize < bestSize) {
      bestSize = hDD + packSize;
      bestId = ENC_DOD_SIMPLE8B + <u8>packKind;
      bestKind = packKind;
      bestK = packK;
      bestPack = packSize;
      bestZz = zzDD;
      bestS8b = s8b2;
    }
  }
  let end: usize;
  if (bestId == ENC_PLAIN) {
    end = writePlain64(src, m, dst);
  } else {
    store<u8>(dst, bestId);
    let p = writeVarint(writeSvarint(dst + 1, v0), scale);
    let cnt = m - 1;
    if (bestId >= ENC_DOD_SIMPLE8B) {
      p = writeSvarint(p, first);
      cnt = m - 2;
    } else {
      p = writeSvarint(p, base);
    }
    end = writePack(bestKind, bestK, bestPack, bestZz, cnt, bestS8b, p);
  }
  scratchRelease(mark);
  return end;
}

/**
 * The greatest common divisor of the deltas (as magnitudes; binary GCD, stopping at 1, which
 * for noisy data comes within a few values); 1 if there is no delta other than 0.
 */
function deltaGcd(src: usize, m: u32): u64 {
  let g: u64 = 0;
  for (let j: u32 = 1; j < m; j++) {
    const at = src + (<usize>j << 3);
    const d = load<i64>(at) - load<i64>(at - 8);
    let x: u64 = d < 0 ? <u64>(0 - d) : <u64>d;
    if (x == 0) continue;
    if (g == 0) {
      g = x;
      continue;
    }
    // Stein's algorithm.
    const shift = min(ctz<u64>(g), ctz<u64>(x));
    let y = g >> ctz<u64>(g);
    x >>= ctz<u64>(x);
    while (x != y) {
      if (x > y) {
        x -= y;
        x >>= ctz<u64>(x);
      } else {
        y -= x;
        y >>= ctz<u64>(y);
      }
    }
    g = y << shift;
    if (g == 1) return 1;
  }
  return g == 0 ? 1 : g;
}

/**
 * Decodes the integer block [p, p + len) of m values to dst (room for m values). Returns 0 or
 * an error code (errors.ts); never reads outside the block.
 */
export function decodeInts(p: usize, len: usize, m: u32, dst: usize): i32 {
  if (len == 0) return fail(ERR_TRUNCATED, p);
  const end = p + len;
  const id = load<u8>(p);
  if (id == ENC_PLAIN) return decodePlain64(p, len, m, dst);
  if (id < ENC_CONST || id > ENC_DOD_RICE) return fail(ERR_CODEC, p);
  rdInit(p + 1, len - 1);
  const v0 = unzigzag(rdVarint());
  if (id == ENC_CONST) {
    if (rdErr() != 0) return rdErr();
    if (rdPos() != end) return fail(ERR_TRAILING, rdPos());
    fill64(dst, v0, m);
    return 0;
  }
  if (id == ENC_DELTA_CONST) {
    const step = unzigzag(rdVarint());
    if (rdErr() != 0) return rdErr();
    if (rdPos() != end) return fail(ERR_TRAILING, rdPos());
    fillProgression(dst, v0, step, m);
    return 0;
  }
  const scaleAt = rdPos();
  const scale = rdVarint();
  // DELTA_*: the base added to every delta; DOD_*: the first delta (both of w, see encodeInts).
  const d0 = unzigzag(rdVarint());
  if (rdErr() != 0) return rdErr();
  if (scale == 0) return fail(ERR_VALUE, scaleAt);
  const dod = id >= ENC_DOD_SIMPLE8B;
  const skip: u32 = dod ? 2 : 1;
  if (m < skip) return fail(ERR_COUNT, p);
  const cnt = m - skip;
  const out = dst + (<usize>skip << 3);
  const at = rdPos();
  const pack = <u32>(id - (dod ? ENC_DOD_SIMPLE8B : ENC_DELTA_SIMPLE8B));
  // Prefix sums start after the values stored below: order 1 from the first value adding the
  // base d0 to every delta, order 2 from the second value with running delta d0. Scaled blocks
  // sum w from 0 and multiply at the end.
  const w0: i64 = scale == 1 ? v0 : 0;
  store<i64>(dst, w0);
  if (dod) store<i64>(dst, w0 + d0, 8);
  const v = dod ? w0 + d0 : w0;
  const order = dod ? 2 : 1;
  let rc: i32;
  if (pack == PACK_RICE) {
    rc = decodeRice(at, end, cnt, out, order, v, d0);
  } else {
    rc = pack == PACK_SIMPLE8B ? decodeSimple8b(at, end, cnt, out) : decodeRle(at, end, cnt, out);
    if (rc == 0) {
      if (dod) undoZigzagInPlace(out, cnt, v, d0, 2);
      else undoZigzagInPlace(out, cnt, v, d0, 1);
    }
  }
  if (rc != 0 || scale == 1) return rc;
  const s = <i64>scale;
  const stop = dst + (<usize>m << 3);
  for (let q = dst; q < stop; q += 8) store<i64>(q, v0 + s * load<i64>(q));
  return 0;
}
