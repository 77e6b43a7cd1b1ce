// Segment file v1 layout (FORMAT.md §5): header, codec blocks, footer index, trailer. Pure byte
// layout without I/O or Node imports, so the browser sandbox can read segments with it; callers
// compute and check the CRC32 values (segment-writer.ts, segment-reader.ts).
//
// The whole index is decoded and checked when a file is opened (a corrupt index fails then, not
// mid-query); blocks are read and checked one by one when a query needs them.

import { ValueType } from '../core/write-batch.js';
import type { SeriesTags } from './series-data.js';

export const SEGMENT_MAGIC = 0x31475353; // "SSG1"
export const SEGMENT_VERSION = 1;
export const HEADER_BYTES = 16;
export const TRAILER_BYTES = 36;
/** Trailer flag: the stored index is one zstd frame of the index bytes. */
export const INDEX_ZSTD = 1;
export const INDEX_HEADER_BYTES = 64;
/**
 * Most rows per block (a row group). A series is cut into equal groups of at most this many rows
 * (8640 rows of a day at 10 s: 2 x 4320, not 8192 + 448): bigger blocks spread the index and
 * block headers over more values (TSBS: 0.017 -> 0.006 bytes per value of index), and a block
 * decodes in microseconds. Readers take counts from the index.
 */
export const BLOCK_ROWS = 8192;

/** Row groups for a series of `rows` rows: [start, end) pairs of about equal size. */
export function groupBounds(rows: number): Array<[number, number]> {
  const groups = Math.max(1, Math.ceil(rows / BLOCK_ROWS));
  const out: Array<[number, number]> = [];
  for (let g = 0; g < groups; g++) out.push([Math.floor((g * rows) / groups), Math.floor(((g + 1) * rows) / groups)]);
  return out;
}

const TIME_REF_BYTES = 16;
const COLUMN_REF_BYTES = 45;
const GROUP_HEAD_BYTES = 20;

const utf8 = new TextEncoder();
const utf8d = new TextDecoder('utf-8', { fatal: true });

export interface SegmentMeta {
  /** The time partition the file belongs to: [start, end) in the database precision. */
  partitionStart: bigint;
  partitionEnd: bigint;
  minTs: bigint;
  maxTs: bigint;
  /** LSN range of the data, and the LSN up to which deletes are applied (FORMAT.md §6). */
  minLsn: number;
  maxLsn: number;
  cleanLsn: number;
  rows: number;
}

/** A block's place in the file and its CRC32. Length 0: no block (a column NULL throughout). */
export interface BlockRef {
  offset: number;
  length: number;
  crc: number;
}

/** Statistics of a column block over its present values. */
export interface BlockStats {
  /** Present (non-NULL) values. */
  count: number;
  /** min/max are set when exact (not for STRING, nor DOUBLE blocks holding NaN). */
  min?: number | bigint;
  max?: number | bigint;
  /** Set unless the integer sum overflowed 64 bits; STRING has none. */
  sum?: number | bigint;
}

export interface ColumnBlock extends BlockRef {
  stats: BlockStats;
}

export interface RowGroup {
  rows: number;
  minTs: bigint;
  maxTs: bigint;
  time: BlockRef;
  /** One per column of the series entry, in its order. */
  columns: ColumnBlock[];
}

export interface SeriesColumn {
  id: number;
  type: ValueType;
}

export interface SeriesEntry {
  tableId: number;
  tags: SeriesTags;
  rows: number;
  minTs: bigint;
  maxTs: bigint;
  columns: SeriesColumn[];
  /** Blocks of the series, in time order. */
  groups: RowGroup[];
}

/** Builds the index bytes entry by entry. */
export class IndexBuilder {
  #buf = new Uint8Array(64 * 1024);
  #dv = new DataView(this.#buf.buffer);
  #len = INDEX_HEADER_BYTES;
  seriesCount = 0;

