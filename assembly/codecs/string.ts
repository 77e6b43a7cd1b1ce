// The STRING block codec (tags and STRING fields): CONST for one repeated value, else DICT (the
// distinct values in order of first appearance, then the row indexes as an integer block) or
// PLAIN, whichever is smaller. zstd, which does not run in Wasm, is applied by the host on top
// (the ZSTD wrapper, host/core/codecs.ts). Strings are bytes here; the host checks UTF-8.
//   CONST: id | length varint | bytes
//   PLAIN: id | m x length varint | bytes of all values
//   DICT:  id | d varint | d x length varint | bytes of the d values | integer block (m indexes)
// Encoder input is m (pointer u32, length u32) references to the present values. Decoder output
// is the dictionary form (`strDict*`): d offsets + 1 and the bytes (pointing into the block),
// and one u32 index per value; PLAIN decodes to a dictionary of all values, in order.
import { bytesEqual, hashBytes } from '../lineprotocol/hash';
import { Buffer, ensure, newBuffer } from './buffer';
import { ERR_CODEC, ERR_COUNT, ERR_TRAILING, ERR_TRUNCATED, ERR_VALUE, fail } from './errors';
import { ENC_CONST, ENC_DICT, ENC_PLAIN, MODE_AUTO } from './ids';
import { decodeInts, encodeInts, intBound, intScratch } from './integer';
import { rdErr, rdFailAt, rdInit, rdPos, rdTake, rdVarint, rdVarintMax } from './reader';
import { scratchMark, scratchRelease, scratchTake } from './scratch';
import { varintSize, writeVarint } from './varint';

/** Largest STRING block of m values with `bytes` bytes in all (PLAIN). */
@inline export function stringBound(m: u32, bytes: usize): usize {
  return 1 + <usize>m * 5 + bytes;
}

/** Scratch bytes encodeStrings may take for m values. */
@inline export function stringScratch(m: u32): usize {
  let slots: usize = 16;
  while (slots < (<usize>m << 1)) slots <<= 1;
  return (slots << 3) + (<usize>m << 4) + intScratch(m) + intBound(m) + 1024;
}

/** Encodes m strings given by (pointer, length) references at dst (room for stringBound). */
export function encodeStrings(refs: usize, m: u32, mode: u32, dst: usize): usize {
  let plain: usize = 1;
  for (let i: u32 = 0; i < m; i++) {
    const len = load<u32>(refs + (<usize>i << 3), 4);
    plain += varintSize(len) + len;
  }
  if (mode != MODE_AUTO || m == 0) return writePlain(refs, m, dst);

  const mark = scratchMark();
  let slots: u32 = 16;
  while (slots < (m << 1)) slots <<= 1;
  const mask = slots - 1;
  const table = scratchTake(<usize>slots << 3);
  memory.fill(table, 0, <usize>slots << 3);
  const dict = scratchTake(<usize>m << 3); // (pointer, length) of each distinct value
  const ids = scratchTake(<usize>m << 3); // u64 per row, for the integer codec
  let d: u32 = 0;
  let dictSize: usize = 0;
  for (let i: u32 = 0; i < m; i++) {
    const ptr = <usize>load<u32>(refs + (<usize>i << 3));
    const len = <usize>load<u32>(refs + (<usize>i << 3), 4);
    const h = hashBytes(ptr, len);
    let s = h & mask;
    let id: u32 = 0xffffffff;
    while (true) {
      const slot = table + (<usize>s << 3);
      const e = load<u32>(slot, 4);
      if (e == 0) {
        id = d++;
        store<u32>(slot, h);
        store<u32>(slot, id + 1, 4);
        store<u32>(dict + (<usize>id << 3), <u32>ptr);
        store<u32>(dict + (<usize>id << 3), <u32>len, 4);
        dictSize += <usize>varintSize(len) + len;
        break;
      }
      if (load<u32>(slot) == h) {
        const other = dict + (<usize>(e - 1) << 3);
        if (<usize>load<u32>(other, 4) == len && bytesEqual(<usize>load<u32>(other), ptr, len)) {
          id = e - 1;
          break;
        }
      }
      s = (s + 1) & mask;
    }
    store<u64>(ids + (<usize>i << 3), id);
  }
  if (d == 1) {
    scratchRelease(mark);
    store<u8>(dst, ENC_CONST);
    const len = load<u32>(refs, 4);
    const p = writeVarint(dst + 1, len);
    memory.copy(p, <usize>load<u32>(refs), len);
    return p + len;
  }
  const block = scratchTake(intBound(m) + 32);
  const intLen = encodeInts(ids, m, MODE_AUTO, block) - block;
  if (1 + <usize>varintSize(d) + dictSize + intLen >= plain) {
    scratchRelease(mark);
    return writePlain(refs, m, dst);
  }
  store<u8>(dst, ENC_DICT);
  let p = writeVarint(dst + 1, d);
  for (let j: u32 = 0; j < d; j++) p = writeVarint(p, load<u32>(dict + (<usize>j << 3), 4));
  for (let j: u32 = 0; j < d; j++) {
    const len = <usize>load<u32>(dict + (<usize>j << 3), 4);
    memory.copy(p, <usize>load<u32>(dict + (<usize>j << 3)), len);
    p += len;
  }
  memory.copy(p, block, intLen);
  scratchRelease(mark);
  return p + intLen;
}

