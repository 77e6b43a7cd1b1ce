// Builds a write batch (host/storage/FORMAT.md §1) row by row in TypeScript. Every wire format
// other than line protocol (which the Wasm scanner encodes directly) goes through this, and
// tests use it as the reference encoder.
//
// Rows are kept column-wise per table (one value array per field column, indexed by row), and
// a row's series is found by the tags exactly as given, so the common row (a known series,
// known columns) costs a few map lookups: no per-row Map, Set or sort. With the parser's
// changes, that took OpenTSDB text parsing (10 tags per point, bench/ingest-bodies.ts) from
// 75 k to about 300 k points/s, where the profile had addRow and the garbage collector at half
// the time. Anything unusual in a row (a new or conflicting name) goes through the plain checks
// in #explain, so errors keep their wording and order (test/ingest/write-batch-builder.test.ts
// holds it to the former implementation, byte for byte).

import { bug, UserError } from './errors.js';
import { BATCH_MAGIC, ColumnKind, compareBytes, escapeKeyPart, ValueType, VALUE_TYPE_NAMES, type FieldType } from './write-batch.js';

export type FieldValue = number | bigint | boolean | string;

export interface FieldInput {
  name: string;
  type: FieldType;
  value: FieldValue;
}

interface ColumnState {
  name: string;
  kind: ColumnKind;
  type: ValueType;
  /** Field values by table row, undefined for rows without the field (kept dense, see below). */
  values: Array<FieldValue | undefined>;
  /** Rows that have a value. */
  count: number;
  /** The row being added last touched this column (duplicate detection). */
  stamp: number;
}

interface SeriesState {
  key: string;
  /** Sorted by name (compareBytes). */
  tags: Array<[string, string]>;
  /** Table rows of this series, in insertion order. */
  rows: number[];
}

interface TableState {
  name: string;
  /** In order of first appearance. */
  columns: Map<string, ColumnState>;
  /** By canonical series key, in order of first appearance. */
  series: Map<string, SeriesState>;
  /** By the tags exactly as a row gave them (see rawKey). */
  seriesByRaw: Map<string, SeriesState>;
  /** By the caller's tagsKey (addRow). */
  seriesByHint: Map<string, SeriesState>;
  /**
   * Rows that missed and hit seriesByRaw. Past 64 misses with not even half as many hits, the
   * raw cache is dropped for the table: there every row is a new series (one per span in
   * traces), and hashing the long raw key was a fifth of the time for nothing.
   */
  rawMisses: number;
  rawHits: number;
  /** Timestamps by table row. */
  ts: bigint[];
  rowCount: number;
}

const encoder = new TextEncoder();
const MAX_NAME_BYTES = 65535;
/** Columns per table: the batch format counts them in 16 bits (as the line-protocol scanner). */
const MAX_COLUMNS = 65535;

/**
 * seriesKey() of tags already sorted, with names escaped through a cache. Built with join, which
 * makes a flat string at once: a key concatenated piece by piece is a deep rope that the series
 * map must flatten before hashing, and that lookup was the top line of the profile.
 */
function canonicalKey(table: string, sorted: ReadonlyArray<readonly [string, string]>, escaped: Map<string, string>): string {
  const esc = (name: string): string => {
    let e = escaped.get(name);
    if (e === undefined) escaped.set(name, (e = escapeKeyPart(name)));
    return e;
  };
  const parts: string[] = [esc(table)];
  for (const [k, v] of sorted) parts.push(',', esc(k), '=', escapeValue(v));
  return parts.join('');
}

/** escapeKeyPart without a regular expression for the common value that needs no escape. */
function escapeValue(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 92 || c === 44 || c === 61 || c === 32) return escapeKeyPart(s);
  }
  return s;
}

/** An injective key of tags in the order given (lengths make it unambiguous). */
function rawKey(tags: ReadonlyArray<readonly [string, string]>): string {
  let k = '';
  for (let i = 0; i < tags.length; i++) {
    const [a, b] = tags[i]!;
    k += a.length + ':' + a + b.length + ':' + b;
  }
  return k;
}

