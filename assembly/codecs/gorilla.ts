// Gorilla XOR coding of doubles (Pelkonen et al., "Gorilla: A Fast, Scalable, In-Memory Time
// Series Database", VLDB 2015, §4.1.2), on raw bit patterns so that every NaN payload and -0
// survives. Per value after the first, LSB-first bits:
//   0                        same bits as the previous value
//   1 0 <sig bits>           XOR fits the previous leading/trailing-zero window
//   1 1 <lead:5> <sig:6> <sig bits>   new window (lead capped at 31; sig 0 means 64)
// The baseline for doubles; DECIMAL wins on short decimals (decimal.ts).
import { bitsBegin, bitsEnd, bitsPeek, bitsPut, bitsRead } from './bits';
import { ERR_COUNT, ERR_PADDING, ERR_TRUNCATED, ERR_VALUE, fail } from './errors';
import { ENC_GORILLA } from './ids';
import { scratchMark, scratchRelease, scratchTake } from './scratch';

/** Largest Gorilla block of m values (77 bits per value after the first). */
@inline export function gorillaBound(m: u32): usize {
  return 9 + ((<usize>m * 77 + 7) >> 3) + 16;
}

/** Writes the GORILLA block of m >= 1 values at dst (room for gorillaBound(m)); returns the end. */
export function encodeGorilla(src: usize, m: u32, dst: usize): usize {
  store<u8>(dst, ENC_GORILLA);
  let prev = load<u64>(src);
  store<u64>(dst + 1, prev);
  bitsBegin(dst + 9);
  let lead: u32 = 0xff;
  let trail: u32 = 0;
  for (let i: u32 = 1; i < m; i++) {
    const v = load<u64>(src + (<usize>i << 3));
    const x = v ^ prev;
    prev = v;
    if (x == 0) {
      bitsPut(0, 1);
      continue;
    }
    let l = <u32>clz<u64>(x);
    if (l > 31) l = 31;
    const t = <u32>ctz<u64>(x);
    if (lead != 0xff && l >= lead && t >= trail) {
      bitsPut(1, 2);
      bitsPut(x >> <u64>trail, 64 - lead - trail);
    } else {
      const sig = 64 - l - t;
      bitsPut(3 | (<u64>l << 2) | (<u64>(sig & 63) << 7), 13);
      bitsPut(x >> <u64>t, sig);
      lead = l;
      trail = t;
    }
  }
  return bitsEnd();
}

/** Decodes the GORILLA block [p, end) of m values to dst. Returns 0 or an error code. */
export function decodeGorilla(p: usize, end: usize, m: u32, dst: usize): i32 {
  if (m == 0) return fail(ERR_COUNT, p);
  if (end - p < 9) return fail(ERR_TRUNCATED, end);
  let v = load<u64>(p + 1);
  store<u64>(dst, v);
  const streamAt = p + 9;
  const bytes = end - streamAt;
  const total = <u64>bytes << 3;
  // A zero-padded copy: a value reads at most 77 bits past a position that is still in range.
  const mark = scratchMark();
  const s = scratchTake(bytes + 32);
  memory.copy(s, streamAt, bytes);
  memory.fill(s + bytes, 0, 32);
  let pos: u64 = 0;
  let sig: u32 = 0;
  let trail: u64 = 0;
  let rc: i32 = 0;
  for (let i: u32 = 1; i < m; i++) {
    const w = bitsPeek(s, pos);
    if ((w & 1) == 0) {
      pos += 1;
    } else {
      if ((w & 2) == 0) {
        if (sig == 0) {
          rc = fail(ERR_VALUE, streamAt + <usize>(pos >> 3));
          break;
        }
        pos += 2;
      } else {
        const l = <u32>(w >> 2) & 31;
        let n = <u32>(w >> 7) & 63;
        if (n == 0) n = 64;
        if (l + n > 64) {
          rc = fail(ERR_VALUE, streamAt + <usize>(pos >> 3));
          break;
        }
        sig = n;
        trail = <u64>(64 - l - n);
        pos += 13;
      }
      v ^= bitsRead(s, pos, sig) << trail;
      pos += sig;
    }
    if (pos > total) {
      rc = fail(ERR_TRUNCATED, end);
      break;
    }
    store<u64>(dst + (<usize>i << 3), v);
  }
  if (rc == 0) {
    // Only the zero bits that pad the last byte may follow the last value.
    if (total - pos >= 8) rc = fail(ERR_PADDING, streamAt + <usize>((pos + 7) >> 3));
    else if (pos < total && (bitsPeek(s, pos) & ((<u64>1 << (total - pos)) - 1)) != 0) rc = fail(ERR_PADDING, end - 1);
  }
  scratchRelease(mark);
  return rc;
}
