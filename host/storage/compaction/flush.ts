// Flush: a frozen memtable becomes one segment file per time partition it touches (FORMAT.md §6):
//   1. write each file under a temporary name, fsync, rename      (fault points flush:segment-*)
//   2. fsync the segment directory, open the new files to check them (their readers take the
//      series keys the writer had rather than decoding copies of them)
//   3. save the manifest naming the files, flushedLsn = the memtable's last LSN (flush:manifest-saved)
//   4. delete WAL segments whose records are all <= flushedLsn      (flush:wal-trimmed)
// A crash before 3 leaves unlisted files (deleted at the next start) and the WAL intact; after 3,
// the WAL records up to flushedLsn are skipped by the replay. Nothing is lost or read twice.

import { tableById, type TableDef } from '../../meta/index.js';
import { faultPoint } from '../fs/index.js';
import {
  ManifestNotSaved,
  PACK_SERIES_ROWS,
  partitionStart,
  partitionUnits,
  segmentRecord,
  type SegmentRecord,
  type SegmentSet,
  type SegmentSlot,
  SegmentWriter,
  unitsPerSecond,
  type WriteColumn,
} from '../segment/index.js';
import type { Memtable, SeriesBuffer } from '../memtable/index.js';
import { lowerBound, sliceByTime, sliceRows, type PackSource, type SeriesRows } from '../series/index.js';
import { TimeSlicer } from './time-slice.js';

interface Item {
  table: TableDef;
  key: string;
  sb: SeriesBuffer;
  /** The rows when the series spans partitions (sliced to this one); else read when written. */
  rows?: SeriesRows;
}

export class FlushAborted extends Error {
  override readonly name = 'FlushAborted';
}

/** The columns of a table a segment stores (the catalog's current fields: dropped ones are gone). */
export function writeColumns(table: TableDef): WriteColumn[] {
  return table.fields.map((c) => ({ id: c.id, type: c.type as WriteColumn['type'], codec: c.codec }));
}

/**
 * The memtable's series by time partition, each partition's in table and key order. Plain
 * functions for the loops (this one, addItems), not loops in flushMemtable itself: V8 compiled
 * the async function's loops on the stack at every flush, with everything they call inlined
 * (40-60 ms of compiling each time), and threw the code away again where it resumed after an
 * await it had never seen (`--trace-deopt`: "insufficient type feedback" after w.finish).
 */
function partitionItems(db: SegmentSet, m: Memtable, units: bigint): Map<bigint, Item[]> {
  const parts = new Map<bigint, Item[]>();
  const listOf = (start: bigint): Item[] => {
    let list = parts.get(start);
    if (list === undefined) parts.set(start, (list = []));
    return list;
  };
  // The last partition found and its list: series of a memtable mostly share one, and comparing
  // with its bounds spares two BigInt divisions and a lookup by BigInt a series.
  let lastStart = 0n;
  let lastEnd = 0n;
  let lastList: Item[] = [];
  for (const tm of [...m.tables.values()].sort((a, b) => a.tableId - b.tableId)) {
    const table = tableById(db.def, tm.tableId);
    if (table === undefined) continue; // dropped
    for (const key of [...tm.series.keys()].sort()) {
      const sb = tm.series.get(key)!;
      if (sb.length === 0) continue;
      // Most series lie in one partition: their rows are read only when written, so that a
      // flush never holds a copy of the whole memtable (100 k one-row series: 600 MB of it).
      if (sb.minTs >= lastStart && sb.maxTs < lastEnd) {
        lastList.push({ table, key, sb });
        continue;
      }
      const start = partitionStart(sb.minTs, units);
      if (partitionStart(sb.maxTs, units) === start) {
        lastStart = start;
        lastEnd = start + units;
        lastList = listOf(start);
        lastList.push({ table, key, sb });
        continue;
      }
      let rows = sb.snapshot();
      if (db.expiredBefore !== null) rows = sliceByTime(rows, db.expiredBefore, undefined);
      for (let lo = 0; lo < rows.length; ) {
        const start = partitionStart(rows.ts[lo]!, units);
        const hi = lowerBound(rows.ts, rows.length, start + units);
        listOf(start).push({ table, key, sb, rows: sliceRows(rows, lo, hi) });
        lo = hi;
      }
    }
  }
  return parts;
}

/** The characters of the items' keys, in all. */
function keyChars(items: readonly Item[]): number {
  let n = 0;
  for (const it of items) n += it.key.length;
  return n;
}

/** Where addItems stopped: the next item, and what to await before going on (none: all added). */
interface Progress {
  next: number;
  wait: Promise<void> | undefined;
}

/** The columns writeColumns gave for the last table (items come grouped by table). */
interface ColumnsMemo {
  table: TableDef | undefined;
  columns: WriteColumn[];
}

