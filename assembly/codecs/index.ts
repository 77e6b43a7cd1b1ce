// Column block codec exports (assembly/README.md, section Codecs; layouts in
// host/storage/FORMAT.md §4). Arguments are validated here, once; the codecs behind trust them.
// Inputs belong to the host; every result lands in core-owned buffers described by the result
// record, valid until the next codec call. Each call reserves its worst-case scratch first, so
// nothing below allocates.
import { Buffer, ensure, newBuffer } from './buffer';
import { boolBound, countTrue, decodeBools, encodeBools } from './boolean';
import { decodeDoubles, doubleScratch, encodeDoubles } from './double';
import { ERR_ARGUMENT, lastErrorOffset, setErrorBase } from './errors';
import { ENC_ALL_NULL, MAX_ROWS, MODE_AUTO, MODE_BITPACK, MODE_DOD, MODE_GORILLA, MODE_PLAIN } from './ids';
import { decodeInts, encodeInts, intBound, intScratch } from './integer';
import { compact, expand, nullableBound, OPEN_ALL_NULL, OPEN_NULLABLE, OPEN_PLAIN, innerAt, innerLen, openBlock, present, writeNullableHeader } from './nullable';
import { scratchReset, scratchTake } from './scratch';
import { decodeStrings, encodeStrings, strDictBytes, strDictCount, strDictOffsets, stringBound, stringScratch } from './string';

/** The result record (u32 words, offsets in assembly/README.md). */
const RESULT: usize = memory.data(32, 8);
const R_PTR: usize = 0;
const R_LEN: usize = 4;
const R_VALIDITY: usize = 8;
const R_DICT_COUNT: usize = 12;
const R_DICT_OFFSETS: usize = 16;
const R_DICT_BYTES: usize = 20;
const R_ERROR_OFFSET: usize = 24;
const R_ENCODING: usize = 28;

const outBlock: Buffer = newBuffer(1 << 16);
const outValues: Buffer = newBuffer(1 << 16);
const outValidity: Buffer = newBuffer(1 << 12);

/** The address of the result record. */
export function codec_result(): usize {
  return RESULT;
}

/** [ptr, ptr + size) lies in memory (u64 arithmetic: no wrap-around). */
function inMemory(ptr: usize, size: u64): bool {
  return <u64>ptr + size <= (<u64>memory.size() << 16);
}

function begin(): void {
  memory.fill(RESULT, 0, 32);
  setErrorBase(0);
}

function done(rc: i32): i32 {
  if (rc < 0) store<u32>(RESULT + R_ERROR_OFFSET, lastErrorOffset());
  return rc;
}

// ---- encoding ----

// Set by openEncode: where the values of the present rows are, how many, where the inner block goes.
let encValues: usize = 0;
let encCount: u32 = 0;
let encAt: usize = 0;

/**
 * Starts an encoded block at dst: ALL_NULL (returns true: done), a NULLABLE header with the
 * present values (of `size` bytes; 0 for strings, which pick their own) compacted into
 * scratch, or nothing when every row is present.
 */
function openEncode(src: usize, n: u32, validity: usize, dst: usize, size: usize): bool {
  encValues = src;
  encCount = n;
  encAt = dst;
  if (validity == 0) return false;
  const m = countTrue(validity, n);
  if (m == n) return false;
  if (m == 0) {
    store<u8>(dst, ENC_ALL_NULL);
    encAt = dst + 1;
    return true;
  }
  encAt = writeNullableHeader(dst, validity, n);
  if (size == 0) return false;
  encValues = scratchTake(<usize>m * size + 16);
  encCount = size == 8 ? compact<u64>(src, validity, n, encValues) : compact<u8>(src, validity, n, encValues);
  return false;
}

function finishEncode(dst: usize, end: usize): i32 {
  store<u32>(RESULT + R_PTR, <u32>dst);
  store<u32>(RESULT + R_LEN, <u32>(end - dst));
  return <i32>(end - dst);
}

/**
 * Encodes n fixed-width values of T (i64 for BIGINT, BIGINT UNSIGNED and timestamps, f64, bool)
 * at src: the exports below are this function for each type, the branches on T resolved at
 * compile time, so each keeps the checks, scratch and bounds of its codec.
 */
