// Reads one segment file (FORMAT.md §5): the trailer and the whole footer index when opened
// (checksums verified, so a corrupt index fails at open), blocks on demand through the shared
// block cache, each checked against its CRC32 before it is decoded. Every failed check is a
// CorruptionError naming the file (relative to the data directory), the offset and the check.
//
// Lifetime: the file handle stays open while the reader is listed in the manifest or used by a
// scan (`acquire`/`release`); a compaction `retire`s it and the last release closes it, so a
// query never sees a file vanish under it.

import { crc32 } from 'node:zlib';
import { decompress } from 'zstd-napi';
import { bug, CorruptionError, UserError } from '../../core/errors.js';
import { ValueType, type FieldType } from '../../core/write-batch.js';
import type { BlockCache } from './block-cache.js';
import type { ColumnCodecs, DecodedColumn, DecodedUtf8 } from './column-codecs.js';
import {
  decodeTrailer,
  INDEX_ZSTD,
  TRAILER_BYTES,
  type BlockRef,
  type PackEntry,
  type RowGroup,
  type SegmentMeta,
  type SeriesEntry,
} from './segment-format.js';
import { decodePages, type PageStats } from './page-stats.js';
import { decodeIndex, decodeSeriesEntries, IndexError } from './segment-index.js';
import {
  blockOfKey,
  blockOfOrdinal,
  decodeDirectory,
  decodePostings,
  type Directory,
  NO_POSTINGS,
  type Postings,
  type StoredRef,
} from './index-blocks.js';
import type { SegmentFileReader, SegmentStore } from './segment-store.js';
import {
  type ColumnData,
  copyValue,
  type PackSource,
  type PackTarget,
  type SeriesRows,
  sliceRows,
  type Utf8Buffer,
} from '../series/index.js';

export type CachedBlock = BigInt64Array | DecodedColumn | Uint8Array | PageStats | readonly SeriesEntry[] | Postings;

/** What a decoded index block or postings block costs the heap, per raw byte (measured: bench/series-heap.ts). */
const INDEX_HEAP_PER_BYTE = 3;

/**
 * Blocks are read from the file in windows of this many bytes, kept in the block cache: a scan
 * reads a file's blocks in order, and one read per window replaces hundreds of small ones, each a
 * round trip through the thread pool (TSBS mean per host per hour on a fresh server: 400 reads).
 */
const WINDOW_BYTES = 1 << 20;

let nextUid = 1;

/** A series entry (with its internal key). */
export type SegmentSeries = SeriesEntry;

/** A pack's blocks decoded for reads that bypass the cache (compaction reads a pack's series one after another). */
interface PackMemo {
  pack: PackEntry;
  time?: BigInt64Array;
  /** `time` as 32-bit words (packSource copies timestamps without a BigInt each). */
  time32?: Int32Array;
  columns: Map<number, DecodedColumn>;
  /** STRING columns as UTF-8 dictionaries (loadPack): copied into the new pack as bytes. */
  utf8: Map<number, DecodedUtf8>;
  /** The decoded columns in the order of a list of column ids (packSource), for the last list asked. */
  forIds?: {
    ids: readonly number[];
    columns: Array<DecodedColumn | undefined>;
    utf8: Array<DecodedUtf8 | undefined>;
    types: Array<ValueType | undefined>;
  };
}

/**
 * A segment file's name as errors show it: relative to the data directory (`db/<id>/seg/<file>`,
 * the layout FORMAT.md §6 fixes), so that clients never learn where the data lives; other paths
 * (a test's, a golden file's) as they are.
 */
export function segmentDisplayName(path: string): string {
  const m = /(?:^|[/\\])(db[/\\]\d+[/\\]seg[/\\][^/\\]+)$/.exec(path);
  return m === null ? path : m[1]!.replaceAll('\\', '/');
}

