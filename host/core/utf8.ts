// A string's UTF-8 written into a byte array in place: ASCII (ids, names, numbers) byte by byte,
// since TextEncoder.encodeInto's call cost more than the copy for short values, and the rest of
// the string through encodeInto (lone surrogates become U+FFFD, as TextEncoder makes them).

const encoder = new TextEncoder();

/**
 * Writes `s` as UTF-8 into `buf` at `at`, which has room for 3 bytes per UTF-16 code unit of `s`;
 * returns the bytes written.
 */
export function writeUtf8(s: string, buf: Uint8Array, at: number): number {
  const n = s.length;
  let p = at;
  let i = 0;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) break;
    buf[p++] = c;
  }
  if (i < n) p += encoder.encodeInto(i === 0 ? s : s.slice(i), buf.subarray(p)).written;
  return p - at;
}
