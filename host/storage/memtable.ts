// The memtable of one database: per table, per series, a time column and typed field columns in
// growable typed arrays. Batches append each series as one contiguous slice (the write batch
// groups rows by series), so an append costs O(series + columns) typed-array copies.
//
// Rows are only ever appended; rows [0, length) of a buffer never change. That makes a snapshot
// (arrays + length) immutable for readers without locks. Out-of-order or duplicate timestamps
// are resolved when a reader asks for a sorted view: sort, then merge equal timestamps field by
// field with the last write winning, into new arrays.

import { bug } from '../core/errors.js';
import { batchString, ColumnKind, ValueType, type BatchColumn, type BatchTable, type WriteBatch } from '../core/write-batch.js';
import { compareI64, type FieldValues, type SeriesData } from './series-data.js';

const INITIAL_ROWS = 32;

export class ColumnBuffer {
  readonly type: ValueType;
  values: FieldValues;
  /** 1 = present; undefined while every row so far is present. */
  validity: Uint8Array | undefined;

  constructor(type: ValueType, capacity: number, nullRows: number) {
    this.type = type;
    this.values = allocValues(type, capacity);
    if (nullRows > 0) this.validity = new Uint8Array(capacity);
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

  bytesPerRow(): number {
    const v = this.validity ? 1 : 0;
    switch (this.type) {
      case ValueType.Boolean:
        return 1 + v;
      case ValueType.String:
        return 16 + v;
      default:
        return 8 + v;
    }
  }
}

function allocValues(type: ValueType, capacity: number): FieldValues {
  switch (type) {
    case ValueType.Double:
      return new Float64Array(capacity);
    case ValueType.BigInt:
      return new BigInt64Array(capacity);
    case ValueType.Unsigned:
      return new BigUint64Array(capacity);
    case ValueType.Boolean:
      return new Uint8Array(capacity);
    case ValueType.String:
      return new Array<string>(capacity).fill('');
    default:
      throw bug(`no column buffer for value type ${type}`);
  }
}

export class SeriesBuffer {
  readonly key: string;
  /** tag name -> value */
  readonly tags: ReadonlyMap<string, string>;
  ts: BigInt64Array;
  #ts32: Int32Array;
  length = 0;
  readonly columns = new Map<string, ColumnBuffer>();
  /** Timestamps strictly increase over [0, length): no sort or merge needed to read. */
  normalized = true;
  #bytes = 0;

  constructor(key: string, tags: ReadonlyMap<string, string>) {
    this.key = key;
    this.tags = tags;
    this.ts = new BigInt64Array(INITIAL_ROWS);
    this.#ts32 = new Int32Array(this.ts.buffer);
  }

  get capacity(): number {
    return this.ts.length;
  }

  /** Bytes held by this series' arrays (capacity, not length). */
  get bytes(): number {
    return this.#bytes;
  }

  #recount(): void {
    let perRow = 8;
    for (const c of this.columns.values()) perRow += c.bytesPerRow();
    this.#bytes = perRow * this.capacity;
  }

