// The OpenTSDB text line loop (`[put ]<metric> <timestamp> <value> <tagk>=<tagv>...`, grammar in
// host/ingest/opentsdb-text.ts, which stays the reference and the error path): each line becomes
// a row of table <metric>, tags as given, one DOUBLE field `value`, in the write batch the
// line-protocol scanner builds (it shares intern.ts, rows.ts and batch-writer.ts, so the batch is
// laid out by the same code). Telegraf repeats a host's tag text on every metric and a metric on
// every host, so (metric, tag text) is looked up raw, and tags are parsed and sorted only the
// first time a batch sees the pair.
//
// This scanner takes only what it is sure of: any line the reference would refuse, and the rare
// valid lines it does not handle (a tag key given twice), stop the scan with BAIL, and the host
// parses the whole body with the reference instead, which gives the right error or the batches.

import { HashTable, clearHashTable, insert, newArena, newHashTable, push, pushPtr } from '../lineprotocol/arena';
import { CH_CR, CH_DOT, CH_EQUALS, CH_LF, CH_MINUS, CH_PLUS, CH_SPACE, CH_TAB, isDigit } from '../lineprotocol/chars';
import { bytesEqual, hashBytes, mixScope } from '../lineprotocol/hash';
import {
  appendColumn, batchColumn, bcol, btable, createColumn, findColumn, internTable, KIND_FIELD, NONE, predictions,
  projected, rcol, series,
} from '../lineprotocol/intern';
import { beginDecimal, decExponent, decimalBits, decMantissa, decSignificant, exactDecimal, readDigits, readExponent, T_DOUBLE } from '../lineprotocol/number';
import { commitRow, openRow, pushValue, rowCount } from '../lineprotocol/rows';
import { seriesOfTags } from '../lineprotocol/series-key';
import { ENTRY_SIZE, sortEntries } from '../lineprotocol/sort';

/** Scan outcomes (tsdb_scan's return value). */
export const OK: i32 = 0;
/** A line the reference parser must judge; nothing of the scan is kept. */
export const BAIL: i32 = 1;

const MAX_NAME: usize = 65535;
const I64_MAX: u64 = 0x7fffffffffffffff;

/** The field name. */
const VALUE_NAME: usize = memory.data<u8>([0x76, 0x61, 0x6c, 0x75, 0x65]);

// Set by configure for the whole call.
let inputBase: usize = 0;
let fixedUnit = false;
let secMul: i64 = 1;
let secDiv: i64 = 1;
let msMul: i64 = 1;
let msDiv: i64 = 1;
let maxBatchBytes: u64 = 0;

export function configure(base: usize, fixed: bool, sMul: i64, sDiv: i64, mMul: i64, mDiv: i64, maxBytes: u64): void {
  inputBase = base;
  fixedUnit = fixed;
  secMul = sMul;
  secDiv = sDiv;
  msMul = mMul;
  msDiv = mDiv;
  maxBatchBytes = maxBytes;
}

// ---- the raw (metric, tag text) -> series cache of the batch ----

/** Records: metric pointer, metric length, tags pointer, tags length, series, pad (input pointers, valid for the call). */
const RAW_SIZE: usize = 24;
const raws = newArena(4096);
const rawIndex: HashTable = newHashTable(256);

export function beginRawCache(): void {
  raws.len = 0;
  clearHashTable(rawIndex);
}

function findRaw(mp: usize, mn: usize, tp: usize, tn: usize, h: u32): u32 {
  const t = rawIndex;
  let i = h & t.mask;
  while (true) {
    const slot = t.slots + (<usize>i << 3);
    const idp1 = load<u32>(slot, 4);
    if (idp1 == 0) return NONE;
    if (load<u32>(slot) == h) {
      const r = raws.base + <usize>(idp1 - 1) * RAW_SIZE;
      if (
        load<u32>(r, 4) == <u32>mn &&
        load<u32>(r, 12) == <u32>tn &&
        bytesEqual(load<u32>(r), mp, mn) &&
        bytesEqual(load<u32>(r, 8), tp, tn)
      ) {
        return load<u32>(r, 16);
      }
    }
    i = (i + 1) & t.mask;
  }
}

function addRaw(mp: usize, mn: usize, tp: usize, tn: usize, h: u32, sid: u32): void {
  const id = <u32>(raws.len / RAW_SIZE);
  const r = pushPtr(raws, RAW_SIZE);
  store<u32>(r, <u32>mp);
  store<u32>(r, <u32>mn, 4);
  store<u32>(r, <u32>tp, 8);
  store<u32>(r, <u32>tn, 12);
  store<u32>(r, sid, 16);
  insert(rawIndex, h, id);
}

// ---- tokens ----