export class SegmentReader {
  readonly path: string;
  /** The file as errors name it (segmentDisplayName). */
  readonly name: string;
  readonly fileId: number;
  readonly meta: SegmentMeta;
  readonly bytes: number;
  readonly version: number;
  /** v1-v3: every series of each table, sorted by key, decoded at open. */
  readonly #tables: ReadonlyMap<number, readonly SegmentSeries[]> | undefined;
  /** v4: the directory of the index blocks, which are read on demand through the index cache. */
  readonly #dir: Directory | undefined;
  readonly #indexCache: BlockCache<CachedBlock>;
  readonly #file: SegmentFileReader;
  readonly #store: SegmentStore;
  readonly #codecs: ColumnCodecs;
  readonly #cache: BlockCache<CachedBlock>;
  readonly #uid = nextUid++;
  #refs = 1;
  #closed = false;
  #retired = false;
  readonly #byKey = new Map<number, Map<string, SegmentSeries>>();
  readonly #columnIds = new Map<number, number[]>();
  #packMemo: PackMemo | undefined;

  private constructor(
    store: SegmentStore,
    path: string,
    fileId: number,
    file: SegmentFileReader,
    bytes: number,
    meta: SegmentMeta,
    version: number,
    index: Map<number, SegmentSeries[]> | Directory,
    codecs: ColumnCodecs,
    cache: BlockCache<CachedBlock>,
    indexCache: BlockCache<CachedBlock>,
  ) {
    this.version = version;
    this.#tables = index instanceof Map ? index : undefined;
    this.#dir = index instanceof Map ? undefined : index;
    this.#indexCache = indexCache;
    this.path = path;
    this.name = segmentDisplayName(path);
    this.fileId = fileId;
    this.#store = store;
    this.#file = file;
    this.bytes = bytes;
    this.meta = meta;
    this.#codecs = codecs;
    this.#cache = cache;
  }

  /**
   * `keys`: the series keys in index order from the file's writer (SegmentWriter.finish), if at
   * hand (v1-v3 decode the whole index at open). `indexCache` holds decoded index blocks of v4
   * files (storage.index_cache_bytes); the block cache when not given.
   */
  static async open(
    store: SegmentStore,
    path: string,
    fileId: number,
    codecs: ColumnCodecs,
    cache: BlockCache<CachedBlock>,
    keys?: readonly string[],
    indexCache: BlockCache<CachedBlock> = cache,
  ): Promise<SegmentReader> {
    const fh = await store.openRead(path);
    try {
      const size = fh.size;
      const fail = (offset: number, check: string): never => {
        throw new CorruptionError(segmentDisplayName(path), offset, check);
      };
      if (size < TRAILER_BYTES + 16) fail(0, `file of ${size} bytes is too short for a segment`);
      const tb = await fh.read(size - TRAILER_BYTES, TRAILER_BYTES);
      const trailer = decodeTrailer(tb, size);
      if (typeof trailer === 'string') fail(size - TRAILER_BYTES, trailer);
      const t = trailer as Exclude<typeof trailer, string>;
      const tcrc = crc32(tb.subarray(0, 28));
      if (tcrc !== t.trailerCrc)
        fail(
          size - TRAILER_BYTES,
          `trailer checksum mismatch: stored 0x${t.trailerCrc.toString(16)}, computed 0x${tcrc.toString(16)}`,
        );
      const stored = await fh.read(t.indexOffset, t.indexLength);
      const icrc = crc32(stored);
      if (icrc !== t.indexCrc)
        fail(
          t.indexOffset,
          `index checksum mismatch: stored 0x${t.indexCrc.toString(16)}, computed 0x${icrc.toString(16)}`,
        );
      let index = stored;
      if (t.flags & INDEX_ZSTD) {
        try {
          index = decompress(stored);
        } catch (e) {
          fail(t.indexOffset, `index does not decompress: ${(e as Error).message}`);
        }
        if (index.length !== t.indexRawLength)
          fail(t.indexOffset, `index decompresses to ${index.length} bytes, the trailer says ${t.indexRawLength}`);
      }
      if (t.version >= 4) {
        let directory: Directory;
        try {
          directory = decodeDirectory(index, t.indexOffset, t.seriesCount);
        } catch (e) {
          if (e instanceof IndexError) fail(t.indexOffset + e.offset, `index directory: ${e.message}`);
          throw e;
        }
        return new SegmentReader(
          store,
          path,
          fileId,
          fh,
          size,
          directory!.meta,
          t.version,
          directory!,
          codecs,
          cache,
          indexCache,
        );
      }
      let dir: ReturnType<typeof decodeIndex>;
      try {
        dir = decodeIndex(index, t.version, t.seriesCount, t.indexOffset, keys);
      } catch (e) {
        if (e instanceof IndexError) fail(t.indexOffset + e.offset, `index: ${e.message}`);
        throw e;
      }
      const tables = new Map<number, SegmentSeries[]>();
      for (const s of dir!.series) {
        let list = tables.get(s.tableId);
        if (list === undefined) tables.set(s.tableId, (list = []));
        list.push(s);
      }
      return new SegmentReader(store, path, fileId, fh, size, dir!.meta, t.version, tables, codecs, cache, indexCache);
    } catch (e) {
      await fh.close();
      throw e;
    }
  }

