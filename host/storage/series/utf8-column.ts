// STRING values kept as UTF-8 bytes: value i is bytes[offsets[i], offsets[i + 1]). The memtable's
// row area and the segment writer's packs hold strings so, from the write batch (which carries
// them so) to the column block (which the Wasm encoder reads so). Spans are why: a dozen strings
// each, and as JavaScript strings they were most of the objects the scavenger copied and promoted
// while the memtable filled, then were encoded back to UTF-8 by the flush. Readers of the row
// area decode on demand (`get`); a query over the memtable is rarer than a write to it.
//
// Rows are set in increasing order; rows skipped over are empty (an absent row has no bytes).

import { bug } from '../../core/errors.js';
import { writeUtf8 } from '../../core/utf8.js';
import { ValueType, type BatchColumn } from '../../core/write-batch.js';
import { copyValidity, markAbsent } from './validity.js';

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Bytes a row starts with; the array doubles as values come. Small, because most STRING columns
 * of wide tables are sparse (an attribute of some spans), and a pack has one buffer per column.
 */
const FIRST_BYTES_PER_ROW = 2;

export class Utf8Buffer {
  /** capacity + 1 offsets; [0, length] are set. */
  readonly offsets: Uint32Array;
  bytes: Uint8Array;
  /** Rows set (or skipped) so far. */
  length = 0;

  constructor(capacity: number) {
    this.offsets = new Uint32Array(capacity + 1);
    this.bytes = new Uint8Array(Math.max(64, capacity * FIRST_BYTES_PER_ROW));
  }

  get capacity(): number {
    return this.offsets.length - 1;
  }

  /** Bytes of the values set so far. */
  get used(): number {
    return this.offsets[this.length]!;
  }

  /** Bytes held: the offsets and the byte array (capacity). */
  get allocated(): number {
    return this.offsets.byteLength + this.bytes.byteLength;
  }

  /** Forgets every row (the arrays are kept for new ones). */
  clear(): void {
    this.length = 0;
  }

  /** Rows [length, row) become empty. */
  pad(row: number): void {
    if (row > this.capacity) throw bug(`utf8 buffer: row ${row} past its capacity ${this.capacity}`);
    if (row <= this.length) return;
    this.offsets.fill(this.offsets[this.length]!, this.length + 1, row + 1);
    this.length = row;
  }

  /** Room for bytes up to `end`; returns the growth of `allocated`. */
  #reserve(end: number): number {
    const before = this.bytes.length;
    if (end <= before) return 0;
    let cap = before * 2;
    while (cap < end) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.bytes.subarray(0, this.used));
    this.bytes = next;
    return cap - before;
  }

  #checkRow(row: number): void {
    if (row < this.length || row >= this.capacity)
      throw bug(`utf8 buffer: row ${row} set out of order (length ${this.length}, capacity ${this.capacity})`);
  }

  /** Sets row `row` (at or past `length`) to src[from, to). Returns the growth of `allocated`. */
  setBytes(row: number, src: Uint8Array, from: number, to: number): number {
    // The flush calls this for every string of every small series: the next row, short values.
    if (row !== this.length || row >= this.capacity) {
      this.#checkRow(row);
      this.pad(row);
    }
    const n = to - from;
    const at = this.offsets[row]!;
    const grown = this.#reserve(at + n);
    const bytes = this.bytes;
    if (n < 32) for (let i = 0; i < n; i++) bytes[at + i] = src[from + i]!;
    else bytes.set(src.subarray(from, to), at);
    this.offsets[row + 1] = at + n;
    this.length = row + 1;
    return grown;
  }

  /** Sets row `row` (at or past `length`) to the UTF-8 of `s`. Returns the growth of `allocated`. */
  setString(row: number, s: string): number {
    this.#checkRow(row);
    this.pad(row);
    const at = this.used;
    const grown = this.#reserve(at + s.length * 3);
    this.offsets[row + 1] = at + writeUtf8(s, this.bytes, at);
    this.length = row + 1;
    return grown;
  }

  /**
   * Sets rows [at, at + count) to values [start, start + count) of another offsets/bytes pair
   * (a write batch's column). Returns the growth of `allocated`.
   */
  setRange(at: number, offsets: Uint32Array, bytes: Uint8Array, start: number, count: number): number {
    if (count === 0) return 0;
    this.#checkRow(at);
    this.#checkRow(at + count - 1);
    this.pad(at);
    const from = offsets[start]!;
    const to = offsets[start + count]!;
    const base = this.used;
    const grown = this.#reserve(base + to - from);
    this.bytes.set(bytes.subarray(from, to), base);
    const shift = base - from;
    for (let i = 1; i <= count; i++) this.offsets[at + i] = offsets[start + i]! + shift;
    this.length = at + count;
    return grown;
  }

  /** The value of row `row` (< length). */
  get(row: number): string {
    const a = this.offsets[row]!;
    const b = this.offsets[row + 1]!;
    return a === b ? '' : decoder.decode(this.bytes.subarray(a, b));
  }
}

/** A STRING column of the row area: UTF-8 values plus an optional validity vector (1 = present). */
export class Utf8Column {
  readonly type = ValueType.String;
  readonly data: Utf8Buffer;
  validity: Uint8Array | undefined;

  /** A column of `capacity` rows whose first `nullRows` rows are absent. */
  constructor(capacity: number, nullRows: number) {
    this.data = new Utf8Buffer(capacity);
    if (nullRows > 0) {
      this.validity = new Uint8Array(capacity);
      this.data.pad(nullRows);
    }
  }

  get capacity(): number {
    return this.data.capacity;
  }

  /** Bytes held: offsets, bytes and validity. */
  get allocated(): number {
    return this.data.allocated + (this.validity?.byteLength ?? 0);
  }

  /** Marks rows [from, to) absent. */
  markAbsent(from: number, to: number): void {
    markAbsent(this, from, to);
  }
}

/**
 * Copies rows [start, start + count) of a batch STRING column into `buf` at row `at` (which has
 * room); returns the growth of its byte array (a new validity vector is the caller's to count).
 */
export function copyUtf8Column(buf: Utf8Column, col: BatchColumn, start: number, count: number, at: number): number {
  const { offsets, bytes } = col.strings!;
  const grown = buf.data.setRange(at, offsets, bytes, start, count);
  copyValidity(buf, col, start, count, at);
  return grown;
}
