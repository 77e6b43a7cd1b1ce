// Writes one segment file (FORMAT.md §5) under a temporary name: series by series, each split
// into row groups of up to BLOCK_ROWS rows (groupBounds, cut on page starts), one codec block per
// column per group and a page block of per-page statistics (page-stats.ts),
// except that series of at most PACK_SERIES_ROWS rows go into packs (consecutive small series of
// a table sharing one block per column, up to PACK_ROWS rows); then the footer index and
// trailer, fsync, rename to the final name. The caller fsyncs the directory and
// only then names the file in the manifest, so a crash leaves at most an unlisted file, which
// the next start deletes (FORMAT.md §6).
//
// Call order: `create`, `addSeries` in increasing (table id, series key) order, then `finish`
// or `abort`.

import { crc32 } from 'node:zlib';
import { compress } from 'zstd-napi';
import { bug } from '../../core/errors.js';
import { floorDiv } from '../../core/precision.js';
import { ValueType, type FieldType } from '../../core/write-batch.js';
import { computeStats, presentStats } from './block-stats.js';
import type { ColumnCodecs } from './column-codecs.js';
import { type FaultPoint, faultPoint } from '../fs/index.js';
import {
  BLOCK_ROWS,
  columnBlock,
  encodeHeader,
  groupBounds,
  INDEX_ZSTD,
  encodeTrailer,
  HEADER_BYTES,
  NO_BLOCK,
  PACK_ROWS,
  PACK_SERIES_ROWS,
  type BlockRef,
  type BlockStats,
  type ColumnBlock,
  type RowGroup,
  type SegmentMeta,
  type SeriesColumn,
} from './segment-format.js';
import { encodePages, pageAlignedBounds, pageWidth } from './page-stats.js';
import { encodeIndexV4 } from './index-blocks.js';
import { IndexBuilder } from './segment-index.js';
import type { SegmentFileWriter, SegmentStore } from './segment-store.js';
import {
  allocValues,
  copyValue,
  type PackSource,
  type PackTarget,
  type PackValues,
  type RowSource,
  type SeriesRows,
  sliceRows,
  Utf8Buffer,
} from '../series/index.js';

const WRITE_CHUNK_BYTES = 1 << 20;
const INDEX_ZSTD_LEVEL = 9;
const BIG_INDEX_BYTES = 1 << 20;
/**
 * For an index over BIG_INDEX_BYTES (many small series, mostly tags: 29 MB raw for 100,000
 * spans). Level 1 wrote that file smaller than level 3 (3.4 against 3.8 MiB: random ids leave
 * little for the slower levels to find) and flushed it 0.26 s sooner.
 */
const BIG_INDEX_ZSTD_LEVEL = 1;
/**
 * Page blocks are one zstd frame: counts repeat, flags repeat, small integers leave most bytes
 * zero. On TSBS cpu level 1 stored them in 144 of 690 KB (level 3: 145, level 9: 153).
 */
const PAGES_ZSTD_LEVEL = 1;

/** A column to write: its id, type and the codec its table declares. */
export interface WriteColumn {
  id: number;
  type: FieldType;
  codec: string;
}

/**
 * The pack being filled: small series of one table, copied into pack-sized arrays. Their index
 * entries come in key order; their rows need not (a series names its first row in the pack).
 */
interface OpenPack extends PackTarget {
  tableId: number;
  columns: readonly WriteColumn[];
  timeCodec: string;
  /** The number it will have in the index. */
  number: number;
  rows: number;
  minTs: bigint;
  maxTs: bigint;
  /**
   * Series with a `sourceOrder` added since the last settle, with where their index entries
   * start: the last rows of the pack, not copied yet (#settle).
   */
  deferred: PackSource[];
  deferredEntries: number[];
}

/** The row ids #settle hands to RowSource.copyRowsTo, a scratch kept between packs. */
let rowIdScratch = new Int32Array(PACK_ROWS);
function rowScratch(n: number): Int32Array {
  if (rowIdScratch.length < n) rowIdScratch = new Int32Array(n);
  return rowIdScratch;
}