  #grow(n: number): void {
    if (this.#len + n <= this.#buf.length) return;
    let cap = this.#buf.length * 2;
    while (cap < this.#len + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.#buf.subarray(0, this.#len));
    this.#buf = next;
    this.#dv = new DataView(next.buffer);
  }

  addSeries(tableId: number, tags: SeriesTags, columns: readonly SeriesColumn[], groups: readonly RowGroup[]): void {
    const tagBytes = tags.map(([, v]) => utf8.encode(v));
    let size = 32;
    for (const b of tagBytes) size += 8 + b.length;
    size += columns.length * 5 + groups.length * (GROUP_HEAD_BYTES + TIME_REF_BYTES + columns.length * COLUMN_REF_BYTES);
    this.#grow(size);
    const dv = this.#dv;
    let p = this.#len;
    let rows = 0;
    for (const g of groups) rows += g.rows;
    dv.setUint32(p, size, true);
    dv.setUint32(p + 4, tableId, true);
    dv.setUint32(p + 8, rows, true);
    dv.setUint16(p + 12, tags.length, true);
    dv.setUint16(p + 14, columns.length, true);
    dv.setBigInt64(p + 16, groups[0]!.minTs, true);
    dv.setBigInt64(p + 24, groups.at(-1)!.maxTs, true);
    // groupCount is implied by the size; the reader recomputes and checks it.
    p += 32;
    tags.forEach(([id], i) => {
      dv.setUint32(p, id, true);
      dv.setUint32(p + 4, tagBytes[i]!.length, true);
      this.#buf.set(tagBytes[i]!, p + 8);
      p += 8 + tagBytes[i]!.length;
    });
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
      g.columns.forEach((b, i) => {
        p = putRef(dv, p, b);
        putStats(dv, p, b.stats, columns[i]!.type);
        p += COLUMN_REF_BYTES - 16;
      });
    }
    this.#len = p;
    this.seriesCount++;
  }

  /** The finished index, its header filled from `meta`. */
  finish(meta: SegmentMeta): Uint8Array {
    const dv = this.#dv;
    dv.setBigInt64(0, meta.partitionStart, true);
    dv.setBigInt64(8, meta.partitionEnd, true);
    dv.setBigInt64(16, meta.minTs, true);
    dv.setBigInt64(24, meta.maxTs, true);
    dv.setBigUint64(32, BigInt(meta.minLsn), true);
    dv.setBigUint64(40, BigInt(meta.maxLsn), true);
    dv.setBigUint64(48, BigInt(meta.cleanLsn), true);
    dv.setBigUint64(56, BigInt(meta.rows), true);
    return this.#buf.subarray(0, this.#len);
  }
}

function putRef(dv: DataView, p: number, r: BlockRef): number {
  dv.setBigUint64(p, BigInt(r.offset), true);
  dv.setUint32(p + 8, r.length, true);
  dv.setUint32(p + 12, r.crc, true);
  return p + 16;
}

/** count u32, flags u8 (bit 0 min/max set, bit 1 sum set), min, max, sum: 8 bytes each. */
function putStats(dv: DataView, p: number, s: BlockStats, type: ValueType): void {
  dv.setUint32(p, s.count, true);
  const hasMinMax = s.min !== undefined && s.max !== undefined;
  const hasSum = s.sum !== undefined;
  dv.setUint8(p + 4, (hasMinMax ? 1 : 0) | (hasSum ? 2 : 0));
  const put = (at: number, v: number | bigint | undefined): void => {
    if (v === undefined) dv.setBigUint64(at, 0n, true);
    else if (type === ValueType.Double) dv.setFloat64(at, v as number, true);
    else if (type === ValueType.BigInt) dv.setBigInt64(at, BigInt(v), true);
    else dv.setBigUint64(at, BigInt(v), true);
  };
  put(p + 5, s.min);
  put(p + 13, s.max);
  put(p + 21, s.sum);
}

function getStats(dv: DataView, p: number, type: ValueType): BlockStats {
  const count = dv.getUint32(p, true);
  const flags = dv.getUint8(p + 4);
  const get = (at: number): number | bigint =>
    type === ValueType.Double
      ? dv.getFloat64(at, true)
      : type === ValueType.BigInt
        ? dv.getBigInt64(at, true)
        : type === ValueType.Boolean
          ? Number(dv.getBigUint64(at, true))
          : dv.getBigUint64(at, true);
  const s: BlockStats = { count };
  if (flags & 1) {
    s.min = get(p + 5);
    s.max = get(p + 13);
  }
  if (flags & 2) s.sum = get(p + 21);
  return s;
}