  /** The tables with series in the file, ascending. */
  tableIds(): number[] {
    if (this.#dir !== undefined) return [...this.#dir.tables.keys()];
    return [...this.#tables!.keys()].sort((a, b) => a - b);
  }

  /** Field column ids that some series of the table has (its packs' included). */
  columnIds(tableId: number): readonly number[] {
    if (this.#dir !== undefined) return this.#dir.tables.get(tableId)?.columnIds ?? [];
    let ids = this.#columnIds.get(tableId);
    if (ids === undefined) {
      const set = new Set<number>();
      let seen: unknown;
      for (const e of this.#tables!.get(tableId) ?? []) {
        // The series of a pack share its columns: looked at once (100,000 spans: 30 ms).
        if (e.columns === seen) continue;
        seen = e.columns;
        for (const c of e.columns) set.add(c.id);
      }
      this.#columnIds.set(tableId, (ids = [...set].sort((a, b) => a - b)));
    }
    return ids;
  }

  /** How many series of the table the file holds (from the directory: nothing read). */
  seriesCount(tableId: number): number {
    if (this.#dir !== undefined) return this.#dir.tables.get(tableId)?.seriesCount ?? 0;
    return this.#tables!.get(tableId)?.length ?? 0;
  }

  /**
   * Every series of a table, sorted by key: v4 reads and checks its index blocks (through the
   * index cache unless `cache` is false: compaction reads them once).
   */
  async tableSeries(tableId: number, cache = true): Promise<readonly SegmentSeries[]> {
    if (this.#dir === undefined) return this.#tables!.get(tableId) ?? [];
    const t = this.#dir.tables.get(tableId);
    if (t === undefined) return [];
    const out: SegmentSeries[] = [];
    for (let b = t.firstBlock; b < t.firstBlock + t.blockCount; b++) {
      const list = this.#indexHit(b) ?? (await this.#loadIndexBlock(b, cache));
      for (const e of list) out.push(e);
    }
    return out;
  }

  /**
   * The entry of one series, or undefined when the file does not hold it: at once for v1-v3
   * and for an index block in the cache, else after reading the block (a Promise).
   */
  lookup(tableId: number, key: string): SegmentSeries | undefined | Promise<SegmentSeries | undefined> {
    if (this.#dir === undefined) {
      let m = this.#byKey.get(tableId);
      if (m === undefined) {
        m = new Map((this.#tables!.get(tableId) ?? []).map((s) => [s.key, s]));
        this.#byKey.set(tableId, m);
      }
      return m.get(key);
    }
    const t = this.#dir.tables.get(tableId);
    if (t === undefined) return undefined;
    const b = blockOfKey(this.#dir, t, key);
    if (b < 0) return undefined;
    const hit = this.#indexHit(b);
    if (hit !== undefined) return findKey(hit, key);
    return this.#loadIndexBlock(b, true).then((list) => findKey(list, key));
  }

  /**
   * The postings of one tag of a table (value -> ordinals of its series in key order; empty
   * when no series has the tag), or undefined for a file before v4 (which has none).
   */
  async postings(tableId: number, tagId: number): Promise<Postings | undefined> {
    if (this.#dir === undefined) return undefined;
    const t = this.#dir.tables.get(tableId);
    const ref = t?.postings.get(tagId);
    if (ref === undefined) return NO_POSTINGS;
    const key = this.#uid + ':p' + ref.offset;
    const hit = this.#indexCache.get(key);
    if (hit !== undefined) return hit as Postings;
    const postings = await this.#loadPostings(ref, t!.seriesCount);
    this.#indexCache.set(key, postings, postings.heapBytes);
    return postings;
  }

  async #loadPostings(ref: StoredRef, seriesCount: number): Promise<Postings> {
    const raw = await this.#readIndexBytes(ref, 'postings block');
    try {
      return decodePostings(raw, seriesCount);
    } catch (e) {
      if (e instanceof IndexError)
        throw new CorruptionError(this.name, ref.offset, `postings block (raw offset ${e.offset}): ${e.message}`);
      throw e;
    }
  }

  /** The series of a table at `ordinals` (ascending, as postings give them). */
  async seriesAt(tableId: number, ordinals: Iterable<number>): Promise<SegmentSeries[]> {
    const out: SegmentSeries[] = [];
    if (this.#dir === undefined) {
      const list = this.#tables!.get(tableId) ?? [];
      for (const o of ordinals) if (list[o] !== undefined) out.push(list[o]!);
      return out;
    }
    const t = this.#dir.tables.get(tableId);
    if (t === undefined) return out;
    const first = this.#dir.blocks.firstOrdinal;
    for (const o of ordinals) {
      if (o >= t.seriesCount) continue;
      const b = blockOfOrdinal(this.#dir, t, o);
      const list = this.#indexHit(b) ?? (await this.#loadIndexBlock(b, true));
      out.push(list[o - first[b]!]!);
    }
    return out;
  }

  #indexHit(block: number): readonly SegmentSeries[] | undefined {
    return this.#indexCache.get(this.#uid + ':x' + block) as readonly SegmentSeries[] | undefined;
  }

  /** Reads, checks and decodes index block `b` (v4), keeping it in the index cache when `cache`. */
  async #loadIndexBlock(b: number, cache: boolean): Promise<readonly SegmentSeries[]> {
    const dir = this.#dir!;
    const blocks = dir.blocks;
    const ref: StoredRef = {
      offset: blocks.offset[b]!,
      length: blocks.length[b]!,
      crc: blocks.crc[b]!,
      rawLength: blocks.rawLength[b]!,
    };
    const raw = await this.#readIndexBytes(ref, 'index block');
    let list: SeriesEntry[];
    try {
      list = decodeSeriesEntries(raw, 0, raw.length, blocks.seriesCount[b]!, this.version, dir.packs, dir.dataEnd);
    } catch (e) {
      if (e instanceof IndexError)
        throw new CorruptionError(this.name, ref.offset, `index block (raw offset ${e.offset}): ${e.message}`);
      throw e;
    }
    const tableId = list[0]!.tableId;
    const t = dir.tables.get(tableId);
    if (
      t === undefined ||
      b < t.firstBlock ||
      b >= t.firstBlock + t.blockCount ||
      list[0]!.key !== blocks.firstKey[b]
    ) {
      throw new CorruptionError(
        this.name,
        ref.offset,
        `index block ${b} does not start with the series the directory names`,
      );
    }
    for (let i = 1; i < list.length; i++) {
      if (list[i]!.tableId !== tableId || !(list[i - 1]!.key < list[i]!.key))
        throw new CorruptionError(this.name, ref.offset, `index block ${b}: series ${i} out of order`);
    }
    if (cache) this.#indexCache.set(this.#uid + ':x' + b, list, raw.length * INDEX_HEAP_PER_BYTE + 64);
    return list;
  }

  /** The raw bytes of an index or postings block: read, CRC checked, decompressed. */
  async #readIndexBytes(ref: StoredRef, what: string): Promise<Uint8Array> {
    const stored = await this.#readBlock(ref, what, false);
    let raw: Uint8Array;
    try {
      raw = decompress(stored);
    } catch (e) {
      throw new CorruptionError(this.name, ref.offset, `${what} does not decompress: ${(e as Error).message}`);
    }
    if (raw.length !== ref.rawLength)
      throw new CorruptionError(
        this.name,
        ref.offset,
        `${what} decompresses to ${raw.length} bytes, the directory says ${ref.rawLength}`,
      );
    return raw;
  }

  acquire(): void {
    this.#refs++;
  }

  release(): void {
    if (--this.#refs === 0) {
      this.#closed = true;
      this.#cache.dropPrefix(this.#uid + ':');
      if (this.#indexCache !== this.#cache) this.#indexCache.dropPrefix(this.#uid + ':');
      void this.#file.close().catch(() => undefined);
    }
  }

  /** The manifest no longer lists this file: close it once the last scan releases it. */
  retire(): void {
    if (this.#retired) return;
    this.#retired = true;
    this.release();
  }

  /**
   * The bytes of a block: from its window of the file when `cache` and the window is cached or
   * can be kept, else read alone (a window the cache would refuse, full of the current scan's
   * blocks, cost a 1 MiB read per block: TSBS double-groupby-all read 200 MB a query that way).
   */
  async #blockBytes(ref: BlockRef, cache: boolean): Promise<Uint8Array> {
    const start = Math.floor(ref.offset / WINDOW_BYTES) * WINDOW_BYTES;
    if (!cache || ref.offset + ref.length > start + WINDOW_BYTES) return this.#file.read(ref.offset, ref.length);
    const key = this.#uid + ':w' + start;
    let window = this.#cache.get(key) as Uint8Array | undefined;
    if (window === undefined) {
      const length = Math.min(WINDOW_BYTES, this.bytes - start);
      if (!this.#cache.fits(length + 64)) return this.#file.read(ref.offset, ref.length);
      window = await this.#file.read(start, length);
      this.#cache.set(key, window, window.byteLength + 64);
    }
    return window.subarray(ref.offset - start, ref.offset - start + ref.length);
  }

  async #readBlock(ref: BlockRef, what: string, cache: boolean): Promise<Uint8Array> {
    // A closed file is not a corrupt one: reading it means a scan did not hold it (acquire).
    if (this.#closed) throw bug(`segment ${this.path} read after it was closed`);
    const b = await this.#blockBytes(ref, cache).catch((e: Error) => {
      // A store that cannot answer now (an object store down: 503) has not damaged the file.
      if (e instanceof UserError) throw e;
      throw new CorruptionError(this.name, ref.offset, `${what}: ${e.message}`);
    });
    const crc = crc32(b);
    if (crc !== ref.crc) {
      throw new CorruptionError(
        this.name,
        ref.offset,
        `${what} checksum mismatch: stored 0x${ref.crc.toString(16)}, computed 0x${crc.toString(16)}`,
      );
    }
    return b;
  }

  /**
   * The decoded time block of a group (of its whole pack, for a series' share of a pack).
   * `cache` false: a one-off read (compaction) that should not evict what queries use.
   */
  async readTime(group: RowGroup, cache = true): Promise<BigInt64Array> {
    const memo = cache ? undefined : this.#memo(group);
    if (memo?.time !== undefined) return memo.time;
    const rows = group.pack?.rows ?? group.rows;
    const key = this.#uid + ':' + group.time.offset;
    const hit = cache ? this.#cache.get(key) : undefined;
    if (hit !== undefined) return hit as BigInt64Array;
    const b = await this.#readBlock(group.time, 'time block', cache);
    let ts: BigInt64Array;
    try {
      ts = this.#codecs.decodeTime(b, rows);
    } catch (e) {
      throw decodeFailure(this.name, group.time.offset, 'time block', e);
    }
    if (ts.length !== rows)
      throw new CorruptionError(
        this.name,
        group.time.offset,
        `time block holds ${ts.length} rows, the index says ${rows}`,
      );
    if (cache) this.#cache.set(key, ts, ts.byteLength + 64);
    if (memo !== undefined) {
      memo.time = ts;
      memo.time32 = new Int32Array(ts.buffer, ts.byteOffset, ts.length * 2);
    }
    return ts;
  }

  /** The decoded block of column `index` of a group (of its whole pack, for a share of a pack). */
  async readColumn(group: RowGroup, index: number, type: FieldType, cache = true): Promise<DecodedColumn> {
    const memo = cache ? undefined : this.#memo(group);
    const had = memo?.columns.get(index);
    if (had !== undefined) return had;
    const rows = group.pack?.rows ?? group.rows;
    const ref = group.columns[index]!;
    const key = this.#uid + ':' + ref.offset;
    const hit = cache ? this.#cache.get(key) : undefined;
    if (hit !== undefined) return hit as DecodedColumn;
    const b = await this.#readBlock(ref, 'column block', cache);
    const col = this.#decodeColumn(
      ref,
      rows,
      () => this.#codecs.decodeValues(type, b, rows),
      (c) => c.values.length,
    );
    if (cache) this.#cache.set(key, col, estimateBytes(col, rows));
    memo?.columns.set(index, col);
    return col;
  }

  /** The page statistics of a group of a series entry with `columnCount` columns (undefined when it has none). */
  async readPages(group: RowGroup, columnCount: number): Promise<PageStats | undefined> {
    const ref = group.pages;
    if (ref === undefined) return undefined;
    const key = this.#uid + ':' + ref.offset;
    const hit = this.#cache.get(key);
    if (hit !== undefined) return hit as PageStats;
    // Stored as one zstd frame (decompressing also copies it out of the cached 1 MiB window,
    // which the pages would otherwise keep alive).
    const stored = await this.#readBlock(ref, 'page block', true);
    let b: Uint8Array;
    try {
      b = decompress(stored);
    } catch (e) {
      throw new CorruptionError(this.name, ref.offset, `page block does not decompress: ${(e as Error).message}`);
    }
    const pages = decodePages(b, group.rows, group.minTs, group.maxTs, columnCount);
    if (typeof pages === 'string') throw new CorruptionError(this.name, ref.offset, `page block: ${pages}`);
    // The bytes, the page arrays, and the statistics objects decoded from them as they are asked for.
    this.#cache.set(key, pages, b.byteLength + 8 * pages.count + 64 * pages.count * pages.columnCount + 128);
    return pages;
  }

  /** The memo for uncached reads of a pack's blocks (one pack at a time); undefined for other groups. */
  #memo(group: RowGroup): PackMemo | undefined {
    if (group.pack === undefined) return undefined;
    if (this.#packMemo?.pack !== group.pack) this.#packMemo = { pack: group.pack, columns: new Map(), utf8: new Map() };
    return this.#packMemo;
  }

  /**
   * Decodes a pack's time block and its blocks of the given columns into the memo of uncached
   * reads, so that packSource can hand out its series' rows synchronously. STRING blocks are
   * decoded to their dictionaries as UTF-8, which packSource copies as bytes: spans have a dozen
   * strings each, which compaction decoded into strings only to encode them again.
   */
  async loadPack(group: RowGroup, columnIds: readonly number[]): Promise<void> {
    const pack = group.pack!;
    await this.readTime(group, false);
    for (const id of columnIds) {
      const i = pack.columns.findIndex((c) => c.id === id);
      if (i < 0 || group.columns[i]!.length === 0) continue;
      const type = pack.columns[i]!.type as FieldType;
      if (type === ValueType.String) await this.#readUtf8(group, i);
      else await this.readColumn(group, i, type, false);
    }
  }

  /** Column `index` of a pack (a STRING column) into the memo as its UTF-8 dictionary. */
  async #readUtf8(group: RowGroup, index: number): Promise<void> {
    const memo = this.#memo(group)!;
    if (memo.utf8.has(index)) return;
    const rows = group.pack!.rows;
    const ref = group.columns[index]!;
    const b = await this.#readBlock(ref, 'column block', false);
    memo.utf8.set(
      index,
      this.#decodeColumn(
        ref,
        rows,
        () => this.#codecs.decodeUtf8(b, rows),
        (c) => c.index.length,
      ),
    );
  }

  /**
   * A column block decoded by `decode`, which must give `rows` rows (`count` says how many it
   * gave): a failure is a CorruptionError naming the file and the block's offset.
   */
  #decodeColumn<T>(ref: BlockRef, rows: number, decode: () => T, count: (col: T) => number): T {
    let col: T;
    try {
      col = decode();
    } catch (e) {
      throw decodeFailure(this.name, ref.offset, 'column block', e);
    }
    if (count(col) !== rows)
      throw new CorruptionError(this.name, ref.offset, `column block holds ${count(col)} rows, the index says ${rows}`);
    return col;
  }

  /**
   * The rows of a packed series with the given columns as a PackSource that copies them straight
   * into another pack (compaction's path for a series only one input holds: no arrays, slices
   * and awaits per series). Undefined until loadPack has decoded the group's pack.
   */
  packSource(series: SeriesEntry, group: RowGroup, columnIds: readonly number[]): PackSource | undefined {
    const memo = this.#packMemo;
    if (group.pack === undefined || memo?.pack !== group.pack || memo.time === undefined) return undefined;
    if (memo.forIds?.ids !== columnIds) {
      const columns: Array<DecodedColumn | undefined> = [];
      const utf8: Array<DecodedUtf8 | undefined> = [];
      const types: Array<ValueType | undefined> = [];
      for (const id of columnIds) {
        const i = group.pack.columns.findIndex((c) => c.id === id);
        if (i >= 0 && group.columns[i]!.length > 0 && !memo.columns.has(i) && !memo.utf8.has(i)) return undefined;
        const c = i < 0 ? undefined : memo.columns.get(i);
        const u = i < 0 ? undefined : memo.utf8.get(i);
        columns.push(c);
        utf8.push(u);
        types.push(c === undefined && u === undefined ? undefined : group.pack.columns[i]!.type);
      }
      memo.forIds = { ids: columnIds, columns, utf8, types };
    }
    const time32 = memo.time32!;
    const { columns, utf8, types } = memo.forIds;
    const from = group.packRow!;
    return {
      length: series.rows,
      minTs: series.minTs,
      maxTs: series.maxTs,
      copyTo(target: PackTarget): void {
        if (
          target.ids !== columnIds &&
          (target.ids.length !== columnIds.length || target.ids.some((id, k) => id !== columnIds[k]))
        ) {
          throw bug('pack source: the target pack has other columns than were loaded');
        }
        for (let i = 0; i < series.rows; i++) {
          target.ts32[2 * (target.at + i)] = time32[2 * (from + i)]!;
          target.ts32[2 * (target.at + i) + 1] = time32[2 * (from + i) + 1]!;
        }
        for (let k = 0; k < columns.length; k++) {
          const c = columns[k];
          const u = utf8[k];
          const type = types[k];
          const validity = u !== undefined ? u.validity : c?.validity;
          for (let i = 0; i < series.rows; i++) {
            const at = target.at + i;
            const o = from + i;
            if (type === undefined || (validity !== undefined && validity[o] === 0)) {
              if (target.validity[k] === undefined)
                target.validity[k] = new Uint8Array(target.ts.length).fill(1, 0, at);
              continue;
            }
            if (u !== undefined) {
              const j = u.index[o]!;
              (target.values[k] as Utf8Buffer).setBytes(at, u.dictBytes, u.dictOffsets[j]!, u.dictOffsets[j + 1]!);
            } else copyValue(type, target.values[k]!, at, c!.values, o);
            const v = target.validity[k];
            if (v !== undefined) v[at] = 1;
            target.present[k]!++;
          }
        }
      },
    };
  }

  /**
   * `length` raw bytes from `position`, through the handle this reader holds (a backup copies a
   * file so, while compaction may already have unlinked it: the caller holds it by `acquire`).
   */
  readBytes(position: number, length: number): Promise<Uint8Array> {
    if (this.#closed) throw bug(`segment ${this.path} read after it was closed`);
    return this.#file.read(position, length);
  }

  /**
   * Checks the whole file against its checksums (CHECK DATABASE): the trailer and index again
   * (read anew from the file), then every block the index refers to, each once, in file order.
   * Returns a CorruptionError per damaged part; none when the file is sound. Reads bypass the
   * block cache.
   */
  async verify(): Promise<CorruptionError[]> {
    if (this.#closed) throw bug(`segment ${this.path} verified after it was closed`);
    try {
      (
        await SegmentReader.open(
          this.#store,
          this.path,
          this.fileId,
          this.#codecs,
          this.#cache,
          undefined,
          this.#indexCache,
        )
      ).retire();
    } catch (e) {
      if (e instanceof CorruptionError) return [e];
      throw e;
    }
    const refs = new Map<number, { ref: BlockRef; what: string }>();
    const add = (ref: BlockRef | undefined, what: string): void => {
      if (ref !== undefined && ref.length > 0 && !refs.has(ref.offset)) refs.set(ref.offset, { ref, what });
    };
    if (this.#dir !== undefined) {
      // The index blocks and postings first: the data blocks are found through them.
      const out: CorruptionError[] = [];
      for (const t of this.#dir.tables.values()) {
        for (const ref of t.postings.values()) {
          try {
            await this.#loadPostings(ref, t.seriesCount);
          } catch (e) {
            if (!(e instanceof CorruptionError)) throw e;
            out.push(e);
          }
        }
        for (let b = t.firstBlock; b < t.firstBlock + t.blockCount; b++) {
          try {
            await this.#loadIndexBlock(b, false);
          } catch (e) {
            if (!(e instanceof CorruptionError)) throw e;
            out.push(e);
          }
        }
      }
      if (out.length > 0) return out;
    }
    for (const tableId of this.tableIds()) {
      for (const e of await this.tableSeries(tableId, false)) {
        for (const g of e.groups) {
          add(g.time, 'time block');
          add(g.pages, 'page block');
          for (const c of g.columns) add(c, 'column block');
        }
      }
    }
    const out: CorruptionError[] = [];
    for (const { ref, what } of [...refs.values()].sort((a, b) => a.ref.offset - b.ref.offset)) {
      try {
        await this.#readBlock(ref, what, false);
      } catch (e) {
        if (!(e instanceof CorruptionError)) throw e;
        out.push(e);
      }
    }
    return out;
  }

  /** Rows of one group with the given columns (those the series lacks are left out). */
  async readRows(
    series: SeriesEntry,
    group: RowGroup,
    columnIds: readonly number[],
    cache = true,
  ): Promise<SeriesRows> {
    const ts = await this.readTime(group, cache);
    const columns = new Map<number, ColumnData>();
    for (const id of columnIds) {
      const i = series.columns.findIndex((c) => c.id === id);
      if (i < 0) continue;
      const type = series.columns[i]!.type as FieldType;
      const ref = group.columns[i]!;
      if (ref.length === 0) continue;
      const col = await this.readColumn(group, i, type, cache);
      columns.set(id, { type, values: col.values, validity: col.validity });
    }
    const rows: SeriesRows = { length: ts.length, ts, columns };
    if (group.pack === undefined) return rows;
    const lo = group.packRow!;
    return sliceRows(rows, lo, lo + group.rows);
  }
}

/** The entry of `key` in a list sorted by key, or undefined. */
function findKey(list: readonly SegmentSeries[], key: string): SegmentSeries | undefined {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const k = list[mid]!.key;
    if (k === key) return list[mid];
    if (k < key) lo = mid + 1;
    else hi = mid;
  }
  return undefined;
}

/** A codec's failure, as a CorruptionError naming the file and the offset in it (the codecs report offsets within the block). */
function decodeFailure(path: string, blockAt: number, what: string, e: unknown): CorruptionError {
  if (e instanceof CorruptionError)
    return new CorruptionError(path, blockAt + e.offset, `${what}: ${e.check}`, { cause: e });
  return new CorruptionError(path, blockAt, `${what} does not decode: ${(e as Error).message}`, { cause: e });
}

function estimateBytes(col: DecodedColumn, rows: number): number {
  const v = col.values;
  let n = Array.isArray(v) ? rows * 16 : v.byteLength;
  if (Array.isArray(v)) for (const s of v) n += s.length * 2;
  return n + (col.validity?.byteLength ?? 0) + 64;
}