export class WriteBatchBuilder {
  #tables = new Map<string, TableState>();
  #rowCount = 0;
  #stamp = 0;
  // Scratch of the row being added, reused.
  #cols: ColumnState[] = [];
  #vals: FieldValue[] = [];
  #newFields: FieldInput[] = [];
  #newNames = new Set<string>();
  /** Escaped table and tag names for series keys (names repeat; values rarely do). */
  readonly #escaped = new Map<string, string>();

  get rowCount(): number {
    return this.#rowCount;
  }

  /**
   * Adds one point. Tags and fields with a repeated name keep their first occurrence, as the
   * line protocol does. Throws UserError('schemaConflict') when a column changes type or kind
   * within the batch; the builder is unchanged in that case.
   *
   * `tagsKey`, optional, is a string that determines `tags` exactly (rows of one table with the
   * same tagsKey have the same tags in the same order), such as the text they were parsed from;
   * with it the builder finds the series without reading the tags.
   */
  addRow(table: string, tags: ReadonlyArray<readonly [string, string]>, ts: bigint, fields: readonly FieldInput[], tagsKey?: string): void {
    let t = this.#tables.get(table);
    if (t === undefined) {
      checkName(table, 'table');
      t = { name: table, columns: new Map(), series: new Map(), seriesByRaw: new Map(), seriesByHint: new Map(), rawMisses: 0, rawHits: 0, ts: [], rowCount: 0 };
    }

    // The series, and the tag columns it would create.
    const useRaw = tagsKey === undefined && (t.rawMisses < 64 || t.rawHits * 2 >= t.rawMisses);
    const raw = tagsKey ?? (useRaw ? rawKey(tags) : '');
    const cache = tagsKey === undefined ? t.seriesByRaw : t.seriesByHint;
    let series = tagsKey !== undefined || useRaw ? cache.get(raw) : undefined;
    if (useRaw) {
      if (series === undefined) t.rawMisses++;
      else t.rawHits++;
    }
    let canonical: Array<[string, string]> | undefined;
    let key = '';
    let newTags: string[] | undefined;
    if (series === undefined) {
      canonical = [];
      // Tags usually come sorted (Prometheus sorts labels; the trace and OpenTSDB parsers emit
      // them in order): then there are no duplicates and nothing to sort.
      let increasing = true;
      for (let i = 1; i < tags.length && increasing; i++) increasing = compareBytes(tags[i - 1]![0], tags[i]![0]) < 0;
      if (increasing) {
        for (const [k, v] of tags) {
          checkName(k, 'tag');
          canonical.push([k, v]);
        }
      } else {
        const seen = new Set<string>();
        for (const [k, v] of tags) {
          if (seen.has(k)) continue;
          seen.add(k);
          checkName(k, 'tag');
          canonical.push([k, v]);
        }
        canonical.sort((a, b) => compareBytes(a[0], b[0]));
      }
      for (const [k] of canonical) {
        const c = t.columns.get(k);
        if (c === undefined) (newTags ??= []).push(k);
        else if (c.kind !== ColumnKind.Tag) this.#explain(t, tags, fields);
      }
      key = canonicalKey(table, canonical, this.#escaped);
      series = t.series.get(key);
    }

    // The fields: existing columns of the right kind and type, or new names.
    const stamp = ++this.#stamp;
    const cols = this.#cols;
    const vals = this.#vals;
    const newFields = this.#newFields;
    cols.length = 0;
    vals.length = 0;
    newFields.length = 0;
    const newNames = this.#newNames;
    if (newNames.size > 0) newNames.clear(); // also after a refused row
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i]!;
      const c = t.columns.get(f.name);
      if (c !== undefined) {
        if (c.stamp === stamp) continue;
        if (c.kind !== ColumnKind.Field || c.type !== f.type) this.#explain(t, tags, fields);
        c.stamp = stamp;
        cols.push(c);
        vals.push(f.value);
      } else if (!newNames.has(f.name)) {
        if (badName(f.name) || newTags?.includes(f.name)) this.#explain(t, tags, fields);
        newNames.add(f.name);
        newFields.push(f);
      }
    }
    if (cols.length + newFields.length === 0) this.#explain(t, tags, fields);
    const columnCount = t.columns.size + (newTags?.length ?? 0) + newFields.length;
    if (columnCount > MAX_COLUMNS) {
      throw new UserError('badParameter', `table '${table}' would have ${columnCount} columns; at most ${MAX_COLUMNS} are allowed`);
    }

