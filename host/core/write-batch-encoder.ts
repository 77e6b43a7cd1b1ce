// Encodes the rows a WriteBatchBuilder gathered into the bytes of a write batch
// (host/storage/FORMAT.md §1): per table the column descriptors, the series descriptors with
// their canonical keys (written here from cached name fragments, never built as strings), the
// timestamps and the field vectors in series order. Runtime-agnostic.

import { escapeKeyPart } from './series-key.js';
import { BATCH_MAGIC, BATCH_MAGIC_V2, ColumnKind, ValueType } from './write-batch.js';
import type { ColumnState, FieldValue, TableState } from './write-batch-state.js';

/** Where asciiSeries wrote each tag value into the key (-1: escaped), a scratch kept between calls. */
let valueAt = new Int32Array(64);
/** The present values of a STRING column, joined by #asciiOffsets (a scratch kept between calls). */
const JOIN_PARTS: string[] = [];
const encoder = new TextEncoder();

/** The first 24 bytes of a series descriptor (FORMAT.md §1): bounds, rows, flags, tag count. */
function seriesHead(
  dv: DataView,
  p: number,
  min: bigint,
  max: bigint,
  rows: number,
  sorted: boolean,
  tagCount: number,
): void {
  dv.setBigInt64(p, min, true);
  dv.setBigInt64(p + 8, max, true);
  dv.setUint32(p + 16, rows, true);
  dv.setUint8(p + 20, sorted ? 1 : 0);
  dv.setUint8(p + 21, 0);
  dv.setUint16(p + 22, tagCount, true);
}

/** UTF-8 bytes of escaped table names, and of tag names as `,<name>=`, by name. */
export interface KeyFragments {
  tags: Map<string, Uint8Array>;
  tables: Map<string, Uint8Array>;
}

/**
 * The batch of `tables` (in order): header, then one block per table. Starts at byteOffset 0 of
 * its own buffer. Without `keys`, a version 2 batch whose series leave their keys out.
 */
export function encodeBatch(
  tables: Iterable<TableState>,
  tableCount: number,
  rowCount: number,
  fragments: KeyFragments,
  keys = true,
): Uint8Array {
  const w = batchScratch;
  try {
    w.u32(keys ? BATCH_MAGIC : BATCH_MAGIC_V2);
    w.u32(0); // byteLength, patched below
    w.u32(tableCount);
    w.u32(rowCount);
    for (const t of tables) encodeTable(w, t, fragments, keys);
    w.patchU32(4, w.length);
    return w.bytes();
  } finally {
    w.release();
  }
}

/**
 * The UTF-8 bytes of an escaped name in a canonical key: a table as it is, a tag as
 * `,<name>=`; made once per name (a span has nine long tag names).
 */
function fragment(name: string, tag: boolean, fragments: Map<string, Uint8Array>): Uint8Array {
  let f = fragments.get(name);
  if (f === undefined)
    fragments.set(name, (f = encoder.encode(tag ? `,${escapeKeyPart(name)}=` : escapeKeyPart(name))));
  return f;
}

/** escapeKeyPart without a regular expression for the common value that needs no escape. */
function escapeValue(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 92 || c === 44 || c === 61 || c === 32) return escapeKeyPart(s);
  }
  return s;
}

