// OpenTSDB text scanner exports (see assembly/README.md, section OpenTSDB text). Arguments are
// validated here; the line loop (scanner.ts) trusts them. The input window is core-owned so that
// the scanner may put a '\n' sentinel and zero padding after the data. The batch comes out of the
// line-protocol scanner's batch writer (same format, same buffers): one scan of either kind at a time.

import { inWindow, newArena, sealWindow, windowFor } from '../lineprotocol/arena';
import { writeScanResult } from '../lineprotocol/batch-writer';
import { beginBatch, beginRequest } from '../lineprotocol/intern';
import { beginRows } from '../lineprotocol/rows';
import { validateUtf8 } from '../lineprotocol/utf8';
import { BAIL, beginRawCache, configure, scanLines, stopped } from './scanner';

const input = newArena(1 << 16);

/** The result record of the last tsdb_scan (offsets in assembly/README.md). */
const RESULT: usize = memory.data(24, 8);

/** Flag bits of tsdb_scan. */
const FLAG_CONTINUED: u32 = 1;
const FLAG_FIXED_UNIT: u32 = 2;

/**
 * Returns the core-owned input window with room for `capacity` bytes; the host writes the data
 * there and passes (pointer, length) to tsdb_scan. Valid until the next tsdb_input call.
 */
export function tsdb_input(capacity: usize): usize {
  return windowFor(input, capacity);
}

/** The address of the result record (see assembly/README.md). */
export function tsdb_result(): usize {
  return RESULT;
}

/**
 * Scans the lines of `[ptr, ptr + len)` (inside the tsdb_input window, whole lines) into one
 * write batch. Returns 0 (result record filled; `consumed` may stop short when the batch is
 * full), 1 (BAIL: a line the host's reference parser must judge), or -1 for invalid arguments.
 */
export function tsdb_scan(
  ptr: usize,
  len: usize,
  flags: u32,
  secMultiplier: i64,
  secDivisor: i64,
  msMultiplier: i64,
  msDivisor: i64,
  maxBatchBytes: u32,
): i32 {
  if (!inWindow(input, ptr, len)) return -1;
  if (flags > 3) return -1;
  if (secMultiplier < 1 || secDivisor < 1 || (secMultiplier != 1 && secDivisor != 1)) return -1;
  if (msMultiplier < 1 || msDivisor < 1 || (msMultiplier != 1 && msDivisor != 1)) return -1;
  if ((flags & FLAG_CONTINUED) == 0) beginRequest();
  const end = ptr + len;
  sealWindow(end);
  memory.fill(RESULT, 0, 24);
  // The reference decodes the whole body as fatal UTF-8 first.
  if (validateUtf8(ptr, len) != len) return BAIL;
  configure(ptr, (flags & FLAG_FIXED_UNIT) != 0, secMultiplier, secDivisor, msMultiplier, msDivisor, maxBatchBytes);
  beginBatch();
  beginRows();
  beginRawCache();
  if (scanLines(ptr, end) == BAIL) return BAIL;
  writeScanResult(RESULT, stopped - ptr);
  return 0;
}
