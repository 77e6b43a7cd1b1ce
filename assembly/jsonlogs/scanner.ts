// The JSON log document loop of `/api/v1/es/_bulk` (NDJSON, and Elasticsearch bulk's action and
// document lines), the fast path of host/ingest/log-documents.ts, which stays the reference and
// the error path: a document is a JSON object flattened with `.` (array elements by index, empty
// objects and arrays vanish); the time column is an RFC 3339 string or an integer of
// nanoseconds; tag columns are strings; every other leaf is a field: numbers DOUBLE, booleans
// BOOLEAN, strings STRING. Rows go into the write batch the line-protocol scanner builds (it
// shares intern.ts, rows.ts and batch-writer.ts, so the batch is laid out by the same code).
//
// This scanner takes only what it is sure of. Every document the reference would refuse (bad
// JSON, a null, a time that does not parse, a type conflict, no field) and the valid ones it
// leaves alone (a key given twice in an object, where JSON.parse keeps the last value, or a
// flattened name given twice, where the reference keeps the first; escapes in keys; surrogate
// escapes; tag values that are not strings; an integer time past 2^53 that is not the line's one
// integer member of its key; ISO 8601's basic format; non-finite numbers; nesting past 60 levels;
// a time that ties with an earlier row of its series in the batch)
// stop the scan with BAIL, and the host parses the whole body with the reference instead.

import { clearHashTable, HashTable, insert, newArena, newHashTable, push, pushPtr, reserve } from '../lineprotocol/arena';
import { CH_BACKSLASH, CH_COMMA, CH_CR, CH_LF, CH_MINUS, CH_QUOTE, CH_SPACE, CH_TAB, isDigit } from '../lineprotocol/chars';
import { bytesEqual, hashBytes, mixScope } from '../lineprotocol/hash';
import {
  batchColumn, bcol, btable, createColumn, enterPendingColumns, findColumn, internTable, KIND_FIELD, NONE,
  projected, rcol, series, Series,
} from '../lineprotocol/intern';
import { isTime } from '../lineprotocol/names';
import {
  beginDecimal, decExponent, decimalBits, decMantissa, decSignificant, exactDecimal, readDigits, readExponent, T_BOOLEAN, T_DOUBLE, T_STRING,
} from '../lineprotocol/number';
import { commitRow, markField, openRow, pushString, pushValue, rowCount, rows } from '../lineprotocol/rows';
import { seriesOfTags } from '../lineprotocol/series-key';
import { ENTRY_SIZE, sortEntries } from '../lineprotocol/sort';
import { parsedNs, parseRfc3339 } from './rfc3339';

/** Scan outcomes (json_scan's return value). */
export const OK: i32 = 0;
/** A document the reference parser must judge; nothing of the scan is kept. */
export const BAIL: i32 = 1;
/**
 * The document starting at `stopped` widened the batch past its limit with new columns after it
 * had touched the batch: scan again up to `stopped` (index.ts), and that document goes next call.
 */
export const FULL: i32 = 2;

/** A position no input has: the failure result of the parse functions. */
const FAIL: usize = 0;
const MAX_NAME: usize = 65535;
/** Nesting the scanner takes (the reference refuses 64). */
const MAX_DEPTH: u32 = 60;
const TWO53: u64 = 1 << 53;

// ---- configuration of the call (index.ts) ----

let inputBase: usize = 0;
let lastWindow = false;
let bulk = false;
let tableP: usize = 0;
let tableN: usize = 0;
let timeP: usize = 0;
let timeN: usize = 0;
let actionP: usize = 0;
let actionN: usize = 0;
/** Tag columns: (name pointer u32, name length u32, stamp u32, pad) each. */
let tagList: usize = 0;
let tagCount: u32 = 0;
/** The time of documents without one, in the database precision: the k-th of the request's gets nowTs + k (host/ingest/log-documents.ts LogOptions.now). */
let nowTs: i64 = 0;
/** The request's documents without a time so far (kept across windows; json_scan resets it). */
let timeless: i64 = 0;

/** Starts a request: its first document without a time gets nowTs itself. */
export function beginTimeless(): void {
  timeless = 0;
}

