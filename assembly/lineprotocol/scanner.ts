// The line loop: one pass over complete lines that finds each line's series (through the raw
// prefix cache, prefix.ts on a miss), its fields and timestamp, and appends a row to the row log.
// Field keys are first compared with the column the same field position had in the previous line
// of the table (TSBS lines repeat their field order), which skips hashing on the hot path.

import { newArena } from './arena';
import { CH_CR, CH_HASH, CH_LF, CH_SPACE, CH_TAB, CH_BACKSLASH, CH_COMMA, CH_EQUALS, hasClass, K_KEY, K_PREFIX } from './chars';
import { parseValue, stringN, stringP } from './fields';
import { bytesEqual, hashBytes } from './hash';
import {
  batchColumn, bcol, btable, createColumn, enterPendingColumns, findColumn, findRaw, KIND_FIELD,
  KIND_TAG, inBatch, NONE, PREDICT_SLOTS, projected, rcol, rcolName, reqNames, rtable, series,
} from './intern';
import { charLen, isTime, nameN, nameP, resetNames, scanName } from './names';
import { parseTimestamp, T_STRING, timestamp, tokenEnd, valueBits, valueNeedsFixup, valueType } from './number';
import { parsePrefix } from './prefix';
import { commitRow, markField, openRow, pushString, pushValue, rowCount } from './rows';
import {
  badUtf8, countNewline, E_AFTER_TIMESTAMP, E_AFTER_VALUE, E_COLUMN_COUNT, E_FIELD_KEY, E_FIELD_SET,
  E_FIELD_EQUALS, E_NAME_LENGTH, E_TIME_RESERVED, E_TIMESTAMP_OVERFLOW, E_UTF8, fail,
  failConflict, failName, full, incomplete, inputBase, isLast, safeEnd, startLine, stop, WHAT_FIELD,
} from './status';

const MAX_NAME: usize = 65535;
const I64_MAX: i64 = 0x7fffffffffffffff;
const I64_MIN: i64 = -0x8000000000000000;

// Set by lp_scan for the whole call.
let tsMultiplier: i64 = 1;
let tsDivisor: i64 = 1;
let defaultTs: i64 = 0;
let maxBatchBytes: u64 = 0;

export function configure(mul: i64, div: i64, dflt: i64, maxBytes: u64): void {
  tsMultiplier = mul;
  tsDivisor = div;
  defaultTs = dflt;
  maxBatchBytes = maxBytes;
}

/** Field columns new to the batch in the current row: batch column id, raw key position. */
const pending = newArena(1024);

/**
 * Scans the lines that start in `[start, safeEnd)` and returns where scanning stopped: the start
 * of the first line not taken, or the end of the input. `status` tells why it stopped.
 */
export function scanLines(start: usize): usize {
  let p = start;
  while (p < safeEnd) {
    startLine(p);
    // A full batch ends before this line; a first row always fits (it is linear in its size).
    if (projected > maxBatchBytes && rowCount > 0) return p;
    let c = <u32>load<u8>(p);
    while (c == CH_SPACE || c == CH_TAB) c = load<u8>(++p);
    if (c == CH_LF || c == CH_HASH || (c == CH_CR && load<u8>(p + 1) == CH_LF)) {
      while (c != CH_LF) c = load<u8>(++p);
      if (p == stop) return badUtf8 < stop ? fail(E_UTF8, badUtf8, 1) : stop;
      countNewline();
      p++;
      if (badUtf8 < p) return fail(E_UTF8, badUtf8, 1);
      continue;
    }
    p = scanLine(p);
    if (p == 0) return 0;
  }
  return p;
}