export function encodeHeader(fileId: number): Uint8Array {
  const b = new Uint8Array(HEADER_BYTES);
  const dv = new DataView(b.buffer);
  dv.setUint32(0, SEGMENT_MAGIC, true);
  dv.setUint16(4, SEGMENT_VERSION, true);
  dv.setBigUint64(8, BigInt(fileId), true);
  return b;
}

/** The trailer; `trailerCrc` is computed by the caller over bytes [0, 28) and stored at 28. */
export function encodeTrailer(t: Omit<Trailer, 'trailerCrc'>): Uint8Array {
  const b = new Uint8Array(TRAILER_BYTES);
  const dv = new DataView(b.buffer);
  dv.setBigUint64(0, BigInt(t.indexOffset), true);
  dv.setUint32(8, t.indexLength, true);
  dv.setUint32(12, t.indexRawLength, true);
  dv.setUint32(16, t.indexCrc, true);
  dv.setUint32(20, t.seriesCount, true);
  dv.setUint16(24, SEGMENT_VERSION, true);
  dv.setUint16(26, t.flags, true);
  dv.setUint32(32, SEGMENT_MAGIC, true);
  return b;
}

export interface Trailer {
  indexOffset: number;
  /** Bytes of the index as stored, and once decompressed. */
  indexLength: number;
  indexRawLength: number;
  indexCrc: number;
  seriesCount: number;
  flags: number;
  trailerCrc: number;
}

/** Most bytes a decompressed index may claim (a bound against corrupt or hostile files). */
export const MAX_INDEX_BYTES = 1 << 30;

/** Decodes a trailer or returns why it cannot (the caller checks trailerCrc). */
export function decodeTrailer(b: Uint8Array, fileSize: number): Trailer | string {
  if (b.length !== TRAILER_BYTES) return `trailer truncated: ${b.length} of ${TRAILER_BYTES} bytes`;
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const magic = dv.getUint32(32, true);
  if (magic !== SEGMENT_MAGIC) return `bad trailer magic 0x${magic.toString(16)}, want 0x${SEGMENT_MAGIC.toString(16)}`;
  const version = dv.getUint16(24, true);
  if (version !== SEGMENT_VERSION) return `unsupported segment version ${version}, this server reads ${SEGMENT_VERSION}`;
  const t: Trailer = {
    indexOffset: Number(dv.getBigUint64(0, true)),
    indexLength: dv.getUint32(8, true),
    indexRawLength: dv.getUint32(12, true),
    indexCrc: dv.getUint32(16, true),
    seriesCount: dv.getUint32(20, true),
    flags: dv.getUint16(26, true),
    trailerCrc: dv.getUint32(28, true),
  };
  if (t.indexOffset < HEADER_BYTES || t.indexOffset + t.indexLength + TRAILER_BYTES !== fileSize) {
    return `index at ${t.indexOffset} of ${t.indexLength} bytes does not end at the trailer (file of ${fileSize} bytes)`;
  }
  if ((t.flags & ~INDEX_ZSTD) !== 0) return `unknown trailer flags 0x${t.flags.toString(16)}`;
  if (t.indexRawLength < INDEX_HEADER_BYTES || t.indexRawLength > MAX_INDEX_BYTES) return `index of ${t.indexRawLength} bytes is out of range`;
  if (!(t.flags & INDEX_ZSTD) && t.indexRawLength !== t.indexLength) return `uncompressed index: stored ${t.indexLength} bytes, ${t.indexRawLength} expected`;
  return t;
}

export class IndexError extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

