// The write batch: the columnar unit of ingest, laid out in host/storage/FORMAT.md §1.
// The reader builds zero-copy typed-array views, so a batch read from Wasm memory is only valid
// until the next call into the scanner; copy the bytes first if it must live longer. It checks
// everything at once but decodes series keys and tags when asked (SeriesDescriptor): the memtable
// needs a key only to find a series it knows and tags only for a new one.

import { CorruptionError } from './errors.js';
import { compareBytes, seriesKey, type RawTags } from './series-key.js';

export const BATCH_MAGIC = 0x31425753; // "SWB1"
/** Version 2: as version 1, but a series may leave its key out (keyLength 0). */
export const BATCH_MAGIC_V2 = 0x32425753; // "SWB2"

/** Column kinds and value types as numbered on disk (append-only). */
export const ColumnKind = { Tag: 1, Field: 2 } as const;
export type ColumnKind = (typeof ColumnKind)[keyof typeof ColumnKind];

export const ValueType = { Tag: 0, Double: 1, BigInt: 2, Unsigned: 3, Boolean: 4, String: 5 } as const;
export type ValueType = (typeof ValueType)[keyof typeof ValueType];
export type FieldType = Exclude<ValueType, 0>;

/** SQL names of the value types, as CnosDB prints them. */
export const VALUE_TYPE_NAMES: Record<ValueType, string> = {
  0: 'TAG',
  1: 'DOUBLE',
  2: 'BIGINT',
  3: 'BIGINT UNSIGNED',
  4: 'BOOLEAN',
  5: 'STRING',
};

export interface BatchStrings {
  /** rowCount + 1 offsets into `bytes`. */
  offsets: Uint32Array;
  bytes: Uint8Array;
}

export interface BatchColumn {
  name: string;
  kind: ColumnKind;
  type: ValueType;
  /** 1 = present, per row; undefined when every row is present (and for tags). */
  validity?: Uint8Array;
  /** DOUBLE: Float64Array, BIGINT: BigInt64Array, BIGINT UNSIGNED: BigUint64Array, BOOLEAN: Uint8Array. */
  values?: Float64Array | BigInt64Array | BigUint64Array | Uint8Array;
  strings?: BatchStrings;
}

export interface BatchSeries {
  /** Canonical series key (FORMAT.md §1); made from the tags when the batch left it out. */
  readonly key: string;
  /** Whether the batch gave the key (version 2 may leave it out: reading `key` then builds it). */
  readonly keyed: boolean;
  /** First row of this series in the table's row order. */
  rowStart: number;
  rowCount: number;
  minTs: bigint;
  maxTs: bigint;
  /** Timestamps are non-decreasing within the series. */
  sorted: boolean;
  /** [column index, value], by increasing column name (readWriteBatch decodes them on first use). */
  readonly tags: Array<[number, string]>;
  /** The encoded tags when every value is ASCII (see RawTags); undefined otherwise. */
  readonly rawTags?: RawTags | undefined;
}

export interface BatchTable {
  name: string;
  rowCount: number;
  columns: BatchColumn[];
  series: BatchSeries[];
  timestamps: BigInt64Array;
}

export interface WriteBatch {
  rowCount: number;
  tables: BatchTable[];
  /** The encoded bytes the views point into. */
  bytes: Uint8Array;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

const pad8 = (n: number): number => (n + 7) & ~7;

/** The rows of an encoded write batch, from its header (valid once readWriteBatch has accepted it). */
export function writeBatchRowCount(bytes: Uint8Array): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(12, true);
}

/**
 * Decodes and validates a write batch. Throws CorruptionError on any inconsistency; never reads
 * outside `bytes`. `bytes.byteOffset` must be a multiple of 8 (copy into a fresh Uint8Array
 * otherwise); `source` names the origin in error messages.
 */
