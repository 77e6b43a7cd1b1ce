// One series of a memtable. A series starts small: its rows live in its table's shared row area
// (row-area.ts) and it holds only their ids, because most series of high-cardinality data (one
// per span, per request id) never get more than a row or two. Past SMALL_SERIES_ROWS rows it
// moves to arrays of its own (a time column and a ColumnBuffer per field), sized to what it
// holds and doubled as it grows, so a long series appends with O(columns) copies per batch and
// reads without copying.
//
// Rows are only appended; rows [0, length) of its own arrays never change, so a snapshot of
// them (arrays + length) stays valid for readers without locks. Out-of-order or duplicate
// timestamps are resolved when a reader asks for a sorted view: sort, then merge equal
// timestamps field by field with the last write winning (normalizeRows), into new arrays. A
// small series does that on every snapshot (a few rows); one with its own arrays adopts the result.

import { bug } from '../../core/errors.js';
import { ColumnKind, type BatchColumn, type BatchTable } from '../../core/write-batch.js';
import { ColumnBuffer, copyColumn, stringBytes } from './column-buffer.js';
import type { RowArea } from './row-area.js';
import { parseSeriesIdKey, type SeriesTags } from '../../core/series-key.js';
import {
  compareI64,
  filterRows,
  normalizeRows,
  type ColumnData,
  type PackSource,
  type PackTarget,
  type SeriesRows,
} from '../series/index.js';

/** A series with more rows than this gets arrays of its own. */
export const SMALL_SERIES_ROWS = 32;

/**
 * Estimated bytes of a series' identity beyond its key's characters: the SeriesBuffer object,
 * its BigInt bounds, its entry in the table's map and the key string's header (measured with
 * 100 k one-row series in test/storage/memtable/memtable-memory.test.ts).
 */
const SERIES_OVERHEAD_BYTES = 240;

/** The arrays of a series that outgrew the row area. */
interface OwnRows {
  ts: BigInt64Array;
  ts32: Int32Array;
  columns: Map<number, ColumnBuffer>;
  /** Bytes of the strings in `columns`. */
  stringBytes: number;
}

/** copyTo's row ids, a scratch kept between calls (a small series has a few). */
let rowIdScratch = new Int32Array(SMALL_SERIES_ROWS);

export class SeriesBuffer implements PackSource {
  /** seriesIdKey(tags) */
  readonly key: string;
  /** The row area of the series' table. */
  readonly #area: RowArea;
  length = 0;
  /** Timestamps strictly increase in row order: no sort or merge needed to read. */
  normalized = true;
  minTs = 0n;
  maxTs = 0n;
  /** Small series: its rows are area rows [first, first + length), or those listed. */
  #first = 0;
  #list: number[] | undefined;
  /** Set once the series has arrays of its own. */
  #own: OwnRows | undefined;
  #bytes: number;

  constructor(key: string, area: RowArea) {
    this.key = key;
    this.#area = area;
    this.#bytes = SERIES_OVERHEAD_BYTES + 2 * key.length;
  }

  /** [tag column id, value], sorted by id (parsed from the key, which is all the series keeps). */
  get tags(): SeriesTags {
    return parseSeriesIdKey(this.key);
  }

  /** Whether the rows live in the table's row area. */
  get small(): boolean {
    return this.#own === undefined;
  }

  /** Bytes held by this series: its identity, and its own arrays (capacity) and strings. */
  get bytes(): number {
    return this.#bytes;
  }

  #recount(): number {
    const before = this.#bytes;
    let n = SERIES_OVERHEAD_BYTES + 2 * this.key.length + (this.#list === undefined ? 0 : 16 + 8 * this.#list.length);
    const own = this.#own;
    if (own !== undefined) {
      let perRow = 8;
      for (const c of own.columns.values()) perRow += c.bytesPerRow();
      n += perRow * own.ts.length + own.stringBytes + 64 * (1 + own.columns.size);
    }
    this.#bytes = n;
    return n - before;
  }