/** The documents without a time so far, to scan a window again from where it started. */
export function timelessCount(): i64 {
  return timeless;
}

export function setTimelessCount(n: i64): void {
  timeless = n;
}
let tsMul: i64 = 1;
let tsDiv: i64 = 1;
let maxBatchBytes: u64 = 0;
/** Where the next unescaped string goes: an area sized to the window, so pointers stay valid. */
let escAt: usize = 0;

export function configure(
  base: usize, last: bool, isBulk: bool, table: usize, tableLen: usize, time: usize, timeLen: usize,
  action: usize, actionLen: usize, tagTable: usize, tagsCount: u32, now: i64, mul: i64, div: i64, maxBytes: u64, esc: usize,
): void {
  inputBase = base;
  lastWindow = last;
  bulk = isBulk;
  tableP = table;
  tableN = tableLen;
  timeP = time;
  timeN = timeLen;
  actionP = action;
  actionN = actionLen;
  tagList = tagTable;
  tagCount = tagsCount;
  nowTs = now;
  tsMul = mul;
  tsDiv = div;
  maxBatchBytes = maxBytes;
  escAt = esc;
  // Tag stamps hold row serials of the previous call: start afresh.
  for (let i: u32 = 0; i < tagsCount; i++) store<u32>(tagTable + (<usize>i << 4), 0, 8);
}

// ---- the line loop ----

/** Where the scan ended: the start of the first line not taken (or the end). */
export let stopped: usize = 0;
/** The batch table of this call (NONE until the first document). */
let batchTable: u32 = NONE;
/** A document failed because it overfilled the batch, not because of what it holds. */
let overfilled = false;

export function beginScan(): void {
  batchTable = NONE;
  overfilled = false;
  resetTies();
}

/** JSON's blanks inside a line: space, tab, `\r`. */
@inline
function skipBlanks(p: usize): usize {
  let c = <u32>load<u8>(p);
  while (c == CH_SPACE || c == CH_TAB || c == CH_CR) c = load<u8>(++p);
  return p;
}

/** The `\n` that ends the line holding `p` (a sentinel sits at the end of the window). */
@inline
function lineEnd(p: usize): usize {
  while (load<u8>(p) != CH_LF) p++;
  return p;
}

/**
 * Scans the lines of `[start, end)` (whole lines; a '\n' sentinel sits at `end`). Returns OK
 * with `stopped` set, or BAIL.
 */
export function scanLines(start: usize, end: usize): i32 {
  let p = start;
  while (p < end) {
    const lineStart = p;
    p = skipBlanks(p);
    let c = <u32>load<u8>(p);
    if (c == CH_LF) {
      p++;
      continue; // a blank line
    }
    // Other Unicode blanks make a line blank for the reference (String.prototype.trim).
    if (c >= 0x80) return BAIL;
    if (bulk) {
      // Shippers repeat one action line before every document; the host checked it.
      const e = lineEnd(lineStart);
      if (e - lineStart != actionN || !bytesEqual(lineStart, actionP, actionN)) return BAIL;
      p = e + 1;
      while (true) {
        if (p >= end) {
          if (lastWindow) return BAIL; // an action without its document
          stopped = lineStart; // the pair continues in the next window
          return OK;
        }
        p = skipBlanks(p);
        c = load<u8>(p);
        if (c != CH_LF) break;
        p++;
      }
      if (c >= 0x80) return BAIL;
    }
    // A full batch ends before this document (a first row always fits).
    if (projected > maxBatchBytes && rowCount > 0) {
      stopped = lineStart;
      return OK;
    }
    p = scanDocument(p);
    if (p == FAIL) {
      if (!overfilled) return BAIL;
      stopped = lineStart;
      return FULL;
    }
  }
  stopped = p < end ? p : end;
  return OK;
}

// ---- one document ----

/** The flattened name of the value being read: `names[0, n)` (parent names are its prefixes). */
const names = newArena(1024);
/** New field columns of the row ((batch column, 0) pairs), entered at its end in name order (intern.ts). */
const pending = newArena(256);
/** The row's tags: name pointer, name length, value pointer, value length; then sort scratch. */
const tags = newArena(256);

let serial: u32 = 0;
let valueCount: u32 = 0;
/** The document's line, from its first byte to its `\n`. */
let lineP: usize = 0;