export function readWriteBatch(bytes: Uint8Array, source = 'write batch'): WriteBatch {
  const r = new BatchReader(bytes, source);
  if (bytes.byteOffset % 8 !== 0) r.fail(0, `buffer not 8-byte aligned (byteOffset ${bytes.byteOffset})`);
  if (bytes.length < 16) r.fail(0, `too short; got ${bytes.length} bytes, want at least 16`);
  const dv = r.dv;
  const magic = dv.getUint32(0, true);
  if (magic !== BATCH_MAGIC && magic !== BATCH_MAGIC_V2) {
    r.fail(
      0,
      `bad magic 0x${magic.toString(16)}, want 0x${BATCH_MAGIC.toString(16)} or 0x${BATCH_MAGIC_V2.toString(16)}`,
    );
  }
  r.keysOptional = magic === BATCH_MAGIC_V2;
  const byteLength = dv.getUint32(4, true);
  if (byteLength !== bytes.length) r.fail(4, `byteLength ${byteLength} does not match buffer length ${bytes.length}`);
  const tableCount = dv.getUint32(8, true);
  const rowCount = dv.getUint32(12, true);
  const tables: BatchTable[] = [];
  r.pos = 16;
  let rowsSeen = 0;
  for (let t = 0; t < tableCount; t++) {
    const table = r.table();
    tables.push(table);
    rowsSeen += table.rowCount;
  }
  if (r.pos !== byteLength) r.fail(r.pos, `unexpected tail of ${byteLength - r.pos} bytes after the last table`);
  if (rowsSeen !== rowCount) r.fail(12, `tables hold ${rowsSeen} rows, header says ${rowCount}`);
  return { rowCount, tables, bytes };
}

/**
 * The reading of one batch, a method per part of a table block. One function for the whole
 * batch was compiled by V8 at 80-250 ms a time, three times during a server's warm-ups and again
 * at its first spans (every part inlined, and a path one producer's batches had not taken
 * threw all of it away).
 */
class BatchReader {
  readonly bytes: Uint8Array;
  readonly dv: DataView;
  readonly #source: string;
  /** Where reading goes on. */
  pos = 0;
  /** Version 2: a series may have no key. */
  keysOptional = false;

  constructor(bytes: Uint8Array, source: string) {
    this.bytes = bytes;
    this.dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.#source = source;
  }

