// JSON log scanner exports (see assembly/README.md, section JSON logs). Arguments are validated
// here; the line loop (scanner.ts) trusts them. The input window is core-owned so that the
// scanner may put a '\n' sentinel and zero padding after the data. The batch comes out of the
// line-protocol scanner's batch writer (same format, same buffers): one scan of any kind at a time.

import { ensureCapacity, inWindow, newArena, sealWindow, windowFor } from '../lineprotocol/arena';
import { writeScanResult } from '../lineprotocol/batch-writer';
import { beginBatch, beginRequest } from '../lineprotocol/intern';
import { beginRows } from '../lineprotocol/rows';
import { validateUtf8 } from '../lineprotocol/utf8';
import { BAIL, beginScan, beginTimeless, configure, FULL, scanLines, setTimelessCount, stopped, timelessCount } from './scanner';

const input = newArena(1 << 16);
const config = newArena(256);
const unescaped = newArena(1 << 16);

/** The result record of the last json_scan (offsets in assembly/README.md). */
const RESULT: usize = memory.data(24, 8);

/** Flag bits of json_scan. */
const FLAG_CONTINUED: u32 = 1;
const FLAG_LAST: u32 = 2;
const FLAG_BULK: u32 = 4;

/** The core-owned input window with room for `capacity` bytes; valid until the next json_input. */
export function json_input(capacity: usize): usize {
  return windowFor(input, capacity);
}

/**
 * The core-owned configuration area with room for `capacity` bytes: the host writes the table,
 * time column, bulk action line and tag columns there (layout in assembly/README.md).
 */
export function json_config(capacity: usize): usize {
  if (capacity > 0x7fffffff) return 0;
  ensureCapacity(config, capacity);
  return config.base;
}

/** The address of the result record (see assembly/README.md). */
export function json_result(): usize {
  return RESULT;
}

/**
 * Scans the lines of `[ptr, ptr + len)` (inside the json_input window, whole lines) into one
 * write batch, with the first `configLen` bytes of the configuration area. Returns 0 (result
 * record filled; `consumed` may stop short when the batch is full or, in a bulk body, before
 * an action whose document is in the next window), 1 (BAIL: a document the host's reference
 * parser must judge), or -1 for invalid arguments.
 */
export function json_scan(ptr: usize, len: usize, flags: u32, configLen: usize, nowTs: i64, tsMultiplier: i64, tsDivisor: i64, maxBatchBytes: u32): i32 {
  if (!inWindow(input, ptr, len)) return -1;
  if (flags > 7 || configLen > config.cap) return -1;
  if (tsMultiplier < 1 || tsDivisor < 1 || (tsMultiplier != 1 && tsDivisor != 1)) return -1;
  // The configuration: u32 length-prefixed table, time column and action line, then a u32 tag
  // count and the tag names, each u32 length-prefixed; tag stamps go to a table after it.
  const c = config.base;
  const ce = c + configLen;
  let p = c;
  if (p + 4 > ce) return -1;
  const tableN = <usize>load<u32>(p);
  const tableP = p + 4;
  p = tableP + tableN;
  if (tableN == 0 || p + 4 > ce) return -1;
  const timeN = <usize>load<u32>(p);
  const timeP = p + 4;
  p = timeP + timeN;
  if (p + 4 > ce) return -1;
  const actionN = <usize>load<u32>(p);
  const actionP = p + 4;
  p = actionP + actionN;
  if (p + 4 > ce) return -1;
  const tagCount = load<u32>(p);
  p += 4;
  if (<u64>tagCount * 16 > <u64>(config.cap - configLen)) return -1;
  const tagTable = ce; // 16 bytes a tag: name pointer, name length, stamp, pad
  for (let i: u32 = 0; i < tagCount; i++) {
    if (p + 4 > ce) return -1;
    const n = <usize>load<u32>(p);
    if (p + 4 + n > ce) return -1;
    const t = tagTable + (<usize>i << 4);
    store<u32>(t, <u32>(p + 4));
    store<u32>(t, <u32>n, 4);
    p += 4 + n;
  }
  if (p != ce) return -1;

  if ((flags & FLAG_CONTINUED) == 0) {
    beginRequest();
    beginTimeless();
  }
  const timelessAtStart = timelessCount();
  const end = ptr + len;
  sealWindow(end);
  memory.fill(RESULT, 0, 24);
  // The reference decodes the whole body as fatal UTF-8 first.
  if (validateUtf8(ptr, len) != len) return BAIL;
  ensureCapacity(unescaped, len + 16);
  const last = (flags & FLAG_LAST) != 0;
  const bulk = (flags & FLAG_BULK) != 0;
  configure(ptr, last, bulk, tableP, tableN, timeP, timeN, actionP, actionN, tagTable, tagCount, nowTs, tsMultiplier, tsDivisor, maxBatchBytes, unescaped.base);
  beginBatch();
  beginRows();
  beginScan();
  let rc = scanLines(ptr, end);
  if (rc == FULL) {
    // A document's new columns overfilled the batch after it had touched it: build the batch
    // again from the documents before it (rare: a wide document after many narrow ones).
    const cut = stopped;
    setTimelessCount(timelessAtStart);
    configure(ptr, true, bulk, tableP, tableN, timeP, timeN, actionP, actionN, tagTable, tagCount, nowTs, tsMultiplier, tsDivisor, maxBatchBytes, unescaped.base);
    beginBatch();
    beginRows();
    beginScan();
    store<u8>(cut, 0x0a); // the sentinel moves to the cut (the byte before it is a '\n')
    rc = scanLines(ptr, cut);
    if (rc != 0 || stopped != cut) return BAIL; // cannot happen: the same documents fitted before
  }
  if (rc == BAIL) return BAIL;
  writeScanResult(RESULT, stopped - ptr);
  return 0;
}
