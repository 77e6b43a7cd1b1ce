// Line-protocol scanner exports (see assembly/README.md, section Line protocol). Arguments are
// validated here; everything behind this file trusts them and runs unchecked. The input window
// is core-owned so that the scanner may put a '\n' sentinel and zero padding after the data.

import { inWindow, newArena, sealWindow, windowFor } from './arena';
import { FIXUP_SIZE, fixups, out, writeBatch } from './batch-writer';
import { prepareStrings } from './fields';
import { beginBatch, beginRequest, rcol, rcolName, rtable, rtableName } from './intern';
import { prepareNames } from './names';
import { beginRows, rowCount } from './rows';
import { configure, scanLines } from './scanner';
import {
  beginScan, E_TYPE_CONFLICT, errCode, errColumn, errHave, errLen, errPos, errTable, errWant,
  errWhat, lineNumber, lineStart, newlines, S_ERROR, S_FULL, S_INCOMPLETE, status,
} from './status';
import { validateUtf8 } from './utf8';

const input = newArena(1 << 16);

/** The result record of the last lp_scan (offsets in assembly/README.md). */
const RESULT: usize = memory.data(80, 8);

/**
 * Returns the core-owned input window with room for `capacity` bytes; the host writes the data
 * there and passes (pointer, length) to lp_scan. Valid until the next lp_input call (growing it
 * may move it; the contents are not kept).
 */
export function lp_input(capacity: usize): usize {
  return windowFor(input, capacity);
}

/** The address of the result record (see assembly/README.md). */
export function lp_result(): usize {
  return RESULT;
}

/**
 * Scans the complete lines of `[ptr, ptr + len)` (inside the lp_input window) into one write
 * batch. flags bit 0: this is the last window of the body; bit 1: a later window of the same
 * request (the request's tables and column types carry over). Timestamps become ts * mul / div;
 * lines without one get `defaultTs`. Returns 0 (result record filled), an error code > 0 (error
 * fields filled), or -1 for invalid arguments.
 */
export function lp_scan(
  ptr: usize,
  len: usize,
  flags: u32,
  tsMultiplier: i64,
  tsDivisor: i64,
  defaultTs: i64,
  maxBatchBytes: u32,
): i32 {
  if (!inWindow(input, ptr, len)) return -1;
  if (tsMultiplier < 1 || tsDivisor < 1 || (tsMultiplier != 1 && tsDivisor != 1) || flags > 3) return -1;
  const last = (flags & 1) != 0;
  if ((flags & 2) == 0) beginRequest();

  const end = ptr + len;
  sealWindow(end);
  prepareNames(len);
  configure(tsMultiplier, tsDivisor, defaultTs, maxBatchBytes);
  memory.fill(RESULT, 0, 80);

  // A non-final window only takes lines that end before its last newline.
  const safe = last ? end : lastLineEnd(ptr, end);
  const utf8 = ptr + validateUtf8(ptr, safe - ptr);
  let stopped = scan(ptr, end, last, safe, utf8, len);
  if (status == S_INCOMPLETE || status == S_FULL) {
    // The line at lineStart was cut by the window or overfilled the batch half-way: it may have
    // touched the batch, so build the batch again from the lines before it (rare).
    const cut = lineStart;
    stopped = scan(ptr, cut, true, cut, utf8 < cut ? utf8 : cut, len);
  }
  if (status == S_ERROR) {
    writeError(ptr);
    return <i32>errCode;
  }
  store<u32>(RESULT, <u32>(stopped - ptr));
  store<u32>(RESULT, newlines, 4);
  if (rowCount > 0) {
    const n = writeBatch();
    store<u32>(RESULT, <u32>out.base, 8);
    store<u32>(RESULT, <u32>n, 12);
    store<u32>(RESULT, rowCount, 16);
    store<u32>(RESULT, <u32>fixups.base, 20);
    store<u32>(RESULT, <u32>(fixups.len / FIXUP_SIZE), 24);
  }
  return 0;
}

function scan(ptr: usize, end: usize, last: bool, safe: usize, utf8: usize, len: usize): usize {
  beginScan(ptr, end, last, safe, utf8);
  beginBatch();
  beginRows();
  prepareStrings(len);
  return scanLines(ptr);
}

/** The position after the last '\n' in `[ptr, end)`, or `ptr` if there is none. */
function lastLineEnd(ptr: usize, end: usize): usize {
  let i = end;
  while (i > ptr) {
    if (load<u8>(i - 1) == 0x0a) return i;
    i--;
  }
  return ptr;
}

function writeError(ptr: usize): void {
  // Line and column of errPos, counting the newlines inside quoted strings of this line.
  let line = lineNumber + 1;
  let col0 = lineStart;
  for (let i = lineStart; i < errPos; i++) {
    if (load<u8>(i) == 0x0a) {
      line++;
      col0 = i + 1;
    }
  }
  store<u32>(RESULT, errCode, 28);
  store<u32>(RESULT, line, 32);
  store<u32>(RESULT, <u32>(errPos - col0 + 1), 36);
  store<u32>(RESULT, <u32>(errPos - ptr), 40);
  store<u32>(RESULT, <u32>errLen, 44);
  store<u32>(RESULT, errWhat, 48);
  if (errCode == E_TYPE_CONFLICT) {
    const t = rtable(errTable);
    const c = rcol(errColumn);
    store<u32>(RESULT, <u32>rtableName(t), 52);
    store<u32>(RESULT, t.nameLen, 56);
    store<u32>(RESULT, <u32>rcolName(c), 60);
    store<u32>(RESULT, c.nameLen, 64);
    store<u32>(RESULT, errHave, 68);
    store<u32>(RESULT, errWant, 72);
  }
}
