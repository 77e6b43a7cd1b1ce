// The memtable of one database: per table id, per series (tags by column id), the rows written
// since the last rotation. Series start small, their rows in the table's shared row area, and
// move to arrays of their own once they hold more than SMALL_SERIES_ROWS rows and a batch brings
// them OWN_ARRAYS_MIN_SLICE rows or more (series-buffer.ts says why). The write batch groups rows
// by series, so an append costs O(series + columns) typed-array copies; consecutive series that
// stay small are copied into the area as one slice.
//
// LSNs: `cleanLsn` is the LSN of the last WAL record (write or delete) applied. Every delete up
// to it has been applied physically, so only tombstones newer than it concern this memtable
// once it is frozen for a flush (FORMAT.md §6).
//
// Bytes: every array counts at its capacity, every string at 16 bytes plus 2 a character, every
// series at an estimate of its object, map entry and key, so the limit on `bytes` bounds the
// heap the memtables take (test/storage/memtable/memtable-memory.test.ts holds it to the measured heap).

import { ColumnKind, type BatchSeries, type BatchTable, type WriteBatch } from '../../core/write-batch.js';
import { RowArea } from './row-area.js';
import { SeriesBuffer, SMALL_SERIES_ROWS } from './series-buffer.js';
import { batchSeriesIdKey } from '../../core/series-key.js';
import { compareI64 } from '../series/index.js';

export { SeriesBuffer, SMALL_SERIES_ROWS };

/** The ids a batch table resolved to: its table id and, per batch column, the column id (0 = skip). */
export interface TableStamp {
  tableId: number;
  columnIds: ArrayLike<number>;
}

/**
 * A small series moves to arrays of its own only when a batch brings it this many rows or more.
 * Series that come a few rows a batch (1,000 hosts in a 5,000-line body: 5 rows each) stay in
 * the row area, whose append copies each column of the whole batch once: with arrays of their
 * own, every series cost a copy per column per batch, which made the memtable the biggest part
 * of the server thread's time at 1,000 hosts (bench/RESULTS.md).
 */
const OWN_ARRAYS_MIN_SLICE = 16;

/** Estimated bytes of an entry of the batch-key cache beyond the key's characters. */
const CACHE_ENTRY_BYTES = 80;

export class TableMemtable {
  readonly tableId: number;
  readonly series = new Map<string, SeriesBuffer>();
  /** Rows of the small series. */
  readonly area = new RowArea();
  /** Bytes held by the area, the series and the cache. */
  bytes = 0;
  rows = 0;
  /**
   * Series seen in two batches or more (or with arrays of their own) by the write batch's series
   * key (names, not ids), so that a known series is found without reading its tags (10 tags a
   * series of OpenTSDB points: the id key cost a fifth of a write); a series seen once (a span)
   * is not kept here. Valid while every tag name keeps its column id: `#tagIds`
   * remembers the ids seen, and a batch that maps a name to another id (after a RENAME) clears both.
   */
  readonly #byBatchKey = new Map<string, SeriesBuffer>();
  readonly #tagIds = new Map<string, number>();
  readonly #runSb: SeriesBuffer[] = [];
  readonly #runS: BatchSeries[] = [];
  /** 1 where the series' rows increase: numbers, not booleans (V8 deoptimized append on a `true` pushed here, "not a Smi", in a fresh server's first span load). */
  readonly #runInc: number[] = [];

  constructor(tableId: number) {
    this.tableId = tableId;
  }

  /** Checks the batch's tag name -> id mapping against the cache's; clears the cache on a change. */
  #checkTagIds(t: BatchTable, ids: ArrayLike<number>): void {
    const cols = t.columns;
    for (let ci = 0; ci < cols.length; ci++) {
      const c = cols[ci]!;
      if (c.kind !== ColumnKind.Tag) continue;
      const known = this.#tagIds.get(c.name);
      if (known === ids[ci]) continue;
      if (known !== undefined) {
        for (const k of this.#byBatchKey.keys()) this.bytes -= CACHE_ENTRY_BYTES + 2 * k.length;
        this.#byBatchKey.clear();
        this.#tagIds.clear();
        this.#checkTagIds(t, ids);
        return;
      }
      this.#tagIds.set(c.name, ids[ci]!);
    }
  }

