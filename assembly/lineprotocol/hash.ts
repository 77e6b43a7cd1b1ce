// Hashing and comparison of byte ranges for the intern tables. The hash reads 8 bytes per step
// (a TSBS series prefix is about 165 bytes, hashed once per line) and ends with the murmur3
// 64-bit finaliser so that the low bits used for the slot index are well mixed.

const K1: u64 = 0x9e3779b97f4a7c15;
const K2: u64 = 0xbf58476d1ce4e5b9;

/** Hash of `[p, p + n)`; never reads outside the range. */
export function hashBytes(p: usize, n: usize): u32 {
  let h: u64 = <u64>n * K1;
  const e = p + n;
  let i = p;
  while (i + 8 <= e) {
    h = rotl<u64>(h ^ load<u64>(i), 27) * K2;
    i += 8;
  }
  let tail: u64 = 0;
  let shift: u64 = 0;
  while (i < e) {
    tail |= <u64>load<u8>(i) << shift;
    shift += 8;
    i++;
  }
  h = (h ^ tail) * K1;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccd;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53;
  h ^= h >> 33;
  return <u32>h;
}

/** Mixes a small integer (a table id) into a hash, for keys scoped by table. */
@inline
export function mixScope(h: u32, scope: u32): u32 {
  return h ^ (scope * 0x9e3779b1);
}

/** `[a, a + n)` and `[b, b + n)` hold the same bytes. */
export function bytesEqual(a: usize, b: usize, n: usize): bool {
  let i: usize = 0;
  while (i + 8 <= n) {
    if (load<u64>(a + i) != load<u64>(b + i)) return false;
    i += 8;
  }
  while (i < n) {
    if (load<u8>(a + i) != load<u8>(b + i)) return false;
    i++;
  }
  return true;
}

/** Byte order of two ranges (shorter first on a common prefix): <0, 0 or >0. */
export function compareBytes(a: usize, an: usize, b: usize, bn: usize): i32 {
  const n = an < bn ? an : bn;
  for (let i: usize = 0; i < n; i++) {
    const x = <i32>load<u8>(a + i);
    const y = <i32>load<u8>(b + i);
    if (x != y) return x - y;
  }
  return an < bn ? -1 : an > bn ? 1 : 0;
}
