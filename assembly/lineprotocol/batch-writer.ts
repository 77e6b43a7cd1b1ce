// Lays out the scanned rows as a write batch (host/storage/FORMAT.md §1), byte-identical to
// WriteBatchBuilder: first the size and the offset of every vector, then one zero-filled buffer
// (so padding and absent values need no writes), then one walk over the rows, series by series.
// DOUBLEs that the fast path could not parse are left 0 and listed as fixups for the host.

import { ensureCapacity, newArena, push, pushPtr } from './arena';
import {
  bcol, BColumn, blobs, btable, btableCount, KIND_FIELD, NONE, rcol, rcolName, rtable, rtableName, series,
} from './intern';
import { T_BIGINT, T_BOOLEAN, T_DOUBLE, T_STRING, T_UNSIGNED } from './number';
import { ROW_SIZE, rowCount, rows, VALUE_SIZE } from './rows';

const BATCH_MAGIC: u32 = 0x31425753; // "SWB1"

/** The batch of the last call (core-owned, reused). */
export const out = newArena(1 << 16);
/** Fixups of the last call: (token offset u32, token length u32, destination offset u32). */
export const fixups = newArena(1024);
export const FIXUP_SIZE: usize = 12;

@inline
function pad8(n: usize): usize {
  return (n + 7) & ~7;
}

/** Writes the batch into `out` and the fixups into `fixups`; returns the batch length. */
export function writeBatch(): usize {
  fixups.len = 0;
  const size = layout();
  ensureCapacity(out, size);
  const base = out.base;
  memory.fill(base, 0, size);
  store<u32>(base, BATCH_MAGIC);
  store<u32>(base, <u32>size, 4);
  store<u32>(base, btableCount, 8);
  store<u32>(base, rowCount, 12);
  for (let t: u32 = 0; t < btableCount; t++) writeTable(base, t);
  out.len = size;
  return size;
}

/**
 * Fills the 24-byte result record of an OpenTSDB or JSON log scan (assembly/README.md): the bytes
 * consumed, then, when the scan made rows, the batch (written here), its length, the row count
 * and the fixups. The record must have been zeroed before the scan.
 */
export function writeScanResult(record: usize, consumed: usize): void {
  store<u32>(record, <u32>consumed);
  if (rowCount == 0) return;
  const n = writeBatch();
  store<u32>(record, <u32>out.base, 4);
  store<u32>(record, <u32>n, 8);
  store<u32>(record, rowCount, 12);
  store<u32>(record, <u32>fixups.base, 16);
  store<u32>(record, <u32>(fixups.len / FIXUP_SIZE), 20);
}

/** Computes the size of the batch and the offset of every table block and vector. */
function layout(): usize {
  let at: usize = 16;
  for (let t: u32 = 0; t < btableCount; t++) {
    const tb = btable(t);
    const rowsN = <usize>tb.rowCount;
    tb.blockAt = <u32>at;
    at += 16 + rtable(tb.rtable).nameLen;
    for (let c = tb.colHead; c != NONE; c = bcol(c).next) at += 6 + rcol(bcol(c).rcol).nameLen;
    at = pad8(at);
    for (let s = tb.seriesHead; s != NONE; s = series(s).next) at = pad8(at + 24 + series(s).blobLen);
    tb.tsAt = <u32>at;
    at += rowsN << 3;
    for (let c = tb.colHead; c != NONE; c = bcol(c).next) {
      const col = bcol(c);
      if (col.kind != KIND_FIELD) continue;
      if (col.present != tb.rowCount) {
        col.validityAt = <u32>at;
        at = pad8(at + rowsN);
      } else {
        col.validityAt = 0;
      }
      col.valuesAt = <u32>at;
      const type = col.type;
      if (type == T_BOOLEAN) {
        at = pad8(at + rowsN);
      } else if (type == T_STRING) {
        at = pad8(at + ((rowsN + 1) << 2));
        col.bytesAt = <u32>at;
        col.strCursor = 0;
        at = pad8(at + col.strBytes);
      } else {
        at += rowsN << 3;
      }
    }
    tb.blockLen = <u32>at - tb.blockAt;
  }
  return at;
}