/** Decodes the index header and every series entry's directory part; throws IndexError. */
export function decodeDirectory(index: Uint8Array, seriesCount: number, dataEnd: number): { meta: SegmentMeta; series: SeriesEntry[] } {
  const dv = new DataView(index.buffer, index.byteOffset, index.byteLength);
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
  const series: SeriesEntry[] = [];
  let p = INDEX_HEADER_BYTES;
  for (let s = 0; s < seriesCount; s++) {
    const need = (at: number, n: number, what: string): void => {
      if (at + n > index.length) throw new IndexError(at, `${what}: need ${n} bytes, ${index.length - at} left`);
    };
    need(p, 32, 'series entry header');
    const size = dv.getUint32(p, true);
    const end = p + size;
    if (size < 32 || end > index.length) throw new IndexError(p, `series entry of ${size} bytes runs past the index`);
    const tableId = dv.getUint32(p + 4, true);
    const rows = dv.getUint32(p + 8, true);
    const tagCount = dv.getUint16(p + 12, true);
    const columnCount = dv.getUint16(p + 14, true);
    const minTs = dv.getBigInt64(p + 16, true);
    const maxTs = dv.getBigInt64(p + 24, true);
    let q = p + 32;
    const tags: Array<[number, string]> = [];
    for (let t = 0; t < tagCount; t++) {
      if (q + 8 > end) throw new IndexError(q, 'series tag runs past its entry');
      const id = dv.getUint32(q, true);
      const len = dv.getUint32(q + 4, true);
      if (q + 8 + len > end) throw new IndexError(q, `tag value of ${len} bytes runs past its entry`);
      let value: string;
      try {
        value = utf8d.decode(index.subarray(q + 8, q + 8 + len));
      } catch {
        throw new IndexError(q + 8, 'tag value is not valid UTF-8');
      }
      tags.push([id, value]);
      q += 8 + len;
    }
    const columns: SeriesColumn[] = [];
    for (let c = 0; c < columnCount; c++) {
      if (q + 5 > end) throw new IndexError(q, 'column descriptor runs past its entry');
      const type = dv.getUint8(q + 4);
      if (type < ValueType.Double || type > ValueType.String) throw new IndexError(q + 4, `bad column type ${type}`);
      columns.push({ id: dv.getUint32(q, true), type: type as ValueType });
      q += 5;
    }
    const groupBytes = GROUP_HEAD_BYTES + TIME_REF_BYTES + columnCount * COLUMN_REF_BYTES;
    const rest = end - q;
    if (rest % groupBytes !== 0 || rest === 0) throw new IndexError(q, `${rest} bytes of row groups is not a multiple of ${groupBytes}`);
    const groups = decodeGroups(dv, q, rest / groupBytes, columns);
    // Check the groups now: a corrupt index must fail when the file opens, not mid-query.
    let sum = 0;
    for (const g of groups) {
      sum += g.rows;
      for (const b of [g.time, ...g.columns]) {
        if (b.offset + b.length > dataEnd || (b.length > 0 && b.offset < HEADER_BYTES)) {
          throw new IndexError(q, `block at ${b.offset} of ${b.length} bytes lies outside the data region`);
        }
      }
    }
    if (sum !== rows) throw new IndexError(p + 8, `row groups hold ${sum} rows, the entry says ${rows}`);
    series.push({ tableId, tags, rows, minTs, maxTs, columns, groups });
    p = end;
  }
  if (p !== index.length) throw new IndexError(p, `unexpected tail of ${index.length - p} bytes after the last series entry`);
  return { meta, series };
}

function decodeGroups(dv: DataView, at: number, count: number, cols: readonly SeriesColumn[]): RowGroup[] {
  const out: RowGroup[] = [];
  let p = at;
  for (let g = 0; g < count; g++) {
    const rows = dv.getUint32(p, true);
    const minTs = dv.getBigInt64(p + 4, true);
    const maxTs = dv.getBigInt64(p + 12, true);
    p += GROUP_HEAD_BYTES;
    const time = getRef(dv, p);
    p += TIME_REF_BYTES;
    const columns: ColumnBlock[] = [];
    for (const c of cols) {
      const ref = getRef(dv, p);
      columns.push({ ...ref, stats: getStats(dv, p + 16, c.type) });
      p += COLUMN_REF_BYTES;
    }
    out.push({ rows, minTs, maxTs, time, columns });
  }
  return out;
}

function getRef(dv: DataView, p: number): BlockRef {
  return { offset: Number(dv.getBigUint64(p, true)), length: dv.getUint32(p + 8, true), crc: dv.getUint32(p + 12, true) };
}
