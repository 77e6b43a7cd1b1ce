// Interning over byte ranges, at two levels. Request level (kept across the windows of one
// request): tables and columns with their kind and type, so a type conflict between windows is
// caught at the line that causes it. Batch level (reset by every lp_scan call): the tables,
// columns and series of the batch being built, and the cache from raw `measurement,tags` bytes to
// a series. A request record finds its batch record through a generation stamp, so starting a
// batch clears only two hash tables.

import {
  Arena, clearHashTable, HashTable, insert, newArena, newHashTable, push, pushBytes, pushPtr, reserve,
} from './arena';
import { hasClass, K_NOT_PLAIN } from './chars';
import { bytesEqual, hashBytes, mixScope } from './hash';
import { ENTRY_SIZE, sortEntries } from './sort';

export const NONE: u32 = 0xffffffff;
export const KIND_TAG: u8 = 1;
export const KIND_FIELD: u8 = 2;
/** Field positions per table whose column is predicted from the previous line (see scanner.ts). */
export const PREDICT_SLOTS: u32 = 32;

// ---- request level ----

@unmanaged
export class RTable {
  nameOff: u32; // in reqNames
  nameLen: u32;
  stamp: u32; // == gen when btable belongs to the current batch
  btable: u32;
  predictOff: u32; // PREDICT_SLOTS column ids in reqNames
  _pad: u32;
}

@unmanaged
export class RColumn {
  rtable: u32;
  nameOff: u32;
  nameLen: u32;
  stamp: u32;
  bcol: u32;
  kind: u8;
  type: u8;
  /** The name has no byte that needs escaping, so it equals its raw form in the input. */
  plain: u8;
  _pad: u8;
}

export const reqNames: Arena = newArena(4096);
const rtables: Arena = newArena(1024);
const rcols: Arena = newArena(4096);
const rtableIndex: HashTable = newHashTable(64);
const rcolIndex: HashTable = newHashTable(256);
let rtableCount: u32 = 0;
let rcolCount: u32 = 0;

@inline
export function rtable(id: u32): RTable {
  return changetype<RTable>(rtables.base + <usize>id * offsetof<RTable>());
}

@inline
export function rcol(id: u32): RColumn {
  return changetype<RColumn>(rcols.base + <usize>id * offsetof<RColumn>());
}

@inline
export function rtableName(t: RTable): usize {
  return reqNames.base + t.nameOff;
}

@inline
export function rcolName(c: RColumn): usize {
  return reqNames.base + c.nameOff;
}

// ---- batch level ----

@unmanaged
export class BTable {
  rtable: u32;
  colCount: u32;
  colHead: u32;
  colTail: u32;
  seriesCount: u32;
  seriesHead: u32;
  seriesTail: u32;
  rowCount: u32;
  /** Bytes one more row adds to the field vectors (for the batch size estimate). */
  rowWidth: u32;
  // Layout, set by the batch writer.
  blockAt: u32;
  blockLen: u32;
  tsAt: u32;
}

@unmanaged
export class BColumn {
  rcol: u32;
  table: u32;
  /** Position in the table's column list, NONE until the row that created it ends. */
  index: u32;
  next: u32;
  present: u32;
  /** Row serial of the last row that set this column (duplicate field detection). */
  lastRow: u32;
  strBytes: u32;
  // Layout, set by the batch writer (offsets from the batch start; validityAt 0 = none).
  validityAt: u32;
  valuesAt: u32;
  bytesAt: u32;
  strCursor: u32;
  kind: u8;
  type: u8;
  _pad: u16;
}

@unmanaged
export class Series {
  minTs: i64;
  maxTs: i64;
  lastTs: i64;
  table: u32;
  /** keyLength u32, key, tags (FORMAT.md §1 series descriptor after tagCount), in `blobs`. */
  blobOff: u32;
  blobLen: u32;
  tagCount: u32;
  rowCount: u32;
  headRow: u32;
  tailRow: u32;
  next: u32;
  sorted: u32;
  /** JSON log scanner: the series' rows of the batch are in its tie index (jsonlogs/scanner.ts). */
  indexed: u32;
}