// The members of the document's objects, to find a key given twice in one object: JSON.parse
// keeps the last value there (an object and a number under one key flatten to different names).
/** Records: object number u32, key pointer u32, key length u32. */
const members = newArena(1024);
/** Slots of the member table for ordinary documents. */
const MEMBER_SLOTS: u32 = 64;
let memberIndex: HashTable = newHashTable(MEMBER_SLOTS);
let objectCount: u32 = 0;

/**
 * Empties the member records for the next document. A table grown by a document of many keys
 * is replaced by a small one: clearing it would cost every later document its whole size.
 */
function resetMembers(): void {
  members.len = 0;
  objectCount = 0;
  if (memberIndex.mask >= 16 * MEMBER_SLOTS) {
    heap.free(memberIndex.slots);
    heap.free(changetype<usize>(memberIndex));
    memberIndex = newHashTable(MEMBER_SLOTS);
  } else {
    clearHashTable(memberIndex);
  }
}

/** Records the key `[k, k + n)` of object `obj`; false if the object has it already. */
function newMember(obj: u32, k: usize, n: usize): bool {
  const h = mixScope(hashBytes(k, n), obj);
  const t = memberIndex;
  let i = h & t.mask;
  while (true) {
    const slot = t.slots + (<usize>i << 3);
    const idp1 = load<u32>(slot, 4);
    if (idp1 == 0) break;
    if (load<u32>(slot) == h) {
      const r = members.base + <usize>(idp1 - 1) * 12;
      if (load<u32>(r) == obj && <usize>load<u32>(r, 8) == n && bytesEqual(load<u32>(r, 4), k, n)) return false;
    }
    i = (i + 1) & t.mask;
  }
  const id = <u32>(members.len / 12);
  const r = pushPtr(members, 12);
  store<u32>(r, obj);
  store<u32>(r, <u32>k, 4);
  store<u32>(r, <u32>n, 8);
  insert(memberIndex, h, id);
  return true;
}

// ---- ties: rows of one series at one time in the batch ----

/** Rows of the batch (offsets in `rows`) by (series, time), for the series whose `indexed` is set. */
const TIE_SLOTS: u32 = 1024;
let tieIndex: HashTable = newHashTable(TIE_SLOTS);

function resetTies(): void {
  if (tieIndex.mask >= 16 * TIE_SLOTS) {
    heap.free(tieIndex.slots);
    heap.free(changetype<usize>(tieIndex));
    tieIndex = newHashTable(TIE_SLOTS);
  } else {
    clearHashTable(tieIndex);
  }
}

@inline
function tieHash(sid: u32, ts: i64): u32 {
  return mixScope(<u32>(ts ^ (ts >>> 32)) * 0x85ebca6b, sid);
}

/** Adds the committed row at offset `at` (its series and time in its header) to the index. */
function indexRow(at: usize): void {
  const r = rows.base + at;
  insert(tieIndex, tieHash(load<u32>(r, 8), load<i64>(r)), <u32>at);
}

/**
 * Whether series `sid` has a row at `ts` in the batch. Its rows enter the index the first time
 * one is looked up (walking its chain), and every later row of it as it is committed.
 */
function tieAt(sid: u32, s: Series, ts: i64): bool {
  if (s.indexed == 0) {
    s.indexed = 1;
    for (let at = <usize>s.headRow; at != <usize>NONE; at = <usize>load<u32>(rows.base + at, 16)) indexRow(at);
  }
  const h = tieHash(sid, ts);
  const t = tieIndex;
  let i = h & t.mask;
  while (true) {
    const slot = t.slots + (<usize>i << 3);
    const idp1 = load<u32>(slot, 4);
    if (idp1 == 0) return false;
    if (load<u32>(slot) == h) {
      const r = rows.base + <usize>(idp1 - 1);
      if (load<i64>(r) == ts && load<u32>(r, 8) == sid) return true;
    }
    i = (i + 1) & t.mask;
  }
}

/** The row's time column was read (a second one bails), and the row's time. */
let hasTime = false;
let rowTs: i64 = 0;