  /** Appends every row of a batch table whose columns map to `ids`; returns the change in bytes. */
  append(t: BatchTable, ids: ArrayLike<number>): number {
    const before = this.bytes;
    this.#checkTagIds(t, ids);
    const area = this.area;
    const areaBefore = area.bytes;
    let seriesDelta = 0;
    // A run of consecutive batch series that go to the area: rows [runStart, runEnd) of the batch.
    let runStart = -1;
    let runEnd = -1;
    // The run's series, batch series and order flags (scratch arrays: no object per series).
    const runSb = this.#runSb;
    const runS = this.#runS;
    const runInc = this.#runInc;
    const endRun = (): void => {
      if (runSb.length === 0) return;
      const first = area.append(t, ids, runStart, runEnd - runStart);
      for (let i = 0; i < runSb.length; i++) {
        const s = runS[i]!;
        seriesDelta += runSb[i]!.addAreaRows(
          first + s.rowStart - runStart,
          s.rowCount,
          s.minTs,
          s.maxTs,
          runInc[i] === 1,
        );
      }
      runSb.length = runS.length = runInc.length = 0;
      runStart = runEnd = -1;
    };
    let t32: Int32Array | undefined;
    for (const s of t.series) {
      // (Hashing a span's 450-character key for a cache that holds only grown series cost a
      // microsecond a span: look only when it holds something. A series its batch gave no key,
      // a span's, is never looked up by one: making the key from its tags costs more.)
      let sb = this.#byBatchKey.size > 0 && s.keyed ? this.#byBatchKey.get(s.key) : undefined;
      let cached = sb !== undefined;
      if (sb === undefined) {
        const key = batchSeriesIdKey(s, ids);
        sb = this.series.get(key);
        if (sb === undefined) {
          sb = new SeriesBuffer(key, area);
          this.series.set(key, sb);
          seriesDelta += sb.bytes;
        } else if (s.keyed) {
          // Seen before: a series that comes back batch after batch (a host's metrics), found
          // by its batch key from now on instead of building its id key again.
          this.#byBatchKey.set(s.key, sb);
          seriesDelta += CACHE_ENTRY_BYTES + 2 * s.key.length;
          cached = true;
        }
      }
      if (sb.small && (sb.length + s.rowCount <= SMALL_SERIES_ROWS || s.rowCount < OWN_ARRAYS_MIN_SLICE)) {
        let increasing = true;
        if (s.rowCount > 1) {
          t32 ??= new Int32Array(t.timestamps.buffer, t.timestamps.byteOffset, t.timestamps.length * 2);
          for (let i = s.rowStart + 1; i < s.rowStart + s.rowCount && increasing; i++)
            increasing = compareI64(t32, i - 1, t32, i) < 0;
        }
        if (runEnd !== s.rowStart) {
          endRun();
          runStart = s.rowStart;
        }
        runEnd = s.rowStart + s.rowCount;
        runSb.push(sb);
        runS.push(s);
        runInc.push(increasing ? 1 : 0);
        continue;
      }
      endRun(); // keeps the area's rows in batch order
      if (sb.small) {
        let cap = SMALL_SERIES_ROWS * 2;
        while (cap < sb.length + s.rowCount) cap *= 2;
        seriesDelta += sb.promote(cap);
      }
      seriesDelta += sb.append(t, ids, s.rowStart, s.rowCount, s.minTs, s.maxTs);
      if (!cached && s.keyed) {
        this.#byBatchKey.set(s.key, sb);
        seriesDelta += CACHE_ENTRY_BYTES + 2 * s.key.length;
      }
    }
    endRun();
    this.bytes += seriesDelta + (area.bytes - areaBefore);
    this.rows += t.rowCount;
    return this.bytes - before;
  }
}

/** All in-memory data of one database since the last rotation. */
export class Memtable {
  readonly tables = new Map<number, TableMemtable>();
  /** Bytes held by all tables (see the header). */
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
      this.bytes += table.append(t, stamp.columnIds);
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
    const apply = (s: SeriesBuffer): void => {
      const rowsBefore = s.length;
      const delta = s.deleteRange(minTs, maxTs);
      table.bytes += delta;
      this.bytes += delta;
      table.rows -= rowsBefore - s.length;
      this.rows -= rowsBefore - s.length;
    };
    if (keys === null) for (const s of table.series.values()) apply(s);
    else
      for (const k of keys) {
        const s = table.series.get(k);
        if (s !== undefined) apply(s);
      }
  }

  /** Removes a table's data (DROP TABLE). */
  dropTable(tableId: number): void {
    const t = this.tables.get(tableId);
    if (t === undefined) return;
    this.bytes -= t.bytes;
    this.rows -= t.rows;
    this.tables.delete(tableId);
  }

  /** Removes a column's values (ALTER TABLE DROP). */
  dropColumn(tableId: number, columnId: number): void {
    const t = this.tables.get(tableId);
    if (t === undefined) return;
    let delta = t.area.dropColumn(columnId);
    for (const s of t.series.values()) delta += s.dropColumn(columnId);
    t.bytes += delta;
    this.bytes += delta;
  }
}