/**
 * Adds items [from, ...) to the writer until one needs awaiting (a pack to close, a slice used
 * up: `slicer`), or all are added.
 */
function addItems(
  db: SegmentSet,
  w: SegmentWriter,
  items: readonly Item[],
  from: number,
  memo: ColumnsMemo,
  slicer: TimeSlicer,
): Progress {
  for (let i = from; i < items.length; i++) {
    if (db.closing) throw new FlushAborted(`database ${db.def.name} is closing`);
    const it = items[i]!;
    let rows: SeriesRows | PackSource | undefined = it.rows;
    if (rows === undefined) {
      const sb = it.sb;
      if (sb.packable && sb.length <= PACK_SERIES_ROWS && (db.expiredBefore === null || sb.minTs >= db.expiredBefore)) {
        rows = sb; // copies its rows into the pack itself (no snapshot arrays)
      } else {
        rows = sb.snapshot();
        if (db.expiredBefore !== null) rows = sliceByTime(rows, db.expiredBefore, undefined);
      }
    }
    if (rows.length > 0) {
      if (memo.table !== it.table) {
        memo.table = it.table;
        memo.columns = writeColumns(it.table);
      }
      const adding = w.addSeries(it.table.id, it.key, rows, memo.columns, it.table.timeCodec);
      if (adding !== undefined) return { next: i + 1, wait: adding.then(() => slicer.step()) };
    }
    const turn = slicer.step();
    if (turn !== undefined) return { next: i + 1, wait: turn };
  }
  return { next: items.length, wait: undefined };
}

/** Writes the oldest frozen memtable of `db` to segment files and commits them in its place. */
export async function flushMemtable(db: SegmentSet): Promise<void> {
  const m = db.frozen[0];
  if (m === undefined) return;
  const started = performance.now();
  const units = partitionUnits(db.def.options);
  const parts = partitionItems(db, m, units);

  const records: SegmentRecord[] = [];
  const keysOf = new Map<number, readonly string[]>();
  const slicer = new TimeSlicer();
  const step = () => slicer.step();
  try {
    for (const [start, items] of [...parts].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      const fileId = db.allocateFileId();
      const w = await SegmentWriter.create(
        db.segmentStore,
        db.segmentPath(fileId),
        fileId,
        db.codecs,
        step,
        unitsPerSecond(db.def.options.precision),
      );
      try {
        w.expectSeries(items.length, keyChars(items));
        const memo: ColumnsMemo = { table: undefined, columns: [] };
        for (let next = 0; next < items.length; ) {
          const progress = addItems(db, w, items, next, memo, slicer);
          next = progress.next;
          if (progress.wait !== undefined) await progress.wait;
        }
        if (w.seriesCount === 0) {
          await w.abort(); // every row of the partition expired meanwhile
          continue;
        }
        const { meta, bytes, keys } = await w.finish(
          {
            partitionStart: start,
            partitionEnd: start + units,
            minLsn: m.minLsn,
            maxLsn: m.maxLsn,
            cleanLsn: m.cleanLsn,
          },
          { written: 'flush:segment-written', renamed: 'flush:segment-renamed' },
        );
        records.push(segmentRecord(fileId, 0, meta, bytes));
        keysOf.set(fileId, keys);
      } catch (e) {
        await w.abort();
        throw e;
      }
    }
    if (records.length > 0) await db.syncSegmentDir();
  } catch (e) {
    for (const r of records) await db.segmentStore.remove(db.segmentPath(r.fileId)).catch(() => undefined);
    if (e instanceof FlushAborted) return;
    throw e;
  }
  const slots: SegmentSlot[] = [];
  const flushedLsn = Math.max(db.flushedLsn, m.cleanLsn);
  try {
    for (const r of records) slots.push(await db.openSegment(r, keysOf.get(r.fileId)));
    await db.commit({ add: slots, flushedLsn, popFrozen: true, fault: 'flush:manifest-temp' });
  } catch (e) {
    // The memtable stays frozen and is flushed again later into new files; these are not listed
    // (unless a save failed after its rename, which the next start sorts out), so close them,
    // and delete them when the old manifest surely stands.
    for (const s of slots) s.reader?.retire();
    if (e instanceof ManifestNotSaved || slots.length < records.length) {
      for (const r of records) await db.segmentStore.remove(db.segmentPath(r.fileId)).catch(() => undefined);
    }
    throw e;
  }
  faultPoint('flush:manifest-saved');
  await db.trimWal(flushedLsn);
  faultPoint('flush:wal-trimmed');
  db.log.info(
    {
      db: db.def.name,
      rows: m.rows,
      files: records.length,
      bytes: records.reduce((n, r) => n + r.bytes, 0),
      flushedLsn,
      ms: Math.round(performance.now() - started),
    },
    'flushed',
  );
}
