// Measurement names, tag keys and values, field keys: scanning, escapes and unescaping. A name
// without a backslash is returned in place (a range of the input); only escaped names are copied,
// into a per-line scratch area. CnosDB's quirk is kept: the backslash is removed only before
// `,` space `=`; `\\`, `\"` and `\'` stay as both characters but still pair up.

import { ensureCapacity, newArena } from './arena';
import {
  CH_APOSTROPHE, CH_BACKSLASH, CH_COMMA, CH_CR, CH_EQUALS, CH_LF, CH_QUOTE, CH_SPACE, hasClass,
  K_MEASUREMENT,
} from './chars';
import { E_ESCAPE, failName } from './status';

/** The name found by the last `scanName`: unescaped bytes `[nameP, nameP + nameN)`. */
export let nameP: usize = 0;
export let nameN: usize = 0;

/** Unescaped names of the current line; sized to the input so a line never overflows it. */
const scratch = newArena(4096);
let scratchAt: usize = 0;

/** Makes room for the names of any line of an input of `len` bytes. */
export function prepareNames(len: usize): void {
  ensureCapacity(scratch, len + 16);
}

/** Forgets the names of the previous line. */
@inline
export function resetNames(): void {
  scratchAt = 0;
}

/**
 * Scans a name at `p` up to the first unescaped byte of class `k` (K_MEASUREMENT, K_KEY or
 * K_TAG_VALUE), sets nameP/nameN and returns the position of that byte, or 0 on a bad escape.
 * `what` (WHAT_*) goes into the error.
 */
export function scanName(p: usize, k: u8, what: u32): usize {
  const start = p;
  let c = <u32>load<u8>(p);
  while (!hasClass(c, k)) c = load<u8>(++p);
  if (c != CH_BACKSLASH) {
    nameP = start;
    nameN = p - start;
    return p;
  }
  // Escapes: copy what came before, then unescape into the scratch area.
  const d0 = scratch.base + scratchAt;
  let d = d0;
  memory.copy(d, start, p - start);
  d += p - start;
  const dropEquals = k != K_MEASUREMENT; // a measurement may not escape '='
  while (true) {
    if (c == CH_BACKSLASH) {
      const e = <u32>load<u8>(p + 1);
      if (e == CH_COMMA || e == CH_SPACE || (e == CH_EQUALS && dropEquals)) {
        store<u8>(d++, <u8>e);
      } else if (e == CH_BACKSLASH || e == CH_QUOTE || e == CH_APOSTROPHE) {
        store<u8>(d, CH_BACKSLASH);
        store<u8>(d + 1, <u8>e);
        d += 2;
      } else {
        return failName(E_ESCAPE, p, 1 + charLen(p + 1), what);
      }
      p += 2;
    } else if (hasClass(c, k)) {
      break;
    } else {
      store<u8>(d++, <u8>c);
      p++;
    }
    c = load<u8>(p);
  }
  nameP = d0;
  nameN = d - d0;
  scratchAt += nameN;
  return p;
}

/**
 * Bytes of the character at `p` for an error excerpt: 0 at the end of a line (`\n`, `\r\n`),
 * which the host shows as "end of line"; the length of a UTF-8 sequence otherwise.
 */
export function charLen(p: usize): usize {
  const c = <u32>load<u8>(p);
  if (c == CH_LF || (c == CH_CR && load<u8>(p + 1) == CH_LF)) return 0;
  if (c < 0xc0) return 1;
  if (c < 0xe0) return 2;
  if (c < 0xf0) return 3;
  return 4;
}

/** `[p, p + n)` is the reserved column name `time`. */
@inline
export function isTime(p: usize, n: usize): bool {
  return n == 4 && load<u32>(p) == 0x656d6974;
}