export class SegmentWriter {
  readonly path: string;
  readonly #tmp: string;
  readonly #store: SegmentStore;
  readonly #file: SegmentFileWriter;
  readonly #codecs: ColumnCodecs;
  readonly #index = new IndexBuilder();
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  #offset = HEADER_BYTES;
  #minTs: bigint | undefined;
  #maxTs: bigint | undefined;
  #rows = 0;
  /** Keys of the series in index order (handed to the reader of the new file: finish). */
  readonly #keys: string[] = [];
  /** The last series added (the order check). */
  #lastTable = 0;
  #lastKey: string | undefined;
  #step: (() => Promise<void> | undefined) | undefined;
  #unitsPerSecond: bigint | undefined;
  #pack: OpenPack | undefined;
  /**
   * The value arrays of the last pack closed, for the next pack of the same columns: a pack of
   * spans has a 4096-row array per column (30 of them), and allocating and growing them anew for
   * every pack was a tenth of a flush. Stale values are never read: a pack column's rows are
   * either written or absent (validity 0), and encoders and statistics skip absent rows.
   */
  #spare: { columns: readonly WriteColumn[]; values: PackValues[] } | undefined;

  private constructor(store: SegmentStore, path: string, file: SegmentFileWriter, codecs: ColumnCodecs) {
    this.path = path;
    this.#tmp = path + '.tmp';
    this.#store = store;
    this.#file = file;
    this.#codecs = codecs;
  }

  /**
   * `step` is awaited between blocks (background work yields to requests there, time-slice.ts).
   * `unitsPerSecond` of the database precision places page boundaries (page-stats.ts); without
   * it groups get no pages.
   */
  static async create(
    store: SegmentStore,
    path: string,
    fileId: number,
    codecs: ColumnCodecs,
    step?: () => Promise<void> | undefined,
    unitsPerSecond?: bigint,
  ): Promise<SegmentWriter> {
    const file = await store.create(path + '.tmp');
    const w = new SegmentWriter(store, path, file, codecs);
    w.#step = step;
    w.#unitsPerSecond = unitsPerSecond;
    w.#push(encodeHeader(fileId));
    w.#offset = HEADER_BYTES;
    return w;
  }

  get rows(): number {
    return this.#rows;
  }

  /** Sizes the index for `count` series whose keys have `keyChars` characters in all (a hint). */
  expectSeries(count: number, keyChars: number): void {
    this.#index.expectSeries(count, keyChars);
  }

  get seriesCount(): number {
    return this.#index.seriesCount;
  }