/** The end of the token at `p`: a space, a tab, `\n`, or a `\r` right before `\n`. */
@inline
function tokenEnd(p: usize): usize {
  while (true) {
    const c = <u32>load<u8>(p);
    if (c == CH_SPACE || c == CH_TAB || c == CH_LF) return p;
    if (c == CH_CR && load<u8>(p + 1) == CH_LF) return p;
    p++;
  }
}

/** The first byte at or after `p` that is not a space or a tab. */
@inline
function skipBlanks(p: usize): usize {
  let c = <u32>load<u8>(p);
  while (c == CH_SPACE || c == CH_TAB) c = load<u8>(++p);
  return p;
}

/** At the end of a line: `\n`, or `\r\n`. */
@inline
function atLineEnd(p: usize): bool {
  const c = <u32>load<u8>(p);
  return c == CH_LF || (c == CH_CR && load<u8>(p + 1) == CH_LF);
}

// ---- the line loop ----

/**
 * Scans the lines of `[start, end)` (complete lines; a '\n' sentinel sits at `end`). Returns OK
 * or BAIL; `stopped` tells where the scan ended (the start of the first line not taken, when
 * the batch filled up).
 */
export let stopped: usize = 0;

export function scanLines(start: usize, end: usize): i32 {
  let p = start;
  while (p < end) {
    // A full batch ends before this line (a first row always fits).
    if (projected > maxBatchBytes && rowCount > 0) break;
    p = skipBlanks(p);
    if (atLineEnd(p)) {
      p = load<u8>(p) == CH_LF ? p + 1 : p + 2;
      continue;
    }
    p = scanLine(p);
    if (p == 0) return BAIL;
  }
  stopped = p < end ? p : end;
  return OK;
}

/** Scans the line whose first non-blank byte is at `p`; returns the start of the next line, or 0. */
function scanLine(p: usize): usize {
  // metric, timestamp and value (after an optional leading `put`).
  let e = tokenEnd(p);
  if (e - p == 3 && load<u8>(p) == 0x70 && load<u8>(p + 1) == 0x75 && load<u8>(p + 2) == 0x74) {
    p = skipBlanks(e);
    if (atLineEnd(p)) return 0;
    e = tokenEnd(p);
  }
  const mp = p;
  const mn = e - p;
  if (mn > MAX_NAME) return 0;
  p = skipBlanks(e);
  if (atLineEnd(p)) return 0;
  const tp = p;
  p = tokenEnd(p);
  const tn = p - tp;
  p = skipBlanks(p);
  if (atLineEnd(p)) return 0;
  const vp = p;
  p = tokenEnd(p);
  const vn = p - vp;
  // The tag text: the rest of the line without the blanks around it.
  const gp = skipBlanks(p);
  let ge = gp;
  while (!atLineEnd(ge)) ge++;
  const next = load<u8>(ge) == CH_LF ? ge + 1 : ge + 2;
  while (ge > gp) {
    const c = <u32>load<u8>(ge - 1);
    if (c != CH_SPACE && c != CH_TAB) break;
    ge--;
  }

  if (ge == gp) return 0; // no tag: the reference refuses the line
  if (!parseTimestamp(tp, tn)) return 0;
  if (!parseValue(vp, vn)) return 0;

  const h = mixScope(hashBytes(gp, ge - gp), hashBytes(mp, mn));
  let sid = findRaw(mp, mn, gp, ge - gp, h);
  if (sid == NONE) {
    sid = seriesOf(mp, mn, gp, ge);
    if (sid == NONE) return 0;
    addRaw(mp, mn, gp, ge - gp, h, sid);
  }

  // The field `value`: its request column is kept in the table's first prediction slot.
  const bt = series(sid).table;
  const rt = btable(bt).rtable;
  const slot = predictions(rt);
  let rc = load<u32>(slot);
  if (rc == NONE) {
    rc = findColumn(rt, VALUE_NAME, 5);
    if (rc == NONE) rc = createColumn(rt, VALUE_NAME, 5, KIND_FIELD, T_DOUBLE);
    store<u32>(slot, rc);
  }
  const col = rcol(rc);
  if (col.kind != KIND_FIELD || col.type != T_DOUBLE) return 0; // a tag named `value`
  const serial = rowCount;
  const bc = batchColumn(rc);
  if (bcol(bc).index == NONE && !appendColumn(bc)) return 0;
  const rowAt = openRow();
  const b = bcol(bc);
  b.lastRow = serial;
  b.present++;
  if (valueNeedsFixup) pushValue(bc, <u32>vn, vp - inputBase);
  else pushValue(bc, 0, valueBits);
  commitRow(rowAt, sid, timestamp, 1);
  return next;
}

// ---- timestamp and value ----

let timestamp: i64 = 0;

/**
 * `-?digits`, the whole token, converted to the database unit: with a fixed unit by the seconds
 * factors, otherwise up to 10 digits as seconds and 11 to 13 as milliseconds. False for
 * anything else (more digits, out of the i64 range, overflow when converted).
 */
