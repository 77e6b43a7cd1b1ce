// LEB128 varints and zigzag-free size arithmetic for the writers. Writers always know the exact
// size of what they write before writing it (the capacity is checked once per block).

/** Bytes taken by `v` as LEB128 (1..10). */
@inline export function varintSize(v: u64): u32 {
  return <u32>(63 - clz<u64>(v | 1)) / 7 + 1;
}

/** Writes `v` as LEB128 at p; returns the position after it. */
export function writeVarint(p: usize, v: u64): usize {
  while (v >= 0x80) {
    store<u8>(p++, <u8>(v | 0x80));
    v >>= 7;
  }
  store<u8>(p++, <u8>v);
  return p;
}
