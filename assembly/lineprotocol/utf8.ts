// UTF-8 validation with the rules of a fatal TextDecoder (WHATWG Encoding): no overlong forms,
// no surrogates (U+D800..DFFF), nothing above U+10FFFF, no truncated sequence. Line protocol is
// almost all ASCII, so 16 bytes are checked per step with one SIMD bitmask first.

/**
 * Offset (from `p`) of the first byte that starts an invalid or truncated sequence in
 * `[p, p + n)`, or `n` when the range is valid. Never reads outside the range.
 */
export function validateUtf8(p: usize, n: usize): usize {
  let i: usize = 0;
  while (i < n) {
    if (i + 16 <= n && i8x16.bitmask(v128.load(p + i)) == 0) {
      i += 16;
      continue;
    }
    const c = <u32>load<u8>(p + i);
    if (c < 0x80) {
      i++;
      continue;
    }
    const need = sequenceLength(c);
    if (need == 0 || i + need > n) return i;
    const c1 = <u32>load<u8>(p + i + 1);
    // The second byte carries the overlong, surrogate and range checks (Unicode table 3-7).
    let lo: u32 = 0x80;
    let hi: u32 = 0xbf;
    if (c == 0xe0) lo = 0xa0;
    else if (c == 0xed) hi = 0x9f;
    else if (c == 0xf0) lo = 0x90;
    else if (c == 0xf4) hi = 0x8f;
    if (c1 < lo || c1 > hi) return i;
    for (let k: usize = 2; k < need; k++) {
      if ((<u32>load<u8>(p + i + k) & 0xc0) != 0x80) return i;
    }
    i += need;
  }
  return n;
}

/** Bytes in a sequence led by `c` (>= 0x80), or 0 if `c` cannot lead one. */
@inline
function sequenceLength(c: u32): usize {
  if (c < 0xc2) return 0; // continuation byte, or the overlong leads C0 and C1
  if (c < 0xe0) return 2;
  if (c < 0xf0) return 3;
  if (c < 0xf5) return 4;
  return 0;
}