function encodeFixed<T>(src: usize, n: u32, validity: usize, mode: u32): i32 {
  begin();
  let modeOk: bool;
  if (isFloat<T>()) modeOk = mode == MODE_AUTO || mode == MODE_PLAIN || mode == MODE_GORILLA;
  else if (isBoolean<T>()) modeOk = mode == MODE_AUTO || mode == MODE_PLAIN || mode == MODE_BITPACK;
  else modeOk = mode <= MODE_DOD;
  if (n > MAX_ROWS || !modeOk) return ERR_ARGUMENT;
  if (!inMemory(src, <u64>n * sizeof<T>()) || (validity != 0 && !inMemory(validity, n))) return ERR_ARGUMENT;
  let dst: usize;
  if (isFloat<T>()) {
    scratchReset((<usize>n << 3) + doubleScratch(n) + boolBound(n) + 4096);
    dst = ensure(outBlock, nullableBound(n) + intBound(n) + 16);
  } else if (isBoolean<T>()) {
    scratchReset(<usize>n * 2 + 2 * boolBound(n) + 4096);
    dst = ensure(outBlock, nullableBound(n) + boolBound(n));
  } else {
    scratchReset((<usize>n << 3) + intScratch(n) + boolBound(n) + 4096);
    dst = ensure(outBlock, nullableBound(n) + intBound(n));
  }
  if (openEncode(src, n, validity, dst, sizeof<T>())) return finishEncode(dst, encAt);
  let end: usize;
  if (isFloat<T>()) end = encodeDoubles(encValues, encCount, mode, encAt);
  else if (isBoolean<T>()) end = encodeBools(encValues, encCount, mode, encAt);
  else end = encodeInts(encValues, encCount, mode, encAt);
  return finishEncode(dst, end);
}

/**
 * Encodes n i64 or u64 values (BIGINT, BIGINT UNSIGNED, timestamps) at src, with an optional
 * validity (n bytes, 1 = present; 0 = every row present). mode: MODE_AUTO, MODE_PLAIN,
 * MODE_DELTA, MODE_DOD. Returns the block length, the block at result.ptr; or ERR_ARGUMENT.
 */
export function codec_encode_i64(src: usize, n: u32, validity: usize, mode: u32): i32 {
  return encodeFixed<i64>(src, n, validity, mode);
}

/** Encodes n doubles; as codec_encode_i64 with mode MODE_AUTO, MODE_PLAIN or MODE_GORILLA. */
export function codec_encode_f64(src: usize, n: u32, validity: usize, mode: u32): i32 {
  return encodeFixed<f64>(src, n, validity, mode);
}

/** Encodes n booleans (n bytes, non-zero = true); mode MODE_AUTO, MODE_PLAIN or MODE_BITPACK. */
export function codec_encode_bool(src: usize, n: u32, validity: usize, mode: u32): i32 {
  return encodeFixed<bool>(src, n, validity, mode);
}

/**
 * Encodes n strings: offsets (n + 1 u32, non-decreasing, relative to `bytes`) and the UTF-8
 * bytes; mode MODE_AUTO (CONST, DICT or PLAIN) or MODE_PLAIN. Absent rows' bytes are ignored.
 */
export function codec_encode_str(offsets: usize, bytes: usize, n: u32, validity: usize, mode: u32): i32 {
  begin();
  if (n > MAX_ROWS || (mode != MODE_AUTO && mode != MODE_PLAIN)) return ERR_ARGUMENT;
  if (!inMemory(offsets, (<u64>n + 1) << 2) || (validity != 0 && !inMemory(validity, n))) return ERR_ARGUMENT;
  let prev = load<u32>(offsets);
  for (let i: u32 = 1; i <= n; i++) {
    const o = load<u32>(offsets + (<usize>i << 2));
    if (o < prev) return ERR_ARGUMENT;
    prev = o;
  }
  if (!inMemory(bytes, prev)) return ERR_ARGUMENT;
  scratchReset((<usize>n << 3) + stringScratch(n) + boolBound(n) + 4096);
  const dst = ensure(outBlock, nullableBound(n) + stringBound(n, prev));
  if (openEncode(offsets, n, validity, dst, 0)) return finishEncode(dst, encAt);
  // (pointer, length) of each present value.
  const refs = scratchTake(<usize>n << 3);
  let m: u32 = 0;
  for (let i: u32 = 0; i < n; i++) {
    if (validity != 0 && load<u8>(validity + i) == 0) continue;
    const o = load<u32>(offsets + (<usize>i << 2));
    store<u32>(refs + (<usize>m << 3), <u32>(bytes + o));
    store<u32>(refs + (<usize>m << 3), load<u32>(offsets + (<usize>i << 2), 4) - o, 4);
    m++;
  }
  return finishEncode(dst, encodeStrings(refs, m, mode, encAt));
}

