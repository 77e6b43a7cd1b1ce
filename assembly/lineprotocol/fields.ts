// Field values: dispatch on the first byte, and quoted strings. A string without escapes stays
// in place in the input; one with escapes is unescaped into an area sized to the input, so its
// pointer stays valid until the batch is written. Inside quotes `,` space `=` and raw newlines
// are literal; `\"` -> `"`, `\\` -> `\`, `\'` stays as both characters; any other escape fails.

import { ensureCapacity, newArena } from './arena';
import {
  CH_APOSTROPHE, CH_BACKSLASH, CH_LF, CH_MINUS, CH_PLUS, CH_QUOTE, hasClass, isDigit, K_DELIMITER,
  K_STRING,
} from './chars';
import { charLen } from './names';
import { parseBoolean, parseNumber, setStringType, tokenEnd } from './number';
import {
  countNewline, E_AFTER_VALUE, E_FIELD_VALUE, E_STRING_ESCAPE, E_UNTERMINATED, fail, incomplete,
  isLast, stop,
} from './status';

const unescaped = newArena(4096);

/** Makes room for every unescaped string of an input of `len` bytes. */
export function prepareStrings(len: usize): void {
  ensureCapacity(unescaped, len + 16);
  unescaped.len = 0;
}

/** The string parsed last: bytes `[stringP, stringP + stringN)`. */
export let stringP: usize = 0;
export let stringN: usize = 0;

/**
 * Parses the field value at `p`; sets the value globals of number.ts (or stringP/stringN for a
 * STRING). Returns the position of the delimiter after the value, or 0.
 */
@inline
export function parseValue(p: usize): usize {
  const c = <u32>load<u8>(p);
  if (isDigit(c) || c == CH_MINUS || c == CH_PLUS) return parseNumber(p);
  if (c == CH_QUOTE) return parseString(p);
  const lower = c | 0x20;
  if (lower == 0x74 /* t */ || lower == 0x66 /* f */) return parseBoolean(p);
  const e = tokenEnd(p);
  return fail(E_FIELD_VALUE, p, e > p ? e - p : charLen(p));
}

/** Parses a quoted string at `p` (its opening quote). */
function parseString(p: usize): usize {
  let i = p + 1;
  const start = i;
  let c = <u32>load<u8>(i);
  while (true) {
    while (!hasClass(c, K_STRING)) c = load<u8>(++i);
    if (c == CH_QUOTE) {
      stringP = start;
      stringN = i - start;
      break;
    }
    if (c == CH_BACKSLASH) {
      i = parseEscapedString(p, start, i);
      if (i == 0) return 0;
      break;
    }
    // A newline: literal inside quotes, unless it is the end of the input.
    if (i == stop) return isLast ? fail(E_UNTERMINATED, p, i - p) : incomplete();
    countNewline();
    c = load<u8>(++i);
  }
  setStringType();
  const e = i + 1;
  if (!hasClass(load<u8>(e), K_DELIMITER)) return fail(E_AFTER_VALUE, e, charLen(e));
  return e;
}

/** Continues a string at its first backslash `i`, copying the unescaped bytes. Returns the closing quote. */
function parseEscapedString(p: usize, start: usize, i: usize): usize {
  const d0 = unescaped.base + unescaped.len;
  let d = d0;
  memory.copy(d, start, i - start);
  d += i - start;
  while (true) {
    const c = <u32>load<u8>(i);
    if (c == CH_QUOTE) break;
    if (c == CH_BACKSLASH) {
      const e = <u32>load<u8>(i + 1);
      if (e == CH_QUOTE || e == CH_BACKSLASH) {
        store<u8>(d++, <u8>e);
      } else if (e == CH_APOSTROPHE) {
        store<u8>(d, CH_BACKSLASH);
        store<u8>(d + 1, CH_APOSTROPHE);
        d += 2;
      } else if (e == CH_LF && i + 1 == stop) {
        return isLast ? fail(E_UNTERMINATED, p, i + 1 - p) : incomplete();
      } else {
        return fail(E_STRING_ESCAPE, i, 1 + charLen(i + 1));
      }
      i += 2;
      continue;
    }
    if (c == CH_LF) {
      if (i == stop) return isLast ? fail(E_UNTERMINATED, p, i - p) : incomplete();
      countNewline();
    }
    store<u8>(d++, <u8>c);
    i++;
  }
  stringP = d0;
  stringN = d - d0;
  unescaped.len += stringN;
  return i;
}
