// A growable column of the memtable: typed values plus an optional validity vector, and the copy
// of a write batch's column slice into it. Rows [0, length) of a buffer are never written again
// (the owner only appends), which is what lets snapshots share the arrays without copying.

import { batchString, ValueType, type BatchColumn } from '../../core/write-batch.js';
import { allocValues, copyValidity, type FieldValues, markAbsent } from '../series/index.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Bytes of a JavaScript string beyond its 8-byte slot: header, and up to 2 bytes a character. */
export const stringBytes = (s: string): number => 16 + 2 * s.length;

export class ColumnBuffer {
  readonly type: ValueType;
  values: FieldValues;
  /** 1 = present; undefined while every row so far is present. */
  validity: Uint8Array | undefined;

  /** A column of `capacity` rows whose first `nullRows` rows are absent. */
  constructor(type: ValueType, capacity: number, nullRows: number) {
    this.type = type;
    this.values = allocValues(type, capacity);
    if (nullRows > 0) this.validity = new Uint8Array(capacity);
  }

  /** Wraps existing arrays (their length is the capacity). */
  static of(type: ValueType, values: FieldValues, validity: Uint8Array | undefined): ColumnBuffer {
    const c = new ColumnBuffer(type, 0, 0);
    c.values = values;
    c.validity = validity;
    return c;
  }

  get capacity(): number {
    return this.values.length;
  }

  grow(capacity: number, length: number): void {
    const next = allocValues(this.type, capacity);
    if (Array.isArray(next)) {
      const src = this.values as string[];
      for (let i = 0; i < length; i++) next[i] = src[i]!;
    } else {
      (next as Float64Array).set((this.values as Float64Array).subarray(0, length));
    }
    this.values = next;
    if (this.validity) {
      const v = new Uint8Array(capacity);
      v.set(this.validity.subarray(0, length));
      this.validity = v;
    }
  }

  /** Marks rows [from, to) absent. */
  markAbsent(from: number, to: number): void {
    markAbsent(this, from, to);
  }

  /** Bytes a row costs in the typed arrays (STRING: the array slot; the strings are counted apart). */
  bytesPerRow(): number {
    const v = this.validity ? 1 : 0;
    switch (this.type) {
      case ValueType.Boolean:
        return 1 + v;
      case ValueType.String:
        return 8 + v;
      default:
        return 8 + v;
    }
  }
}

/**
 * Copies rows [start, start + count) of a batch column into `buf` at row `at` (which has room);
 * returns the bytes of the strings added.
 */
export function copyColumn(buf: ColumnBuffer, col: BatchColumn, start: number, count: number, at: number): number {
  const end = start + count;
  let added = 0;
  if (col.type === ValueType.String) {
    const dst = buf.values as string[];
    const { offsets, bytes } = col.strings!;
    // ASCII text (the usual) is decoded once for all the rows and cut: a TextDecoder call per
    // value was a third of the memtable's time for spans, a dozen strings each.
    const from = offsets[start]!;
    const to = offsets[end]!;
    let ascii = true;
    for (let i = from; i < to; i++) {
      if (bytes[i]! >= 0x80) {
        ascii = false;
        break;
      }
    }
    const all = ascii ? utf8.decode(bytes.subarray(from, to)) : undefined;
    for (let i = start; i < end; i++) {
      const a = offsets[i]!;
      const b = offsets[i + 1]!;
      // An absent row's bytes are empty.
      const s = a === b ? '' : all !== undefined ? all.slice(a - from, b - from) : batchString(col.strings!, i);
      dst[at + i - start] = s;
      if (s.length > 0) added += stringBytes(s);
    }
  } else if (count === 1) {
    (buf.values as Float64Array)[at] = (col.values as Float64Array)[start]!;
  } else {
    (buf.values as Float64Array).set((col.values as Float64Array).subarray(start, end), at);
  }
  copyValidity(buf, col, start, count, at);
  return added;
}