function encodeTable(w: Writer, t: TableState, fragments: KeyFragments, keys: boolean): void {
  const start = w.length;
  const columns = [...t.columns.values()];
  const colIndex = new Map(columns.map((c, i) => [c.name, i]));
  const series = t.series;
  const rows = t.rowCount;

  w.u32(0); // blockLength, patched
  w.u32(rows);
  w.u32(series.length);
  w.u16(columns.length);
  w.str16(t.name);
  for (const c of columns) {
    const nulls = c.kind === ColumnKind.Field && c.count < rows;
    w.u8(c.kind);
    w.u8(c.type);
    w.u8(nulls ? 1 : 0);
    w.u8(0);
    w.str16(c.name);
  }
  w.pad8();

  const ts = t.ts;
  let lastNames: readonly string[] | undefined;
  let lastIndexes: number[] = [];
  let lastFragments: Uint8Array[] = [];
  const tableFragment = fragment(t.name, false, fragments.tables);
  for (const s of series) {
    const r = s.rows;
    let min = ts[r[0]!]!;
    let max = min;
    let sorted = true;
    for (let i = 1; i < r.length; i++) {
      const v = ts[r[i]!]!;
      if (v < ts[r[i - 1]!]!) sorted = false;
      if (v < min) min = v;
      if (v > max) max = v;
    }
    // Series of one batch mostly share their names array: its column indexes and key fragments
    // are looked up once.
    if (s.names !== lastNames) {
      lastNames = s.names;
      lastIndexes = s.names.map((n) => colIndex.get(n)!);
      lastFragments = s.names.map((n) => fragment(n, true, fragments.tags));
    }
    if (
      keys
        ? w.asciiSeries(min, max, r.length, sorted, tableFragment, lastFragments, lastIndexes, s.values)
        : w.asciiSeriesWithoutKey(min, max, r.length, sorted, lastIndexes, s.values)
    )
      continue;
    w.seriesHead(min, max, r.length, sorted, s.names.length);
    if (keys) w.canonicalKey(t.name, s.names, s.values, fragments.tags, fragments.tables);
    else w.u32(0);
    for (let i = 0; i < s.names.length; i++) {
      w.u16(lastIndexes[i]!);
      w.u16(0);
      w.str32(s.values[i]!);
    }
    w.pad8();
  }

  // The table's rows in series order (each series' rows one after the other), which is the order
  // of every column below. Rows already in that order (a batch of spans, of sorted input) leave
  // it undefined, and typed columns are copied whole.
  let order: Int32Array | undefined;
  for (let i = 0, next = 0; i < series.length && order === undefined; i++) {
    const r = series[i]!.rows;
    for (let k = 0; k < r.length; k++) {
      if (r[k] !== next++) {
        order = seriesOrder(series, rows);
        break;
      }
    }
  }

  w.timestamps(ts, rows, order);

  for (const c of columns) {
    if (c.kind !== ColumnKind.Field) continue;
    const v = c.values;
    // Rows without a value hold 0 in `numbers`: nothing is written there but values.
    const whole = order === undefined && c.numbers !== undefined && c.numbers.length >= rows;
    if (c.count < rows) {
      if (whole) w.bytesOf(c.has!.subarray(0, rows));
      else w.presence(c, rows, order);
      w.pad8();
    }
    switch (c.type) {
      case ValueType.Double: {
        const n = c.numbers!;
        if (whole) w.bytesOf(new Uint8Array(n.buffer, 0, rows * 8));
        else w.doubles(n, rows, order);
        break;
      }
      case ValueType.BigInt:
        for (let i = 0; i < rows; i++) {
          const x = v[order === undefined ? i : order[i]!];
          w.i64(x !== undefined ? BigInt.asIntN(64, BigInt(x as bigint)) : 0n);
        }
        break;
      case ValueType.Unsigned:
        for (let i = 0; i < rows; i++) {
          const x = v[order === undefined ? i : order[i]!];
          w.u64(x !== undefined ? BigInt.asUintN(64, BigInt(x as bigint)) : 0n);
        }
        break;
      case ValueType.Boolean:
        // `numbers` holds 1 for true and 0 for false or no value.
        w.presence(c, rows, order, c.numbers);
        w.pad8();
        break;
      case ValueType.String: {
        // The bytes go to a scratch buffer first (one encodeInto each), so that the offsets,
        // which come first in the format, need no separate pass to measure UTF-8 lengths.
        const bytes = stringScratch;
        w.u32(0);
        w.stringOffsets(v, rows, order, bytes);
        w.pad8();
        w.copy(bytes);
        w.pad8();
        bytes.release();
        break;
      }
    }
  }
  w.patchU32(start, w.length - start);
}

/** The table rows of `series`, series after series. */
function seriesOrder(series: readonly { rows: readonly number[] }[], rows: number): Int32Array {
  const order = new Int32Array(rows);
  let i = 0;
  for (const s of series) for (const r of s.rows) order[i++] = r;
  return order;
}

/** A growable little-endian byte writer. */
class Writer {
  #buf = new Uint8Array(1024);
  #dv = new DataView(this.#buf.buffer);
  length = 0;
  /** Capacity release() keeps. */
  readonly #keepBytes: number;

  constructor(keepBytes = 1 << 20) {
    this.#keepBytes = keepBytes;
  }