/** Scans the document starting at `p` (its first byte); returns the start of the next line, or FAIL. */
function scanDocument(p: usize): usize {
  if (load<u8>(p) != 0x7b /* { */) return FAIL;
  if (batchTable == NONE) batchTable = internTable(tableP, tableN);
  lineP = p;
  resetMembers();
  serial = rowCount;
  valueCount = 0;
  hasTime = false;
  rowTs = 0;
  pending.len = 0;
  tags.len = 0;
  const rowAt = openRow();
  p = parseObject(p, 0, 0);
  if (p == FAIL) return FAIL;
  p = skipBlanks(p);
  if (load<u8>(p) != CH_LF) return FAIL;
  if (valueCount == 0) return FAIL; // no field
  const sid = seriesOf();
  if (sid == NONE) return FAIL;
  if (pending.len > 0) {
    if (enterPendingColumns(pending) != 0) return FAIL; // past 65535 columns
    // New columns widen every earlier row: a document that makes the batch too big goes to the next.
    if (projected > maxBatchBytes && rowCount > 0) {
      overfilled = true;
      return FAIL;
    }
  }
  // Counted only here, where the row is kept: a document that fails, or goes to the next batch, is scanned again.
  // Documents of one series at one time are kept apart by the reference (log-documents.ts places
  // a tie at the next free unit), which gets a body with a tie. A row before or after all the
  // earlier rows of its series is certain to be alone; one within their range (interleaved
  // files: a tenth of shipped bodies or more) is looked up among them.
  const ts = hasTime ? rowTs : nowTs + timeless;
  const s = series(sid);
  if (s.rowCount > 0 && ts >= s.minTs && ts <= s.maxTs && tieAt(sid, s, ts)) return FAIL;
  if (!hasTime) timeless++;
  commitRow(rowAt, sid, ts, valueCount);
  if (s.indexed != 0) indexRow(rowAt);
  return p + 1;
}

/** The object at `p` (`{`), its members named under `names[0, prefix)`; returns the position after it. */
function parseObject(p: usize, prefix: usize, depth: u32): usize {
  if (depth >= MAX_DEPTH) return FAIL;
  p = skipBlanks(p + 1);
  if (load<u8>(p) == 0x7d /* } */) return p + 1;
  const obj = objectCount++;
  while (true) {
    if (load<u8>(p) != CH_QUOTE) return FAIL;
    const k = p + 1;
    let q = k;
    let c = <u32>load<u8>(q);
    while (c != CH_QUOTE) {
      if (c < 0x20 || c == CH_BACKSLASH) return FAIL; // control characters (and the line end), escapes
      c = load<u8>(++q);
    }
    if (!newMember(obj, k, q - k)) return FAIL;
    const n = nameUnder(prefix, k, q - k);
    p = skipBlanks(q + 1);
    if (load<u8>(p) != 0x3a /* : */) return FAIL;
    p = parseValue(skipBlanks(p + 1), n, depth + 1);
    if (p == FAIL) return FAIL;
    p = skipBlanks(p);
    c = load<u8>(p);
    if (c == CH_COMMA) {
      p = skipBlanks(p + 1);
      continue;
    }
    if (c == 0x7d) return p + 1;
    return FAIL;
  }
}

/** The array at `p` (`[`), its elements named `<prefix>.<index>`; returns the position after it. */
function parseArray(p: usize, prefix: usize, depth: u32): usize {
  if (depth >= MAX_DEPTH) return FAIL;
  p = skipBlanks(p + 1);
  if (load<u8>(p) == 0x5d /* ] */) return p + 1;
  let index: u32 = 0;
  while (true) {
    p = parseValue(p, indexUnder(prefix, index), depth + 1);
    if (p == FAIL) return FAIL;
    p = skipBlanks(p);
    const c = <u32>load<u8>(p);
    if (c == CH_COMMA) {
      p = skipBlanks(p + 1);
      index++;
      continue;
    }
    if (c == 0x5d) return p + 1;
    return FAIL;
  }
}

/** Writes `<prefix>.<key>` (or `<key>` at the top) into `names`; returns its length. */
function nameUnder(prefix: usize, k: usize, kn: usize): usize {
  const n = prefix == 0 ? kn : prefix + 1 + kn;
  names.len = prefix;
  reserve(names, n - prefix);
  let w = names.base + prefix;
  if (prefix != 0) store<u8>(w++, 0x2e /* . */);
  memory.copy(w, k, kn);
  names.len = n;
  return n;
}

