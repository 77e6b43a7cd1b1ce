// The slow path of a line's `measurement[,tag=value...]`: taken once per distinct raw prefix in
// a batch (the scanner caches raw bytes -> series). Validates the names, sorts and de-duplicates
// the tags, builds the canonical series key (FORMAT.md §1) and the series descriptor tail, and
// creates the table, the tag columns and the series as needed.

import { Arena, newArena, push, pushPtr } from './arena';
import { CH_COMMA, CH_EQUALS, CH_SPACE, K_KEY, K_MEASUREMENT, K_TAG_VALUE } from './chars';
import {
  addRaw, appendColumn, batchColumn, bcol, blobs, btable, createColumn, createSeries, findColumn,
  findSeries, internTable, KIND_TAG, NONE, rcol, reserveBlob,
} from './intern';
import { bytesEqual, hashBytes } from './hash';
import { charLen, isTime, nameN, nameP, scanName } from './names';
import { T_TAG } from './number';
import { writeEscaped } from './series-key';
import { ENTRY_SIZE, sortEntries } from './sort';
import {
  E_COLUMN_COUNT, E_FIELD_SET, E_MEASUREMENT, E_NAME_LENGTH, E_TAG_EQUALS, E_TAG_KEY, E_TAG_VALUE,
  E_TIME_RESERVED, fail, failConflict, failName, WHAT_MEASUREMENT, WHAT_TAG,
} from './status';

const MAX_NAME: usize = 65535;

/** Sort entries of this line's tags (key pointer, key length, tag number, 0), then sort scratch. */
const entries: Arena = newArena(1024);
/** Per tag number: value pointer, value length, raw key position, raw key length. */
const details: Arena = newArena(1024);

/**
 * Parses the prefix `[ms, q)` of a line (q: its first unescaped space or line end) and returns
 * the series it names, registering `rawHash` for the raw bytes; NONE after `fail`.
 */