  #reserve(n: number): void {
    if (this.length + n <= this.#buf.length) return;
    let cap = this.#buf.length * 2;
    while (cap < this.length + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.#buf.subarray(0, this.length));
    this.#buf = next;
    this.#dv = new DataView(next.buffer);
  }

  u8(v: number): void {
    this.#reserve(1);
    this.#buf[this.length++] = v;
  }
  u16(v: number): void {
    this.#reserve(2);
    this.#dv.setUint16(this.length, v, true);
    this.length += 2;
  }
  u32(v: number): void {
    this.#reserve(4);
    this.#dv.setUint32(this.length, v, true);
    this.length += 4;
  }
  /** The first 24 bytes of a series descriptor (module function seriesHead). */
  seriesHead(min: bigint, max: bigint, rows: number, sorted: boolean, tagCount: number): void {
    this.#reserve(24);
    seriesHead(this.#dv, this.length, min, max, rows, sorted, tagCount);
    this.length += 24;
  }
  i64(v: bigint): void {
    this.#reserve(8);
    this.#dv.setBigInt64(this.length, v, true);
    this.length += 8;
  }
  u64(v: bigint): void {
    this.#reserve(8);
    this.#dv.setBigUint64(this.length, v, true);
    this.length += 8;
  }
  f64(v: number): void {
    this.#reserve(8);
    this.#dv.setFloat64(this.length, v, true);
    this.length += 8;
  }
  /** Writes `s` as UTF-8 (at most 3 bytes per UTF-16 code unit); returns the bytes written. */
  utf8(s: string): number {
    this.#reserve(s.length * 3);
    const buf = this.#buf;
    const at = this.length;
    // Short ASCII strings by hand: encodeInto's call overhead dominated for ids and names.
    if (s.length <= 64) {
      let i = 0;
      for (; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[at + i] = c;
      }
      if (i === s.length) {
        this.length += i;
        return i;
      }
    }
    const n = encoder.encodeInto(s, buf.subarray(at)).written;
    this.length += n;
    return n;
  }
  /** A u16 byte length, then `s` in UTF-8 (names are checked to fit). */
  str16(s: string): void {
    const at = this.length;
    this.u16(0);
    const n = this.utf8(s); // before reading #dv: writing may replace the buffer
    this.#dv.setUint16(at, n, true);
  }
  /**
   * A u32 byte length, then the canonical series key (FORMAT.md §1) of a table and its sorted
   * tags in UTF-8: names and values with `\`, `,`, `=` and space escaped.
   */
  canonicalKey(
    table: string,
    names: readonly string[],
    values: readonly string[],
    fragments: Map<string, Uint8Array>,
    tableFragments: Map<string, Uint8Array>,
  ): void {
    const at = this.length;
    this.u32(0);
    const start = this.length;
    this.bytesOf(fragment(table, false, tableFragments));
    for (let i = 0; i < names.length; i++) {
      this.bytesOf(fragment(names[i]!, true, fragments)); // ",<name>="
      this.keyValue(values[i]!);
    }
    this.#dv.setUint32(at, this.length - start, true);
  }
  /**
   * One series descriptor (FORMAT.md §1) whose tag values are all ASCII, written in one pass with
   * a single bound check (a span's descriptor took some forty calls): head, canonical key from
   * the table fragment and the `,<name>=` fragments with the values escaped, tags, padding.
   * Returns false, having written nothing, when a value is not ASCII.
   */
  asciiSeries(
    min: bigint,
    max: bigint,
    rows: number,
    sorted: boolean,
    table: Uint8Array,
    names: readonly Uint8Array[],
    indexes: readonly number[],
    values: readonly string[],
  ): boolean {
    let size = 40 + table.length;
    for (let i = 0; i < names.length; i++) size += names[i]!.length + 3 * values[i]!.length + 8;
    this.#reserve(size);
    if (valueAt.length < names.length) valueAt = new Int32Array(names.length * 2);
    const buf = this.#buf;
    const dv = this.#dv;
    let p = this.length;
    seriesHead(dv, p, min, max, rows, sorted, names.length);
    const keyAt = p + 24;
    p += 28;
    buf.set(table, p);
    p += table.length;
    for (let i = 0; i < names.length; i++) {
      const f = names[i]!;
      // Fragments are long (`,ResourceSpans/ScopeSpans/Span/trace_id=`): a native copy.
      if (f.length > 16) buf.set(f, p);
      else for (let j = 0; j < f.length; j++) buf[p + j] = f[j]!;
      p += f.length;
      const v = values[i]!;
      const from = p;
      for (let j = 0; j < v.length; j++) {
        const c = v.charCodeAt(j);
        if (c >= 0x80) return false;
        if (c === 92 || c === 44 || c === 61 || c === 32) buf[p++] = 92;
        buf[p++] = c;
      }
      // Where the value's bytes are in the key, for the tags below (unless escaping moved them).
      valueAt[i] = p - from === v.length ? from : -1;
    }
    dv.setUint32(keyAt, p - keyAt - 4, true);
    for (let i = 0; i < names.length; i++) {
      const v = values[i]!;
      const n = v.length;
      dv.setUint16(p, indexes[i]!, true);
      dv.setUint16(p + 2, 0, true);
      dv.setUint32(p + 4, n, true);
      p += 8;
      // The same bytes again: copied from the key (a span's ids and names, natively when long)
      // rather than read from the string a character at a time.
      const from = valueAt[i]!;
      if (from < 0) for (let j = 0; j < n; j++) buf[p + j] = v.charCodeAt(j);
      else if (n > 16) buf.copyWithin(p, from, from + n);
      else for (let j = 0; j < n; j++) buf[p + j] = buf[from + j]!;
      p += n;
    }
    while (p % 8 !== 0) buf[p++] = 0;
    this.length = p;
    return true;
  }
  /**
   * asciiSeries for a version 2 batch: the descriptor without a key (keyLength 0), the tags
   * copied as they are. False, having written nothing, when a value is not ASCII.
   */
  asciiSeriesWithoutKey(
    min: bigint,
    max: bigint,
    rows: number,
    sorted: boolean,
    indexes: readonly number[],
    values: readonly string[],
  ): boolean {
    let size = 32;
    for (let i = 0; i < values.length; i++) size += values[i]!.length + 8;
    this.#reserve(size);
    const buf = this.#buf;
    const dv = this.#dv;
    let p = this.length;
    seriesHead(dv, p, min, max, rows, sorted, values.length);
    dv.setUint32(p + 24, 0, true);
    p += 28;
    for (let i = 0; i < values.length; i++) {
      const v = values[i]!;
      dv.setUint16(p, indexes[i]!, true);
      dv.setUint16(p + 2, 0, true);
      dv.setUint32(p + 4, v.length, true);
      p += 8;
      for (let j = 0; j < v.length; j++) {
        const c = v.charCodeAt(j);
        if (c >= 0x80) return false;
        buf[p + j] = c;
      }
      p += v.length;
    }
    while (p % 8 !== 0) buf[p++] = 0;
    this.length = p;
    return true;
  }
  /** A tag value in a canonical key: escaped and UTF-8 encoded in one pass when it is ASCII. */
  keyValue(v: string): void {
    this.#reserve(v.length * 2);
    const buf = this.#buf;
    let p = this.length;
    for (let i = 0; i < v.length; i++) {
      const c = v.charCodeAt(i);
      if (c >= 0x80) {
        this.utf8(escapeValue(v)); // the rare value that is not ASCII
        return;
      }
      if (c === 92 || c === 44 || c === 61 || c === 32) buf[p++] = 92;
      buf[p++] = c;
    }
    this.length = p;
  }
  /**
   * The offsets of a STRING column's values, rows taken in `order` (or 0..rows-1), their bytes
   * going to `bytes`: one bound check for the offsets instead of a call each.
   */
  stringOffsets(
    values: ReadonlyArray<FieldValue | undefined>,
    rows: number,
    order: Int32Array | undefined,
    bytes: Writer,
  ): void {
    this.#reserve(rows * 4);
    if (this.#asciiOffsets(values, rows, order, bytes)) return;
    const dv = this.#dv;
    let p = this.length;
    for (let i = 0; i < rows; i++) {
      const s = values[order === undefined ? i : order[i]!];
      if (s !== undefined) bytes.utf8(String(s));
      dv.setUint32(p, bytes.length, true);
      p += 4;
    }
    this.length = p;
  }
  /**
   * stringOffsets when every value is ASCII: the column's values joined and encoded by one
   * native call, the offsets summed from the string lengths (a loop per value, or an encodeInto
   * each, cost four to five times as much for a batch of span attributes). False, with `bytes`
   * as it was, when a value is not ASCII.
   */
  #asciiOffsets(
    values: ReadonlyArray<FieldValue | undefined>,
    rows: number,
    order: Int32Array | undefined,
    bytes: Writer,
  ): boolean {
    const parts = JOIN_PARTS;
    let n = 0;
    for (let i = 0; i < rows; i++) {
      const s = values[order === undefined ? i : order[i]!];
      if (s !== undefined) parts[n++] = String(s);
    }
    parts.length = n;
    const joined = parts.join('');
    parts.length = 0;
    const start = bytes.length;
    if (!bytes.ascii(joined)) return false;
    const dv = this.#dv;
    let p = this.length;
    let offset = start;
    for (let i = 0; i < rows; i++) {
      const s = values[order === undefined ? i : order[i]!];
      if (s !== undefined) offset += String(s).length;
      dv.setUint32(p, offset, true);
      p += 4;
    }
    this.length = p;
    return true;
  }
  /** Writes `s` when it is all ASCII (one byte per code unit) and returns true; else writes nothing. */
  ascii(s: string): boolean {
    this.#reserve(s.length);
    const at = this.length;
    const { read, written } = encoder.encodeInto(s, this.#buf.subarray(at, at + s.length));
    if (read !== s.length || written !== s.length) return false;
    this.length = at + s.length;
    return true;
  }
  /**
   * A byte per row, rows taken in `order` (or 0..rows-1): 1 where the field column has a value,
   * or with `ones`, where it has a value and `ones` holds 1 there (BOOLEAN values).
   */
  presence(c: ColumnState, rows: number, order: Int32Array | undefined, ones?: Float64Array): void {
    this.#reserve(rows);
    const buf = this.#buf;
    const p = this.length;
    const has = c.has;
    const values = c.values;
    for (let i = 0; i < rows; i++) {
      const r = order === undefined ? i : order[i]!;
      const here = has !== undefined ? r < has.length && has[r] === 1 : values[r] !== undefined;
      buf[p + i] = here && (ones === undefined || ones[r] === 1) ? 1 : 0;
    }
    this.length = p + rows;
  }
  /** Timestamps, rows taken in `order` (or 0..rows-1). */
  timestamps(ts: readonly bigint[], rows: number, order: Int32Array | undefined): void {
    this.#reserve(rows * 8);
    const dv = this.#dv;
    const p = this.length;
    for (let i = 0; i < rows; i++) dv.setBigInt64(p + i * 8, ts[order === undefined ? i : order[i]!]!, true);
    this.length = p + rows * 8;
  }
  /** DOUBLE values, rows taken in `order` (or 0..rows-1); rows past the array's end are 0. */
  doubles(n: Float64Array, rows: number, order: Int32Array | undefined): void {
    this.#reserve(rows * 8);
    const dv = this.#dv;
    const p = this.length;
    for (let i = 0; i < rows; i++) {
      const r = order === undefined ? i : order[i]!;
      dv.setFloat64(p + i * 8, r < n.length ? n[r]! : 0, true);
    }
    this.length = p + rows * 8;
  }
  /** Appends `b`. */
  bytesOf(b: Uint8Array): void {
    this.#reserve(b.length);
    this.#buf.set(b, this.length);
    this.length += b.length;
  }
  /** A u32 byte length, then `s` in UTF-8. */
  str32(s: string): void {
    const at = this.length;
    this.u32(0);
    const n = this.utf8(s); // before reading #dv: writing may replace the buffer
    this.#dv.setUint32(at, n, true);
  }
  /** Pads with zeros to a multiple of 8 (tables start 8-aligned). */
  pad8(): void {
    while (this.length % 8 !== 0) this.u8(0);
  }
  /** Empties the writer, and drops a buffer grown past its keep size (a scratch must not pin memory). */
  release(): void {
    this.length = 0;
    if (this.#buf.length > this.#keepBytes) {
      this.#buf = new Uint8Array(1024);
      this.#dv = new DataView(this.#buf.buffer);
    }
  }
  /** Appends the bytes written to `other`. */
  copy(other: Writer): void {
    this.#reserve(other.length);
    this.#buf.set(other.#buf.subarray(0, other.length), this.length);
    this.length += other.length;
  }
  patchU32(at: number, v: number): void {
    this.#dv.setUint32(at, v, true);
  }
  bytes(): Uint8Array {
    return this.#buf.slice(0, this.length);
  }
}

/** Scratch for one string column at a time (finish is synchronous, so one is enough). */
const stringScratch = new Writer();
/**
 * Where a batch is written before its bytes are copied out, kept from batch to batch (up to 8
 * MiB): a fresh writer doubled its way from 1 KiB to a batch of spans (about 600 KB) with ten
 * copies, 6% of parsing them.
 */
const batchScratch = new Writer(8 << 20);
