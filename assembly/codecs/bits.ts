// LSB-first bit streams: a 64-bit accumulator writer, and position-based reads from a buffer
// that the caller has padded with zero bytes (readers never check bounds per bit; decoders
// check the position once per value against the stream length).

let wp: usize = 0;
let acc: u64 = 0;
let accBits: u32 = 0;

export function bitsBegin(p: usize): void {
  wp = p;
  acc = 0;
  accBits = 0;
}

/** Appends the n low bits of v (1 <= n <= 64; v has no bits above them). */
@inline export function bitsPut(v: u64, n: u32): void {
  acc |= v << <u64>accBits;
  const total = accBits + n;
  if (total >= 64) {
    store<u64>(wp, acc);
    wp += 8;
    acc = accBits == 0 ? 0 : v >> <u64>(64 - accBits);
    accBits = total - 64;
  } else {
    accBits = total;
  }
}

/** Writes the bits still in the accumulator (the last byte padded with zero bits); returns the end. */
export function bitsEnd(): usize {
  const n = (accBits + 7) >> 3;
  for (let i: u32 = 0; i < n; i++) {
    store<u8>(wp + i, <u8>(acc >> (<u64>i << 3)));
  }
  return wp + n;
}

/** At least 57 bits starting at bit `pos` of the padded buffer `p`, lowest first. */
@inline export function bitsPeek(p: usize, pos: u64): u64 {
  return load<u64>(p + <usize>(pos >> 3)) >> (pos & 7);
}

/** n bits (1..64) at bit `pos` of the padded buffer `p`. */
@inline export function bitsRead(p: usize, pos: u64, n: u32): u64 {
  if (n <= 56) return bitsPeek(p, pos) & ((<u64>1 << <u64>n) - 1);
  const lo = bitsPeek(p, pos) & 0xffffffff;
  const hi = bitsPeek(p, pos + 32) & ((<u64>-1) >> <u64>(96 - n));
  return lo | (hi << 32);
}