  #reserve(rows: number): void {
    if (this.length + rows <= this.capacity) return;
    let cap = this.capacity * 2;
    while (cap < this.length + rows) cap *= 2;
    const ts = new BigInt64Array(cap);
    ts.set(this.ts.subarray(0, this.length));
    this.ts = ts;
    this.#ts32 = new Int32Array(ts.buffer);
    for (const c of this.columns.values()) c.grow(cap, this.length);
  }

  /** Appends rows [start, start + count) of a batch table. Returns the change in bytes held. */
  append(table: BatchTable, fieldNames: ReadonlySet<string>, start: number, count: number): number {
    const before = this.#bytes;
    this.#reserve(count);
    const at = this.length;
    this.ts.set(table.timestamps.subarray(start, start + count), at);
    const end = at + count;
    if (this.normalized) {
      // Strictly increasing across the old tail and the new slice? Compare through an Int32
      // alias of the same memory: no BigInt allocation per row.
      const t = this.#ts32;
      for (let i = at === 0 ? 1 : at; i < end; i++) {
        if (compareI64(t, i - 1, t, i) >= 0) {
          this.normalized = false;
          break;
        }
      }
    }
    for (const col of table.columns) {
      if (col.kind !== ColumnKind.Field) continue;
      let buf = this.columns.get(col.name);
      if (buf === undefined) {
        buf = new ColumnBuffer(col.type, this.capacity, at);
        this.columns.set(col.name, buf);
      } else if (buf.type !== col.type) {
        // The catalog rejects type changes before anything is appended.
        throw bug(`column ${col.name} of series ${this.key} is type ${buf.type}, batch has ${col.type}`);
      }
      copyColumn(buf, col, start, count, at);
    }
    // Columns this batch does not carry are absent for the new rows (their value slots past the
    // old length were never written, so they already hold 0 or '').
    for (const [name, buf] of this.columns) {
      if (fieldNames.has(name)) continue;
      buf.validity ??= new Uint8Array(this.capacity).fill(1, 0, at);
      buf.validity.fill(0, at, end);
    }
    this.length = end;
    this.#recount();
    return this.#bytes - before;
  }

  /**
   * A read-only view of the rows, sorted by time with duplicates merged. The arrays are shared
   * with the buffer but rows [0, length) never change, so the view stays valid while writes go on.
   * Normalising replaces the buffer's arrays (the old ones stay with earlier views).
   */
  snapshot(): SeriesData {
    if (!this.normalized) this.#normalize();
    const columns = new Map<string, { type: ValueType; values: FieldValues; validity: Uint8Array | undefined }>();
    for (const [name, c] of this.columns) columns.set(name, { type: c.type, values: c.values, validity: c.validity });
    return { key: this.key, tags: this.tags, length: this.length, ts: this.ts, columns };
  }

  #normalize(): void {
    const n = this.length;
    const t = this.#ts32;
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    // Stable: equal timestamps keep write order, so the last write is last in each run.
    order.sort((a, b) => compareI64(t, a, t, b) || a - b);
    // Count distinct timestamps.
    let distinct = 0;
    for (let i = 0; i < n; i++) if (i === 0 || compareI64(t, order[i - 1]!, t, order[i]!) !== 0) distinct++;
    const cap = Math.max(INITIAL_ROWS, this.capacity);
    const ts = new BigInt64Array(cap);
    const runStart = new Uint32Array(distinct + 1);
    let k = -1;
    for (let i = 0; i < n; i++) {
      if (i === 0 || compareI64(t, order[i - 1]!, t, order[i]!) !== 0) {
        k++;
        runStart[k] = i;
        ts[k] = this.ts[order[i]!]!;
      }
    }
    runStart[distinct] = n;
    for (const [name, c] of this.columns) {
      const out = new ColumnBuffer(c.type, cap, 0);
      const validity = new Uint8Array(cap);
      let anyNull = false;
      const src = c.values;
      const dst = out.values;
      for (let r = 0; r < distinct; r++) {
        // Last present value in the run wins, field by field.
        let found = -1;
        for (let i = runStart[r + 1]! - 1; i >= runStart[r]!; i--) {
          const row = order[i]!;
          if (c.validity === undefined || c.validity[row] === 1) {
            found = row;
            break;
          }
        }
        if (found >= 0) {
          (dst as Float64Array)[r] = (src as Float64Array)[found]!;
          validity[r] = 1;
        } else {
          anyNull = true;
        }
      }
      out.validity = anyNull ? validity : undefined;
      this.columns.set(name, out);
    }
    this.ts = ts;
    this.#ts32 = new Int32Array(ts.buffer);
    this.length = distinct;
    this.normalized = true;
    this.#recount();
  }
}

/** Copies rows [start, start + count) of a batch column into `buf` at row `at`. */
function copyColumn(buf: ColumnBuffer, col: BatchColumn, start: number, count: number, at: number): void {
  const end = start + count;
  if (col.type === ValueType.String) {
    const dst = buf.values as string[];
    for (let i = start; i < end; i++) dst[at + i - start] = batchString(col.strings!, i);
  } else {
    (buf.values as Float64Array).set((col.values as Float64Array).subarray(start, end), at);
  }
  if (col.validity) {
    buf.validity ??= new Uint8Array(buf.values.length).fill(1, 0, at);
    buf.validity.set(col.validity.subarray(start, end), at);
  } else if (buf.validity) {
    buf.validity.fill(1, at, at + count);
  }
}

export class TableMemtable {
  readonly name: string;
  readonly series = new Map<string, SeriesBuffer>();

  constructor(name: string) {
    this.name = name;
  }
}

/** All in-memory data of one database. */
export class Memtable {
  readonly tables = new Map<string, TableMemtable>();
  /** Bytes held by all series buffers (array capacity). */
  bytes = 0;
  rows = 0;

  /** Appends every row of `batch`. The batch's schema has been checked against the catalog. */
  apply(batch: WriteBatch): void {
    for (const t of batch.tables) {
      let table = this.tables.get(t.name);
      if (table === undefined) this.tables.set(t.name, (table = new TableMemtable(t.name)));
      const fieldNames = new Set(t.columns.filter((c) => c.kind === ColumnKind.Field).map((c) => c.name));
      for (const s of t.series) {
        let sb = table.series.get(s.key);
        if (sb === undefined) {
          const tags = new Map<string, string>();
          for (const [ci, v] of s.tags) tags.set(t.columns[ci]!.name, v);
          sb = new SeriesBuffer(s.key, tags);
          table.series.set(s.key, sb);
        }
        this.bytes += sb.append(t, fieldNames, s.rowStart, s.rowCount);
      }
      this.rows += t.rowCount;
    }
  }

  /** Removes a table's data (DROP TABLE). */
  dropTable(name: string): void {
    const t = this.tables.get(name);
    if (t === undefined) return;
    for (const s of t.series.values()) this.bytes -= s.bytes;
    this.tables.delete(name);
  }
}
