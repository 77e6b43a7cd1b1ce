// The series index of a v4 segment file (FORMAT.md §5.3): series entries cut into index blocks,
// a postings block per tag of each table (value -> the table's series, by ordinal: a query on a
// host reads the hosts' postings, not those of a unique pod or span id), and the directory
// (the footer) that a reader decodes at open. Only the directory stays in the heap; blocks are
// read on demand through the index cache (segment-reader.ts), so a file of a million series
// costs its directory (a key and 40 bytes per block of about 16 KiB), not 0.3 KB a series.
// Pure bytes, no I/O: the writer compresses and places the blocks, the reader checks them.

import { parseSeriesIdKey } from '../../core/series-key.js';
import type { BlockRef, PackEntry, SegmentMeta } from './segment-format.js';
import { decodeHeadAndPacks, IndexError, type IndexBuilder } from './segment-index.js';

/** An index block is cut once it holds this many bytes of entries (whole entries; one table each). */
export const INDEX_BLOCK_BYTES = 16 * 1024;
const TABLE_ENTRY_BYTES = 40;
const TAG_ENTRY_BYTES = 24;
const BLOCK_ENTRY_HEAD_BYTES = 28;

/** A stored (compressed) block with its raw length: what the writer's `put` returns. */
export interface StoredRef extends BlockRef {
  rawLength: number;
}

/** A table of the directory: its series are blocks [firstBlock, firstBlock + blockCount). */
export interface TableDir {
  tableId: number;
  seriesCount: number;
  firstBlock: number;
  blockCount: number;
  minTs: bigint;
  maxTs: bigint;
  /** Field column ids that some series of the table has, ascending. */
  columnIds: number[];
  /** The postings block of each tag column some series of the table has. */
  postings: Map<number, StoredRef>;
}

/** The index blocks, column-wise (a directory of a million series holds tens of thousands). */
export interface BlockDir {
  offset: Float64Array;
  length: Uint32Array;
  crc: Uint32Array;
  rawLength: Uint32Array;
  seriesCount: Uint32Array;
  /** Ordinal of the block's first series within its table. */
  firstOrdinal: Uint32Array;
  /** Internal key (§5.2) of the block's first series. */
  firstKey: string[];
}

export interface Directory {
  meta: SegmentMeta;
  packs: PackEntry[];
  /** End of the data region: data blocks lie before it, index and postings blocks after it. */
  dataEnd: number;
  tables: Map<number, TableDir>;
  blocks: BlockDir;
}

/**
 * The values of one tag (sorted as JavaScript compares strings), each with the ordinals of the
 * table's series holding it (ascending), flat: value i's are ordinals[starts[i], starts[i + 1]).
 * Not a Map of arrays: a unique tag (a pod, a span id) made an array and an entry per series.
 */
export class Postings {
  constructor(
    readonly values: readonly string[],
    readonly starts: Uint32Array,
    readonly ordinals: Uint32Array,
  ) {}

  get size(): number {
    return this.values.length;
  }

  /** The ordinals of value number `i`. */
  at(i: number): Uint32Array {
    return this.ordinals.subarray(this.starts[i]!, this.starts[i + 1]!);
  }

  /** The ordinals of `value`, or undefined when no series has it. */
  get(value: string): Uint32Array | undefined {
    let lo = 0;
    let hi = this.values.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const v = this.values[mid]!;
      if (v === value) return this.at(mid);
      if (v < value) lo = mid + 1;
      else hi = mid;
    }
    return undefined;
  }

  /** What it costs the heap, about: its strings, offsets and ordinals. */
  get heapBytes(): number {
    let n = 64 + this.starts.byteLength + this.ordinals.byteLength;
    for (const v of this.values) n += 24 + v.length;
    return n;
  }
}

export const NO_POSTINGS = new Postings([], new Uint32Array(1), new Uint32Array(0));

const utf8 = new TextEncoder();
const utf8d = new TextDecoder('utf-8', { fatal: true });

/**
 * Writes the index blocks and postings blocks through `put` (which compresses, places and
 * checksums them, returning where) and returns the raw directory. `keys` are the series' keys
 * in index order; `dataEnd` is where the first of these blocks goes.
 */