function writePlain(refs: usize, m: u32, dst: usize): usize {
  store<u8>(dst, ENC_PLAIN);
  let p = dst + 1;
  for (let i: u32 = 0; i < m; i++) p = writeVarint(p, load<u32>(refs + (<usize>i << 3), 4));
  for (let i: u32 = 0; i < m; i++) {
    const len = <usize>load<u32>(refs + (<usize>i << 3), 4);
    memory.copy(p, <usize>load<u32>(refs + (<usize>i << 3)), len);
    p += len;
  }
  return p;
}

/** The dictionary of the last decodeStrings: count, offsets (count + 1 u32) and bytes. */
export let strDictCount: u32 = 0;
export let strDictBytes: usize = 0;
export const strDictOffsets: Buffer = newBuffer(1024);

/** Reads `count` length varints into strDictOffsets as offsets; returns the total, or -1. */
function readLengths(count: u32, limit: usize): i64 {
  const offs = ensure(strDictOffsets, (<usize>count + 1) << 2);
  let total: u64 = 0;
  store<u32>(offs, 0);
  for (let j: u32 = 0; j < count; j++) {
    const at = rdPos();
    total += rdVarint();
    if (rdErr() != 0) return -1;
    if (total > <u64>limit) {
      rdFailAt(ERR_TRUNCATED, at);
      return -1;
    }
    store<u32>(offs + ((<usize>j + 1) << 2), <u32>total);
  }
  return <i64>total;
}

/**
 * Decodes the STRING block [p, p + len) of m values: m u32 indexes to idx, the dictionary to
 * strDict*. Returns 0 or an error code.
 */
export function decodeStrings(p: usize, len: usize, m: u32, idx: usize): i32 {
  if (len == 0) return fail(ERR_TRUNCATED, p);
  const end = p + len;
  const id = load<u8>(p);
  rdInit(p + 1, len - 1);
  if (id == ENC_CONST || id == ENC_PLAIN) {
    const count: u32 = id == ENC_CONST ? 1 : m;
    const total = readLengths(count, len);
    if (total < 0) return rdErr();
    strDictBytes = rdTake(<usize>total);
    if (rdErr() != 0) return rdErr();
    if (rdPos() != end) return fail(ERR_TRAILING, rdPos());
    strDictCount = count;
    if (id == ENC_CONST) memory.fill(idx, 0, <usize>m << 2);
    else for (let i: u32 = 0; i < m; i++) store<u32>(idx + (<usize>i << 2), i);
    return 0;
  }
  if (id != ENC_DICT) return fail(ERR_CODEC, p);
  const d = rdVarintMax(m);
  if (rdErr() != 0) return rdErr();
  const total = readLengths(d, len);
  if (total < 0) return rdErr();
  strDictBytes = rdTake(<usize>total);
  if (rdErr() != 0) return rdErr();
  strDictCount = d;
  const intAt = rdPos();
  const mark = scratchMark();
  const ids = scratchTake(<usize>m << 3);
  const rc = decodeInts(intAt, end - intAt, m, ids);
  if (rc != 0) {
    scratchRelease(mark);
    return rc;
  }
  for (let i: u32 = 0; i < m; i++) {
    const v = load<u64>(ids + (<usize>i << 3));
    if (v >= <u64>d) {
      scratchRelease(mark);
      return fail(ERR_VALUE, intAt);
    }
    store<u32>(idx + (<usize>i << 2), <u32>v);
  }
  scratchRelease(mark);
  if (m == 0 && d != 0) return fail(ERR_COUNT, p);
  return 0;
}