function parseTimestamp(p: usize, n: usize): bool {
  const e = p + n;
  let i = p;
  const negative = load<u8>(i) == CH_MINUS;
  if (negative) i++;
  if (i == e) return false;
  const digits = e - i;
  let v: u64 = 0;
  let significant: i32 = 0;
  for (; i < e; i++) {
    const c = <u32>load<u8>(i);
    if (!isDigit(c)) return false;
    if (significant < 19) {
      v = v * 10 + <u64>(c - 0x30);
      if (v != 0) significant++;
    } else {
      return false;
    }
  }
  if (v > (negative ? I64_MAX + 1 : I64_MAX)) return false;
  const ts = negative ? <i64>(0 - v) : <i64>v;
  let mul = secMul;
  let div = secDiv;
  if (!fixedUnit) {
    if (digits > 13) return false;
    if (digits > 10) {
      mul = msMul;
      div = msDiv;
    }
  }
  if (mul != 1) {
    if (ts > <i64>I64_MAX / mul || ts < (<i64>(I64_MAX + 1)) / mul) return false;
    timestamp = ts * mul;
  } else {
    timestamp = div == 1 ? ts : ts / div;
  }
  return true;
}

let valueBits: u64 = 0;
let valueNeedsFixup = false;

/**
 * `[+-]?(digits[.digits?] | .digits)([eE][+-]?digits)?`, the whole token, as a DOUBLE: exact by
 * Clinger's fast path, else left to the host's Number(text) (a fixup).
 */
function parseValue(p: usize, n: usize): bool {
  const e = p + n;
  let i = p;
  let c = <u32>load<u8>(i);
  const negative = c == CH_MINUS;
  if (c == CH_MINUS || c == CH_PLUS) c = load<u8>(++i);
  beginDecimal();
  const intStart = i;
  i = readDigits(i, false);
  let digits = i - intStart;
  c = i < e ? <u32>load<u8>(i) : 0;
  if (i < e && c == CH_DOT) {
    const fracStart = i + 1;
    i = readDigits(fracStart, true);
    digits += i - fracStart;
    c = i < e ? <u32>load<u8>(i) : 0;
  }
  if (digits == 0) return false;
  if (i < e && (c | 0x20) == 0x65 /* e or E */) {
    c = load<u8>(++i);
    let expNegative = false;
    if (i < e && (c == CH_MINUS || c == CH_PLUS)) {
      expNegative = c == CH_MINUS;
      c = load<u8>(++i);
    }
    if (i == e || !isDigit(c)) return false;
    i = readExponent(i, expNegative);
  }
  if (i != e) return false;
  valueNeedsFixup = !exactDecimal(decMantissa, decSignificant, decExponent, negative);
  valueBits = decimalBits;
  return true;
}

// ---- a (metric, tags) pair new to the batch ----

/** Sort entries of a line's tags (key pointer, key length, value pointer, value length), then sort scratch. */
const entries = newArena(1024);

/**
 * The batch series of metric `[mp, mp + mn)` with the tag text `[gp, ge)` (pairs separated by
 * blanks), created with its table and tag columns as needed; NONE when the reference must judge
 * the line (a malformed pair, a key given twice, `time` as a key, a tag named like the field).
 */
function seriesOf(mp: usize, mn: usize, gp: usize, ge: usize): u32 {
  entries.len = 0;
  let n: u32 = 0;
  let p = gp;
  while (p < ge) {
    let q = p;
    let eq: usize = 0;
    while (q < ge) {
      const c = <u32>load<u8>(q);
      if (c == CH_SPACE || c == CH_TAB) break;
      if (c == CH_EQUALS && eq == 0) eq = q;
      q++;
    }
    if (eq == 0 || eq == p || eq == q - 1) return NONE;
    const kn = eq - p;
    if (kn > MAX_NAME) return NONE;
    if (kn == 4 && load<u32>(p) == 0x656d6974 /* time */) return NONE;
    const e = pushPtr(entries, ENTRY_SIZE);
    store<u32>(e, <u32>p);
    store<u32>(e, <u32>kn, 4);
    store<u32>(e, <u32>(eq + 1), 8);
    store<u32>(e, <u32>(q - eq - 1), 12);
    n++;
    p = skipBlanks(q);
  }
  push(entries, <usize>n * ENTRY_SIZE); // room for the merge sort's second buffer
  const list = entries.base;
  sortEntries(list, n, list + <usize>n * ENTRY_SIZE);
  for (let i: u32 = 1; i < n; i++) {
    const a = list + <usize>(i - 1) * ENTRY_SIZE;
    const b = list + <usize>i * ENTRY_SIZE;
    if (load<u32>(a, 4) == load<u32>(b, 4) && bytesEqual(load<u32>(a), load<u32>(b), load<u32>(b, 4))) return NONE;
  }

  return seriesOfTags(internTable(mp, mn), mp, mn, list, n);
}
