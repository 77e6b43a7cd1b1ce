// Canonical series keys (FORMAT.md §1) and the batch series they name, for the scanners whose
// tags arrive as a list of (name, value) entries: OpenTSDB text and JSON logs. (Line protocol
// builds its keys in prefix.ts, where escapes in the input and its own error reports differ.)

import { CH_BACKSLASH, CH_COMMA, CH_EQUALS, hasClass, K_KEY_ESCAPE } from './chars';
import { hashBytes } from './hash';
import {
  appendColumn, batchColumn, bcol, blobs, btable, createColumn, createSeries, findColumn, findSeries, KIND_TAG, NONE,
  rcol, reserveBlob,
} from './intern';
import { T_TAG } from './number';
import { ENTRY_SIZE } from './sort';

/** Writes `[p, p + n)` with `\` `,` `=` space escaped by a backslash; returns the end. */
export function writeEscaped(w: usize, p: usize, n: usize): usize {
  for (let i: usize = 0; i < n; i++) {
    const c = load<u8>(p + i);
    if (hasClass(c, K_KEY_ESCAPE)) store<u8>(w++, CH_BACKSLASH);
    store<u8>(w++, c);
  }
  return w;
}

/**
 * The series of batch table `bt` (named `[tableP, tableP + tableN)`) with the `n` tags at `list`
 * (entries of ENTRY_SIZE: name pointer, name length, value pointer, value length; sorted by name,
 * no name twice), created with its tag columns if new; NONE when a tag name is a field of the
 * request's table or the table would pass 65535 columns. The key is built in place after the
 * last blob and kept only for a new series.
 */
export function seriesOfTags(bt: u32, tableP: usize, tableN: usize, list: usize, n: u32): u32 {
  // Escaping at most doubles a name or value; a descriptor adds 8 bytes and the value a tag.
  let room: usize = 4 + 2 * tableN + 16;
  for (let i: u32 = 0; i < n; i++) {
    const e = list + <usize>i * ENTRY_SIZE;
    room += 2 + 2 * <usize>load<u32>(e, 4) + 3 * <usize>load<u32>(e, 12) + 8;
  }
  reserveBlob(room);
  const blobOff = <u32>blobs.len;
  const key = blobs.base + blobOff + 4;
  let w = writeEscaped(key, tableP, tableN);
  for (let i: u32 = 0; i < n; i++) {
    const e = list + <usize>i * ENTRY_SIZE;
    store<u8>(w++, CH_COMMA);
    w = writeEscaped(w, load<u32>(e), load<u32>(e, 4));
    store<u8>(w++, CH_EQUALS);
    w = writeEscaped(w, load<u32>(e, 8), load<u32>(e, 12));
  }
  const keyN = w - key;
  const h = hashBytes(key, keyN);
  const sid = findSeries(key, keyN, h);
  if (sid != NONE) return sid;
  store<u32>(key - 4, <u32>keyN);
  const rt = btable(bt).rtable;
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

/** The batch column (with its index) for tag `[p, p + n)` of request table `rt`; NONE on a conflict. */
function tagColumn(rt: u32, p: usize, n: usize): u32 {
  let rc = findColumn(rt, p, n);
  if (rc == NONE) rc = createColumn(rt, p, n, KIND_TAG, T_TAG);
  else if (rcol(rc).kind != KIND_TAG) return NONE;
  const bc = batchColumn(rc);
  if (bcol(bc).index == NONE && !appendColumn(bc)) return NONE;
  return bc;
}