    // Commit: nothing above changed the builder (stamps aside).
    if (!this.#tables.has(table)) this.#tables.set(table, t);
    if (newTags !== undefined) {
      for (const k of newTags) t.columns.set(k, { name: k, kind: ColumnKind.Tag, type: ValueType.Tag, values: [], count: 0, stamp: 0 });
    }
    if (newFields.length > 0) {
      const sorted = newFields.length > 1 ? [...newFields].sort((a, b) => compareBytes(a.name, b.name)) : newFields;
      for (const f of sorted) {
        const c: ColumnState = { name: f.name, kind: ColumnKind.Field, type: f.type, values: [], count: 0, stamp };
        t.columns.set(f.name, c);
        cols.push(c);
        vals.push(f.value);
      }
    }
    if (series === undefined) {
      series = { key, tags: canonical!, rows: [] };
      t.series.set(series.key, series);
    }
    if (canonical !== undefined && (tagsKey !== undefined || useRaw)) cache.set(raw, series);
    const row = t.rowCount++;
    t.ts.push(ts);
    series.rows.push(row);
    for (let i = 0; i < cols.length; i++) {
      const c = cols[i]!;
      // Fill the gap explicitly: assigning far past the end would turn the array into a slow
      // dictionary (V8) for a field that first appears late in a big batch.
      const v = c.values;
      while (v.length < row) v.push(undefined);
      v.push(vals[i]!);
      c.count++;
    }
    this.#rowCount++;
  }