  fail(offset: number, what: string): never {
    throw new CorruptionError(this.#source, offset, what);
  }

  need(at: number, n: number, what: string): void {
    if (n < 0 || at + n > this.bytes.length) this.fail(at, `${what}: need ${n} bytes, ${this.bytes.length - at} left`);
  }

  text(at: number, n: number, what: string): string {
    this.need(at, n, what);
    try {
      return utf8.decode(this.bytes.subarray(at, at + n));
    } catch {
      return this.fail(at, `${what}: invalid UTF-8`);
    }
  }

  /** One table block. */
  table(): BatchTable {
    const dv = this.dv;
    const start = this.pos;
    let pos = start;
    this.need(pos, 16, 'table header');
    const blockLength = dv.getUint32(pos, true);
    if (blockLength % 8 !== 0 || blockLength < 16)
      this.fail(pos, `table block length ${blockLength} not a multiple of 8`);
    this.need(pos, blockLength, 'table block');
    const end = pos + blockLength;
    const tRows = dv.getUint32(pos + 4, true);
    const seriesCount = dv.getUint32(pos + 8, true);
    const columnCount = dv.getUint16(pos + 12, true);
    const nameLength = dv.getUint16(pos + 14, true);
    pos += 16;
    if (nameLength === 0) this.fail(pos, 'empty table name');
    const name = this.text(pos, nameLength, 'table name');
    this.pos = pos + nameLength;
    const columns = this.columns(columnCount);
    const series = this.series(seriesCount, tRows, tagRanks(columns), { name, columns });
    this.need(this.pos, tRows * 8, 'timestamps');
    const timestamps = new BigInt64Array(this.bytes.buffer, this.bytes.byteOffset + this.pos, tRows);
    this.pos += tRows * 8;
    this.fieldValues(columns, tRows);
    if (this.pos !== end) this.fail(this.pos, `table block '${name}' has ${end - this.pos} unexpected trailing bytes`);
    this.pos = end;
    if (start === end) this.fail(end, 'empty table block');
    return { name, rowCount: tRows, columns, series, timestamps };
  }

  /** The column descriptors, padded. */
  columns(count: number): BatchColumn[] {
    const dv = this.dv;
    let pos = this.pos;
    const columns: BatchColumn[] = [];
    const names = new Set<string>();
    for (let c = 0; c < count; c++) {
      this.need(pos, 6, 'column descriptor');
      const kind = dv.getUint8(pos);
      const type = dv.getUint8(pos + 1);
      const flags = dv.getUint8(pos + 2);
      const len = dv.getUint16(pos + 4, true);
      pos += 6;
      if (kind !== ColumnKind.Tag && kind !== ColumnKind.Field) this.fail(pos - 6, `bad column kind ${kind}`);
      if (kind === ColumnKind.Tag ? type !== 0 : type < 1 || type > 5)
        this.fail(pos - 5, `bad column type ${type} for kind ${kind}`);
      if (len === 0) this.fail(pos, 'empty column name');
      const cname = this.text(pos, len, 'column name');
      pos += len;
      if (cname === 'time' || names.has(cname)) this.fail(pos - len, `duplicate or reserved column name '${cname}'`);
      names.add(cname);
      columns.push({
        name: cname,
        kind: kind as ColumnKind,
        type: type as ValueType,
        validity: flags & 1 ? new Uint8Array(0) : undefined,
      });
    }
    this.pos = pad8(pos);
    return columns;
  }

  /**
   * A series' key and tag values checked as UTF-8 one by one, up to tag `k` (exclusive): the slow
   * way, taken when the one-pass ASCII check in `series` fails, or before reporting a broken tag
   * `k` (so that errors come in the order of the bytes, as always).
   */
  checkText(keyAt: number, keyLength: number, tagsAt: number, k: number): void {
    if (!isAscii(this.bytes, keyAt, keyLength)) this.text(keyAt, keyLength, 'series key');
    let p = tagsAt;
    for (let j = 0; j < k; j++) {
      const vlen = this.dv.getUint32(p + 4, true);
      if (!isAscii(this.bytes, p + 8, vlen)) this.text(p + 8, vlen, 'tag value');
      p += 8 + vlen;
    }
  }

  /** The series descriptors of a table of `rows` rows whose tag columns rank as `tagRank` says. */
  series(count: number, rows: number, tagRank: Int32Array, table: KeyTable): BatchSeries[] {
    const bytes = this.bytes;
    const dv = this.dv;
    const byteLength = bytes.length;
    let pos = this.pos;
    const series: BatchSeries[] = [];
    let rowStart = 0;
    for (let s = 0; s < count; s++) {
      this.need(pos, 32, 'series descriptor');
      const minTs = dv.getBigInt64(pos, true);
      // One BigInt for both bounds of a one-row series (a span): the memtable keeps them.
      const last = dv.getBigInt64(pos + 8, true);
      const maxTs = last === minTs ? minTs : last;
      const sRows = dv.getUint32(pos + 16, true);
      const sflags = dv.getUint8(pos + 20);
      const tagCount = dv.getUint16(pos + 22, true);
      const keyLength = dv.getUint32(pos + 24, true);
      pos += 28;
      if (minTs > maxTs) this.fail(pos - 28, `series minTs ${minTs} > maxTs ${maxTs}`);
      const keyAt = pos;
      if (keyLength === 0 && !this.keysOptional) this.fail(pos - 4, 'series without a key in a version 1 batch');
      this.need(pos, keyLength, 'series key');
      pos += keyLength;
      // Tags are checked now (a batch is valid or refused whole) but decoded when asked: the
      // memtable needs them only for a series it has not seen (SeriesDescriptor).
      const tagsAt = pos;
      let prevRank = -1;
      for (let k = 0; k < tagCount; k++) {
        if (pos + 8 > byteLength) this.checkText(keyAt, keyLength, tagsAt, k);
        this.need(pos, 8, 'series tag');
        const ci = dv.getUint16(pos, true);
        const vlen = dv.getUint32(pos + 4, true);
        pos += 8;
        const rank = ci < tagRank.length ? tagRank[ci]! : -1;
        if (rank < 0 || rank <= prevRank || pos + vlen > byteLength) this.checkText(keyAt, keyLength, tagsAt, k);
        if (rank < 0) this.fail(pos - 8, `series tag refers to column ${ci}, not a tag`);
        if (rank <= prevRank) this.fail(pos - 8, 'series tags not sorted by name');
        prevRank = rank;
        this.need(pos, vlen, 'tag value');
        pos += vlen;
      }
      // Key, tag headers and values in one pass when all ASCII (usual: then valid UTF-8, and the
      // tags decode in one call).
      let tagsAscii = isAsciiRun(bytes, dv, keyAt, pos - keyAt);
      if (!tagsAscii) {
        this.checkText(keyAt, keyLength, tagsAt, tagCount);
        tagsAscii = isAscii(bytes, tagsAt, pos - tagsAt);
      }
      pos = pad8(pos);
      series.push(
        new SeriesDescriptor(
          rowStart,
          sRows,
          minTs,
          maxTs,
          (sflags & 1) !== 0,
          bytes,
          dv,
          keyAt,
          keyLength,
          tagsAt,
          tagsAscii ? pos - tagsAt : -1,
          tagCount,
          table,
        ),
      );
      rowStart += sRows;
    }
    if (rowStart !== rows) this.fail(pos, `series rows sum to ${rowStart}, table has ${rows}`);
    this.pos = pos;
    return series;
  }

  /** The field columns' validity and values (views into the batch). */
  fieldValues(columns: readonly BatchColumn[], tRows: number): void {
    const bytes = this.bytes;
    let pos = this.pos;
    for (const col of columns) {
      if (col.kind !== ColumnKind.Field) continue;
      if (col.validity) {
        this.need(pos, tRows, 'validity');
        col.validity = bytes.subarray(pos, pos + tRows);
        pos = pad8(pos + tRows);
      }
      const at = bytes.byteOffset + pos;
      switch (col.type) {
        case ValueType.Double:
          this.need(pos, tRows * 8, 'DOUBLE values');
          col.values = new Float64Array(bytes.buffer, at, tRows);
          pos += tRows * 8;
          break;
        case ValueType.BigInt:
          this.need(pos, tRows * 8, 'BIGINT values');
          col.values = new BigInt64Array(bytes.buffer, at, tRows);
          pos += tRows * 8;
          break;
        case ValueType.Unsigned:
          this.need(pos, tRows * 8, 'BIGINT UNSIGNED values');
          col.values = new BigUint64Array(bytes.buffer, at, tRows);
          pos += tRows * 8;
          break;
        case ValueType.Boolean:
          this.need(pos, tRows, 'BOOLEAN values');
          col.values = bytes.subarray(pos, pos + tRows);
          pos = pad8(pos + tRows);
          break;
        case ValueType.String: {
          this.need(pos, (tRows + 1) * 4, 'STRING offsets');
          const offsets = new Uint32Array(bytes.buffer, at, tRows + 1);
          pos = pad8(pos + (tRows + 1) * 4);
          const total = offsets[tRows]!;
          if (offsets[0] !== 0) this.fail(pos, 'STRING offsets do not start at 0');
          for (let i = 0; i < tRows; i++)
            if (offsets[i]! > offsets[i + 1]!) this.fail(pos, `STRING offsets decrease at row ${i}`);
          this.need(pos, total, 'STRING bytes');
          col.strings = { offsets, bytes: bytes.subarray(pos, pos + total) };
          pos = pad8(pos + total);
          break;
        }
      }
    }
    this.pos = pos;
  }
}

/**
 * Each tag column's place in name order (-1 for fields), so that a series' tags are checked for
 * order by number: comparing a span's long tag names (a shared 30-character prefix) byte by byte,
 * nine per series, was a fifth of reading a batch of spans.
 */
function tagRanks(columns: readonly BatchColumn[]): Int32Array {
  const tagRank = new Int32Array(columns.length).fill(-1);
  columns
    .map((c, i) => ({ c, i }))
    .filter(({ c }) => c.kind === ColumnKind.Tag)
    .sort((a, b) => compareBytes(a.c.name, b.c.name))
    .forEach(({ i }, rank) => {
      tagRank[i] = rank;
    });
  return tagRank;
}

/** Whether `[at, at + n)` of `bytes` is ASCII (then valid UTF-8, decoded byte for character). */
function isAscii(bytes: Uint8Array, at: number, n: number): boolean {
  for (let i = at; i < at + n; i++) if (bytes[i]! >= 0x80) return false;
  return true;
}

/**
 * isAscii for a long run, eight bytes a step (`dv` views the same bytes as `bytes`): a span's
 * series key and tags are some 650 bytes, checked once per series.
 */
function isAsciiRun(bytes: Uint8Array, dv: DataView, at: number, n: number): boolean {
  const end = at + n;
  let i = at;
  for (; i + 8 <= end; i += 8)
    if (((dv.getUint32(i, true) | dv.getUint32(i + 4, true)) & 0x80808080) !== 0) return false;
  for (; i < end; i++) if (bytes[i]! >= 0x80) return false;
  return true;
}

/** What a series left without a key needs to make it: its table's name and columns. */
interface KeyTable {
  readonly name: string;
  readonly columns: readonly BatchColumn[];
}

/**
 * A series of a decoded batch whose key and tags (already checked) are decoded on first use:
 * the memtable reads the key of a series only to find one it knows, and the tags only for one it
 * does not (a span's key is about 450 bytes).
 */
class SeriesDescriptor implements BatchSeries {
  #key: string | undefined;
  #tags: Array<[number, string]> | undefined;
  readonly #bytes: Uint8Array;
  readonly #dv: DataView;
  readonly #keyAt: number;
  readonly #keyLength: number;
  readonly #tagsAt: number;
  /** Bytes of the tags when they are all ASCII (headers too), else -1. */
  readonly #asciiTagBytes: number;
  readonly #tagCount: number;
  readonly #table: KeyTable;

