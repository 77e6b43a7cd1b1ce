// The memtable of one database: per table id, per series (tags by column id), a time column and
// typed field columns keyed by column id, in growable typed arrays. Batches append each series
// as one contiguous slice (the write batch groups rows by series), so an append costs
// O(series + columns) typed-array copies.
//
// Rows are only ever appended; rows [0, length) of a buffer never change. That makes a snapshot
// (arrays + length) immutable for readers without locks. Out-of-order or duplicate timestamps
// are resolved when a reader asks for a sorted view: sort, then merge equal timestamps field by
// field with the last write winning, into new arrays. A DELETE also builds new arrays.
//
// LSNs: `cleanLsn` is the LSN of the last WAL record (write or delete) applied. Every delete up
// to it has been applied physically, so only tombstones newer than it concern this memtable
// once it is frozen for a flush (FORMAT.md §6).

import { bug } from '../core/errors.js';
import { batchString, ColumnKind, ValueType, type BatchColumn, type BatchTable, type WriteBatch } from '../core/write-batch.js';
import { allocValues, compareI64, seriesIdKey, type ColumnData, type FieldValues, type SeriesRows, type SeriesTags } from './series-data.js';

const INITIAL_ROWS = 32;

/** The ids a batch table resolved to: its table id and, per batch column, the column id (0 = skip). */
export interface TableStamp {
  tableId: number;
  columnIds: ArrayLike<number>;
}

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

export class SeriesBuffer {
  /** seriesIdKey(tags) */
  readonly key: string;
  readonly tags: SeriesTags;
  ts: BigInt64Array;
  #ts32: Int32Array;
  length = 0;
  readonly columns = new Map<number, ColumnBuffer>();
  /** Timestamps strictly increase over [0, length): no sort or merge needed to read. */
  normalized = true;
  minTs = 0n;
  maxTs = 0n;
  /** Bytes of string values (held outside the typed arrays). */
  #stringBytes = 0;
  #bytes = 0;

  constructor(key: string, tags: SeriesTags) {
    this.key = key;
    this.tags = tags;
    this.ts = new BigInt64Array(INITIAL_ROWS);
    this.#ts32 = new Int32Array(this.ts.buffer);
  }

  get capacity(): number {
    return this.ts.length;
  }

  /** Bytes held by this series' arrays (capacity, not length) and its strings. */
  get bytes(): number {
    return this.#bytes;
  }

  #recount(): void {
    let perRow = 8;
    for (const c of this.columns.values()) perRow += c.bytesPerRow();
    this.#bytes = perRow * this.capacity + this.#stringBytes + 64;
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