/** Writes `<prefix>.<index>` (or `<index>` at the top) into `names`; returns its length. */
function indexUnder(prefix: usize, index: u32): usize {
  let digits: usize = 1;
  for (let v = index; v >= 10; v /= 10) digits++;
  const n = prefix == 0 ? digits : prefix + 1 + digits;
  names.len = prefix;
  reserve(names, n - prefix);
  let w = names.base + prefix;
  if (prefix != 0) store<u8>(w++, 0x2e);
  let v = index;
  for (let i = digits; i > 0; i--) {
    store<u8>(w + i - 1, <u8>(0x30 + v % 10));
    v /= 10;
  }
  names.len = n;
  return n;
}

// Values of the leaf being read.
let strP: usize = 0;
let strN: usize = 0;
let numBits: u64 = 0;
let numFixup = false;
/** The number had neither a fraction nor an exponent and fits an i64: its value, for a time. */
let numInteger = false;
/** ... and it is below 2^53 in magnitude, where JSON.parse keeps it exactly. */
let numSafe = false;
let numIntValue: i64 = 0;
/** Where the number token started (for a fixup). */
let numTokenStart: usize = 0;

/** The value at `p`, named `names[0, n)`; returns the position after it. */
function parseValue(p: usize, n: usize, depth: u32): usize {
  const c = <u32>load<u8>(p);
  if (c == 0x7b) return parseObject(p, n, depth);
  if (c == 0x5b) return parseArray(p, n, depth);
  if (c == CH_QUOTE) {
    const e = parseString(p);
    if (e == FAIL || !leaf(n, T_STRING, 0, 0)) return FAIL;
    return e;
  }
  if (c == 0x74 /* t */) {
    if (load<u32>(p) != 0x65757274 /* true */ || !leaf(n, T_BOOLEAN, 1, 0)) return FAIL;
    return p + 4;
  }
  if (c == 0x66 /* f */) {
    if (load<u32>(p + 1) != 0x65736c61 /* alse */ || !leaf(n, T_BOOLEAN, 0, 0)) return FAIL;
    return p + 5;
  }
  if (c == CH_MINUS || isDigit(c)) {
    const e = parseNumber(p);
    if (e == FAIL || !leaf(n, T_DOUBLE, numBits, e - p)) return FAIL;
    return e;
  }
  return FAIL; // null (the reference refuses it), or not JSON
}

/** The string at `p` (`"`): sets strP/strN (input bytes, or unescaped ones); returns the position after it. */
function parseString(p: usize): usize {
  const s = p + 1;
  let q = s;
  let c = <u32>load<u8>(q);
  while (c != CH_QUOTE && c != CH_BACKSLASH && c >= 0x20) c = load<u8>(++q);
  if (c == CH_QUOTE) {
    strP = s;
    strN = q - s;
    return q + 1;
  }
  if (c != CH_BACKSLASH) return FAIL; // a control character or the line end
  // Escapes: the string is rebuilt in the unescape area (never longer than its source).
  const out = escAt;
  memory.copy(out, s, q - s);
  let w = out + (q - s);
  while (true) {
    c = load<u8>(q);
    if (c == CH_QUOTE) break;
    if (c < 0x20) return FAIL;
    if (c != CH_BACKSLASH) {
      store<u8>(w++, <u8>c);
      q++;
      continue;
    }
    const x = <u32>load<u8>(q + 1);
    q += 2;
    if (x == CH_QUOTE || x == CH_BACKSLASH || x == 0x2f) store<u8>(w++, <u8>x);
    else if (x == 0x62) store<u8>(w++, 0x08);
    else if (x == 0x66) store<u8>(w++, 0x0c);
    else if (x == 0x6e) store<u8>(w++, 0x0a);
    else if (x == 0x72) store<u8>(w++, 0x0d);
    else if (x == 0x74) store<u8>(w++, 0x09);
    else if (x == 0x75 /* u */) {
      let cp: u32 = 0;
      for (let i: usize = 0; i < 4; i++) {
        const h = <u32>load<u8>(q + i);
        let d: u32;
        if (h - 0x30 < 10) d = h - 0x30;
        else if ((h | 0x20) - 0x61 < 6) d = (h | 0x20) - 0x61 + 10;
        else return FAIL;
        cp = (cp << 4) | d;
      }
      q += 4;
      if (cp >= 0xd800 && cp <= 0xdfff) return FAIL; // surrogates: left to the reference
      if (cp < 0x80) {
        store<u8>(w++, <u8>cp);
      } else if (cp < 0x800) {
        store<u8>(w++, <u8>(0xc0 | (cp >> 6)));
        store<u8>(w++, <u8>(0x80 | (cp & 0x3f)));
      } else {
        store<u8>(w++, <u8>(0xe0 | (cp >> 12)));
        store<u8>(w++, <u8>(0x80 | ((cp >> 6) & 0x3f)));
        store<u8>(w++, <u8>(0x80 | (cp & 0x3f)));
      }
    } else {
      return FAIL;
    }
  }
  strP = out;
  strN = w - out;
  escAt = w;
  return q + 1;
}