  constructor(
    readonly rowStart: number,
    readonly rowCount: number,
    readonly minTs: bigint,
    readonly maxTs: bigint,
    readonly sorted: boolean,
    bytes: Uint8Array,
    dv: DataView,
    keyAt: number,
    keyLength: number,
    tagsAt: number,
    asciiTagBytes: number,
    tagCount: number,
    table: KeyTable,
  ) {
    this.#bytes = bytes;
    this.#dv = dv;
    this.#keyAt = keyAt;
    this.#keyLength = keyLength;
    this.#tagsAt = tagsAt;
    this.#asciiTagBytes = asciiTagBytes;
    this.#tagCount = tagCount;
    this.#table = table;
  }

  get keyed(): boolean {
    return this.#keyLength > 0;
  }

  get key(): string {
    if (this.#key !== undefined) return this.#key;
    // A version 2 series without a key (an OTLP span's): made from the tags when asked.
    if (this.#keyLength === 0)
      return (this.#key = seriesKey(
        this.#table.name,
        this.tags.map(([ci, v]) => [this.#table.columns[ci]!.name, v] as const),
      ));
    return (this.#key = utf8.decode(this.#bytes.subarray(this.#keyAt, this.#keyAt + this.#keyLength)));
  }

  get rawTags(): RawTags | undefined {
    return this.#asciiTagBytes < 0
      ? undefined
      : { bytes: this.#bytes, dv: this.#dv, at: this.#tagsAt, count: this.#tagCount };
  }

  get tags(): Array<[number, string]> {
    if (this.#tags !== undefined) return this.#tags;
    const tags: Array<[number, string]> = [];
    const at = this.#tagsAt;
    const all = this.#asciiTagBytes >= 0 ? utf8.decode(this.#bytes.subarray(at, at + this.#asciiTagBytes)) : undefined;
    let pos = at;
    for (let k = 0; k < this.#tagCount; k++) {
      const ci = this.#dv.getUint16(pos, true);
      const vlen = this.#dv.getUint32(pos + 4, true);
      const value =
        all !== undefined
          ? all.slice(pos + 8 - at, pos + 8 - at + vlen)
          : utf8.decode(this.#bytes.subarray(pos + 8, pos + 8 + vlen));
      tags.push([ci, value]);
      pos += 8 + vlen;
    }
    return (this.#tags = tags);
  }
}

/** Decodes row `i` of a STRING column. */
export function batchString(strings: BatchStrings, i: number): string {
  return utf8.decode(strings.bytes.subarray(strings.offsets[i]!, strings.offsets[i + 1]!));
}