/** Current batch generation; request records with another stamp have no batch record yet. */
let gen: u32 = 0;
const btables: Arena = newArena(1024);
const bcols: Arena = newArena(4096);
const seriesRecords: Arena = newArena(4096);
const raws: Arena = newArena(4096);
/** Series descriptor tails (see Series.blobOff). */
export const blobs: Arena = newArena(4096);
const seriesIndex: HashTable = newHashTable(256);
const rawIndex: HashTable = newHashTable(256);
export let btableCount: u32 = 0;
export let bcolCount: u32 = 0;
export let seriesCount: u32 = 0;
/** Estimated size of the batch so far (an upper bound up to names and keys). */
export let projected: u64 = 0;

@inline
export function btable(id: u32): BTable {
  return changetype<BTable>(btables.base + <usize>id * offsetof<BTable>());
}

@inline
export function bcol(id: u32): BColumn {
  return changetype<BColumn>(bcols.base + <usize>id * offsetof<BColumn>());
}

@inline
export function series(id: u32): Series {
  return changetype<Series>(seriesRecords.base + <usize>id * offsetof<Series>());
}

@inline
export function addProjected(n: u64): void {
  projected += n;
}

/** Forgets every table and column of the previous request. */
export function beginRequest(): void {
  reqNames.len = 0;
  rtables.len = 0;
  rcols.len = 0;
  rtableCount = 0;
  rcolCount = 0;
  clearHashTable(rtableIndex);
  clearHashTable(rcolIndex);
}

/** Starts an empty batch; request-level records stay. */
export function beginBatch(): void {
  gen++;
  btables.len = 0;
  bcols.len = 0;
  seriesRecords.len = 0;
  raws.len = 0;
  blobs.len = 0;
  btableCount = 0;
  bcolCount = 0;
  seriesCount = 0;
  projected = 16;
  clearHashTable(seriesIndex);
  clearHashTable(rawIndex);
}

// ---- tables ----

/** The batch table named by the unescaped bytes `[p, p + n)`, created (at both levels) if new. */
export function internTable(p: usize, n: usize): u32 {
  const h = hashBytes(p, n);
  const t = rtableIndex;
  let i = h & t.mask;
  let id = NONE;
  while (true) {
    const slot = t.slots + (<usize>i << 3);
    const idp1 = load<u32>(slot, 4);
    if (idp1 == 0) break;
    if (load<u32>(slot) == h) {
      const r = rtable(idp1 - 1);
      if (r.nameLen == <u32>n && bytesEqual(rtableName(r), p, n)) {
        id = idp1 - 1;
        break;
      }
    }
    i = (i + 1) & t.mask;
  }
  if (id == NONE) {
    id = rtableCount++;
    const nameOff = <u32>pushBytes(reqNames, p, n);
    const predictOff = <u32>push(reqNames, <usize>PREDICT_SLOTS << 2);
    memory.fill(reqNames.base + predictOff, 0xff, <usize>PREDICT_SLOTS << 2);
    const r = changetype<RTable>(pushPtr(rtables, offsetof<RTable>()));
    r.nameOff = nameOff;
    r.nameLen = <u32>n;
    r.stamp = 0;
    r.btable = NONE;
    r.predictOff = predictOff;
    insert(rtableIndex, h, id);
  }
  const r = rtable(id);
  if (r.stamp != gen) {
    r.stamp = gen;
    r.btable = btableCount++;
    const b = changetype<BTable>(pushPtr(btables, offsetof<BTable>()));
    b.rtable = id;
    b.colCount = 0;
    b.colHead = NONE;
    b.colTail = NONE;
    b.seriesCount = 0;
    b.seriesHead = NONE;
    b.seriesTail = NONE;
    b.rowCount = 0;
    b.rowWidth = 8;
    projected += 24 + <u64>n;
  }
  return r.btable;
}

