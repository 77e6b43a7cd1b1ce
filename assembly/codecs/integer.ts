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
import { ERR_CODEC, ERR_COUNT, ERR_TRAILING, ERR_TRUNCATED, fail } from './errors';
import { fill64, fillProgression } from './fill';
import { rdErr, rdInit, rdPos, rdVarint } from './reader';
import { bestRiceSize, chooseRiceK, decodeRice, encodeRice } from './rice';
import { decodeRle, encodeRle, rleSize } from './rle';
import { scratchMark, scratchRelease, scratchTake } from './scratch';
import { decodeSimple8b, encodeSimple8b } from './simple8b';
import { svarintSize, writeSvarint } from './varint';
import { undoZigzagInPlace, unzigzag, zigzagDeltas, zigzagDeltasOfDeltas } from './zigzag';

const PACK_SIMPLE8B: u32 = 0;
const PACK_RLE: u32 = 1;
const PACK_RICE: u32 = 2;

/** Largest integer block of m values (PLAIN), for sizing outputs. */
@inline export function intBound(m: u32): usize {
  return 1 + (<usize>m << 3);
}

/** Scratch bytes encodeInts may take for m values. */
@inline export function intScratch(m: u32): usize {
  return (<usize>m << 5) + 1024;
}

// The best packing of the last packCost call.
let packKind: u32 = 0;
let packSize: u64 = 0;
let packK: u32 = 0;

/** Finds the smallest packing of `cnt` zigzag values at zz; Simple-8b is written to s8b. */
function packCost(zz: usize, cnt: u32, s8b: usize): void {
  const s = encodeSimple8b(zz, cnt, s8b);
  packKind = PACK_SIMPLE8B;
  packSize = s < 0 ? <u64>-1 : <u64>s;
  const r = <u64>rleSize(zz, cnt);
  if (r < packSize) {
    packKind = PACK_RLE;
    packSize = r;
  }
  const k = chooseRiceK(zz, cnt);
  if (bestRiceSize < packSize) {
    packKind = PACK_RICE;
    packSize = bestRiceSize;
    packK = k;
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
  if (m == 0 || mode == MODE_PLAIN) return writePlain(src, m, dst);
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

  // m >= 3 from here: the general families.
  const mark = scratchMark();
  let bestSize: u64 = 1 + (<u64>m << 3);
  let bestId: u8 = ENC_PLAIN;
  let bestKind: u32 = 0;
  let bestK: u32 = 0;
  let bestPack: u64 = 0;
  let bestZz: usize = 0;
  let bestS8b: usize = 0;
  if (mode != MODE_DOD) {
    const zz = scratchTake(<usize>m << 3);
    const s8b = scratchTake(<usize>m << 3);
    zigzagDeltas(src, m, zz);
    packCost(zz, m - 1, s8b);
    const size = 1 + <u64>svarintSize(v0) + packSize;
    if (size < bestSize) {
      bestSize = size;
      bestId = ENC_DELTA_SIMPLE8B + <u8>packKind;
      bestKind = packKind;
      bestK = packK;
      bestPack = packSize;
      bestZz = zz;
      bestS8b = s8b;
    }
  }
  if (mode != MODE_DELTA) {
    const zz = scratchTake(<usize>m << 3);
    const s8b = scratchTake(<usize>m << 3);
    zigzagDeltasOfDeltas(src, m, zz);
    packCost(zz, m - 2, s8b);
    const size = 1 + <u64>svarintSize(v0) + <u64>svarintSize(d0) + packSize;
    if (size < bestSize) {
      bestSize = size;
      bestId = ENC_DOD_SIMPLE8B + <u8>packKind;
      bestKind = packKind;
      bestK = packK;
      bestPack = packSize;
      bestZz = zz;
      bestS8b = s8b;
    }
  }
  let end: usize;
  if (bestId == ENC_PLAIN) {
    end = writePlain(src, m, dst);
  } else {
    store<u8>(dst, bestId);
    let p = writeSvarint(dst + 1, v0);
    let cnt = m - 1;
    if (bestId >= ENC_DOD_SIMPLE8B) {
      p = writeSvarint(p, d0);
      cnt = m - 2;
    }
    end = writePack(bestKind, bestK, bestPack, bestZz, cnt, bestS8b, p);
  }
  scratchRelease(mark);
  return end;
}

function writePlain(src: usize, m: u32, dst: usize): usize {
  store<u8>(dst, ENC_PLAIN);
  memory.copy(dst + 1, src, <usize>m << 3);
  return dst + 1 + (<usize>m << 3);
}

/**
 * Decodes the integer block [p, p + len) of m values to dst (room for m values). Returns 0 or
 * an error code (errors.ts); never reads outside the block.
 */
export function decodeInts(p: usize, len: usize, m: u32, dst: usize): i32 {
  if (len == 0) return fail(ERR_TRUNCATED, p);
  const end = p + len;
  const id = load<u8>(p);
  if (id == ENC_PLAIN) {
    const want: usize = 1 + (<usize>m << 3);
    if (len < want) return fail(ERR_TRUNCATED, end);
    if (len > want) return fail(ERR_TRAILING, p + want);
    memory.copy(dst, p + 1, <usize>m << 3);
    return 0;
  }
  if (id < ENC_CONST || id > ENC_DOD_RICE) return fail(ERR_CODEC, p);
  rdInit(p + 1, len - 1);
  const v0 = unzigzag(rdVarint());
  if (id == ENC_CONST) {
    if (rdErr() != 0) return rdErr();
    if (rdPos() != end) return fail(ERR_TRAILING, rdPos());
    fill64(dst, v0, m);
    return 0;
  }
  const d0 = id == ENC_DELTA_CONST || id >= ENC_DOD_SIMPLE8B ? unzigzag(rdVarint()) : 0;
  if (rdErr() != 0) return rdErr();
  if (id == ENC_DELTA_CONST) {
    if (rdPos() != end) return fail(ERR_TRAILING, rdPos());
    fillProgression(dst, v0, d0, m);
    return 0;
  }
  const dod = id >= ENC_DOD_SIMPLE8B;
  const skip: u32 = dod ? 2 : 1;
  if (m < skip) return fail(ERR_COUNT, p);
  const cnt = m - skip;
  const out = dst + (<usize>skip << 3);
  const at = rdPos();
  const pack = <u32>(id - (dod ? ENC_DOD_SIMPLE8B : ENC_DELTA_SIMPLE8B));
  let rc: i32;
  if (pack == PACK_SIMPLE8B) rc = decodeSimple8b(at, end, cnt, out);
  else if (pack == PACK_RLE) rc = decodeRle(at, end, cnt, out);
  else rc = decodeRice(at, end, cnt, out);
  if (rc != 0) return rc;
  store<i64>(dst, v0);
  if (dod) {
    store<i64>(dst, v0 + d0, 8);
    undoZigzagInPlace(out, cnt, v0 + d0, d0, 2);
  } else {
    undoZigzagInPlace(out, cnt, v0, 0, 1);
  }
  return 0;
}
