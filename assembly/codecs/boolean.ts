// The BOOLEAN block codec, also used for the validity of nullable blocks (nullable.ts): CONST
// for a block of one value, else BITPACK (one bit per row, LSB first) or BOOL_RLE (alternating
// run lengths, for sparse validity), whichever is smaller. Input and output are one byte per
// row (0 or 1; any non-zero input byte is true), as in the write batch.
//   CONST:    id | value u8
//   BITPACK:  id | ceil(n / 8) bytes, unused high bits of the last byte zero
//   BOOL_RLE: id | first value u8 | (run length - 1) varints, alternating values, summing to n
import { ERR_CODEC, ERR_COUNT, ERR_PADDING, ERR_TRAILING, ERR_TRUNCATED, ERR_VALUE, fail } from './errors';
import { ENC_BITPACK, ENC_BOOL_RLE, ENC_CONST, MODE_AUTO } from './ids';
import { rdErr, rdFailAt, rdInit, rdPos, rdU8, rdVarint } from './reader';
import { varintSize, writeVarint } from './varint';

/** byte -> its 8 bits as 8 bytes of 0/1 (little endian u64), for BITPACK decoding. */
const SPREAD: usize = memory.data(256 * 8, 8);
for (let b: u32 = 0; b < 256; b++) {
  let v: u64 = 0;
  for (let i: u32 = 0; i < 8; i++) if ((b >> i) & 1) v |= <u64>1 << (<u64>i << 3);
  store<u64>(SPREAD + (<usize>b << 3), v);
}

/** Largest BOOLEAN block of n rows. */
@inline export function boolBound(n: u32): usize {
  return 2 + ((<usize>n + 7) >> 3);
}

/** Number of non-zero bytes in [p, p + n). */
export function countTrue(p: usize, n: u32): u32 {
  let count: u32 = 0;
  let i: u32 = 0;
  const zero = i8x16.splat(0);
  while (n - i >= 16) {
    count += <u32>popcnt<u32>(i8x16.bitmask(i8x16.ne(v128.load(p + i), zero)));
    i += 16;
  }
  for (; i < n; i++) if (load<u8>(p + i) != 0) count++;
  return count;
}

/** Encodes n booleans at src at dst (room for boolBound(n)); returns the end. */
export function encodeBools(src: usize, n: u32, mode: u32, dst: usize): usize {
  const ones = countTrue(src, n);
  if (mode == MODE_AUTO && n > 0 && (ones == 0 || ones == n)) {
    store<u8>(dst, ENC_CONST);
    store<u8>(dst + 1, ones == 0 ? 0 : 1);
    return dst + 2;
  }
  const packed: usize = 1 + ((<usize>n + 7) >> 3);
  if (mode == MODE_AUTO && n > 0) {
    // Run lengths, stopping as soon as they are no smaller than the bit-packed form.
    let size: usize = 2;
    let i: u32 = 0;
    while (i < n && size < packed) {
      const v = load<u8>(src + i) != 0;
      let j = i + 1;
      while (j < n && (load<u8>(src + j) != 0) == v) j++;
      size += varintSize(<u64>(j - i - 1));
      i = j;
    }
    if (size < packed) return writeRuns(src, n, dst);
  }
  store<u8>(dst, ENC_BITPACK);
  const out = dst + 1;
  const zero = i8x16.splat(0);
  let i: u32 = 0;
  while (n - i >= 16) {
    store<u16>(out + (i >> 3), <u16>i8x16.bitmask(i8x16.ne(v128.load(src + i), zero)));
    i += 16;
  }
  let byte: u32 = 0;
  let bit: u32 = 0;
  for (; i < n; i++) {
    if (load<u8>(src + i) != 0) byte |= 1 << bit;
    if (++bit == 8) {
      store<u8>(out + (i >> 3), <u8>byte);
      byte = 0;
      bit = 0;
    }
  }
  if (bit != 0) store<u8>(out + (n >> 3), <u8>byte);
  return dst + packed;
}

function writeRuns(src: usize, n: u32, dst: usize): usize {
  store<u8>(dst, ENC_BOOL_RLE);
  store<u8>(dst + 1, load<u8>(src) != 0 ? 1 : 0);
  let p = dst + 2;
  let i: u32 = 0;
  while (i < n) {
    const v = load<u8>(src + i) != 0;
    let j = i + 1;
    while (j < n && (load<u8>(src + j) != 0) == v) j++;
    p = writeVarint(p, <u64>(j - i - 1));
    i = j;
  }
  return p;
}

/** Decodes the BOOLEAN block [p, p + len) of n rows to dst (n bytes of 0/1). Returns 0 or an error code. */
export function decodeBools(p: usize, len: usize, n: u32, dst: usize): i32 {
  if (len == 0) return fail(ERR_TRUNCATED, p);
  const end = p + len;
  const id = load<u8>(p);
  if (id == ENC_CONST) {
    if (len < 2) return fail(ERR_TRUNCATED, end);
    if (len > 2) return fail(ERR_TRAILING, p + 2);
    const v = load<u8>(p + 1);
    if (v > 1) return fail(ERR_VALUE, p + 1);
    memory.fill(dst, v, n);
    return 0;
  }
  if (id == ENC_BITPACK) {
    const bytes = (<usize>n + 7) >> 3;
    if (len - 1 < bytes) return fail(ERR_TRUNCATED, end);
    if (len - 1 > bytes) return fail(ERR_TRAILING, p + 1 + bytes);
    const full = n >> 3;
    for (let i: u32 = 0; i < full; i++) {
      store<u64>(dst + (<usize>i << 3), load<u64>(SPREAD + (<usize>load<u8>(p + 1 + i) << 3)));
    }
    const rest = n & 7;
    if (rest != 0) {
      const last = <u32>load<u8>(p + 1 + full);
      if ((last >> rest) != 0) return fail(ERR_PADDING, p + 1 + full);
      for (let b: u32 = 0; b < rest; b++) store<u8>(dst + (full << 3) + b, <u8>((last >> b) & 1));
    }
    return 0;
  }
  if (id == ENC_BOOL_RLE) {
    rdInit(p + 1, len - 1);
    const firstAt = rdPos();
    let v = rdU8();
    if (rdErr() != 0) return rdErr();
    if (v > 1) return fail(ERR_VALUE, firstAt);
    let i: u32 = 0;
    while (i < n) {
      const at = rdPos();
      const run = rdVarint();
      if (rdErr() != 0) return rdErr();
      if (run >= <u64>(n - i)) return rdFailAt(ERR_COUNT, at);
      const c = <u32>run + 1;
      memory.fill(dst + i, <u8>v, c);
      i += c;
      v ^= 1;
    }
    if (rdPos() != end) return fail(ERR_TRAILING, rdPos());
    return 0;
  }
  return fail(ERR_CODEC, p);
}