  /**
   * Throws the error the row deserves, checking in the order the checks have always run: the
   * table name, tag names, tag conflicts (sorted), field names, field conflicts (sorted), a row
   * without fields. Called only for a row known to be bad.
   */
  #explain(t: TableState, tags: ReadonlyArray<readonly [string, string]>, fields: readonly FieldInput[]): never {
    const table = t.name;
    checkName(table, 'table');
    const pending = new Map<string, { kind: ColumnKind; type: ValueType }>();
    const check = (name: string, kind: ColumnKind, type: ValueType): void => {
      const have = t.columns.get(name) ?? pending.get(name);
      if (have === undefined) pending.set(name, { kind, type });
      else if (have.kind !== kind || have.type !== type) {
        throw new UserError(
          'schemaConflict',
          `column '${name}' of table '${table}' is ${VALUE_TYPE_NAMES[have.type]} in this request, written as ${VALUE_TYPE_NAMES[type]}`,
        );
      }
    };
    const seenTags = new Set<string>();
    const uniqueTags: Array<readonly [string, string]> = [];
    for (const tag of tags) {
      if (seenTags.has(tag[0])) continue;
      seenTags.add(tag[0]);
      checkName(tag[0], 'tag');
      uniqueTags.push(tag);
    }
    uniqueTags.sort((a, b) => compareBytes(a[0], b[0]));
    for (const [k] of uniqueTags) check(k, ColumnKind.Tag, ValueType.Tag);
    const seenFields = new Set<string>();
    const uniqueFields: FieldInput[] = [];
    for (const f of fields) {
      if (seenFields.has(f.name)) continue;
      seenFields.add(f.name);
      checkName(f.name, 'field');
      uniqueFields.push(f);
    }
    uniqueFields.sort((a, b) => compareBytes(a.name, b.name));
    for (const f of uniqueFields) check(f.name, ColumnKind.Field, f.type);
    if (uniqueFields.length === 0) throw new UserError('badParameter', `a point of table '${table}' has no fields`);
    throw bug(`WriteBatchBuilder: a row of table '${table}' was refused but passes every check`);
  }

  /** Encodes the batch. The result starts at byteOffset 0 of its own buffer (8-aligned). */
  finish(): Uint8Array {
    const w = new Writer();
    w.u32(BATCH_MAGIC);
    w.u32(0); // byteLength, patched below
    w.u32(this.#tables.size);
    w.u32(this.#rowCount);
    for (const t of this.#tables.values()) encodeTable(w, t);
    w.patchU32(4, w.length);
    return w.bytes();
  }
}

/** Whether checkName would refuse `name` as a tag or field name. */
function badName(name: string): boolean {
  return name.length === 0 || name === 'time' || (name.length > MAX_NAME_BYTES / 3 && encoder.encode(name).length > MAX_NAME_BYTES);
}

function checkName(name: string, what: string): void {
  if (name.length === 0) throw new UserError('badParameter', `empty ${what} name`);
  if (name === 'time' && what !== 'table') throw new UserError('schemaConflict', `'time' is reserved and cannot be a ${what} name`);
  if (name.length > MAX_NAME_BYTES / 3 && encoder.encode(name).length > MAX_NAME_BYTES) {
    throw new UserError('badParameter', `${what} name longer than ${MAX_NAME_BYTES} bytes`);
  }
}

function encodeTable(w: Writer, t: TableState): void {
  const start = w.length;
  const columns = [...t.columns.values()];
  const colIndex = new Map(columns.map((c, i) => [c.name, i]));
  const series = [...t.series.values()];
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
    w.i64(min);
    w.i64(max);
    w.u32(r.length);
    w.u8(sorted ? 1 : 0);
    w.u8(0);
    w.u16(s.tags.length);
    w.str32(s.key);
    for (const [k, v] of s.tags) {
      w.u16(colIndex.get(k)!);
      w.u16(0);
      w.str32(v);
    }
    w.pad8();
  }

  for (const s of series) for (const r of s.rows) w.i64(ts[r]!);

  for (const c of columns) {
    if (c.kind !== ColumnKind.Field) continue;
    const v = c.values;
    if (c.count < rows) {
      for (const s of series) for (const r of s.rows) w.u8(v[r] !== undefined ? 1 : 0);
      w.pad8();
    }
    switch (c.type) {
      case ValueType.Double:
        for (const s of series) for (const r of s.rows) w.f64(v[r] !== undefined ? Number(v[r]) : 0);
        break;
      case ValueType.BigInt:
        for (const s of series) for (const r of s.rows) w.i64(v[r] !== undefined ? BigInt.asIntN(64, BigInt(v[r] as bigint)) : 0n);
        break;
      case ValueType.Unsigned:
        for (const s of series) for (const r of s.rows) w.u64(v[r] !== undefined ? BigInt.asUintN(64, BigInt(v[r] as bigint)) : 0n);
        break;
      case ValueType.Boolean:
        for (const s of series) for (const r of s.rows) w.u8(v[r] === true ? 1 : 0);
        w.pad8();
        break;
      case ValueType.String: {
        // The bytes go to a scratch buffer first (one encodeInto each), so that the offsets,
        // which come first in the format, need no separate pass to measure UTF-8 lengths.
        const bytes = stringScratch;
        w.u32(0);
        for (const s of series) {
          for (const r of s.rows) {
            if (v[r] !== undefined) bytes.utf8(String(v[r]));
            w.u32(bytes.length);
          }
        }
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

/** A growable little-endian byte writer. */
class Writer {
  #buf = new Uint8Array(1024);
  #dv = new DataView(this.#buf.buffer);
  length = 0;

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
  /** Empties the writer, and drops a buffer grown past 1 MiB (a scratch must not pin memory). */
  release(): void {
    this.length = 0;
    if (this.#buf.length > 1 << 20) {
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