  #push(b: Uint8Array): void {
    this.#pending.push(b);
    this.#pendingBytes += b.length;
  }

  async #drain(): Promise<void> {
    if (this.#pendingBytes === 0) return;
    const parts = this.#pending;
    this.#pending = [];
    const bytes = this.#pendingBytes;
    this.#pendingBytes = 0;
    await this.#file.write(parts, this.#offset - bytes);
  }

  #block(bytes: Uint8Array): BlockRef {
    const ref = { offset: this.#offset, length: bytes.length, crc: crc32(bytes) };
    this.#push(bytes);
    this.#offset += bytes.length;
    return ref;
  }

  /**
   * Adds one series: `rows` sorted by time without duplicates, non-empty, or a PackSource of at
   * most PACK_SERIES_ROWS rows (a memtable's small series, copied straight into the pack). Only
   * `columns` are written (a column with no present value in a group gets no block there).
   * Returns a promise to await before the next call, or undefined when the series was added
   * synchronously (a small series into an open pack: a flush of 100,000 spans adds that many
   * series, and a promise each was a fifth of its allocations).
   */
  addSeries(
    tableId: number,
    key: string,
    rows: SeriesRows | PackSource,
    columns: readonly WriteColumn[],
    timeCodec: string,
  ): Promise<void> | undefined {
    if (rows.length === 0) throw bug('segment writer: empty series');
    if (
      this.#lastKey !== undefined &&
      (tableId < this.#lastTable || (tableId === this.#lastTable && key <= this.#lastKey))
    ) {
      throw bug(`segment writer: series out of order (${tableId}/${key} after ${this.#lastTable}/${this.#lastKey})`);
    }
    this.#lastTable = tableId;
    this.#lastKey = key;
    const source = 'copyTo' in rows ? rows : undefined;
    const first = source !== undefined ? source.minTs : (rows as SeriesRows).ts[0]!;
    const last = source !== undefined ? source.maxTs : (rows as SeriesRows).ts[rows.length - 1]!;
    if (this.#minTs === undefined || first < this.#minTs) this.#minTs = first;
    if (this.#maxTs === undefined || last > this.#maxTs) this.#maxTs = last;
    this.#rows += rows.length;
    if (rows.length <= PACK_SERIES_ROWS) return this.#addPacked(tableId, key, rows, first, last, columns, timeCodec);
    if (source !== undefined) throw bug(`segment writer: a pack source of ${rows.length} rows`);
    return this.#addGroups(tableId, key, rows as SeriesRows, columns, timeCodec);
  }

  /** A series with blocks of its own, in row groups. */
  async #addGroups(
    tableId: number,
    key: string,
    rows: SeriesRows,
    columns: readonly WriteColumn[],
    timeCodec: string,
  ): Promise<void> {
    const present = columns.filter((c) => rows.columns.has(c.id));
    const groups: RowGroup[] = [];
    // One page width for the series, its groups cut on page boundaries (page-stats.ts).
    const width =
      this.#unitsPerSecond === undefined ? undefined : pageWidth(rows.ts, rows.length, this.#unitsPerSecond);
    const bounds =
      width === undefined
        ? groupBounds(rows.length)
        : pageAlignedBounds(groupBounds(rows.length), rows.ts, width, BLOCK_ROWS);
    for (const [lo, hi] of bounds) {
      const part = sliceRows(rows, lo, hi);
      const n = part.length;
      const time = this.#block(
        this.#codecs.encodeTime(part.ts.length === n ? part.ts : part.ts.subarray(0, n), timeCodec),
      );
      const blocks: ColumnBlock[] = [];
      for (const c of present) {
        const col = part.columns.get(c.id)!;
        const stats = computeStats(c.type, col.values, col.validity, n);
        if (stats.count === 0) {
          blocks.push(columnBlock(NO_BLOCK, stats));
          continue;
        }
        const values =
          col.values.length === n
            ? col.values
            : Array.isArray(col.values)
              ? col.values.slice(0, n)
              : col.values.subarray(0, n);
        const validity = stats.count === n ? undefined : col.validity?.subarray(0, n);
        blocks.push(columnBlock(this.#block(this.#codecs.encodeValues(c.type, values, validity, c.codec)), stats));
      }
      // Pages only when the group spans two or more: a group within one page has its own statistics.
      const pages =
        width === undefined || floorDiv(part.ts[0]!, width) === floorDiv(part.ts[n - 1]!, width)
          ? undefined
          : this.#block(compress(encodePages(part, n, width, present), { compressionLevel: PAGES_ZSTD_LEVEL }));
      groups.push({ rows: n, minTs: part.ts[0]!, maxTs: part.ts[n - 1]!, time, columns: blocks, pages });
      await this.#step?.();
    }
    const cols: SeriesColumn[] = present.map((c) => ({ id: c.id, type: c.type }));
    this.#index.addSeries(tableId, key, cols, groups);
    this.#keys.push(key);
    if (this.#pendingBytes >= WRITE_CHUNK_BYTES) await this.#drain();
  }

  /**
   * Adds a small series to the open pack of its table, synchronously; when a full or other pack
   * must be closed first, returns the promise of closing it and adding the series.
   */
  #addPacked(
    tableId: number,
    key: string,
    rows: SeriesRows | PackSource,
    minTs: bigint,
    maxTs: bigint,
    columns: readonly WriteColumn[],
    timeCodec: string,
  ): Promise<void> | undefined {
    let pack = this.#pack;
    if (
      pack !== undefined &&
      (pack.tableId !== tableId ||
        !sameColumns(pack.columns, columns) ||
        pack.timeCodec !== timeCodec ||
        pack.rows + rows.length > PACK_ROWS)
    ) {
      return this.#closePack().then(() => this.#addPacked(tableId, key, rows, minTs, maxTs, columns, timeCodec));
    }
    if (pack === undefined) {
      const ts = new BigInt64Array(PACK_ROWS);
      this.#pack = pack = {
        tableId,
        columns,
        timeCodec,
        number: this.#index.packCount,
        rows: 0,
        minTs,
        maxTs,
        at: 0,
        ts,
        ts32: new Int32Array(ts.buffer),
        ids: columns.map((c) => c.id),
        values: this.#spare?.columns === columns ? this.#spare.values : columns.map((c) => packValues(c.type)),
        validity: columns.map(() => undefined),
        present: columns.map(() => 0),
        deferred: [],
        deferredEntries: [],
      };
    }
    const n = rows.length;
    const source = 'copyTo' in rows ? rows : undefined;
    if (source?.sourceOrder === undefined) this.#settle(pack);
    const at = pack.rows;
    const entry = this.#index.addPackedSeries(tableId, key, n, minTs, maxTs, pack.number, at);
    this.#keys.push(key);
    pack.rows += n;
    if (minTs < pack.minTs) pack.minTs = minTs;
    if (maxTs > pack.maxTs) pack.maxTs = maxTs;
    if (source !== undefined) {
      if (source.sourceOrder !== undefined) {
        pack.deferred.push(source);
        pack.deferredEntries.push(entry);
        return undefined;
      }
      pack.at = at;
      source.copyTo(pack);
      return undefined;
    }
    // Row by row: a series here has a few rows, where subarray copies would cost more.
    const sorted = rows as SeriesRows;
    for (let i = 0; i < n; i++) pack.ts[at + i] = sorted.ts[i]!;
    for (let k = 0; k < columns.length; k++) {
      const c = sorted.columns.get(columns[k]!.id);
      const dst = pack.values[k]!;
      let validity = pack.validity[k];
      for (let i = 0; i < n; i++) {
        if (c === undefined || (c.validity !== undefined && c.validity[i] === 0)) {
          if (validity === undefined) pack.validity[k] = validity = new Uint8Array(PACK_ROWS).fill(1, 0, at + i);
          continue;
        }
        copyValue(c.type, dst, at + i, c.values, i);
        if (validity !== undefined) validity[at + i] = 1;
        pack.present[k]!++;
      }
    }
    return undefined;
  }

  /**
   * Copies the deferred series, the last rows of the pack, placing them in the
   * order of their rows in their source and moving their index entries to match. A flush adds a
   * memtable's small series in key order, which scatters them over its row area (a span's row
   * among 30-odd page columns: a cache miss a value); in area order the copy reads each page
   * front to back. In one process, 100,000 spans: the flush's copying 2.5-4.0 -> 1.8-2.0 µs a span.
   * Consecutive series of one row source (all of a pack's, in a flush) are copied in one call,
   * column by column (RowSource.copyRowsTo).
   */
  #settle(pack: OpenPack): void {
    const deferred = pack.deferred;
    if (deferred.length === 0) return;
    // Each source's place, read once (a getter), and where the deferred rows start.
    let at = pack.rows;
    const where = deferred.map((s) => {
      at -= s.length;
      return s.sourceOrder!;
    });
    const order = where.map((_, i) => i).sort((a, b) => where[a]! - where[b]!);
    const rows = rowScratch(pack.rows - at);
    // Runs of consecutive sources sharing a row source: the row ids of each, then one copy.
    let n = 0;
    let shared: RowSource | undefined;
    const copyRun = (): void => {
      if (n === 0) return;
      shared!.copyRowsTo(rows, n, pack);
      pack.at += n;
      n = 0;
    };
    pack.at = at;
    for (const i of order) {
      const source = deferred[i]!;
      this.#index.setPackRow(pack.deferredEntries[i]!, at);
      if (source.rowSource === undefined || source.rowIds === undefined)
        throw bug('segment writer: a source with a sourceOrder but no row source');
      if (source.rowSource !== shared) {
        copyRun();
        shared = source.rowSource;
      }
      n = source.rowIds(rows, n);
      at += source.length;
    }
    copyRun();
    deferred.length = 0;
    pack.deferredEntries.length = 0;
  }

  /** Encodes the open pack's blocks and adds its entry. */
  async #closePack(): Promise<void> {
    const pack = this.#pack;
    if (pack === undefined) return;
    this.#settle(pack);
    this.#pack = undefined;
    const n = pack.rows;
    const time = this.#block(this.#codecs.encodeTime(pack.ts.subarray(0, n), pack.timeCodec));
    const cols: SeriesColumn[] = [];
    const blocks: ColumnBlock[] = [];
    pack.columns.forEach((c, k) => {
      // A column none of the pack's series has is left out of the pack.
      if (pack.present[k] === 0) return;
      const all = pack.values[k]!;
      const validity = pack.present[k] === n ? undefined : pack.validity[k]!.subarray(0, n);
      let block: Uint8Array;
      let stats: BlockStats;
      if (all instanceof Utf8Buffer) {
        all.pad(n);
        stats = presentStats(validity, n);
        block = this.#codecs.encodeUtf8(all, n, validity, c.codec);
      } else {
        const values = all.subarray(0, n);
        stats = computeStats(c.type, values, validity, n);
        block = this.#codecs.encodeValues(c.type, values, validity, c.codec);
      }
      cols.push({ id: c.id, type: c.type });
      blocks.push(columnBlock(this.#block(block), stats));
    });
    const number = this.#index.addPack({
      tableId: pack.tableId,
      rows: n,
      minTs: pack.minTs,
      maxTs: pack.maxTs,
      columns: cols,
      time,
      blocks,
    });
    if (number !== pack.number) throw bug(`segment writer: pack ${pack.number} became number ${number}`);
    for (const v of pack.values) if (v instanceof Utf8Buffer) v.clear();
    this.#spare = { columns: pack.columns, values: pack.values };
    await this.#step?.();
    if (this.#pendingBytes >= WRITE_CHUNK_BYTES) await this.#drain();
  }

  /**
   * Writes the index and trailer, fsyncs, closes and renames the file to its final name.
   * Returns the metadata (what the manifest lists) and the file size.
   */
  /**
   * Writes the index and trailer, syncs and renames the file. Returns its meta, size, and the
   * series keys in index order, which the file's reader can take instead of decoding its own
   * copies (SegmentReader.open): the keys of a file of spans are most of its index.
   */
  async finish(
    meta: Omit<SegmentMeta, 'minTs' | 'maxTs' | 'rows'>,
    fault: { written: FaultPoint; renamed: FaultPoint },
  ): Promise<{ meta: SegmentMeta; bytes: number; keys: readonly string[] }> {
    if (this.#minTs === undefined || this.#maxTs === undefined) throw bug('segment writer: no series');
    await this.#closePack();
    const full: SegmentMeta = {
      partitionStart: meta.partitionStart,
      partitionEnd: meta.partitionEnd,
      minTs: this.#minTs,
      maxTs: this.#maxTs,
      minLsn: meta.minLsn,
      maxLsn: meta.maxLsn,
      cleanLsn: meta.cleanLsn,
      rows: this.#rows,
    };
    // The index compresses about 4:1 (offsets, counts, small min/max/sum); stored as zstd frames.
    // A big index (many small series, mostly tags) at the fastest level: level 9 took 4 µs a span.
    // v4 (index-blocks.ts): the series entries go out as index blocks and postings, each a frame
    // of its own, and the footer is the directory of them.
    const level = this.#index.seriesBytes().length > BIG_INDEX_BYTES ? BIG_INDEX_ZSTD_LEVEL : INDEX_ZSTD_LEVEL;
    const raw = encodeIndexV4(this.#index, full, this.#keys, this.#offset, (block) => {
      const stored = compress(block, { compressionLevel: level });
      const ref = { offset: this.#offset, length: stored.length, crc: crc32(stored), rawLength: block.length };
      this.#push(stored);
      this.#offset += stored.length;
      return ref;
    });
    const index = compress(raw, { compressionLevel: level });
    const indexOffset = this.#offset;
    this.#push(index);
    this.#offset += index.length;
    const trailer = encodeTrailer({
      indexOffset,
      indexLength: index.length,
      indexRawLength: raw.length,
      indexCrc: crc32(index),
      seriesCount: this.#index.seriesCount,
      flags: INDEX_ZSTD,
    });
    new DataView(trailer.buffer).setUint32(28, crc32(trailer.subarray(0, 28)), true);
    this.#push(trailer);
    this.#offset += trailer.length;
    await this.#drain();
    await this.#file.sync();
    await this.#file.close();
    faultPoint(fault.written);
    await this.#store.rename(this.#tmp, this.path);
    faultPoint(fault.renamed);
    return { meta: full, bytes: this.#offset, keys: this.#keys };
  }

  /** Closes and deletes the temporary file. */
  async abort(): Promise<void> {
    await this.#file.close().catch(() => undefined);
    await this.#store.remove(this.#tmp).catch(() => undefined);
  }
}

function sameColumns(a: readonly WriteColumn[], b: readonly WriteColumn[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++)
    if (a[i]!.id !== b[i]!.id || a[i]!.type !== b[i]!.type || a[i]!.codec !== b[i]!.codec) return false;
  return true;
}

/** Pack-sized values of a column of `type` (PackTarget: STRING as UTF-8). */
function packValues(type: FieldType): PackValues {
  return type === ValueType.String ? new Utf8Buffer(PACK_ROWS) : (allocValues(type, PACK_ROWS) as PackValues);
}
