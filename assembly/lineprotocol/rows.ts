// The row log of the batch being built: rows in input order, each a header and its values, that
// the batch writer later walks series by series (the rows of a series are chained by offset).
//
//   row:   ts i64 | series u32 | valueCount u32 | next u32 (offset of the series' next row) | 0 u32
//   value: column u32 (batch column id) | aux u32 | bits u64
//     DOUBLE: bits = f64, or (aux != 0) a fixup: bits = token offset from the input, aux = its length
//     BIGINT, BIGINT UNSIGNED: bits = the value; BOOLEAN: bits = 0 or 1
//     STRING: bits = pointer to the bytes (input or unescape area), aux = length

import { Arena, newArena, push, pushPtr } from './arena';
import { addProjected, bcol, btable, NONE, series } from './intern';

export const ROW_SIZE: usize = 24;
export const VALUE_SIZE: usize = 16;

export const rows = newArena(1 << 16);
/** Rows in the batch; also the serial of the row being scanned. */
export let rowCount: u32 = 0;

export function beginRows(): void {
  rows.len = 0;
  rowCount = 0;
}

/** Opens a row for series `s`; returns its offset. Values follow with `pushValue`. */
@inline
export function openRow(): usize {
  return push(rows, ROW_SIZE);
}

@inline
export function pushValue(column: u32, aux: u32, bits: u64): void {
  const v = pushPtr(rows, VALUE_SIZE);
  store<u32>(v, column);
  store<u32>(v, aux, 4);
  store<u64>(v, bits, 8);
}

/**
 * Records field column `bc` as present in row `serial`: a column the batch has not entered yet
 * is listed in `pending` with `aux` (for intern.ts enterPendingColumns). Shared by the scanners.
 */
@inline
export function markField(pending: Arena, bc: u32, aux: u32, serial: u32): void {
  const b = bcol(bc);
  if (b.index == NONE) {
    const e = pushPtr(pending, 8);
    store<u32>(e, bc);
    store<u32>(e, aux, 4);
  }
  b.lastRow = serial;
  b.present++;
}

/** The row's STRING value of `n` bytes at `p` (input-relative) in column `bc`, counted in its size. */
@inline
export function pushString(bc: u32, n: usize, p: usize): void {
  pushValue(bc, <u32>n, p);
  bcol(bc).strBytes += <u32>n;
  addProjected(n);
}

/** Completes the row opened at `at`, with `count` values. */
@inline
export function closeRow(at: usize, ts: i64, s: u32, count: u32): void {
  const r = rows.base + at;
  store<i64>(r, ts);
  store<u32>(r, s, 8);
  store<u32>(r, count, 12);
  store<u32>(r, 0xffffffff, 16);
  rowCount++;
}

/**
 * Completes the row opened at `at` for series `sid`, with `count` values: the series' time
 * bounds and order, its chain of rows, and the batch size estimate.
 */
@inline
export function commitRow(at: usize, sid: u32, ts: i64, count: u32): void {
  closeRow(at, ts, sid, count);
  const s = series(sid);
  if (s.rowCount == 0) {
    s.minTs = ts;
    s.maxTs = ts;
    s.headRow = <u32>at;
  } else {
    if (ts < s.lastTs) s.sorted = 0;
    if (ts < s.minTs) s.minTs = ts;
    if (ts > s.maxTs) s.maxTs = ts;
    store<u32>(rows.base + <usize>s.tailRow, <u32>at, 16);
  }
  s.lastTs = ts;
  s.tailRow = <u32>at;
  s.rowCount++;
  const t = btable(s.table);
  t.rowCount++;
  addProjected(<u64>t.rowWidth);
}