// ---- decoding ----

/**
 * Opens the block for decoding: the validity into outValidity, the values buffer sized for n
 * values of `size` bytes. Returns OPEN_* or an error code.
 */
function openDecode(block: usize, len: u32, n: u32, size: usize): i32 {
  begin();
  if (n > MAX_ROWS || !inMemory(block, len)) return ERR_ARGUMENT;
  setErrorBase(block);
  // Rice copies its bit planes (<= 33n/8 + 7n bytes), Gorilla its whole stream (< len), DICT its indexes (8n).
  scratchReset((<usize>n << 4) + ((<usize>n * 33) >> 3) + <usize>len + 4096);
  ensure(outValues, <usize>n * size);
  const validity = ensure(outValidity, n);
  if (len > 0) store<u32>(RESULT + R_ENCODING, load<u8>(block));
  return openBlock(block, len, n, validity);
}

/** Fills the result record after a successful decode; returns 1 if there is a validity, else 0. */
function finishDecode(open: i32): i32 {
  store<u32>(RESULT + R_PTR, <u32>outValues.base);
  if (open == OPEN_PLAIN) return 0;
  store<u32>(RESULT + R_VALIDITY, <u32>outValidity.base);
  return 1;
}

/** Decodes a block of n fixed-width values of T (i64, f64, bool); as encodeFixed, one body for the exports below. */
function decodeFixed<T>(block: usize, len: u32, n: u32): i32 {
  const open = openDecode(block, len, n, sizeof<T>());
  if (open < 0) return done(open);
  const values = outValues.base;
  if (open == OPEN_ALL_NULL) {
    memory.fill(values, 0, <usize>n * sizeof<T>());
  } else {
    let rc: i32;
    if (isFloat<T>()) rc = decodeDoubles(innerAt, innerLen, present, values);
    else if (isBoolean<T>()) rc = decodeBools(innerAt, innerLen, present, values);
    else rc = decodeInts(innerAt, innerLen, present, values);
    if (rc != 0) return done(rc);
    // Moved as bits (u64, not f64), so NaN payloads stay as they are.
    if (open == OPEN_NULLABLE) {
      if (sizeof<T>() == 8) expand<u64>(values, outValidity.base, n, present, 0);
      else expand<u8>(values, outValidity.base, n, present, 0);
    }
  }
  return finishDecode(open);
}

/**
 * Decodes the i64/u64 block [block, block + len) of n rows. Returns 1 (values at result.ptr,
 * validity at result.validity), 0 (values, every row present) or an error code (< 0) with
 * result.errorOffset set. NULL rows hold 0.
 */
export function codec_decode_i64(block: usize, len: u32, n: u32): i32 {
  return decodeFixed<i64>(block, len, n);
}

/** Decodes a DOUBLE block; as codec_decode_i64. */
export function codec_decode_f64(block: usize, len: u32, n: u32): i32 {
  return decodeFixed<f64>(block, len, n);
}

/** Decodes a BOOLEAN block to n bytes of 0/1; as codec_decode_i64. */
export function codec_decode_bool(block: usize, len: u32, n: u32): i32 {
  return decodeFixed<bool>(block, len, n);
}

/**
 * Decodes a STRING block: n u32 dictionary indexes at result.ptr (0xffffffff for NULL rows),
 * the dictionary at result.dictCount / dictOffsets / dictBytes (dictBytes points into the
 * block). Otherwise as codec_decode_i64.
 */
export function codec_decode_str(block: usize, len: u32, n: u32): i32 {
  const open = openDecode(block, len, n, 4);
  if (open < 0) return done(open);
  const values = outValues.base;
  if (open == OPEN_ALL_NULL) {
    memory.fill(values, 0xff, <usize>n << 2);
    store<u32>(strDictOffsets.base, 0);
    store<u32>(RESULT + R_DICT_OFFSETS, <u32>strDictOffsets.base);
  } else {
    const rc = decodeStrings(innerAt, innerLen, present, values);
    if (rc != 0) return done(rc);
    if (open == OPEN_NULLABLE) expand<u32>(values, outValidity.base, n, present, 0xffffffff);
    store<u32>(RESULT + R_DICT_COUNT, strDictCount);
    store<u32>(RESULT + R_DICT_OFFSETS, <u32>strDictOffsets.base);
    store<u32>(RESULT + R_DICT_BYTES, <u32>strDictBytes);
  }
  return finishDecode(open);
}