export function encodeIndexV4(
  builder: IndexBuilder,
  meta: SegmentMeta,
  keys: readonly string[],
  dataEnd: number,
  put: (raw: Uint8Array) => StoredRef,
): Uint8Array {
  const entries = builder.seriesBytes();
  const starts = builder.entryStarts;
  const tablesOf = builder.entryTables;
  const n = starts.length;
  if (keys.length !== n) throw new Error(`BUG: ${keys.length} keys for ${n} index entries`);
  const tables: TableDir[] = [];
  const blocks: Array<{ ref: StoredRef; count: number; firstOrdinal: number; firstKey: Uint8Array }> = [];
  let i = 0;
  while (i < n) {
    const tableId = tablesOf[i]!;
    const columnIds = [...(builder.tableColumns.get(tableId) ?? [])].sort((a, b) => a - b);
    const table: TableDir = {
      tableId,
      seriesCount: 0,
      firstBlock: blocks.length,
      blockCount: 0,
      minTs: 0n,
      maxTs: 0n,
      columnIds,
      postings: new Map(),
    };
    const tableStart = i;
    while (i < n && tablesOf[i] === tableId) {
      const from = i;
      const start = starts[i]!;
      i++;
      while (i < n && tablesOf[i] === tableId && starts[i]! - start < INDEX_BLOCK_BYTES) i++;
      const end = i < n ? starts[i]! : entries.length;
      blocks.push({
        ref: put(entries.subarray(start, end)),
        count: i - from,
        firstOrdinal: from - tableStart,
        firstKey: utf8.encode(keys[from]!),
      });
      table.blockCount++;
    }
    table.seriesCount = i - tableStart;
    const dv = new DataView(entries.buffer, entries.byteOffset, entries.byteLength);
    let min = dv.getBigInt64(starts[tableStart]! + 16, true);
    let max = dv.getBigInt64(starts[tableStart]! + 24, true);
    for (let k = tableStart + 1; k < i; k++) {
      const lo = dv.getBigInt64(starts[k]! + 16, true);
      const hi = dv.getBigInt64(starts[k]! + 24, true);
      if (lo < min) min = lo;
      if (hi > max) max = hi;
    }
    table.minTs = min;
    table.maxTs = max;
    for (const [tagId, raw] of encodePostings(keys, tableStart, i)) table.postings.set(tagId, put(raw));
    tables.push(table);
  }
  const head = builder.headAndPacks(meta);
  let size = head.length + 16 + tables.length * TABLE_ENTRY_BYTES;
  for (const t of tables) size += 4 * t.columnIds.length + TAG_ENTRY_BYTES * t.postings.size;
  for (const b of blocks) size += BLOCK_ENTRY_HEAD_BYTES + b.firstKey.length;
  const out = new Uint8Array(size);
  const dv = new DataView(out.buffer);
  out.set(head, 0);
  let p = head.length;
  dv.setUint32(p, tables.length, true);
  dv.setUint32(p + 4, blocks.length, true);
  dv.setBigUint64(p + 8, BigInt(dataEnd), true);
  p += 16;
  for (const t of tables) {
    dv.setUint32(p, t.tableId, true);
    dv.setUint32(p + 4, t.seriesCount, true);
    dv.setUint32(p + 8, t.firstBlock, true);
    dv.setUint32(p + 12, t.blockCount, true);
    dv.setBigInt64(p + 16, t.minTs, true);
    dv.setBigInt64(p + 24, t.maxTs, true);
    dv.setUint32(p + 32, t.columnIds.length, true);
    dv.setUint32(p + 36, t.postings.size, true);
    p += TABLE_ENTRY_BYTES;
    for (const id of t.columnIds) {
      dv.setUint32(p, id, true);
      p += 4;
    }
    for (const [tagId, ref] of t.postings) {
      dv.setUint32(p, tagId, true);
      putStored(dv, p + 4, ref);
      p += TAG_ENTRY_BYTES;
    }
  }
  for (const b of blocks) {
    putStored(dv, p, b.ref);
    dv.setUint32(p + 20, b.count, true);
    dv.setUint32(p + 24, b.firstKey.length, true);
    out.set(b.firstKey, p + BLOCK_ENTRY_HEAD_BYTES);
    p += BLOCK_ENTRY_HEAD_BYTES + b.firstKey.length;
  }
  return out;
}

