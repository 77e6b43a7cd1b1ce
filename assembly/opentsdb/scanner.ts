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
import { CH_BACKSLASH, CH_COMMA, CH_CR, CH_DOT, CH_EQUALS, CH_LF, CH_MINUS, CH_PLUS, CH_SPACE, CH_TAB, hasClass, isDigit, K_KEY_ESCAPE } from '../lineprotocol/chars';
import { bytesEqual, hashBytes, mixScope } from '../lineprotocol/hash';
import {
  addProjected, appendColumn, batchColumn, bcol, blobs, btable, createColumn, createSeries, findColumn,
  findSeries, internTable, KIND_FIELD, KIND_TAG, NONE, predictions, projected, rcol, reserveBlob, series,
} from '../lineprotocol/intern';
import { T_DOUBLE, T_TAG } from '../lineprotocol/number';
import { closeRow, openRow, pushValue, rowCount, rows } from '../lineprotocol/rows';
import { ENTRY_SIZE, sortEntries } from '../lineprotocol/sort';

/** Scan outcomes (tsdb_scan's return value). */
export const OK: i32 = 0;
/** A line the reference parser must judge; nothing of the scan is kept. */
export const BAIL: i32 = 1;

const MAX_NAME: usize = 65535;
const I64_MAX: u64 = 0x7fffffffffffffff;
const TWO53: u64 = 1 << 53;

/** 1e0 .. 1e22, all exact in binary64 (Clinger's fast path, as assembly/lineprotocol/number.ts). */
const POW10: usize = memory.data<f64>([
  1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
  1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
]);
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
  commitRow(rowAt, sid, timestamp);
  return next;
}

/** Completes the row: series statistics, the series' row chain, the batch size estimate. */
function commitRow(rowAt: usize, sid: u32, ts: i64): void {
  closeRow(rowAt, ts, sid, 1);
  const s = series(sid);
  if (s.rowCount == 0) {
    s.minTs = ts;
    s.maxTs = ts;
    s.headRow = <u32>rowAt;
  } else {
    if (ts < s.lastTs) s.sorted = 0;
    if (ts < s.minTs) s.minTs = ts;
    if (ts > s.maxTs) s.maxTs = ts;
    store<u32>(rows.base + <usize>s.tailRow, <u32>rowAt, 16);
  }
  s.lastTs = ts;
  s.tailRow = <u32>rowAt;
  s.rowCount++;
  const t = btable(s.table);
  t.rowCount++;
  addProjected(<u64>t.rowWidth);
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
  let mantissa: u64 = 0;
  let significant: i32 = 0;
  let exponent: i32 = 0;
  let digits: i32 = 0;
  while (i < e && isDigit(c)) {
    if (significant < 19) {
      mantissa = mantissa * 10 + <u64>(c - 0x30);
      if (mantissa != 0) significant++;
    } else {
      significant++;
      exponent++;
    }
    digits++;
    c = load<u8>(++i);
  }
  if (i < e && c == CH_DOT) {
    c = load<u8>(++i);
    while (i < e && isDigit(c)) {
      if (significant < 19) {
        mantissa = mantissa * 10 + <u64>(c - 0x30);
        if (mantissa != 0) significant++;
        exponent--;
      } else {
        significant++;
      }
      digits++;
      c = load<u8>(++i);
    }
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
    let x: i32 = 0;
    while (i < e && isDigit(c)) {
      if (x < 100000) x = x * 10 + <i32>(c - 0x30); // beyond any finite double: the host decides
      c = load<u8>(++i);
    }
    exponent += expNegative ? -x : x;
  }
  if (i != e) return false;
  if (mantissa == 0 && significant == 0) {
    valueBits = negative ? 0x8000000000000000 : 0;
    valueNeedsFixup = false;
  } else if (significant <= 19 && mantissa <= TWO53 && exponent >= -22 && exponent <= 22) {
    let v = <f64>mantissa;
    if (exponent >= 0) v *= load<f64>(POW10 + (<usize>exponent << 3));
    else v /= load<f64>(POW10 + (<usize>-exponent << 3));
    valueBits = reinterpret<u64>(negative ? -v : v);
    valueNeedsFixup = false;
  } else {
    valueBits = 0;
    valueNeedsFixup = true;
  }
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

  const bt = internTable(mp, mn);
  const rt = btable(bt).rtable;
  // The canonical key (FORMAT.md §1), built in place after the last blob; kept for a new series.
  // Key (escaping at most doubles the names) and descriptor (values, 8 bytes a tag) in place.
  reserveBlob(4 + 3 * (mn + (ge - gp)) + 8 * <usize>n + 16);
  const blobOff = <u32>blobs.len;
  const key = blobs.base + blobOff + 4;
  let w = writeEscaped(key, mp, mn);
  for (let i: u32 = 0; i < n; i++) {
    const e = list + <usize>i * ENTRY_SIZE;
    store<u8>(w++, CH_COMMA);
    w = writeEscaped(w, load<u32>(e), load<u32>(e, 4));
    store<u8>(w++, CH_EQUALS);
    w = writeEscaped(w, load<u32>(e, 8), load<u32>(e, 12));
  }
  const keyN = w - key;
  const h = hashBytes(key, keyN);
  let sid = findSeries(key, keyN, h);
  if (sid != NONE) return sid;
  store<u32>(key - 4, <u32>keyN);
  for (let i: u32 = 0; i < n; i++) {
    const e = list + <usize>i * ENTRY_SIZE;
    const bc = tagColumn(rt, load<u32>(e), load<u32>(e, 4));
    if (bc == NONE) return NONE;
    const valueN = load<u32>(e, 12);
    store<u16>(w, <u16>bcol(bc).index);
    store<u16>(w, 0, 2);
    store<u32>(w, valueN, 4);
    memory.copy(w + 8, load<u32>(e, 8), valueN);
    w += 8 + valueN;
  }
  const blobLen = <u32>(w - (key - 4));
  blobs.len += blobLen;
  return createSeries(bt, h, blobOff, blobLen, n);
}

/** The batch column (with its index) for tag key `[p, p + n)` of request table `rt`; NONE on a conflict. */
function tagColumn(rt: u32, p: usize, n: usize): u32 {
  let rc = findColumn(rt, p, n);
  if (rc == NONE) rc = createColumn(rt, p, n, KIND_TAG, T_TAG);
  else if (rcol(rc).kind != KIND_TAG) return NONE;
  const bc = batchColumn(rc);
  if (bcol(bc).index == NONE && !appendColumn(bc)) return NONE;
  return bc;
}

/** Writes `[p, p + n)` with `\` `,` `=` space escaped by a backslash; returns the end. */
function writeEscaped(w: usize, p: usize, n: usize): usize {
  for (let i: usize = 0; i < n; i++) {
    const c = load<u8>(p + i);
    if (hasClass(c, K_KEY_ESCAPE)) store<u8>(w++, CH_BACKSLASH);
    store<u8>(w++, c);
  }
  return w;
}