/**
 * A JSON number at `p`: `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`. Sets numBits (exact by
 * Clinger's fast path) or numFixup (the host's Number(text) decides), and numInteger.
 */
function parseNumber(p: usize): usize {
  numTokenStart = p;
  let i = p;
  let c = <u32>load<u8>(i);
  const negative = c == CH_MINUS;
  if (negative) c = load<u8>(++i);
  if (!isDigit(c)) return FAIL;
  beginDecimal();
  if (c == 0x30) i++; // a leading 0 stands alone
  else i = readDigits(i, false);
  c = load<u8>(i);
  let integer = true;
  if (c == 0x2e /* . */) {
    integer = false;
    if (!isDigit(load<u8>(i + 1))) return FAIL;
    i = readDigits(i + 1, true);
    c = load<u8>(i);
  }
  if ((c | 0x20) == 0x65 /* e or E */) {
    integer = false;
    c = load<u8>(++i);
    let expNegative = false;
    if (c == CH_MINUS || c == 0x2b) {
      expNegative = c == CH_MINUS;
      c = load<u8>(++i);
    }
    if (!isDigit(c)) return FAIL;
    i = readExponent(i, expNegative);
  }
  const mantissa = decMantissa;
  const significant = decSignificant;
  const exponent = decExponent;
  // An integer of up to 19 digits is exact in `mantissa` (the reference takes it as an i64 time).
  numInteger = integer && significant <= 19 && exponent == 0 && mantissa <= (negative ? <u64>i64.MAX_VALUE + 1 : <u64>i64.MAX_VALUE);
  numSafe = numInteger && mantissa < TWO53;
  numIntValue = negative ? <i64>(0 - mantissa) : <i64>mantissa;
  numFixup = !exactDecimal(mantissa, significant, exponent, negative);
  numBits = decimalBits;
  return i;
}

// ---- leaves ----

/**
 * The leaf named `names[0, n)` of `type` (T_STRING: strP/strN; T_BOOLEAN: bits; T_DOUBLE: bits,
 * or with numFixup the token of `tokenLen` bytes at numTokenStart). False to bail.
 */
function leaf(n: usize, type: u8, bits: u64, tokenLen: usize): bool {
  if (n == 0) return false; // an empty name: the reference refuses it
  const name = names.base;
  if (n == timeN && bytesEqual(name, timeP, timeN)) return timeLeaf(type);
  for (let i: u32 = 0; i < tagCount; i++) {
    const t = tagList + (<usize>i << 4);
    if (<usize>load<u32>(t, 4) == n && bytesEqual(load<u32>(t), name, n)) {
      if (type != T_STRING) return false; // the reference stores the JSON text
      if (load<u32>(t, 8) == serial + 1) return false; // given twice
      store<u32>(t, serial + 1, 8);
      const e = pushPtr(tags, ENTRY_SIZE);
      store<u32>(e, load<u32>(t));
      store<u32>(e, <u32>n, 4);
      store<u32>(e, <u32>strP, 8);
      store<u32>(e, <u32>strN, 12);
      return true;
    }
  }
  // A field.
  const rt = btable(batchTable).rtable;
  let rc = findColumn(rt, name, n);
  let bc: u32;
  if (rc == NONE) {
    if (n > MAX_NAME || isTime(name, n)) return false;
    rc = createColumn(rt, name, n, KIND_FIELD, type);
    bc = batchColumn(rc);
  } else {
    const col = rcol(rc);
    if (col.kind != KIND_FIELD || col.type != type) return false; // a conflict: the reference words it
    bc = batchColumn(rc);
    if (bcol(bc).lastRow == serial) return false; // given twice
  }
  markField(pending, bc, 0, serial);
  if (type == T_STRING) {
    pushString(bc, strN, strP);
  } else if (type == T_DOUBLE && numFixup) {
    pushValue(bc, <u32>tokenLen, numTokenStart - inputBase);
  } else {
    pushValue(bc, 0, bits);
  }
  valueCount++;
  return true;
}