/** offset u64, length u32, crc u32, rawLength u32 (20 bytes). */
function putStored(dv: DataView, p: number, r: StoredRef): void {
  dv.setBigUint64(p, BigInt(r.offset), true);
  dv.setUint32(p + 8, r.length, true);
  dv.setUint32(p + 12, r.crc, true);
  dv.setUint32(p + 16, r.rawLength, true);
}

function getStored(dv: DataView, p: number): StoredRef {
  return {
    offset: Number(dv.getBigUint64(p, true)),
    length: dv.getUint32(p + 8, true),
    crc: dv.getUint32(p + 12, true),
    rawLength: dv.getUint32(p + 16, true),
  };
}

/**
 * The postings blocks of the series [from, to) of `keys` (one table, in index order), by tag id
 * (ascending): each value of the tag (sorted as JavaScript compares strings) with the ordinals of
 * its series, ascending.
 */
function encodePostings(keys: readonly string[], from: number, to: number): Map<number, Uint8Array> {
  const byTag = new Map<number, Map<string, number[]>>();
  for (let i = from; i < to; i++) {
    for (const [id, v] of parseSeriesIdKey(keys[i]!)) {
      let values = byTag.get(id);
      if (values === undefined) byTag.set(id, (values = new Map()));
      const list = values.get(v);
      if (list === undefined) values.set(v, [i - from]);
      else list.push(i - from);
    }
  }
  const out = new Map<number, Uint8Array>();
  for (const id of [...byTag.keys()].sort((a, b) => a - b)) out.set(id, encodeTagPostings(byTag.get(id)!));
  return out;
}

/**
 * One tag's postings: valueCount u32, 0 u32, then per value its length, bytes, series count and
 * ordinals as LEB128 varints, each ordinal as its distance from the one before: a value held by
 * one series (a pod, a span id) takes a few bytes, not 12.
 */
