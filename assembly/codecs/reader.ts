// Bounds-checked byte reader for block headers and small fields, with a sticky error like
// Prometheus' encoding.Decbuf (STYLE.md §16): every read checks the remaining length, a failed
// read records the first error and returns 0, and callers check `rdErr()` once per section.
// Hot loops never use it: they validate their range once and then load directly. It is one
// global cursor: a decoder that calls a nested block decoder saves `rdPos()`/`rdEnd()` first
// and puts them back with `rdRestore`.
import { ERR_TRUNCATED, ERR_VARINT, ERR_VALUE, fail } from './errors';

let rPos: usize = 0;
let rEnd: usize = 0;
let rErr: i32 = 0;

/** Starts reading the range [base, base + len). */
export function rdInit(base: usize, len: usize): void {
  rPos = base;
  rEnd = base + len;
  rErr = 0;
}

/** Continues reading at `pos` up to `end` after a nested decoder moved the cursor. */
export function rdRestore(pos: usize, end: usize): void {
  rPos = pos;
  rEnd = end;
}

@inline export function rdPos(): usize {
  return rPos;
}

@inline export function rdEnd(): usize {
  return rEnd;
}

@inline export function rdErr(): i32 {
  return rErr;
}

@inline export function rdLeft(): usize {
  return rEnd - rPos;
}

/** Records the first error at `pos` (an absolute pointer) and returns it. */
export function rdFailAt(code: i32, pos: usize): i32 {
  if (rErr == 0) rErr = fail(code, pos);
  return rErr;
}

export function rdFail(code: i32): i32 {
  return rdFailAt(code, rPos);
}

export function rdU8(): u32 {
  if (rPos >= rEnd) {
    rdFail(ERR_TRUNCATED);
    return 0;
  }
  return <u32>load<u8>(rPos++);
}

export function rdU64(): u64 {
  if (rEnd - rPos < 8) {
    rdFailAt(ERR_TRUNCATED, rEnd);
    return 0;
  }
  const v = load<u64>(rPos);
  rPos += 8;
  return v;
}

/** LEB128, at most 10 bytes, the tenth holding only the top bit of 64. */
export function rdVarint(): u64 {
  let v: u64 = 0;
  let shift: u64 = 0;
  const start = rPos;
  while (true) {
    if (rPos >= rEnd) {
      rdFailAt(ERR_TRUNCATED, rEnd);
      return 0;
    }
    const b = <u64>load<u8>(rPos++);
    if (shift == 63 && b > 1) {
      rdFailAt(ERR_VARINT, start);
      return 0;
    }
    v |= (b & 0x7f) << shift;
    if (b < 0x80) return v;
    shift += 7;
  }
  return 0;
}

/** A varint that must be <= limit (counts, lengths); a larger value is ERR_VALUE. */
export function rdVarintMax(limit: u32): u32 {
  const at = rPos;
  const v = rdVarint();
  if (v > <u64>limit) {
    rdFailAt(ERR_VALUE, at);
    return 0;
  }
  return <u32>v;
}

/** Returns a pointer to the next n bytes and skips them, or fails with ERR_TRUNCATED. */
export function rdTake(n: usize): usize {
  if (rEnd - rPos < n) {
    rdFailAt(ERR_TRUNCATED, rEnd);
    return rPos;
  }
  const p = rPos;
  rPos += n;
  return p;
}