/** Scans the line whose first non-blank byte is at `ms`; returns the start of the next line, or 0. */
function scanLine(ms: usize): usize {
  resetNames();
  // The raw prefix: up to the first unescaped space (a backslash pairs with the next byte).
  let q = ms;
  let c = <u32>load<u8>(q);
  while (true) {
    while (!hasClass(c, K_PREFIX)) c = load<u8>(++q);
    if (c != CH_BACKSLASH || load<u8>(q + 1) == CH_LF) break;
    q += 2;
    c = load<u8>(q);
  }
  if (c != CH_SPACE) {
    parsePrefix(ms, q, 0); // reports what is wrong
    return 0;
  }
  const rawHash = hashBytes(ms, q - ms);
  let sid = findRaw(ms, q - ms, rawHash);
  if (sid == NONE) {
    sid = parsePrefix(ms, q, rawHash);
    if (sid == NONE) return 0;
  }
  const bt = series(sid).table;
  const rt = btable(bt).rtable;
  const predictOff = rtable(rt).predictOff;
  const serial = rowCount;

  let p = q + 1;
  c = load<u8>(p);
  while (c == CH_SPACE) c = load<u8>(++p);
  if (charLen(p) == 0) return fail(E_FIELD_SET, p, 0);
  const rowAt = openRow();
  let count: u32 = 0;
  pending.len = 0;
  let slot: u32 = 0;
  while (true) {
    const k = p;
    let rc = NONE;
    let keyP: usize = 0;
    let keyN: usize = 0;
    // The column this field position had in the table's previous line, compared raw.
    if (slot < PREDICT_SLOTS) {
      rc = load<u32>(reqNames.base + predictOff + (<usize>slot << 2));
      if (rc != NONE) {
        const col = rcol(rc);
        const n = <usize>col.nameLen;
        if (col.plain && k + n < stop && load<u8>(k + n) == CH_EQUALS && bytesEqual(k, rcolName(col), n)) {
          p = k + n + 1;
        } else {
          rc = NONE;
        }
      }
    }
    if (rc == NONE) {
      p = scanName(k, K_KEY, WHAT_FIELD);
      if (p == 0) return 0;
      keyP = nameP;
      keyN = nameN;
      if (keyN == 0) return fail(E_FIELD_KEY, k, charLen(k));
      if (load<u8>(p) != CH_EQUALS) return fail(E_FIELD_EQUALS, p, charLen(p));
      p++;
      rc = findColumn(rt, keyP, keyN);
      if (rc != NONE && slot < PREDICT_SLOTS) store<u32>(reqNames.base + predictOff + (<usize>slot << 2), rc);
    }
    const keyEnd = p - 1;
    p = parseValue(p);
    if (p == 0) return 0;
    // A value cut by the end of a non-final window could read as another type: take nothing.
    if (p == stop && !isLast) return incomplete();
    const type = valueType;
    let bc: u32;
    if (rc == NONE) {
      if (keyN > MAX_NAME) return failName(E_NAME_LENGTH, k, keyEnd - k, WHAT_FIELD);
      if (isTime(keyP, keyN)) return failName(E_TIME_RESERVED, k, keyEnd - k, WHAT_FIELD);
      rc = createColumn(rt, keyP, keyN, KIND_FIELD, type);
      if (slot < PREDICT_SLOTS) store<u32>(reqNames.base + predictOff + (<usize>slot << 2), rc);
      bc = batchColumn(rc);
    } else {
      const col = rcol(rc);
      if (inBatch(rc) && bcol(col.bcol).lastRow == serial) {
        // A repeated field keeps its first value.
        c = load<u8>(p);
        if (c == CH_COMMA) {
          p++;
          slot++;
          continue;
        }
        break;
      }
      if (col.kind != KIND_FIELD || col.type != type) {
        return failConflict(k, keyEnd - k, rt, rc, col.kind == KIND_TAG ? 0 : col.type, type);
      }
      bc = batchColumn(rc);
    }
    markField(pending, bc, <u32>k, serial);
    if (type == T_STRING) {
      pushString(bc, stringN, stringP);
    } else if (valueNeedsFixup) {
      pushValue(bc, <u32>(p - (keyEnd + 1)), keyEnd + 1 - inputBase);
    } else {
      pushValue(bc, 0, valueBits);
    }
    count++;
    c = load<u8>(p);
    if (c != CH_COMMA) break;
    p++;
    slot++;
  }

  // The timestamp, optional, after one or more spaces (or tabs); trailing blanks are allowed.
  let ts = defaultTs;
  let hasTs = false;
  if (c == CH_SPACE || c == CH_TAB) {
    while (c == CH_SPACE || c == CH_TAB) c = load<u8>(++p);
    if (c != CH_LF && !(c == CH_CR && load<u8>(p + 1) == CH_LF)) {
      const tp = p;
      p = parseTimestamp(p);
      if (p == 0) return 0;
      ts = convertTimestamp(timestamp);
      if (overflowed) return fail(E_TIMESTAMP_OVERFLOW, tp, p - tp);
      hasTs = true;
      c = load<u8>(p);
      while (c == CH_SPACE || c == CH_TAB) c = load<u8>(++p);
    }
  }
  if (c == CH_CR && load<u8>(p + 1) == CH_LF) c = load<u8>(++p);
  if (c != CH_LF) return fail(hasTs ? E_AFTER_TIMESTAMP : E_AFTER_VALUE, p, afterLen(p));
  if (p == stop && !isLast) return incomplete();

  if (pending.len > 0) {
    if (!enterNewColumns()) return 0;
    // New columns widen every earlier row: end the batch before this line if it got too big.
    if (projected > maxBatchBytes && rowCount > 0) return full();
  }
  commitRow(rowAt, sid, ts, count);
  if (p == stop) return badUtf8 < stop ? fail(E_UTF8, badUtf8, 1) : stop;
  countNewline();
  p++;
  if (badUtf8 < p) return fail(E_UTF8, badUtf8, 1);
  return p;
}

/** Bytes of the token at `p` where the line should have ended, for the excerpt. */
function afterLen(p: usize): usize {
  const e = tokenEnd(p);
  return e > p ? e - p : charLen(p);
}

/** Set by convertTimestamp when `ts * tsMultiplier` does not fit an i64. */
let overflowed = false;

/** Converts a timestamp to the database precision: ts * mul / div, one of them 1 (Rust's `/`). */
@inline
function convertTimestamp(ts: i64): i64 {
  overflowed = false;
  if (tsMultiplier != 1) {
    if (ts > I64_MAX / tsMultiplier || ts < I64_MIN / tsMultiplier) {
      overflowed = true;
      return 0;
    }
    return ts * tsMultiplier;
  }
  return tsDivisor == 1 ? ts : ts / tsDivisor;
}

/** Enters the row's new field columns (intern.ts), reporting a table that would pass 65535 columns. */
function enterNewColumns(): bool {
  const e = enterPendingColumns(pending);
  if (e == 0) return true;
  fail(E_COLUMN_COUNT, <usize>load<u32>(e, 12), <usize>load<u32>(e, 4));
  return false;
}