function encodeTagPostings(values: ReadonlyMap<string, readonly number[]>): Uint8Array {
  let out = new Uint8Array(1024);
  let p = 0;
  const room = (n: number): void => {
    if (p + n <= out.length) return;
    const grown = new Uint8Array(Math.max(out.length * 2, p + n));
    grown.set(out.subarray(0, p));
    out = grown;
  };
  const varint = (v: number): void => {
    room(5);
    while (v >= 0x80) {
      out[p++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    out[p++] = v;
  };
  room(8);
  new DataView(out.buffer).setUint32(0, values.size, true);
  p = 8;
  for (const v of [...values.keys()].sort()) {
    const bytes = utf8.encode(v);
    varint(bytes.length);
    room(bytes.length);
    out.set(bytes, p);
    p += bytes.length;
    const list = values.get(v)!;
    varint(list.length);
    let last = -1;
    for (const o of list) {
      varint(o - last);
      last = o;
    }
  }
  return out.slice(0, p);
}

/** Decodes and checks a postings block of one tag of a table of `seriesCount` series; throws IndexError. */
export function decodePostings(raw: Uint8Array, seriesCount: number): Postings {
  const dv = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const need = (at: number, n: number, what: string): void => {
    if (at + n > raw.length) throw new IndexError(at, `postings ${what}: need ${n} bytes, ${raw.length - at} left`);
  };
  need(0, 8, 'header');
  const valueCount = dv.getUint32(0, true);
  if (dv.getUint32(4, true) !== 0) throw new IndexError(4, 'postings: reserved word is not 0');
  let p = 8;
  const varint = (what: string): number => {
    let v = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      need(p, 1, what);
      const b = raw[p++]!;
      v += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return v;
    }
    throw new IndexError(p, `postings: ${what} is not a varint`);
  };
  if (valueCount > seriesCount) throw new IndexError(0, `postings: ${valueCount} values for ${seriesCount} series`);
  const values = new Array<string>(valueCount);
  const starts = new Uint32Array(valueCount + 1);
  let ordinals = new Uint32Array(Math.min(seriesCount, 1024));
  let n = 0;
  for (let v = 0; v < valueCount; v++) {
    const len = varint('value length');
    need(p, len, 'value');
    let value: string;
    try {
      value = utf8d.decode(raw.subarray(p, p + len));
    } catch {
      throw new IndexError(p, 'postings: value is not valid UTF-8');
    }
    if (v > 0 && !(values[v - 1]! < value)) throw new IndexError(p, 'postings: values out of order');
    values[v] = value;
    p += len;
    const count = varint('series count');
    if (count === 0 || count > seriesCount) throw new IndexError(p, `postings: ${count} series of ${seriesCount}`);
    if (n + count > ordinals.length) {
      const grown = new Uint32Array(Math.max(n + count, Math.min(seriesCount * 4, ordinals.length * 2)));
      grown.set(ordinals.subarray(0, n));
      ordinals = grown;
    }
    let o = -1;
    for (let k = 0; k < count; k++) {
      const at = p;
      const d = varint('ordinal');
      o += d;
      if (d === 0 || o >= seriesCount)
        throw new IndexError(at, `postings: ordinal ${o} out of order or past ${seriesCount} series`);
      ordinals[n++] = o;
    }
    starts[v + 1] = n;
  }
  if (p !== raw.length) throw new IndexError(p, `postings: unexpected tail of ${raw.length - p} bytes`);
  return new Postings(values, starts, n === ordinals.length ? ordinals : ordinals.slice(0, n));
}

/**
 * Decodes and checks the directory of a v4 file whose directory starts at `indexOffset`;
 * throws IndexError. `seriesCount` is the trailer's.
 */
export function decodeDirectory(raw: Uint8Array, indexOffset: number, seriesCount: number): Directory {
  const dv = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const need = (at: number, n: number, what: string): void => {
    if (at + n > raw.length) throw new IndexError(at, `${what}: need ${n} bytes, ${raw.length - at} left`);
  };
  // Packs are checked against the end of the data region, read after them: first with the
  // directory's own bound, then again (below) with dataEnd.
  const probe = decodeHeadAndPacks(raw, 4, indexOffset);
  let p = probe.end;
  need(p, 16, 'directory counts');
  const tableCount = dv.getUint32(p, true);
  const blockCount = dv.getUint32(p + 4, true);
  const dataEnd = Number(dv.getBigUint64(p + 8, true));
  if (dataEnd > indexOffset)
    throw new IndexError(p + 8, `data region end ${dataEnd} lies past the directory at ${indexOffset}`);
  const { meta, packs } = decodeHeadAndPacks(raw, 4, dataEnd);
  p += 16;
  const inIndexRegion = (r: StoredRef, at: number): void => {
    if (r.offset < dataEnd || r.offset + r.length > indexOffset || r.length === 0)
      throw new IndexError(
        at,
        `index block at ${r.offset} of ${r.length} bytes lies outside the index region [${dataEnd}, ${indexOffset})`,
      );
  };
  const tables = new Map<number, TableDir>();
  let nextBlock = 0;
  let total = 0;
  let lastTable = -1;
  for (let t = 0; t < tableCount; t++) {
    need(p, TABLE_ENTRY_BYTES, 'table entry');
    const tableId = dv.getUint32(p, true);
    if (tableId <= lastTable) throw new IndexError(p, `table ${tableId} after table ${lastTable}`);
    lastTable = tableId;
    const dir: TableDir = {
      tableId,
      seriesCount: dv.getUint32(p + 4, true),
      firstBlock: dv.getUint32(p + 8, true),
      blockCount: dv.getUint32(p + 12, true),
      minTs: dv.getBigInt64(p + 16, true),
      maxTs: dv.getBigInt64(p + 24, true),
      columnIds: [],
      postings: new Map(),
    };
    if (dir.firstBlock !== nextBlock || dir.blockCount === 0)
      throw new IndexError(
        p + 8,
        `table ${tableId}: blocks from ${dir.firstBlock} (${dir.blockCount}), ${nextBlock} expected`,
      );
    const columnCount = dv.getUint32(p + 32, true);
    const tagCount = dv.getUint32(p + 36, true);
    p += TABLE_ENTRY_BYTES;
    need(p, columnCount * 4 + tagCount * TAG_ENTRY_BYTES, 'column ids and tags of a table entry');
    for (let c = 0; c < columnCount; c++) dir.columnIds.push(dv.getUint32(p + 4 * c, true));
    p += columnCount * 4;
    let lastTag = -1;
    for (let k = 0; k < tagCount; k++) {
      const tagId = dv.getUint32(p, true);
      if (tagId <= lastTag) throw new IndexError(p, `postings of tag ${tagId} after tag ${lastTag}`);
      lastTag = tagId;
      const ref = getStored(dv, p + 4);
      inIndexRegion(ref, p + 4);
      dir.postings.set(tagId, ref);
      p += TAG_ENTRY_BYTES;
    }
    nextBlock += dir.blockCount;
    total += dir.seriesCount;
    tables.set(tableId, dir);
  }
  if (nextBlock !== blockCount)
    throw new IndexError(p, `tables cover ${nextBlock} index blocks, the directory has ${blockCount}`);
  if (total !== seriesCount) throw new IndexError(p, `tables hold ${total} series, the trailer says ${seriesCount}`);
  const blocks: BlockDir = {
    offset: new Float64Array(blockCount),
    length: new Uint32Array(blockCount),
    crc: new Uint32Array(blockCount),
    rawLength: new Uint32Array(blockCount),
    seriesCount: new Uint32Array(blockCount),
    firstOrdinal: new Uint32Array(blockCount),
    firstKey: new Array<string>(blockCount),
  };
  for (const t of tables.values()) {
    let ordinal = 0;
    for (let b = t.firstBlock; b < t.firstBlock + t.blockCount; b++) {
      need(p, BLOCK_ENTRY_HEAD_BYTES, 'index block entry');
      const ref = getStored(dv, p);
      inIndexRegion(ref, p);
      const count = dv.getUint32(p + 20, true);
      const keyLength = dv.getUint32(p + 24, true);
      need(p + BLOCK_ENTRY_HEAD_BYTES, keyLength, 'first key of an index block');
      let key: string;
      try {
        key = utf8d.decode(raw.subarray(p + BLOCK_ENTRY_HEAD_BYTES, p + BLOCK_ENTRY_HEAD_BYTES + keyLength));
      } catch {
        throw new IndexError(p + BLOCK_ENTRY_HEAD_BYTES, 'first key of an index block is not valid UTF-8');
      }
      if (count === 0) throw new IndexError(p + 20, 'index block of 0 series');
      if (b > t.firstBlock && !(blocks.firstKey[b - 1]! < key))
        throw new IndexError(p + BLOCK_ENTRY_HEAD_BYTES, `index block keys out of order in table ${t.tableId}`);
      blocks.offset[b] = ref.offset;
      blocks.length[b] = ref.length;
      blocks.crc[b] = ref.crc;
      blocks.rawLength[b] = ref.rawLength;
      blocks.seriesCount[b] = count;
      blocks.firstOrdinal[b] = ordinal;
      blocks.firstKey[b] = key;
      ordinal += count;
      p += BLOCK_ENTRY_HEAD_BYTES + keyLength;
    }
    if (ordinal !== t.seriesCount)
      throw new IndexError(p, `index blocks of table ${t.tableId} hold ${ordinal} series, the table ${t.seriesCount}`);
  }
  if (p !== raw.length) throw new IndexError(p, `unexpected tail of ${raw.length - p} bytes after the directory`);
  return { meta, packs, dataEnd, tables, blocks };
}

/** The block of table `t` that may hold `key` (the last whose first key is at most it), or -1. */
export function blockOfKey(dir: Directory, t: TableDir, key: string): number {
  const keys = dir.blocks.firstKey;
  let lo = t.firstBlock;
  let hi = t.firstBlock + t.blockCount;
  if (key < keys[lo]!) return -1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! <= key) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** The block of table `t` holding series `ordinal`. */
export function blockOfOrdinal(dir: Directory, t: TableDir, ordinal: number): number {
  const first = dir.blocks.firstOrdinal;
  let lo = t.firstBlock;
  let hi = t.firstBlock + t.blockCount;
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (first[mid]! <= ordinal) lo = mid;
    else hi = mid;
  }
  return lo;
}