  /**
   * Appends rows [start, start + count) of a batch table whose columns map to `ids` (0 = skip).
   * Returns the change in bytes held.
   */
  append(table: BatchTable, ids: ArrayLike<number>, start: number, count: number, minTs: bigint, maxTs: bigint): number {
    const before = this.#bytes;
    this.#reserve(count);
    const at = this.length;
    this.ts.set(table.timestamps.subarray(start, start + count), at);
    const end = at + count;
    if (at === 0) {
      this.minTs = minTs;
      this.maxTs = maxTs;
    } else {
      if (minTs < this.minTs) this.minTs = minTs;
      if (maxTs > this.maxTs) this.maxTs = maxTs;
    }
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
    const cols = table.columns;
    let present = 0;
    for (let ci = 0; ci < cols.length; ci++) {
      const col = cols[ci]!;
      const id = ids[ci]!;
      if (col.kind !== ColumnKind.Field || id === 0) continue;
      present++;
      let buf = this.columns.get(id);
      if (buf === undefined) {
        buf = new ColumnBuffer(col.type, this.capacity, at);
        this.columns.set(id, buf);
      } else if (buf.type !== col.type) {
        // The catalog rejects type changes before anything is appended.
        throw bug(`column ${col.name} (id ${id}) of a series is type ${buf.type}, batch has ${col.type}`);
      }
      this.#stringBytes += copyColumn(buf, col, start, count, at);
    }
    // Columns this batch does not carry are absent for the new rows (their value slots past the
    // old length were never written, so they already hold 0 or '').
    if (present < this.columns.size) {
      for (const [id, buf] of this.columns) {
        if (carries(cols, ids, id)) continue;
        buf.validity ??= new Uint8Array(this.capacity).fill(1, 0, at);
        buf.validity.fill(0, at, end);
      }
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
  snapshot(): SeriesRows {
    if (!this.normalized) this.#normalize();
    const columns = new Map<number, ColumnData>();
    for (const [id, c] of this.columns) columns.set(id, { type: c.type, values: c.values, validity: c.validity });
    return { length: this.length, ts: this.ts, columns };
  }

  #normalize(): void {
    const n = this.length;
    const t = this.#ts32;
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    // Stable: equal timestamps keep write order, so the last write is last in each run.
    order.sort((a, b) => compareI64(t, a, t, b) || a - b);
    let distinct = 0;
    for (let i = 0; i < n; i++) if (i === 0 || compareI64(t, order[i - 1]!, t, order[i]!) !== 0) distinct++;
    const runStart = new Uint32Array(distinct + 1);
    const keepRows = new Uint32Array(distinct);
    let k = -1;
    for (let i = 0; i < n; i++) {
      if (i === 0 || compareI64(t, order[i - 1]!, t, order[i]!) !== 0) runStart[++k] = i;
    }
    runStart[distinct] = n;
    for (let r = 0; r < distinct; r++) keepRows[r] = order[runStart[r]!]!;
    this.#rebuild(distinct, keepRows, (c, r) => {
      // Last present value in the run wins, field by field.
      for (let i = runStart[r + 1]! - 1; i >= runStart[r]!; i--) {
        const row = order[i]!;
        if (c.validity === undefined || c.validity[row] === 1) return row;
      }
      return -1;
    });
    this.normalized = true;
  }

  /**
   * Replaces the arrays by `rows` new rows: row r takes its timestamp from old row tsRows[r] and
   * each column's value from the old row `pick(column, r)` (-1 = absent).
   */
  #rebuild(rows: number, tsRows: Uint32Array, pick: (c: ColumnBuffer, r: number) => number): void {
    const cap = Math.max(INITIAL_ROWS, rows);
    const ts = new BigInt64Array(cap);
    for (let r = 0; r < rows; r++) ts[r] = this.ts[tsRows[r]!]!;
    let stringBytes = 0;
    for (const [id, c] of this.columns) {
      const out = new ColumnBuffer(c.type, cap, 0);
      const validity = new Uint8Array(cap);
      let anyNull = false;
      const src = c.values;
      const dst = out.values;
      for (let r = 0; r < rows; r++) {
        const found = pick(c, r);
        if (found >= 0) {
          (dst as Float64Array)[r] = (src as Float64Array)[found]!;
          validity[r] = 1;
          if (c.type === ValueType.String) stringBytes += (src as string[])[found]!.length * 2;
        } else {
          anyNull = true;
        }
      }
      out.validity = anyNull ? validity : undefined;
      this.columns.set(id, out);
    }
    this.ts = ts;
    this.#ts32 = new Int32Array(ts.buffer);
    this.length = rows;
    this.#stringBytes = stringBytes;
    if (rows > 0) {
      this.minTs = ts[0]!;
      this.maxTs = ts[rows - 1]!;
    }
    this.#recount();
  }

  /** Removes the rows with minTs <= ts <= maxTs. Returns the change in bytes held. */
  deleteRange(minTs: bigint, maxTs: bigint): number {
    if (this.length === 0 || maxTs < this.minTs || minTs > this.maxTs) return 0;
    if (!this.normalized) this.#normalize();
    const before = this.#bytes;
    const keep: number[] = [];
    for (let i = 0; i < this.length; i++) {
      const v = this.ts[i]!;
      if (v < minTs || v > maxTs) keep.push(i);
    }
    if (keep.length === this.length) return 0;
    const rows = Uint32Array.from(keep);
    this.#rebuild(rows.length, rows, (c, r) => {
      const row = rows[r]!;
      return c.validity === undefined || c.validity[row] === 1 ? row : -1;
    });
    return this.#bytes - before;
  }

  /** Forgets a column (ALTER TABLE DROP). Returns the change in bytes held. */
  dropColumn(id: number): number {
    if (!this.columns.delete(id)) return 0;
    const before = this.#bytes;
    this.#recount();
    return this.#bytes - before;
  }
}

function carries(cols: readonly BatchColumn[], ids: ArrayLike<number>, id: number): boolean {
  for (let ci = 0; ci < cols.length; ci++) if (ids[ci] === id && cols[ci]!.kind === ColumnKind.Field) return true;
  return false;
}