function writeTable(base: usize, t: u32): void {
  const tb = btable(t);
  const rt = rtable(tb.rtable);
  const start = base + tb.blockAt;
  let w = start;
  store<u32>(w, tb.blockLen);
  store<u32>(w, tb.rowCount, 4);
  store<u32>(w, tb.seriesCount, 8);
  store<u16>(w, <u16>tb.colCount, 12);
  store<u16>(w, <u16>rt.nameLen, 14);
  memory.copy(w + 16, rtableName(rt), rt.nameLen);
  w += 16 + rt.nameLen;
  for (let c = tb.colHead; c != NONE; c = bcol(c).next) {
    const col = bcol(c);
    const rc = rcol(col.rcol);
    store<u8>(w, col.kind);
    store<u8>(w, col.type, 1);
    store<u8>(w, col.validityAt != 0 ? 1 : 0, 2);
    store<u16>(w, <u16>rc.nameLen, 4);
    memory.copy(w + 6, rcolName(rc), rc.nameLen);
    w += 6 + rc.nameLen;
  }
  w = base + pad8(w - base);
  for (let s = tb.seriesHead; s != NONE; s = series(s).next) {
    const sr = series(s);
    store<i64>(w, sr.minTs);
    store<i64>(w, sr.maxTs, 8);
    store<u32>(w, sr.rowCount, 16);
    store<u8>(w, <u8>sr.sorted, 20);
    store<u16>(w, <u16>sr.tagCount, 22);
    memory.copy(w + 24, blobs.base + sr.blobOff, sr.blobLen);
    w = base + pad8(w + 24 + sr.blobLen - base);
  }

  // The rows, series by series: timestamps and field values at their row position.
  const tsAt = base + tb.tsAt;
  let pos: usize = 0;
  for (let s = tb.seriesHead; s != NONE; s = series(s).next) {
    let r = series(s).headRow;
    while (r != NONE) {
      const row = rows.base + <usize>r;
      store<i64>(tsAt + (pos << 3), load<i64>(row));
      const n = load<u32>(row, 12);
      let v = row + ROW_SIZE;
      for (let i: u32 = 0; i < n; i++) {
        writeValue(base, bcol(load<u32>(v)), v, pos);
        v += VALUE_SIZE;
      }
      r = load<u32>(row, 16);
      pos++;
    }
  }
  // Absent rows of a STRING column hold offset 0: make them repeat the previous offset.
  for (let c = tb.colHead; c != NONE; c = bcol(c).next) {
    const col = bcol(c);
    if (col.type != T_STRING || col.validityAt == 0) continue;
    const offsets = base + col.valuesAt;
    let prev: u32 = 0;
    for (let i: usize = 1; i <= <usize>tb.rowCount; i++) {
      const o = load<u32>(offsets + (i << 2));
      if (o < prev) store<u32>(offsets + (i << 2), prev);
      else prev = o;
    }
  }
}

@inline
function writeValue(base: usize, col: BColumn, v: usize, pos: usize): void {
  if (col.validityAt != 0) store<u8>(base + col.validityAt + pos, 1);
  const type = col.type;
  const at = base + col.valuesAt;
  if (type == T_DOUBLE) {
    const aux = load<u32>(v, 4);
    if (aux != 0) {
      const f = pushPtr(fixups, FIXUP_SIZE);
      store<u32>(f, load<u32>(v, 8));
      store<u32>(f, aux, 4);
      store<u32>(f, <u32>(at + (pos << 3) - base), 8);
    } else {
      store<u64>(at + (pos << 3), load<u64>(v, 8));
    }
  } else if (type == T_BIGINT || type == T_UNSIGNED) {
    store<u64>(at + (pos << 3), load<u64>(v, 8));
  } else if (type == T_BOOLEAN) {
    store<u8>(at + pos, <u8>load<u64>(v, 8));
  } else {
    const n = load<u32>(v, 4);
    memory.copy(base + col.bytesAt + col.strCursor, <usize>load<u64>(v, 8), n);
    col.strCursor += n;
    store<u32>(at + ((pos + 1) << 2), col.strCursor);
  }
}
