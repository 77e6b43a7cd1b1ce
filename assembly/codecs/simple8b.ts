// Simple-8b (V. N. Anh and A. Moffat, "Index compression using 64-bit words", 2010): each 64-bit
// little-endian word holds a 4-bit selector in its low bits and `count` values of `bits` bits
// each above it, lowest value first. Selectors 0 and 1 are runs of 240 and 120 zeros (a zigzag
// delta of 0 is "unchanged", the most common value in metrics). The last word may be partly
// used: the decoder knows how many values remain, and the unused bits must be zero.
import { ERR_PADDING, ERR_TRAILING, ERR_TRUNCATED, fail } from './errors';

// count, bits per selector
const COUNT: usize = memory.data<u8>([240, 120, 60, 30, 20, 15, 12, 10, 8, 7, 6, 5, 4, 3, 2, 1]);
const BITS: usize = memory.data<u8>([0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 20, 30, 60]);

/** Values from 2^60 up cannot be packed. */
export const SIMPLE8B_LIMIT: u64 = <u64>1 << 60;

// Per value bit width w (0..60): the selector with the fewest bits >= w, and its count.
const SEL_OF_WIDTH: usize = memory.data<u8>([0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 11, 11, 12, 12, 12, 13, 13, 13, 13, 13, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15]);
const COUNT_OF_WIDTH: usize = memory.data<u8>([240, 60, 30, 20, 15, 12, 10, 8, 7, 6, 6, 5, 5, 4, 4, 4, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);

/**
 * Packs `cnt` u64 values at `src` into words at `dst` (room for 8 * cnt bytes) and returns the
 * byte length, or -1 if a value is 2^60 or more. Greedy as in the paper (each word takes the
 * selector with the most values that all fit), in one pass: a word grows while its widest
 * value still allows that many values, then takes the largest selector count that fits.
 */
export function encodeSimple8b(src: usize, cnt: u32, dst: usize): i32 {
  let i: u32 = 0;
  let w = dst;
  while (i < cnt) {
    const left = cnt - i;
    const at = src + (<usize>i << 3);
    let n: u32 = 0;
    let width: u32 = 0;
    while (n < left) {
      const v = load<u64>(at + (<usize>n << 3));
      if (v >= SIMPLE8B_LIMIT) return -1;
      const vw: u32 = 64 - <u32>clz<u64>(v);
      const w2 = vw > width ? vw : width;
      const room = <u32>load<u8>(COUNT_OF_WIDTH + w2);
      if (n + 1 > room) break;
      n++;
      width = w2;
      if (n == room) break;
    }
    let sel = <u32>load<u8>(SEL_OF_WIDTH + width);
    let take = n;
    if (n < left) {
      // Not the last word: it must be full, so take the largest count <= n (wider bits fit too).
      while (<u32>load<u8>(COUNT + sel) > n) sel++;
      take = <u32>load<u8>(COUNT + sel);
    }
    const b = <u64>load<u8>(BITS + sel);
    let word: u64 = <u64>sel;
    if (b != 0) {
      let shift: u64 = 4;
      for (let j: u32 = 0; j < take; j++) {
        word |= load<u64>(at + (<usize>j << 3)) << shift;
        shift += b;
      }
    }
    store<u64>(w, word);
    w += 8;
    i += take;
  }
  return <i32>(w - dst);
}

/**
 * Unpacks exactly `cnt` values from the words in [p, end) to `dst` (room for cnt values).
 * Returns 0, or an error code if the words run out, bytes remain, or unused bits are set.
 */
export function decodeSimple8b(p: usize, end: usize, cnt: u32, dst: usize): i32 {
  let i: u32 = 0;
  while (i < cnt) {
    if (end - p < 8) return fail(ERR_TRUNCATED, end);
    const w = load<u64>(p);
    const sel = <u32>w & 15;
    const c = <u32>load<u8>(COUNT + sel);
    const left = cnt - i;
    const out = dst + (<usize>i << 3);
    if (c <= left) {
      switch (sel) {
        case 0:
        case 1: {
          if ((w >> 4) != 0) return fail(ERR_PADDING, p);
          memory.fill(out, 0, <usize>c << 3);
          break;
        }
        case 2: unpack(w, out, 60, 1); break;
        case 3: unpack(w, out, 30, 2); break;
        case 4: unpack(w, out, 20, 3); break;
        case 5: unpack(w, out, 15, 4); break;
        case 6: unpack(w, out, 12, 5); break;
        case 7: unpack(w, out, 10, 6); break;
        case 8: {
          if ((w >> 60) != 0) return fail(ERR_PADDING, p);
          unpack(w, out, 8, 7);
          break;
        }
        case 9: {
          if ((w >> 60) != 0) return fail(ERR_PADDING, p);
          unpack(w, out, 7, 8);
          break;
        }
        case 10: unpack(w, out, 6, 10); break;
        case 11: unpack(w, out, 5, 12); break;
        case 12: unpack(w, out, 4, 15); break;
        case 13: unpack(w, out, 3, 20); break;
        case 14: unpack(w, out, 2, 30); break;
        default: store<u64>(out, w >> 4);
      }
      i += c;
    } else {
      // The last word, partly used: its unused high bits must be zero.
      const b = <u64>load<u8>(BITS + sel);
      const used = <u64>left * b;
      if (((w >> 4) >> used) != 0) return fail(ERR_PADDING, p);
      if (b == 0) {
        memory.fill(out, 0, <usize>left << 3);
      } else {
        const mask: u64 = (<u64>1 << b) - 1;
        let x = w >> 4;
        for (let j: u32 = 0; j < left; j++) {
          store<u64>(out + (<usize>j << 3), x & mask);
          x >>= b;
        }
      }
      i = cnt;
    }
    p += 8;
  }
  if (p != end) return fail(ERR_TRAILING, p);
  return 0;
}

@inline function unpack(w: u64, out: usize, c: u32, b: u64): void {
  const mask: u64 = (<u64>1 << b) - 1;
  let x = w >> 4;
  for (let j: u32 = 0; j < c; j++) {
    store<u64>(out + (<usize>j << 3), x & mask);
    x >>= b;
  }
}
