// The DOUBLE block codec: CONST for one repeated bit pattern, else the smallest of DECIMAL
// (short decimals as scaled integers), GORILLA (XOR) and PLAIN. Everything works on bit
// patterns, so NaN payloads, -0 and infinities round-trip exactly.
import { decodeDecimal, decimalScratch, encodeDecimal } from './decimal';
import { ERR_CODEC, ERR_TRAILING, ERR_TRUNCATED, fail } from './errors';
import { fill64 } from './fill';
import { decodeGorilla, encodeGorilla, gorillaBound } from './gorilla';
import { ENC_CONST, ENC_DECIMAL, ENC_GORILLA, ENC_PLAIN, MODE_AUTO, MODE_PLAIN } from './ids';
import { decodePlain64, writePlain64 } from './plain';
import { scratchMark, scratchRelease, scratchTake } from './scratch';

/** Scratch bytes encodeDoubles may take for m values. */
@inline export function doubleScratch(m: u32): usize {
  return decimalScratch(m) + gorillaBound(m) + 1024;
}

/**
 * Encodes m doubles at src at dst (room for 1 + 8m + 32 bytes) with `mode` (MODE_AUTO,
 * MODE_PLAIN, MODE_GORILLA); returns the end.
 */
export function encodeDoubles(src: usize, m: u32, mode: u32, dst: usize): usize {
  const plainSize: usize = 1 + (<usize>m << 3);
  if (m == 0 || mode == MODE_PLAIN) return writePlain64(src, m, dst);
  const v0 = load<u64>(src);
  let i: u32 = 1;
  while (i < m && load<u64>(src + (<usize>i << 3)) == v0) i++;
  if (i == m) {
    store<u8>(dst, ENC_CONST);
    store<u64>(dst + 1, v0);
    return dst + 9;
  }
  let best = plainSize;
  let end: usize = 0;
  if (mode == MODE_AUTO) {
    const e = encodeDecimal(src, m, dst, best);
    if (e != 0) {
      best = e - dst;
      end = e;
    }
  }
  // Gorilla spends at least 2 control bits and a window of meaningful bits on every change, so
  // it cannot beat a DECIMAL block of 2 bytes per value or less (measured on TSBS floats: 7.0
  // against 1.1 bytes); skipping it halves the encoding time there.
  if (end != 0 && best <= (<usize>m << 1)) return end;
  const mark = scratchMark();
  const g = scratchTake(gorillaBound(m));
  const gEnd = encodeGorilla(src, m, g);
  if (gEnd - g < best) {
    memory.copy(dst, g, gEnd - g);
    end = dst + (gEnd - g);
  }
  scratchRelease(mark);
  return end != 0 ? end : writePlain64(src, m, dst);
}

/** Decodes the DOUBLE block [p, p + len) of m values to dst. Returns 0 or an error code. */
export function decodeDoubles(p: usize, len: usize, m: u32, dst: usize): i32 {
  if (len == 0) return fail(ERR_TRUNCATED, p);
  const end = p + len;
  const id = load<u8>(p);
  if (id == ENC_PLAIN) return decodePlain64(p, len, m, dst);
  if (id == ENC_CONST) {
    if (len < 9) return fail(ERR_TRUNCATED, end);
    if (len > 9) return fail(ERR_TRAILING, p + 9);
    fill64(dst, load<u64>(p + 1), m);
    return 0;
  }
  if (id == ENC_DECIMAL) return decodeDecimal(p, end, m, dst);
  if (id == ENC_GORILLA) return decodeGorilla(p, end, m, dst);
  return fail(ERR_CODEC, p);
}
