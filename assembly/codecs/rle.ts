// Run-length coding of a u64 stream: (value, run length - 1) varint pairs covering exactly the
// stream. Chosen for integers that stay constant for long stretches (counters at rest, clamped
// gauges), where even Simple-8b's 240-zero words are too long.
import { ERR_COUNT, ERR_TRAILING, fail } from './errors';
import { fill64 } from './fill';
import { rdErr, rdFailAt, rdInit, rdPos, rdVarint } from './reader';
import { varintSize, writeVarint } from './varint';

/** Bytes of the RLE form of `cnt` values at `src`. */
export function rleSize(src: usize, cnt: u32): u32 {
  let size: u32 = 0;
  let i: u32 = 0;
  while (i < cnt) {
    const v = load<u64>(src + (<usize>i << 3));
    let j = i + 1;
    while (j < cnt && load<u64>(src + (<usize>j << 3)) == v) j++;
    size += varintSize(v) + varintSize(<u64>(j - i - 1));
    i = j;
  }
  return size;
}

/** Writes the RLE form; returns the position after it. */
export function encodeRle(src: usize, cnt: u32, dst: usize): usize {
  let i: u32 = 0;
  while (i < cnt) {
    const v = load<u64>(src + (<usize>i << 3));
    let j = i + 1;
    while (j < cnt && load<u64>(src + (<usize>j << 3)) == v) j++;
    dst = writeVarint(dst, v);
    dst = writeVarint(dst, <u64>(j - i - 1));
    i = j;
  }
  return dst;
}

/** Decodes exactly `cnt` values from [p, end) to dst. Returns 0 or an error code. */
export function decodeRle(p: usize, end: usize, cnt: u32, dst: usize): i32 {
  rdInit(p, end - p);
  let i: u32 = 0;
  while (i < cnt) {
    const v = rdVarint();
    const at = rdPos();
    const run = rdVarint();
    if (rdErr() != 0) return rdErr();
    if (run >= <u64>(cnt - i)) return rdFailAt(ERR_COUNT, at);
    const n = <u32>run + 1;
    fill64(dst + (<usize>i << 3), v, n);
    i += n;
  }
  if (rdPos() != end) return fail(ERR_TRAILING, rdPos());
  return 0;
}
