// Segment file layout (FORMAT.md §5): header, codec blocks, footer index, trailer, and the
// types of a decoded index; the index bytes themselves are segment-index.ts. Pure byte layout
// without I/O or Node imports, so the browser sandbox can read segments with it; callers compute
// and check the CRC32 values (segment-writer.ts, segment-reader.ts).
//
// Version 2 adds packs (FORMAT.md §5.1): the rows of many small series of a table share one
// block per column, because a block per column per series cost a one-row series (a span) about
// 190 µs to flush and 11 KB of decoded index (bench/tiny-series.ts). Version 3 adds page
// statistics to row groups (page-stats.ts). Version 4 moves the series entries out of the footer
// into index blocks read on demand (index-blocks.ts). This writer writes v4; readers read v1 to v4.

import type { ValueType } from '../../core/write-batch.js';
import { parseSeriesIdKey, type SeriesTags } from '../../core/series-key.js';

export const SEGMENT_MAGIC = 0x31475353; // "SSG1"
/** The version this server writes. */
export const SEGMENT_VERSION = 4;
/** Versions this server reads. */
export const SEGMENT_VERSIONS_READ: readonly number[] = [1, 2, 3, 4];
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

/**
 * A series of at most this many rows goes into a pack of its table (v2) instead of blocks of
 * its own; a pack takes series until it holds PACK_ROWS rows.
 */
export const PACK_SERIES_ROWS = 32;
export const PACK_ROWS = 4096;

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

/** No block: a column NULL throughout, a group without pages. */
export const NO_BLOCK: BlockRef = { offset: 0, length: 0, crc: 0 };

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

/**
 * A block reference with its statistics. Written out rather than `{ ...ref, stats }`: V8 (Node
 * 20) gives every object made by a literal that adds a property after a spread a hidden class
 * of its own, so each block of an index had its own, and the read path's loads of block fields
 * went megamorphic. (Measured: 9,991 of 10,000 objects made by `{ ...ref, stats }` had a hidden
 * class no other had.)
 */
export function columnBlock(ref: BlockRef, stats: BlockStats): ColumnBlock {
  return { offset: ref.offset, length: ref.length, crc: ref.crc, stats };
}

export interface RowGroup {
  rows: number;
  minTs: bigint;
  maxTs: bigint;
  time: BlockRef;
  /** One per column of the series entry, in its order. */
  columns: ColumnBlock[];
  /** The group's page statistics (v3, page-stats.ts); absent when the group has none. */
  pages?: BlockRef;
  /**
   * Set when the group is a series' share of a pack: its rows are [packRow, packRow + rows) of
   * blocks holding `pack.rows` rows, and the column statistics are the pack's (bounds of the
   * series' values, not their exact count, min, max or sum).
   */
  pack?: PackEntry;
  packRow?: number;
}

/** A pack (v2): blocks holding the rows of several small series of one table, one after the other. */
export interface PackEntry {
  tableId: number;
  rows: number;
  minTs: bigint;
  maxTs: bigint;
  columns: SeriesColumn[];
  time: BlockRef;
  blocks: ColumnBlock[];
}

export interface SeriesColumn {
  id: number;
  type: ValueType;
}

/** A decoded series entry. The tags are parsed from the key when asked (most series are never asked). */
export class SeriesEntry {
  constructor(
    readonly tableId: number,
    /** The internal series key (§5.2). */
    readonly key: string,
    readonly rows: number,
    readonly minTs: bigint,
    readonly maxTs: bigint,
    /** The fields of the series (of its pack, for a packed series). */
    readonly columns: readonly SeriesColumn[],
    /** Blocks of the series, in time order (one group, a share of a pack, for a packed series). */
    readonly groups: readonly RowGroup[],
  ) {}

  get tags(): SeriesTags {
    return parseSeriesIdKey(this.key);
  }
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
export function encodeTrailer(t: Omit<Trailer, 'trailerCrc' | 'version'>): Uint8Array {
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
  version: number;
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
  if (!SEGMENT_VERSIONS_READ.includes(version))
    return `unsupported segment version ${version}, this server reads ${SEGMENT_VERSIONS_READ.join(' and ')}`;
  const t: Trailer = {
    version,
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
  if (t.indexRawLength < INDEX_HEADER_BYTES || t.indexRawLength > MAX_INDEX_BYTES)
    return `index of ${t.indexRawLength} bytes is out of range`;
  if (!(t.flags & INDEX_ZSTD) && t.indexRawLength !== t.indexLength)
    return `uncompressed index: stored ${t.indexLength} bytes, ${t.indexRawLength} expected`;
  return t;
}