  /** Bounds and order after appending rows with bounds [minTs, maxTs] that `increasing` says are strictly increasing. */
  #extend(minTs: bigint, maxTs: bigint, increasing: boolean): void {
    if (this.length === 0) {
      this.minTs = minTs;
      this.maxTs = maxTs;
      this.normalized = increasing;
      return;
    }
    if (this.normalized && (!increasing || minTs <= this.maxTs)) this.normalized = false;
    if (minTs < this.minTs) this.minTs = minTs;
    if (maxTs > this.maxTs) this.maxTs = maxTs;
  }

  /**
   * Records `count` rows appended to the row area at ids [first, first + count) (a small series
   * that stays small). `increasing`: their timestamps strictly increase. Returns the change in bytes.
   */
  addAreaRows(first: number, count: number, minTs: bigint, maxTs: bigint, increasing: boolean): number {
    if (this.#own !== undefined) throw bug('addAreaRows on a series with its own arrays');
    this.#extend(minTs, maxTs, increasing);
    if (this.length === 0) {
      this.#first = first;
      this.#list = undefined;
    } else if (this.#list === undefined && this.#first + this.length === first) {
      // Still one contiguous range.
    } else {
      const list = (this.#list ??= rangeList(this.#first, this.length));
      for (let i = 0; i < count; i++) list.push(first + i);
    }
    this.length += count;
    return this.#list === undefined ? 0 : this.#recount();
  }

  /** Moves the rows out of the area into arrays of their own with room for `capacity` rows. */
  promote(capacity: number): number {
    if (this.#own !== undefined) return 0;
    const rows = this.#area.gather(this.#first, this.#list, this.length);
    const ts = new BigInt64Array(capacity);
    ts.set(rows.ts);
    const columns = new Map<number, ColumnBuffer>();
    let strings = 0;
    for (const [id, c] of rows.columns) {
      const buf = new ColumnBuffer(c.type, capacity, 0);
      if (Array.isArray(c.values)) {
        const dst = buf.values as string[];
        for (let i = 0; i < rows.length; i++) {
          const s = (c.values as string[])[i]!;
          dst[i] = s;
          if (s.length > 0) strings += stringBytes(s);
        }
      } else {
        (buf.values as Float64Array).set(c.values as Float64Array);
      }
      if (c.validity !== undefined) {
        buf.validity = new Uint8Array(capacity);
        buf.validity.set(c.validity);
      }
      columns.set(id, buf);
    }
    this.#own = { ts, ts32: new Int32Array(ts.buffer), columns, stringBytes: strings };
    this.#list = undefined;
    return this.#recount();
  }

  /**
   * Appends rows [start, start + count) of a batch table whose columns map to `ids` (0 = skip)
   * to the series' own arrays (promote first). Returns the change in bytes held.
   */
  append(
    table: BatchTable,
    ids: ArrayLike<number>,
    start: number,
    count: number,
    minTs: bigint,
    maxTs: bigint,
  ): number {
    const own = this.#own;
    if (own === undefined) throw bug('append to a series without its own arrays');
    const at = this.length;
    const end = at + count;
    if (end > own.ts.length) {
      let cap = Math.max(1, own.ts.length * 2);
      while (cap < end) cap *= 2;
      const ts = new BigInt64Array(cap);
      ts.set(own.ts.subarray(0, at));
      own.ts = ts;
      own.ts32 = new Int32Array(ts.buffer);
      for (const c of own.columns.values()) c.grow(cap, at);
    }
    own.ts.set(table.timestamps.subarray(start, start + count), at);
    // Strictly increasing over the new slice? Compare through the Int32 alias: no BigInt per row.
    let increasing = true;
    const t = own.ts32;
    for (let i = at + 1; i < end && increasing; i++) increasing = compareI64(t, i - 1, t, i) < 0;
    this.#extend(minTs, maxTs, increasing);
    const cols = table.columns;
    let present = 0;
    for (let ci = 0; ci < cols.length; ci++) {
      const col = cols[ci]!;
      const id = ids[ci]!;
      if (col.kind !== ColumnKind.Field || id === 0) continue;
      present++;
      let buf = own.columns.get(id);
      if (buf === undefined) {
        // A column of the batch that this series has no value in yet is not given arrays.
        if (col.validity !== undefined && !col.validity.subarray(start, start + count).includes(1)) {
          present--;
          continue;
        }
        buf = new ColumnBuffer(col.type, own.ts.length, at);
        own.columns.set(id, buf);
      } else if (buf.type !== col.type) {
        // The catalog rejects type changes before anything is appended.
        throw bug(`column ${col.name} (id ${id}) of a series is type ${buf.type}, batch has ${col.type}`);
      }
      own.stringBytes += copyColumn(buf, col, start, count, at);
    }
    // Columns this batch does not carry are absent for the new rows.
    if (present < own.columns.size) {
      for (const [id, buf] of own.columns) if (!carries(cols, ids, id)) buf.markAbsent(at, end);
    }
    this.length = end;
    return this.#recount();
  }

  /** A small series whose rows are in time order without duplicates: it can copy them into a pack itself. */
  get packable(): boolean {
    return this.#own === undefined && this.normalized;
  }

  /** The area id of the first row (PackSource; meaningful for a small series). */
  get sourceOrder(): number {
    return this.#list?.[0] ?? this.#first;
  }

  /** The row area the rows live in (PackSource: meaningful for a small series). */
  get rowSource(): RowArea {
    return this.#area;
  }

  /** The area ids of the rows (PackSource; a small series). */
  rowIds(out: Int32Array, at: number): number {
    const list = this.#list;
    if (list === undefined) for (let i = 0; i < this.length; i++) out[at + i] = this.#first + i;
    else for (let i = 0; i < this.length; i++) out[at + i] = list[i]!;
    return at + this.length;
  }

  /** Copies the rows into a segment pack (a `packable` series; PackSource). */
  copyTo(target: PackTarget): void {
    if (!this.packable) throw bug('copyTo of a series that is not packable');
    if (rowIdScratch.length < this.length) rowIdScratch = new Int32Array(this.length);
    this.#area.copyRowsTo(rowIdScratch, this.rowIds(rowIdScratch, 0), target);
  }

  /**
   * A read-only view of the rows, sorted by time with duplicates merged. For a series with its
   * own arrays the view shares them (rows [0, length) never change, so it stays valid while
   * writes go on; normalising replaces the arrays, the old ones stay with earlier views). A
   * small series' view is a copy, of the columns `ids` only when given (RowArea.gather).
   */
  snapshot(ids?: readonly number[]): SeriesRows {
    const own = this.#own;
    if (own === undefined) {
      const rows = this.#area.gather(this.#first, this.#list, this.length, ids);
      return this.normalized ? rows : normalizeRows(rows);
    }
    if (!this.normalized) this.#adopt(normalizeRows(this.#ownRows()));
    return this.#ownRows();
  }

  #ownRows(): SeriesRows {
    const own = this.#own!;
    const columns = new Map<number, ColumnData>();
    for (const [id, c] of own.columns) columns.set(id, { type: c.type, values: c.values, validity: c.validity });
    return { length: this.length, ts: own.ts, columns };
  }

  /** Replaces the own arrays by `rows` (sorted, no duplicates; arrays of exactly its length). */
  #adopt(rows: SeriesRows): void {
    const columns = new Map<number, ColumnBuffer>();
    let strings = 0;
    for (const [id, c] of rows.columns) {
      columns.set(id, ColumnBuffer.of(c.type, c.values, c.validity));
      if (Array.isArray(c.values)) for (const s of c.values) if (s.length > 0) strings += stringBytes(s);
    }
    this.#own = {
      ts: rows.ts,
      ts32: new Int32Array(rows.ts.buffer, rows.ts.byteOffset, rows.ts.length * 2),
      columns,
      stringBytes: strings,
    };
    this.length = rows.length;
    this.normalized = true;
    if (rows.length > 0) {
      this.minTs = rows.ts[0]!;
      this.maxTs = rows.ts[rows.length - 1]!;
    }
  }

  /** Removes the rows with minTs <= ts <= maxTs. Returns the change in bytes held. */
  deleteRange(minTs: bigint, maxTs: bigint): number {
    if (this.length === 0 || maxTs < this.minTs || minTs > this.maxTs) return 0;
    if (this.#own === undefined) {
      // Keep the other ids (the area keeps the rows, unreferenced).
      const kept: number[] = [];
      let lo = 0n;
      let hi = 0n;
      for (let i = 0; i < this.length; i++) {
        const row = this.#list === undefined ? this.#first + i : this.#list[i]!;
        const v = this.#area.ts(row);
        if (v >= minTs && v <= maxTs) continue;
        if (kept.length === 0 || v < lo) lo = v;
        if (kept.length === 0 || v > hi) hi = v;
        kept.push(row);
      }
      if (kept.length === this.length) return 0;
      this.#list = kept;
      this.length = kept.length;
      if (kept.length > 0) {
        this.minTs = lo;
        this.maxTs = hi;
      }
      return this.#recount();
    }
    const rows = this.snapshot();
    const keep = new Uint8Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const v = rows.ts[i]!;
      keep[i] = v < minTs || v > maxTs ? 1 : 0;
    }
    const kept = filterRows(rows, keep);
    if (kept === rows) return 0;
    this.#adopt(kept);
    return this.#recount();
  }

  /** Forgets a column (ALTER TABLE DROP); a small series' area rows are dropped by the area. */
  dropColumn(id: number): number {
    if (this.#own === undefined || !this.#own.columns.delete(id)) return 0;
    return this.#recount();
  }
}

function rangeList(first: number, n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(first + i);
  return out;
}

function carries(cols: readonly BatchColumn[], ids: ArrayLike<number>, id: number): boolean {
  for (let ci = 0; ci < cols.length; ci++) if (ids[ci] === id && cols[ci]!.kind === ColumnKind.Field) return true;
  return false;
}