/** Copies rows [start, start + count) of a batch column into `buf` at row `at`; returns string bytes added. */
function copyColumn(buf: ColumnBuffer, col: BatchColumn, start: number, count: number, at: number): number {
  const end = start + count;
  let stringBytes = 0;
  if (col.type === ValueType.String) {
    const dst = buf.values as string[];
    for (let i = start; i < end; i++) {
      const s = batchString(col.strings!, i);
      dst[at + i - start] = s;
      stringBytes += s.length * 2;
    }
  } else {
    (buf.values as Float64Array).set((col.values as Float64Array).subarray(start, end), at);
  }
  if (col.validity) {
    buf.validity ??= new Uint8Array(buf.values.length).fill(1, 0, at);
    buf.validity.set(col.validity.subarray(start, end), at);
  } else if (buf.validity) {
    buf.validity.fill(1, at, at + count);
  }
  return stringBytes;
}

export class TableMemtable {
  readonly tableId: number;
  readonly series = new Map<string, SeriesBuffer>();

  constructor(tableId: number) {
    this.tableId = tableId;
  }
}

/** All in-memory data of one database since the last rotation. */
export class Memtable {
  readonly tables = new Map<number, TableMemtable>();
  /** Bytes held by all series buffers (array capacity). */
  bytes = 0;
  rows = 0;
  /** LSN of the first and last write record applied (0 = none). */
  minLsn = 0;
  maxLsn = 0;
  /** LSN of the last record (write or delete) applied; every delete up to it is applied. */
  cleanLsn = 0;
  /** When the first row arrived (for flush by age), ms since the epoch; 0 while empty. */
  firstWriteMs = 0;

  get empty(): boolean {
    return this.rows === 0;
  }

  /**
   * Appends every row of `batch`, whose tables resolved to `stamps` (one per batch table; a
   * stamp of table id 0 skips the table). The batch's schema has been checked against the catalog.
   */
  apply(batch: WriteBatch, stamps: readonly TableStamp[], lsn: number, nowMs: number): void {
    for (let ti = 0; ti < batch.tables.length; ti++) {
      const t = batch.tables[ti]!;
      const stamp = stamps[ti]!;
      if (stamp.tableId === 0) continue;
      let table = this.tables.get(stamp.tableId);
      if (table === undefined) this.tables.set(stamp.tableId, (table = new TableMemtable(stamp.tableId)));
      for (const s of t.series) {
        const tags: Array<[number, string]> = s.tags.map(([ci, v]) => [stamp.columnIds[ci]!, v]);
        if (tags.length > 1) tags.sort((a, b) => a[0] - b[0]);
        const key = seriesIdKey(tags);
        let sb = table.series.get(key);
        if (sb === undefined) {
          sb = new SeriesBuffer(key, tags);
          table.series.set(key, sb);
        }
        this.bytes += sb.append(t, stamp.columnIds, s.rowStart, s.rowCount, s.minTs, s.maxTs);
      }
      this.rows += t.rowCount;
    }
    if (this.minLsn === 0) this.minLsn = lsn;
    this.maxLsn = Math.max(this.maxLsn, lsn);
    this.cleanLsn = Math.max(this.cleanLsn, lsn);
    if (this.firstWriteMs === 0) this.firstWriteMs = nowMs;
  }

  /**
   * Deletes rows with minTs <= ts <= maxTs of the series with the given keys (all series when
   * `keys` is null) of a table, as WAL record `lsn` says.
   */
  deleteRows(tableId: number, keys: ReadonlySet<string> | null, minTs: bigint, maxTs: bigint, lsn: number): void {
    this.cleanLsn = Math.max(this.cleanLsn, lsn);
    const table = this.tables.get(tableId);
    if (table === undefined) return;
    for (const s of table.series.values()) {
      if (keys !== null && !keys.has(s.key)) continue;
      const rowsBefore = s.length;
      this.bytes += s.deleteRange(minTs, maxTs);
      this.rows -= rowsBefore - s.length;
    }
  }

  /** Removes a table's data (DROP TABLE). */
  dropTable(tableId: number): void {
    const t = this.tables.get(tableId);
    if (t === undefined) return;
    for (const s of t.series.values()) {
      this.bytes -= s.bytes;
      this.rows -= s.length;
    }
    this.tables.delete(tableId);
  }

  /** Removes a column's values (ALTER TABLE DROP). */
  dropColumn(tableId: number, columnId: number): void {
    const t = this.tables.get(tableId);
    if (t === undefined) return;
    for (const s of t.series.values()) this.bytes += s.dropColumn(columnId);
  }
}