/** The time column's value: an RFC 3339 string or an integer of nanoseconds. */
function timeLeaf(type: u8): bool {
  if (hasTime) return false; // given twice
  hasTime = true;
  let ns: i64;
  if (type == T_STRING) {
    if (!parseRfc3339(strP, strN)) return false;
    ns = parsedNs;
  } else if (type == T_DOUBLE && numInteger && (numSafe || uniqueIntegerMember())) {
    ns = numIntValue;
  } else {
    return false;
  }
  return toDbUnit(ns);
}

/** rowTs = `ns` in the database precision; false when it overflows. */
function toDbUnit(ns: i64): bool {
  if (tsMul != 1) {
    if (ns > i64.MAX_VALUE / tsMul || ns < i64.MIN_VALUE / tsMul) return false;
    rowTs = ns * tsMul;
  } else {
    rowTs = tsDiv == 1 ? ns : ns / tsDiv;
  }
  return true;
}

/**
 * JSON.parse rounds integers past 2^53, so the reference reads a time that large again from the
 * line's text: the one `"<key>"` member with an integer value, `<key>` the time column's last
 * path segment (log-documents.ts #exactInteger); several (or none) and it refuses the document.
 * True when the line holds exactly one, which is then the member being read.
 */
function uniqueIntegerMember(): bool {
  let k = timeP + timeN;
  while (k > timeP && load<u8>(k - 1) != 0x2e /* . */) k--;
  const kn = timeP + timeN - k;
  const e = lineEnd(lineP);
  let found: u32 = 0;
  for (let p = lineP; p + kn + 2 <= e; p++) {
    if (load<u8>(p) != CH_QUOTE || load<u8>(p + kn + 1) != CH_QUOTE || !bytesEqual(p + 1, k, kn)) continue;
    let q = skipJsonBlanks(p + kn + 2, e);
    if (q >= e || load<u8>(q) != 0x3a /* : */) continue;
    q = skipJsonBlanks(q + 1, e);
    if (q < e && load<u8>(q) == CH_MINUS) q++;
    if (q >= e || !isDigit(load<u8>(q))) continue;
    while (q < e && isDigit(load<u8>(q))) q++;
    q = skipJsonBlanks(q, e);
    if (q >= e) continue;
    const c = <u32>load<u8>(q);
    if (c == CH_COMMA || c == 0x7d || c == 0x5d) found++;
  }
  return found == 1;
}

/** The first byte at or after `p` (before `e`) that is not a blank of the reference's `\s`. */
function skipJsonBlanks(p: usize, e: usize): usize {
  while (p < e) {
    const c = <u32>load<u8>(p);
    if (c != CH_SPACE && c != CH_TAB && c != CH_CR && c != 0x0b && c != 0x0c) break;
    p++;
  }
  return p;
}

// ---- the row's series and new columns ----

/** The batch series of the row's tags, created with its tag columns as needed; NONE to bail. */
function seriesOf(): u32 {
  const n = <u32>(tags.len / ENTRY_SIZE);
  push(tags, <usize>n * ENTRY_SIZE); // the merge sort's second buffer
  const list = tags.base;
  if (n > 1) sortEntries(list, n, list + <usize>n * ENTRY_SIZE);
  return seriesOfTags(batchTable, tableP, tableN, list, n);
}

