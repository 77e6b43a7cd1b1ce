// Text of a column of doubles, as the result writers print them (host/engine/types/float-text.ts
// holds the rules and the TypeScript reference this must match byte for byte): the shortest
// round-trip digits (shortest.ts) laid out in decimal notation inside a range of exponents and in
// scientific notation outside it.
//   style 0, Arrow's display (CSV, TSV): decimal for 1e-5 <= |x| < 1e10, `1.0`, `1.0e-6`,
//     `3.5e10`, `NaN`, `inf`, `-inf`, `-0.0`;
//   style 1, serde_json: decimal for 1e-5 <= |x| < 1e16, `1e16`, `1.5e-7`; NaN and the
//     infinities, which JSON cannot hold, as `null`.

import { div1e8, shortest, shortestDigits, shortestExponent, shortestLength } from './shortest';

/** Bytes one value may take: a sign, `0.0000` and 17 digits, or 17 digits, a point and an exponent. */
export const F64_TEXT_MAX: usize = 32;

@inline
function ascii3(p: usize, a: u32, b: u32, c: u32): usize {
  store<u8>(p, a);
  store<u8>(p, b, 1);
  store<u8>(p, c, 2);
  return p + 3;
}

/** Writes the `len` digits of `v` (exactly its digits) ending before `end`: eight at a time in 32 bits. */
function digitsBefore(end: usize, v: u64, len: i32): void {
  let p = end;
  const start = end - <usize>len;
  while (v >= 100000000) {
    const q = div1e8(v);
    let r = <u32>(v - q * 100000000);
    for (let i = 0; i < 8; i++) {
      const d = <u32>((<u64>r * 0xcccccccd) >> 35);
      store<u8>(--p, r - d * 10 + 48);
      r = d;
    }
    v = q;
  }
  let r = <u32>v;
  while (p > start) {
    const d = <u32>((<u64>r * 0xcccccccd) >> 35);
    store<u8>(--p, r - d * 10 + 48);
    r = d;
  }
}

/** One value at `p`; returns the position after it. */
function formatOne(p: usize, x: f64, style: u32): usize {
  if (isNaN(x)) {
    if (style == 0) return ascii3(p, 78, 97, 78); // NaN
    store<u32>(p, 0x6c6c756e); // null
    return p + 4;
  }
  const bits = reinterpret<u64>(x);
  if (<i64>bits < 0) {
    if (style == 0 || isFinite(x)) store<u8>(p++, 45); // '-'
    x = -x;
  }
  if (x == Infinity) {
    if (style == 0) return ascii3(p, 105, 110, 102); // inf
    store<u32>(p, 0x6c6c756e); // null
    return p + 4;
  }
  if (x == 0) return ascii3(p, 48, 46, 48); // 0.0
  shortest(x);
  const digits = shortestDigits;
  const len = shortestLength;
  const exp = shortestExponent;
  const maxExp = style == 0 ? 9 : 15;
  if (exp >= -5 && exp <= maxExp) {
    if (exp < 0) {
      // 0.000ddd
      store<u8>(p++, 48);
      store<u8>(p++, 46);
      for (let i = -1; i > exp; i--) store<u8>(p++, 48);
      digitsBefore(p + len, digits, len);
      return p + len;
    }
    const intLen = exp + 1;
    if (len <= intLen) {
      // ddd000.0
      digitsBefore(p + len, digits, len);
      p += len;
      for (let i = len; i < intLen; i++) store<u8>(p++, 48);
      store<u8>(p, 46);
      store<u8>(p + 1, 48);
      return p + 2;
    }
    // ddd.ddd: the digits, then the integer part moved one place left to open the point
    digitsBefore(p + len + 1, digits, len);
    for (let i = 0; i < intLen; i++) store<u8>(p + i, load<u8>(p + i + 1));
    store<u8>(p + intLen, 46);
    return p + len + 1;
  }
  // d.ddde-7: the digits one place right, the first moved before the point
  digitsBefore(p + len + 1, digits, len);
  store<u8>(p, load<u8>(p + 1));
  if (len > 1) {
    store<u8>(p + 1, 46);
    p += len + 1;
  } else if (style == 0) {
    store<u8>(p + 1, 46);
    store<u8>(p + 2, 48);
    p += 3;
  } else p += 1;
  store<u8>(p++, 101); // 'e'
  let e = exp;
  if (e < 0) {
    store<u8>(p++, 45);
    e = -e;
  }
  const elen = e >= 100 ? 3 : e >= 10 ? 2 : 1;
  digitsBefore(p + elen, <u64>e, elen);
  return p + elen;
}

/**
 * Writes the text of the `n` doubles at `values` back to back at `out` (room for n *
 * F64_TEXT_MAX bytes) and the end of each (u32, from `out`) at `ends`. `style`: 0 Arrow's
 * display, 1 serde_json. Returns the bytes written, or -1 for an unknown style.
 */
export function k_format_f64(values: usize, n: usize, style: u32, out: usize, ends: usize): isize {
  if (style > 1) return -1;
  let p = out;
  for (let i: usize = 0; i < n; i++) {
    p = formatOne(p, load<f64>(values + (i << 3)), style);
    store<u32>(ends + (i << 2), <u32>(p - out));
  }
  return <isize>(p - out);
}