export function parsePrefix(ms: usize, q: usize, rawHash: u32): u32 {
  entries.len = 0;
  details.len = 0;
  let p = scanName(ms, K_MEASUREMENT, WHAT_MEASUREMENT);
  if (p == 0) return NONE;
  if (nameN == 0) return failNone(E_MEASUREMENT, ms, charLen(ms));
  if (nameN > MAX_NAME) return failNameNone(E_NAME_LENGTH, ms, p - ms, WHAT_MEASUREMENT);
  const tableP = nameP;
  const tableN = nameN;

  let n: u32 = 0;
  let c = <u32>load<u8>(p);
  while (c == CH_COMMA) {
    const k = ++p;
    p = scanName(k, K_KEY, WHAT_TAG);
    if (p == 0) return NONE;
    if (nameN == 0) return failNone(E_TAG_KEY, k, charLen(k));
    if (load<u8>(p) != CH_EQUALS) return failNone(E_TAG_EQUALS, p, charLen(p));
    if (nameN > MAX_NAME) return failNameNone(E_NAME_LENGTH, k, p - k, WHAT_TAG);
    if (isTime(nameP, nameN)) return failNameNone(E_TIME_RESERVED, k, p - k, WHAT_TAG);
    const keyP = nameP;
    const keyN = nameN;
    const v = ++p;
    p = scanName(v, K_TAG_VALUE, WHAT_TAG);
    if (p == 0) return NONE;
    if (nameN == 0) return failNone(E_TAG_VALUE, v, charLen(v));
    const e = pushPtr(entries, ENTRY_SIZE);
    store<u32>(e, <u32>keyP);
    store<u32>(e, <u32>keyN, 4);
    store<u32>(e, n, 8);
    store<u32>(e, 0, 12);
    const d = pushPtr(details, 16);
    store<u32>(d, <u32>nameP);
    store<u32>(d, <u32>nameN, 4);
    store<u32>(d, <u32>k, 8);
    store<u32>(d, <u32>(v - 1 - k), 12);
    n++;
    c = load<u8>(p);
  }
  if (c != CH_SPACE) return failNone(E_FIELD_SET, p, charLen(p));

  // Tags sorted by key; a repeated key keeps its first occurrence (the sort is stable).
  push(entries, <usize>n * ENTRY_SIZE); // room for the merge sort's second buffer
  const list = entries.base;
  sortEntries(list, n, list + <usize>n * ENTRY_SIZE);
  let unique: u32 = 0;
  for (let i: u32 = 0; i < n; i++) {
    const e = list + <usize>i * ENTRY_SIZE;
    if (unique > 0) {
      const prev = list + <usize>(unique - 1) * ENTRY_SIZE;
      if (load<u32>(prev, 4) == load<u32>(e, 4) && bytesEqual(load<u32>(prev), load<u32>(e), load<u32>(e, 4))) continue;
    }
    if (unique != i) v128.store(list + <usize>unique * ENTRY_SIZE, v128.load(e));
    unique++;
  }

  const bt = internTable(tableP, tableN);
  const rt = btable(bt).rtable;

  // The canonical key, built in place after the last blob; kept only for a new series.
  reserveBlob(4 + 3 * (q - ms) + 8 * <usize>unique + 16); // key <= 2x raw, values <= raw
  const blobOff = <u32>blobs.len;
  const key = blobs.base + blobOff + 4;
  let w = writeEscaped(key, tableP, tableN);
  for (let i: u32 = 0; i < unique; i++) {
    const e = list + <usize>i * ENTRY_SIZE;
    const d = details.base + (<usize>load<u32>(e, 8) << 4);
    store<u8>(w++, CH_COMMA);
    w = writeEscaped(w, load<u32>(e), load<u32>(e, 4));
    store<u8>(w++, CH_EQUALS);
    w = writeEscaped(w, load<u32>(d), load<u32>(d, 4));
  }
  const keyN = w - key;
  const h = hashBytes(key, keyN);
  let sid = findSeries(key, keyN, h);
  if (sid == NONE) {
    store<u32>(key - 4, <u32>keyN);
    for (let i: u32 = 0; i < unique; i++) {
      const e = list + <usize>i * ENTRY_SIZE;
      const d = details.base + (<usize>load<u32>(e, 8) << 4);
      const bc = tagColumn(rt, load<u32>(e), load<u32>(e, 4), load<u32>(d, 8), load<u32>(d, 12));
      if (bc == NONE) return NONE;
      const valueN = load<u32>(d, 4);
      store<u16>(w, <u16>bcol(bc).index);
      store<u16>(w, 0, 2);
      store<u32>(w, valueN, 4);
      memory.copy(w + 8, load<u32>(d), valueN);
      w += 8 + valueN;
    }
    const blobLen = <u32>(w - (key - 4));
    blobs.len += blobLen;
    sid = createSeries(bt, h, blobOff, blobLen, unique);
  }
  addRaw(ms, q - ms, rawHash, sid);
  return sid;
}

/** The batch column (with its index) for tag key `[p, p + n)` of request table `rt`; NONE on error. */
function tagColumn(rt: u32, p: usize, n: usize, rawPos: usize, rawLen: usize): u32 {
  let rc = findColumn(rt, p, n);
  if (rc == NONE) {
    rc = createColumn(rt, p, n, KIND_TAG, T_TAG);
  } else {
    const c = rcol(rc);
    if (c.kind != KIND_TAG) {
      failConflict(rawPos, rawLen, rt, rc, c.type, T_TAG);
      return NONE;
    }
  }
  const bc = batchColumn(rc);
  if (bcol(bc).index == NONE && !appendColumn(bc)) {
    fail(E_COLUMN_COUNT, rawPos, rawLen);
    return NONE;
  }
  return bc;
}

function failNone(code: u32, pos: usize, len: usize): u32 {
  fail(code, pos, len);
  return NONE;
}

function failNameNone(code: u32, pos: usize, len: usize, what: u32): u32 {
  failName(code, pos, len, what);
  return NONE;
}
