// PLAIN blocks of 8-byte values (FORMAT.md §4.2 and §4.3): the id, then the m values as they
// are. The integer and DOUBLE codecs share the layout, so they share this code.
import { ERR_TRAILING, ERR_TRUNCATED, fail } from './errors';
import { ENC_PLAIN } from './ids';

/** Writes the PLAIN block of the m 8-byte values at src to dst (room for 1 + 8m bytes); returns the end. */
export function writePlain64(src: usize, m: u32, dst: usize): usize {
  store<u8>(dst, ENC_PLAIN);
  memory.copy(dst + 1, src, <usize>m << 3);
  return dst + 1 + (<usize>m << 3);
}

/** Decodes the PLAIN block [p, p + len) of m 8-byte values to dst. Returns 0 or an error code. */
export function decodePlain64(p: usize, len: usize, m: u32, dst: usize): i32 {
  const want: usize = 1 + (<usize>m << 3);
  if (len < want) return fail(ERR_TRUNCATED, p + len);
  if (len > want) return fail(ERR_TRAILING, p + want);
  memory.copy(dst, p + 1, <usize>m << 3);
  return 0;
}