// ---- columns ----

/** Hash of the last `findColumn` key, reused by `createColumn` after a miss. */
let columnHash: u32 = 0;

/** The request column of table `rt` named `[p, p + n)` (unescaped), or NONE. */
export function findColumn(rt: u32, p: usize, n: usize): u32 {
  const h = mixScope(hashBytes(p, n), rt);
  columnHash = h;
  const t = rcolIndex;
  let i = h & t.mask;
  while (true) {
    const slot = t.slots + (<usize>i << 3);
    const idp1 = load<u32>(slot, 4);
    if (idp1 == 0) return NONE;
    if (load<u32>(slot) == h) {
      const c = rcol(idp1 - 1);
      if (c.rtable == rt && c.nameLen == <u32>n && bytesEqual(rcolName(c), p, n)) return idp1 - 1;
    }
    i = (i + 1) & t.mask;
  }
}

/** Creates the request column that the last `findColumn(rt, p, n)` missed. */
export function createColumn(rt: u32, p: usize, n: usize, kind: u8, type: u8): u32 {
  const id = rcolCount++;
  const nameOff = <u32>pushBytes(reqNames, p, n);
  const c = changetype<RColumn>(pushPtr(rcols, offsetof<RColumn>()));
  c.rtable = rt;
  c.nameOff = nameOff;
  c.nameLen = <u32>n;
  c.stamp = 0;
  c.bcol = NONE;
  c.kind = kind;
  c.type = type;
  let plain: u8 = 1;
  for (let i: usize = 0; i < n; i++) {
    if (hasClass(load<u8>(p + i), K_NOT_PLAIN)) {
      plain = 0;
      break;
    }
  }
  c.plain = plain;
  insert(rcolIndex, columnHash, id);
  return id;
}

/**
 * The batch column of request column `rc` (whose table is in the batch), created with no index
 * if new: tags get theirs at once, fields when their row ends (new fields enter sorted).
 */
export function batchColumn(rc: u32): u32 {
  const c = rcol(rc);
  if (c.stamp == gen) return c.bcol;
  c.stamp = gen;
  const id = bcolCount++;
  const b = changetype<BColumn>(pushPtr(bcols, offsetof<BColumn>()));
  b.rcol = rc;
  b.table = rtable(c.rtable).btable;
  b.index = NONE;
  b.next = NONE;
  b.present = 0;
  b.lastRow = NONE;
  b.strBytes = 0;
  b.validityAt = 0;
  b.kind = c.kind;
  b.type = c.type;
  c.bcol = id;
  return id;
}

/** Request column `rc` has a record in the current batch. */
@inline
export function inBatch(rc: u32): bool {
  return rcol(rc).stamp == gen;
}

/** Gives batch column `bc` the next index of its table. Returns false past 65535 columns. */
export function appendColumn(bc: u32): bool {
  const b = bcol(bc);
  const t = btable(b.table);
  if (t.colCount == 0xffff) return false;
  b.index = t.colCount++;
  if (t.colTail == NONE) t.colHead = bc;
  else bcol(t.colTail).next = bc;
  t.colTail = bc;
  const c = rcol(b.rcol);
  projected += 8 + <u64>c.nameLen;
  if (b.kind == KIND_FIELD) {
    // A vector of 8-byte values and a validity byte per row, plus padding.
    projected += <u64>t.rowCount * 9 + 24;
    t.rowWidth += 9;
  }
  return true;
}

/**
 * Gives the batch columns listed in `pending` ((batch column u32, aux u32) pairs: a row's new
 * fields) their indexes in name order (FORMAT.md §1: a row's new tags sorted by name, then its new
 * fields sorted by name). Sort entries go after the pairs. Returns 0, or the entry (name pointer,
 * name length, batch column, aux) of the column that would pass 65535 columns.
 */
