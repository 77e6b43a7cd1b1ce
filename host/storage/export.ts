// One table's rows for a time range as an export stream (segment/export-format.ts, FORMAT.md
// §8): the merged rows of the read path written into segment files in memory, one file of at
// most SEGMENT_ROWS rows at a time, each sent and dropped before the next is begun, so a table
// of any size exports in the memory of one such file and SEGMENT_ROWS rows of one series.

import type { DatabaseDef, TableDef } from '../meta/index.js';
import { concatRows, type SeriesRows, sliceRows } from './series/index.js';
import type { ColumnCodecs } from './segment/column-codecs.js';
import {
  EXPORT_VERSION,
  exportPreamble,
  type ExportSchema,
  FRAME_END,
  FRAME_SCHEMA,
  FRAME_SEGMENT,
  frameHeader,
  jsonFrame,
} from './segment/export-format.js';
import { MemorySegmentStore } from './segment/memory-segment-store.js';
import { unitsPerSecond } from './segment/partition.js';
import { SegmentWriter, type WriteColumn } from './segment/segment-writer.js';

/**
 * Rows per exported segment file. At TSBS cpu's 10 fields a file of this many rows is about
 * 5 MB encoded; the reader (a browser) opens every file, so fewer, bigger files load faster.
 */
export const SEGMENT_ROWS = 1 << 18;

/** The range of an export: nanoseconds since the epoch, [start, end), undefined when open. */
export interface ExportRange {
  start: bigint | undefined;
  end: bigint | undefined;
}

/**
 * The export stream's byte chunks. `runs` are the table's rows in [lo, hi] of the database
 * precision (Storage.tableRuns); `range` is what the schema frame records.
 */
export async function* exportChunks(
  db: DatabaseDef,
  table: TableDef,
  range: ExportRange,
  runs: AsyncIterable<{ key: string; rows: SeriesRows }>,
  codecs: ColumnCodecs,
  segmentRows = SEGMENT_ROWS,
): AsyncGenerator<Uint8Array> {
  const schema: ExportSchema = {
    version: EXPORT_VERSION,
    database: db.name,
    table: table.name,
    precision: db.options.precision,
    tableId: table.id,
    tags: table.tags,
    fields: table.fields,
    timeCodec: table.timeCodec,
    start: range.start === undefined ? null : String(range.start),
    end: range.end === undefined ? null : String(range.end),
  };
  yield exportPreamble();
  yield* jsonFrame(FRAME_SCHEMA, schema);
  const columns: WriteColumn[] = table.fields.map((c) => ({
    id: c.id,
    type: c.type as WriteColumn['type'],
    codec: c.codec,
  }));
  const ups = unitsPerSecond(db.options.precision);
  let rows = 0;
  let segments = 0;
  let open:
    | { store: MemorySegmentStore; writer: SegmentWriter; lastKey: string; minTs: bigint; maxTs: bigint }
    | undefined;
  const close = async (): Promise<Uint8Array> => {
    const { store, writer, minTs, maxTs } = open!;
    open = undefined;
    await writer.finish(
      { partitionStart: minTs, partitionEnd: maxTs + 1n, minLsn: 0, maxLsn: 0, cleanLsn: 0 },
      { written: 'export:segment-written', renamed: 'export:segment-renamed' },
    );
    const reader = await store.openRead(writer.path);
    const bytes = await reader.read(0, reader.size);
    await store.remove(writer.path);
    segments++;
    return bytes;
  };
  /** Writes one series' rows; a series already in the open file, or a full file, starts the next. */
  async function* add(key: string, run: SeriesRows): AsyncGenerator<Uint8Array> {
    if (open !== undefined && (open.writer.rows >= segmentRows || key <= open.lastKey)) {
      const bytes = await close();
      yield frameHeader(FRAME_SEGMENT, bytes.length);
      yield bytes;
    }
    if (open === undefined) {
      const store = new MemorySegmentStore();
      await store.makeDir('export');
      const writer = await SegmentWriter.create(
        store,
        `export/${segments + 1}.seg`,
        segments + 1,
        codecs,
        undefined,
        ups,
      );
      open = { store, writer, lastKey: key, minTs: run.ts[0]!, maxTs: run.ts[run.length - 1]! };
    }
    open.lastKey = key;
    if (run.ts[0]! < open.minTs) open.minTs = run.ts[0]!;
    if (run.ts[run.length - 1]! > open.maxTs) open.maxTs = run.ts[run.length - 1]!;
    rows += run.length;
    await open.writer.addSeries(table.id, key, run, columns, table.timeCodec);
  }
  // A series' runs (one per stored row group, or cluster of overlapping ones) are joined before
  // they are written, up to a file's rows: one run per file per series, which is how few pieces
  // a reader then has to merge (TSBS cpu of 100 hosts x 1 day: 101 files as runs, 1 joined).
  const ids = table.fields.map((c) => c.id);
  let pending: { key: string; runs: SeriesRows[]; rows: number } | undefined;
  try {
    for await (const { key, rows: run } of runs) {
      if (pending !== undefined && pending.key !== key) {
        yield* add(pending.key, concatRows(pending.runs, ids));
        pending = undefined;
      }
      // A run longer than a file's room (a memtable's rows come as one) is cut to fit.
      for (let at = 0; at < run.length; ) {
        if (pending === undefined) pending = { key, runs: [], rows: 0 };
        const take = Math.min(run.length - at, segmentRows - pending.rows);
        pending.runs.push(take === run.length ? run : sliceRows(run, at, at + take));
        pending.rows += take;
        at += take;
        if (pending.rows >= segmentRows) {
          yield* add(key, concatRows(pending.runs, ids));
          pending = undefined;
        }
      }
    }
    if (pending !== undefined) yield* add(pending.key, concatRows(pending.runs, ids));
    if (open !== undefined) {
      const bytes = await close();
      yield frameHeader(FRAME_SEGMENT, bytes.length);
      yield bytes;
    }
  } finally {
    if (open !== undefined) await open.writer.abort();
  }
  yield* jsonFrame(FRAME_END, { rows, segments });
}
