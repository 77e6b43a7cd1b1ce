// The footer index of a segment file (FORMAT.md §5.1): built entry by entry by the writer (v3),
// decoded and checked whole when a reader opens a file (v1 to v3), so a corrupt index fails at
// open, not mid-query. Pure bytes, no Node imports (the browser sandbox reads segments too).
//
// v2 = v1 + packs: after the index header, a pack count and the pack entries (blocks shared by
// small series of one table), then the series entries, each naming its pack and first row in
// it, or none (blocks of its own, as in v1). v3 = v2 + a page block ref in every row group,
// after its time block ref (length 0: the group has no pages; page-stats.ts).

import { ValueType } from '../../core/write-batch.js';
import {
  HEADER_BYTES,
  columnBlock,
  INDEX_HEADER_BYTES,
  NO_BLOCK,
  SeriesEntry,
  type BlockRef,
  type ColumnBlock,
  type PackEntry,
  type RowGroup,
  type SegmentMeta,
  type SeriesColumn,
} from './segment-format.js';
import { getStats, putStats } from './block-stats.js';
import { parseSeriesIdKey, writeDecimal, type SeriesTags } from '../../core/series-key.js';

const TIME_REF_BYTES = 16;
const COLUMN_REF_BYTES = 45;
const GROUP_HEAD_BYTES = 20;
const V1_SERIES_HEAD_BYTES = 32;
const V2_SERIES_HEAD_BYTES = 40;
const PACK_HEAD_BYTES = 32;
/** Offset of packRow in a v2/v3 series entry head. */
const PACK_ROW_AT = 36;
/** `pack` of a v2 series entry with blocks of its own. */
export const NO_PACK = 0xffffffff;

const utf8 = new TextEncoder();
/** Scratch of #head: the UTF-8 bytes of a series key (grown for a longer one). */
let keyBytes = new Uint8Array(4096);
const utf8d = new TextDecoder('utf-8', { fatal: true });

/** A growable little-endian byte buffer. */
class Bytes {
  buf = new Uint8Array(64 * 1024);
  dv = new DataView(this.buf.buffer);
  len = 0;

  /** Grows the buffer to hold at least `total` bytes (an expected size: growth by doubling copied it all again each time). */
  expect(total: number): void {
    if (total > this.buf.length) this.reserve(total - this.len);
  }

  /** Makes room for `n` more bytes; returns the position to write them at. */
  reserve(n: number): number {
    if (this.len + n > this.buf.length) {
      let cap = this.buf.length * 2;
      while (cap < this.len + n) cap *= 2;
      const next = new Uint8Array(cap);
      next.set(this.buf.subarray(0, this.len));
      this.buf = next;
      this.dv = new DataView(next.buffer);
    }
    return this.len;
  }
}

/** Builds a v3 index. Packs and series entries may be added in any interleaving. */
export class IndexBuilder {
  readonly #packs = new Bytes();
  readonly #series = new Bytes();
  packCount = 0;
  seriesCount = 0;
  /** Where each series entry starts in the entries' bytes, and its table (v4 cuts them into index blocks). */
  readonly entryStarts: number[] = [];
  readonly entryTables: number[] = [];
  /** The field column ids each table's series and packs have (a v4 directory lists them). */
  readonly tableColumns = new Map<number, Set<number>>();

