// The validity vector of a memtable column (1 = present; none while every row is), shared by
// the typed columns (column-buffer.ts) and the UTF-8 ones (utf8-column.ts).

import type { BatchColumn } from '../../core/write-batch.js';

/** A memtable column's validity vector (1 = present; undefined while every row is) and its rows. */
export interface Validity {
  validity: Uint8Array | undefined;
  readonly capacity: number;
}

/** Marks rows [from, to) of a column absent (rows before `from` present if it had no vector). */
export function markAbsent(buf: Validity, from: number, to: number): void {
  buf.validity ??= new Uint8Array(buf.capacity).fill(1, 0, from);
  buf.validity.fill(0, from, to);
}

/** Copies the validity of rows [start, start + count) of a batch column to `buf` at row `at`. */
export function copyValidity(buf: Validity, col: BatchColumn, start: number, count: number, at: number): void {
  if (col.validity) {
    buf.validity ??= new Uint8Array(buf.capacity).fill(1, 0, at);
    if (count === 1) buf.validity[at] = col.validity[start]!;
    else buf.validity.set(col.validity.subarray(start, start + count), at);
  } else if (buf.validity) {
    buf.validity.fill(1, at, at + count);
  }
}