export function enterPendingColumns(pending: Arena): usize {
  const n = <u32>(pending.len >> 3);
  const entriesOff = push(pending, <usize>n * ENTRY_SIZE * 2);
  const list = pending.base + entriesOff;
  for (let i: u32 = 0; i < n; i++) {
    const pair = pending.base + (<usize>i << 3);
    const bc = load<u32>(pair);
    const c = rcol(bcol(bc).rcol);
    const e = list + <usize>i * ENTRY_SIZE;
    store<u32>(e, <u32>rcolName(c));
    store<u32>(e, c.nameLen, 4);
    store<u32>(e, bc, 8);
    store<u32>(e, load<u32>(pair, 4), 12);
  }
  if (n > 1) sortEntries(list, n, list + <usize>n * ENTRY_SIZE);
  for (let i: u32 = 0; i < n; i++) {
    const e = list + <usize>i * ENTRY_SIZE;
    if (!appendColumn(load<u32>(e, 8))) return e;
  }
  return 0;
}

/** The predicted request column ids of table `rt`, PREDICT_SLOTS u32s (NONE = no guess). */
@inline
export function predictions(rt: u32): usize {
  return reqNames.base + rtable(rt).predictOff;
}

// ---- series ----

/** The batch series whose canonical key is `[p, p + n)` with hash `h`, or NONE. */
export function findSeries(p: usize, n: usize, h: u32): u32 {
  const t = seriesIndex;
  let i = h & t.mask;
  while (true) {
    const slot = t.slots + (<usize>i << 3);
    const idp1 = load<u32>(slot, 4);
    if (idp1 == 0) return NONE;
    if (load<u32>(slot) == h) {
      const s = series(idp1 - 1);
      const key = blobs.base + s.blobOff;
      if (load<u32>(key) == <u32>n && bytesEqual(key + 4, p, n)) return idp1 - 1;
    }
    i = (i + 1) & t.mask;
  }
}

/** Adds a series of batch table `bt` whose descriptor tail is `blobs[off, off + len)`. */
export function createSeries(bt: u32, h: u32, off: u32, len: u32, tagCount: u32): u32 {
  const id = seriesCount++;
  const s = changetype<Series>(pushPtr(seriesRecords, offsetof<Series>()));
  s.table = bt;
  s.blobOff = off;
  s.blobLen = len;
  s.tagCount = tagCount;
  s.rowCount = 0;
  s.headRow = NONE;
  s.tailRow = NONE;
  s.next = NONE;
  s.sorted = 1;
  s.indexed = 0;
  const t = btable(bt);
  if (t.seriesTail == NONE) t.seriesHead = id;
  else series(t.seriesTail).next = id;
  t.seriesTail = id;
  t.seriesCount++;
  insert(seriesIndex, h, id);
  projected += 40 + <u64>len;
  return id;
}

// ---- raw prefix cache ----

/** The series of a raw `measurement,tags` prefix seen before in this batch, or NONE. */
export function findRaw(p: usize, n: usize, h: u32): u32 {
  const t = rawIndex;
  let i = h & t.mask;
  while (true) {
    const slot = t.slots + (<usize>i << 3);
    const idp1 = load<u32>(slot, 4);
    if (idp1 == 0) return NONE;
    if (load<u32>(slot) == h) {
      const r = raws.base + (<usize>(idp1 - 1) << 4);
      if (load<u32>(r, 4) == <u32>n && bytesEqual(load<u32>(r), p, n)) return load<u32>(r, 8);
    }
    i = (i + 1) & t.mask;
  }
}

/** Remembers that the input bytes `[p, p + n)` (valid for this call) name series `s`. */
export function addRaw(p: usize, n: usize, h: u32, s: u32): void {
  const id = <u32>(raws.len >> 4);
  const r = pushPtr(raws, 16);
  store<u32>(r, <u32>p);
  store<u32>(r, <u32>n, 4);
  store<u32>(r, s, 8);
  insert(rawIndex, h, id);
}

/** Room for `n` more bytes in `blobs` without moving it (for a key built in place). */
export function reserveBlob(n: usize): void {
  reserve(blobs, n);
}