  #addColumns(tableId: number, columns: readonly SeriesColumn[]): void {
    let set = this.tableColumns.get(tableId);
    if (set === undefined) this.tableColumns.set(tableId, (set = new Set()));
    for (const c of columns) set.add(c.id);
  }

  /**
   * Sizes the buffer of series entries for `count` packed series whose keys have `keyChars`
   * characters in all: a flush of 100,000 spans grew it by doubling from 64 KB to 32 MB, zeroing
   * and copying as it went. An entry is a 40-byte head and its tags, 8 bytes and the value each,
   * where the key has `<id>:<length>:` and the value: the estimate errs a little high (a span:
   * 289 bytes for 250), and growth still covers one too low.
   */
  expectSeries(count: number, keyChars: number): void {
    this.#series.expect(Math.ceil(keyChars * 1.25) + count * (V2_SERIES_HEAD_BYTES + 24));
  }

  /** Adds a pack entry; returns its number (what packed series entries refer to). */
  addPack(pack: PackEntry): number {
    this.#addColumns(pack.tableId, pack.columns);
    const b = this.#packs;
    const size = PACK_HEAD_BYTES + pack.columns.length * 5 + TIME_REF_BYTES + pack.columns.length * COLUMN_REF_BYTES;
    let p = b.reserve(size);
    const dv = b.dv;
    dv.setUint32(p, size, true);
    dv.setUint32(p + 4, pack.tableId, true);
    dv.setUint32(p + 8, pack.rows, true);
    dv.setUint16(p + 12, pack.columns.length, true);
    dv.setUint16(p + 14, 0, true);
    dv.setBigInt64(p + 16, pack.minTs, true);
    dv.setBigInt64(p + 24, pack.maxTs, true);
    p += PACK_HEAD_BYTES;
    for (const c of pack.columns) {
      dv.setUint32(p, c.id, true);
      dv.setUint8(p + 4, c.type);
      p += 5;
    }
    p = putRef(dv, p, pack.time);
    pack.blocks.forEach((blk, i) => {
      p = putRef(dv, p, blk);
      putStats(dv, p, blk.stats, pack.columns[i]!.type);
      p += COLUMN_REF_BYTES - 16;
    });
    b.len = p;
    return this.packCount++;
  }

  /** A series with blocks of its own; `key` is its internal key (§5.2), whose tags are written. */
  addSeries(tableId: number, key: string, columns: readonly SeriesColumn[], groups: readonly RowGroup[]): void {
    this.#addColumns(tableId, columns);
    let rows = 0;
    for (const g of groups) rows += g.rows;
    let p = this.#head(
      tableId,
      key,
      rows,
      groups[0]!.minTs,
      groups.at(-1)!.maxTs,
      columns.length,
      NO_PACK,
      0,
      columns.length * 5 + groups.length * (GROUP_HEAD_BYTES + 2 * TIME_REF_BYTES + columns.length * COLUMN_REF_BYTES),
    );
    const dv = this.#series.dv;
    for (const c of columns) {
      dv.setUint32(p, c.id, true);
      dv.setUint8(p + 4, c.type);
      p += 5;
    }
    for (const g of groups) {
      dv.setUint32(p, g.rows, true);
      dv.setBigInt64(p + 4, g.minTs, true);
      dv.setBigInt64(p + 12, g.maxTs, true);
      p += GROUP_HEAD_BYTES;
      p = putRef(dv, p, g.time);
      p = putRef(dv, p, g.pages ?? NO_BLOCK);
      g.columns.forEach((b, i) => {
        p = putRef(dv, p, b);
        putStats(dv, p, b.stats, columns[i]!.type);
        p += COLUMN_REF_BYTES - 16;
      });
    }
    this.#series.len = p;
  }

  /**
   * A series whose rows are [packRow, packRow + rows) of pack `pack`. Returns where its entry
   * starts, for setPackRow.
   */
  addPackedSeries(
    tableId: number,
    key: string,
    rows: number,
    minTs: bigint,
    maxTs: bigint,
    pack: number,
    packRow: number,
  ): number {
    const at = this.#series.len;
    this.#series.len = this.#head(tableId, key, rows, minTs, maxTs, 0, pack, packRow, 0);
    return at;
  }

  /** Moves the rows of the packed series whose entry starts at `entry` to `packRow` of its pack. */
  setPackRow(entry: number, packRow: number): void {
    this.#series.dv.setUint32(entry + PACK_ROW_AT, packRow, true);
  }

  /**
   * Writes an entry's head and its tags, read straight from the key (`<id>:<length>:<value>`
   * each; building the tag list first was a fifth of a flush of one-row series), reserving
   * `rest` more bytes; returns where the rest goes.
   */
  #head(
    tableId: number,
    key: string,
    rows: number,
    minTs: bigint,
    maxTs: bigint,
    columnCount: number,
    pack: number,
    packRow: number,
    rest: number,
  ): number {
    // The key's bytes in one native call; as many bytes as characters means all ASCII (then the
    // UTF-16 lengths in the key are the UTF-8 lengths the entry stores). Reading bytes, not the
    // string: keys opened from a file are slices of one string, slower to index character by
    // character.
    if (keyBytes.length < key.length * 3) keyBytes = new Uint8Array(Math.max(key.length * 3, keyBytes.length * 2));
    const kb = keyBytes;
    const n = utf8.encodeInto(key, kb).written;
    if (n !== key.length)
      return this.#headUtf8(tableId, parseSeriesIdKey(key), rows, minTs, maxTs, columnCount, pack, packRow, rest);
    // Pass 1: the size.
    let size = V2_SERIES_HEAD_BYTES + rest;
    let tagCount = 0;
    for (let i = 0; i < n; ) {
      while (kb[i] !== 58) i++; // the id
      let len = 0;
      for (let c = kb[++i]!; c !== 58; c = kb[++i]!) len = len * 10 + (c - 48);
      i += 1 + len;
      size += 8 + len;
      tagCount++;
    }
    const b = this.#series;
    let p = b.reserve(size);
    this.entryStarts.push(p);
    this.entryTables.push(tableId);
    const dv = b.dv;
    const buf = b.buf;
    writeHead(dv, p, size, tableId, tagCount, rows, minTs, maxTs, columnCount, pack, packRow);
    p += V2_SERIES_HEAD_BYTES;
    for (let i = 0; i < n; ) {
      let id = 0;
      for (let c = kb[i]!; c !== 58; c = kb[++i]!) id = id * 10 + (c - 48);
      let len = 0;
      for (let c = kb[++i]!; c !== 58; c = kb[++i]!) len = len * 10 + (c - 48);
      i++;
      dv.setUint32(p, id, true);
      dv.setUint32(p + 4, len, true);
      p += 8;
      if (len > 16) buf.set(kb.subarray(i, i + len), p);
      else for (let j = 0; j < len; j++) buf[p + j] = kb[i + j]!;
      p += len;
      i += len;
    }
    this.seriesCount++;
    return p;
  }

  #headUtf8(
    tableId: number,
    tags: SeriesTags,
    rows: number,
    minTs: bigint,
    maxTs: bigint,
    columnCount: number,
    pack: number,
    packRow: number,
    rest: number,
  ): number {
    const tagBytes = tags.map(([, v]) => utf8.encode(v));
    let size = V2_SERIES_HEAD_BYTES + rest;
    for (const t of tagBytes) size += 8 + t.length;
    const b = this.#series;
    let p = b.reserve(size);
    this.entryStarts.push(p);
    this.entryTables.push(tableId);
    const dv = b.dv;
    writeHead(dv, p, size, tableId, tags.length, rows, minTs, maxTs, columnCount, pack, packRow);
    p += V2_SERIES_HEAD_BYTES;
    tags.forEach(([id], i) => {
      dv.setUint32(p, id, true);
      dv.setUint32(p + 4, tagBytes[i]!.length, true);
      b.buf.set(tagBytes[i]!, p + 8);
      p += 8 + tagBytes[i]!.length;
    });
    this.seriesCount++;
    return p;
  }

  /** The series entries written so far, back to back (valid until the next add). */
  seriesBytes(): Uint8Array {
    return this.#series.buf.subarray(0, this.#series.len);
  }

  /** The index header filled from `meta`, the pack count and the packs: the head of a v4 directory. */
  headAndPacks(meta: SegmentMeta): Uint8Array {
    return this.finishWith(meta, 0);
  }

  /** The finished index: header filled from `meta`, pack count, packs, series entries. */
  finish(meta: SegmentMeta): Uint8Array {
    return this.finishWith(meta, this.#series.len);
  }

  private finishWith(meta: SegmentMeta, seriesLen: number): Uint8Array {
    const out = new Uint8Array(INDEX_HEADER_BYTES + 8 + this.#packs.len + seriesLen);
    const dv = new DataView(out.buffer);
    dv.setBigInt64(0, meta.partitionStart, true);
    dv.setBigInt64(8, meta.partitionEnd, true);
    dv.setBigInt64(16, meta.minTs, true);
    dv.setBigInt64(24, meta.maxTs, true);
    dv.setBigUint64(32, BigInt(meta.minLsn), true);
    dv.setBigUint64(40, BigInt(meta.maxLsn), true);
    dv.setBigUint64(48, BigInt(meta.cleanLsn), true);
    dv.setBigUint64(56, BigInt(meta.rows), true);
    dv.setUint32(INDEX_HEADER_BYTES, this.packCount, true);
    out.set(this.#packs.buf.subarray(0, this.#packs.len), INDEX_HEADER_BYTES + 8);
    out.set(this.#series.buf.subarray(0, seriesLen), INDEX_HEADER_BYTES + 8 + this.#packs.len);
    return out;
  }
}

function writeHead(
  dv: DataView,
  p: number,
  size: number,
  tableId: number,
  tagCount: number,
  rows: number,
  minTs: bigint,
  maxTs: bigint,
  columnCount: number,
  pack: number,
  packRow: number,
): void {
  dv.setUint32(p, size, true);
  dv.setUint32(p + 4, tableId, true);
  dv.setUint32(p + 8, rows, true);
  dv.setUint16(p + 12, tagCount, true);
  dv.setUint16(p + 14, columnCount, true);
  dv.setBigInt64(p + 16, minTs, true);
  dv.setBigInt64(p + 24, maxTs, true);
  dv.setUint32(p + 32, pack, true);
  dv.setUint32(p + PACK_ROW_AT, packRow, true);
}

function putRef(dv: DataView, p: number, r: BlockRef): number {
  dv.setBigUint64(p, BigInt(r.offset), true);
  dv.setUint32(p + 8, r.length, true);
  dv.setUint32(p + 12, r.crc, true);
  return p + 16;
}

/** count u32, flags u8 (bit 0 min/max set, bit 1 sum set), min, max, sum: 8 bytes each. */
export class IndexError extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Decodes the index header, the packs (v2) and every series entry; throws IndexError. `keys`,
 * when given, are the series' keys in index order as the writer of the file had them (they are
 * taken instead of being decoded again; the entries are checked all the same).
 */
export function decodeIndex(
  index: Uint8Array,
  version: number,
  seriesCount: number,
  dataEnd: number,
  keys?: readonly string[],
): { meta: SegmentMeta; series: SeriesEntry[] } {
  const { meta, packs, end } = decodeHeadAndPacks(index, version, dataEnd);
  const series = decodeSeriesEntries(index, end, index.length, seriesCount, version, packs, dataEnd, keys);
  return { meta, series };
}

/** Throws IndexError when `n` bytes from `at` run past `index`. */
function needIn(index: Uint8Array, at: number, n: number, what: string): void {
  if (at + n > index.length) throw new IndexError(at, `${what}: need ${n} bytes, ${index.length - at} left`);
}

/** Throws IndexError when a block ref lies outside the data region [HEADER_BYTES, dataEnd). */
export function checkBlockRef(b: BlockRef, at: number, dataEnd: number): void {
  if (b.offset + b.length > dataEnd || (b.length > 0 && b.offset < HEADER_BYTES)) {
    throw new IndexError(at, `block at ${b.offset} of ${b.length} bytes lies outside the data region`);
  }
}

/** The index header and (v2 on) the packs; `end`: where what follows them starts. */
export function decodeHeadAndPacks(
  index: Uint8Array,
  version: number,
  dataEnd: number,
): { meta: SegmentMeta; packs: PackEntry[]; end: number } {
  const dv = new DataView(index.buffer, index.byteOffset, index.byteLength);
  const need = (at: number, n: number, what: string): void => needIn(index, at, n, what);
  const checkRef = (b: BlockRef, at: number): void => checkBlockRef(b, at, dataEnd);
  need(0, INDEX_HEADER_BYTES, 'index header');
  const meta: SegmentMeta = {
    partitionStart: dv.getBigInt64(0, true),
    partitionEnd: dv.getBigInt64(8, true),
    minTs: dv.getBigInt64(16, true),
    maxTs: dv.getBigInt64(24, true),
    minLsn: Number(dv.getBigUint64(32, true)),
    maxLsn: Number(dv.getBigUint64(40, true)),
    cleanLsn: Number(dv.getBigUint64(48, true)),
    rows: Number(dv.getBigUint64(56, true)),
  };
  let p = INDEX_HEADER_BYTES;
  const packs: PackEntry[] = [];
  if (version >= 2) {
    need(p, 8, 'pack count');
    const packCount = dv.getUint32(p, true);
    if (dv.getUint32(p + 4, true) !== 0) throw new IndexError(p + 4, 'reserved word after the pack count is not 0');
    p += 8;
    for (let k = 0; k < packCount; k++) {
      need(p, PACK_HEAD_BYTES, 'pack entry header');
      const size = dv.getUint32(p, true);
      const columnCount = dv.getUint16(p + 12, true);
      const want = PACK_HEAD_BYTES + columnCount * 5 + TIME_REF_BYTES + columnCount * COLUMN_REF_BYTES;
      if (size !== want)
        throw new IndexError(p, `pack entry of ${size} bytes, ${want} expected for ${columnCount} columns`);
      need(p, size, 'pack entry');
      const rows = dv.getUint32(p + 8, true);
      if (rows === 0) throw new IndexError(p + 8, 'pack of 0 rows');
      const columns = decodeColumns(dv, p + PACK_HEAD_BYTES, columnCount);
      let q = p + PACK_HEAD_BYTES + columnCount * 5;
      const time = getRef(dv, q);
      checkRef(time, q);
      q += TIME_REF_BYTES;
      const blocks: ColumnBlock[] = [];
      for (const c of columns) {
        const ref = getRef(dv, q);
        checkRef(ref, q);
        blocks.push(columnBlock(ref, getStats(dv, q + 16, c.type)));
        q += COLUMN_REF_BYTES;
      }
      packs.push({
        tableId: dv.getUint32(p + 4, true),
        rows,
        minTs: dv.getBigInt64(p + 16, true),
        maxTs: dv.getBigInt64(p + 24, true),
        columns,
        time,
        blocks,
      });
      p += size;
    }
  }
  return { meta, packs, end: p };
}

/**
 * Decodes `seriesCount` series entries from `from`, which must end exactly at `to` (a v1-v3
 * index's tail, or a v4 index block); throws IndexError.
 */
export function decodeSeriesEntries(
  index: Uint8Array,
  from: number,
  to: number,
  seriesCount: number,
  version: number,
  packs: readonly PackEntry[],
  dataEnd: number,
  keys?: readonly string[],
): SeriesEntry[] {
  const dv = new DataView(index.buffer, index.byteOffset, index.byteLength);
  const need = (at: number, n: number, what: string): void => needIn(index, at, n, what);
  const checkRef = (b: BlockRef, at: number): void => checkBlockRef(b, at, dataEnd);
  let p = from;
  const head = version >= 2 ? V2_SERIES_HEAD_BYTES : V1_SERIES_HEAD_BYTES;
  // Tag values are mostly ASCII: they are cut from one string of the whole index rather than
  // decoded one by one (a TextDecoder call per value was most of the time to open a file of
  // 100 k one-row series). Latin-1 is the identity on ASCII bytes, and Node's Buffer decodes it
  // four times as fast as a windows-1252 TextDecoder (a third of that open's time).
  const latin = seriesCount > 0 && keys === undefined ? latin1(index) : '';
  if (keys !== undefined && keys.length !== seriesCount)
    throw new IndexError(0, `the index holds ${seriesCount} series, the writer added ${keys.length}`);
  const fastKeys = keys ?? asciiKeys(index, dv, p, head, seriesCount);
  const series: SeriesEntry[] = [];
  for (let s = 0; s < seriesCount; s++) {
    need(p, head, 'series entry header');
    const size = dv.getUint32(p, true);
    const end = p + size;
    if (size < head || end > to) throw new IndexError(p, `series entry of ${size} bytes runs past the index`);
    const tableId = dv.getUint32(p + 4, true);
    const rows = dv.getUint32(p + 8, true);
    const tagCount = dv.getUint16(p + 12, true);
    const columnCount = dv.getUint16(p + 14, true);
    const minTs = dv.getBigInt64(p + 16, true);
    // One BigInt for both bounds of a one-row series (a span): each is an object on the heap.
    const last = dv.getBigInt64(p + 24, true);
    const maxTs = last === minTs ? minTs : last;
    const packNo = version >= 2 ? dv.getUint32(p + 32, true) : NO_PACK;
    const packRow = version >= 2 ? dv.getUint32(p + 36, true) : 0;
    let q = p + head;
    // The internal key (§5.2) straight from the tags: `<id>:<UTF-16 length>:<value>` each
    // (built here only for a series asciiKeys left out; the tags are checked either way).
    const fast = fastKeys?.[s];
    const key: string[] = [];
    for (let t = 0; t < tagCount; t++) {
      if (q + 8 > end) throw new IndexError(q, 'series tag runs past its entry');
      const id = dv.getUint32(q, true);
      const len = dv.getUint32(q + 4, true);
      if (q + 8 + len > end) throw new IndexError(q, `tag value of ${len} bytes runs past its entry`);
      if (fast !== undefined) {
        q += 8 + len;
        continue;
      }
      let isAscii = true;
      for (let i = q + 8; i < q + 8 + len; i++) {
        if (index[i]! >= 0x80) {
          isAscii = false;
          break;
        }
      }
      let value: string;
      if (isAscii) {
        value = latin.slice(q + 8, q + 8 + len);
      } else {
        try {
          value = utf8d.decode(index.subarray(q + 8, q + 8 + len));
        } catch {
          throw new IndexError(q + 8, 'tag value is not valid UTF-8');
        }
      }
      key.push(String(id), ':', String(value.length), ':', value);
      q += 8 + len;
    }
    if (packNo !== NO_PACK) {
      const pack = packs[packNo];
      if (pack === undefined) throw new IndexError(p + 32, `series refers to pack ${packNo} of ${packs.length}`);
      if (pack.tableId !== tableId)
        throw new IndexError(p + 4, `series of table ${tableId} in pack ${packNo} of table ${pack.tableId}`);
      if (columnCount !== 0 || q !== end) throw new IndexError(q, 'a packed series entry holds columns or row groups');
      if (rows === 0 || packRow + rows > pack.rows)
        throw new IndexError(
          p + 8,
          `rows [${packRow}, ${packRow + rows}) lie outside pack ${packNo} of ${pack.rows} rows`,
        );
      const group: RowGroup = { rows, minTs, maxTs, time: pack.time, columns: pack.blocks, pack, packRow };
      series.push(new SeriesEntry(tableId, fast ?? key.join(''), rows, minTs, maxTs, pack.columns, [group]));
      p = end;
      continue;
    }
    if (q + columnCount * 5 > end) throw new IndexError(q, 'column descriptor runs past its entry');
    const columns = decodeColumns(dv, q, columnCount);
    q += columnCount * 5;
    const withPages = version >= 3;
    const groupBytes = GROUP_HEAD_BYTES + (withPages ? 2 : 1) * TIME_REF_BYTES + columnCount * COLUMN_REF_BYTES;
    const rest = end - q;
    if (rest % groupBytes !== 0 || rest === 0)
      throw new IndexError(q, `${rest} bytes of row groups is not a multiple of ${groupBytes}`);
    const groups = decodeGroups(dv, q, rest / groupBytes, columns, withPages);
    // Check the groups now: a corrupt index must fail when the file opens, not mid-query.
    let sum = 0;
    for (const g of groups) {
      sum += g.rows;
      checkRef(g.time, q);
      if (g.pages !== undefined) checkRef(g.pages, q);
      for (const b of g.columns) checkRef(b, q);
    }
    if (sum !== rows) throw new IndexError(p + 8, `row groups hold ${sum} rows, the entry says ${rows}`);
    series.push(new SeriesEntry(tableId, fast ?? key.join(''), rows, minTs, maxTs, columns, groups));
    p = end;
  }
  if (p !== to) throw new IndexError(p, `unexpected tail of ${to - p} bytes after the last series entry`);
  return series;
}

/**
 * The internal keys of the series entries from `at` whose tag values are all ASCII, written as
 * bytes into one buffer, decoded once and cut (undefined for the other entries): a key built
 * from parts cost a parts array, a string per number and value, and a join, per series (opening
 * the file of a flush of 100,000 spans allocated 1 KB a span). Optimistic: it only walks the
 * entries, guarded against reading past the index; decodeIndex checks them, and builds the keys
 * of any entry left out here, or all of them when this returns undefined.
 */
function asciiKeys(
  index: Uint8Array,
  dv: DataView,
  at: number,
  head: number,
  seriesCount: number,
): Array<string | undefined> | undefined {
  if (seriesCount === 0) return undefined;
  let out = new Uint8Array(Math.max(1024, index.length * 2));
  const ends = new Int32Array(seriesCount); // end of each key in `out`, -1 for one left out
  let o = 0;
  let p = at;
  for (let s = 0; s < seriesCount; s++) {
    if (p + head > index.length) return undefined;
    const size = dv.getUint32(p, true);
    const end = p + size;
    if (size < head || end > index.length) return undefined;
    const tagCount = dv.getUint16(p + 12, true);
    const keyStart = o;
    let ascii = true;
    let q = p + head;
    for (let t = 0; t < tagCount; t++) {
      if (q + 8 > end) return undefined;
      const id = dv.getUint32(q, true);
      const len = dv.getUint32(q + 4, true);
      if (q + 8 + len > end) return undefined;
      if (o + 22 + len > out.length) {
        const grown = new Uint8Array(Math.max(out.length * 2, o + 22 + len));
        grown.set(out.subarray(0, o));
        out = grown;
      }
      o = writeDecimal(out, o, id);
      out[o++] = 58; // ':'
      o = writeDecimal(out, o, len); // ASCII: UTF-16 length = byte length
      out[o++] = 58;
      for (let i = q + 8; i < q + 8 + len; i++) {
        const c = index[i]!;
        if (c >= 0x80) ascii = false;
        out[o++] = c;
      }
      q += 8 + len;
    }
    if (!ascii) o = keyStart;
    ends[s] = ascii ? o : -1;
    p = end;
  }
  const all = latin1(out.subarray(0, o));
  const keys = new Array<string | undefined>(seriesCount);
  for (let s = 0, from = 0; s < seriesCount; s++) {
    const e = ends[s]!;
    if (e < 0) continue;
    keys[s] = all.slice(from, e);
    from = e;
  }
  return keys;
}

function decodeColumns(dv: DataView, at: number, count: number): SeriesColumn[] {
  const columns: SeriesColumn[] = [];
  let q = at;
  for (let c = 0; c < count; c++) {
    const type = dv.getUint8(q + 4);
    if (type < ValueType.Double || type > ValueType.String) throw new IndexError(q + 4, `bad column type ${type}`);
    columns.push({ id: dv.getUint32(q, true), type: type as ValueType });
    q += 5;
  }
  return columns;
}

function decodeGroups(
  dv: DataView,
  at: number,
  count: number,
  cols: readonly SeriesColumn[],
  withPages: boolean,
): RowGroup[] {
  const out: RowGroup[] = [];
  let p = at;
  for (let g = 0; g < count; g++) {
    const rows = dv.getUint32(p, true);
    const minTs = dv.getBigInt64(p + 4, true);
    const maxTs = dv.getBigInt64(p + 12, true);
    p += GROUP_HEAD_BYTES;
    const time = getRef(dv, p);
    p += TIME_REF_BYTES;
    let pages: BlockRef | undefined;
    if (withPages) {
      pages = getRef(dv, p);
      if (pages.length === 0) pages = undefined;
      p += TIME_REF_BYTES;
    }
    const columns: ColumnBlock[] = [];
    for (const c of cols) {
      const ref = getRef(dv, p);
      columns.push(columnBlock(ref, getStats(dv, p + 16, c.type)));
      p += COLUMN_REF_BYTES;
    }
    out.push({ rows, minTs, maxTs, time, columns, pages });
  }
  return out;
}

function getRef(dv: DataView, p: number): BlockRef {
  return {
    offset: Number(dv.getBigUint64(p, true)),
    length: dv.getUint32(p + 8, true),
    crc: dv.getUint32(p + 12, true),
  };
}

/** Node's Buffer when the runtime has one (the server); the browser sandbox decodes without it. */
const NodeBuffer = (
  globalThis as {
    Buffer?: { from(b: ArrayBufferLike, offset: number, length: number): { toString(encoding: 'latin1'): string } };
  }
).Buffer;

/** Bytes as Latin-1 text: one character per byte, its code the byte's value. */
function latin1(bytes: Uint8Array): string {
  if (NodeBuffer !== undefined)
    return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  let out = '';
  for (let i = 0; i < bytes.length; i += 8192) out += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return out;
}
