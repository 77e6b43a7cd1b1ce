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
  /**
   * BIGINT, BIGINT UNSIGNED and STRING values by table row, undefined for rows without the field
   * (kept dense, see below); converted when encoded, as the reference does.
   */
  values: Array<FieldValue | undefined>;
  /**
   * DOUBLE (as Number(value)) and BOOLEAN (1 for true) values by table row, with `has` marking
   * the rows that have one: in a plain array every double was a heap number, the largest
   * allocation of a batch of spans.
   */
  numbers: Float64Array | undefined;
  has: Uint8Array | undefined;
  /** Rows that have a value. */
  count: number;
  /** The row being added last touched this column (duplicate detection). */
  stamp: number;
}

/** A field column with storage for its type. */
function fieldColumn(name: string, type: ValueType, stamp: number): ColumnState {
  const typed = type === ValueType.Double || type === ValueType.Boolean;
  return { name, kind: ColumnKind.Field, type, values: [], numbers: typed ? new Float64Array(16) : undefined, has: typed ? new Uint8Array(16) : undefined, count: 0, stamp };
}

/** Stores `value` at `row` of a field column. */
function store(c: ColumnState, row: number, value: FieldValue): void {
  const numbers = c.numbers;
  if (numbers === undefined) {
    // Fill the gap explicitly: assigning far past the end would turn the array into a slow
    // dictionary (V8) for a field that first appears late in a big batch.
    const v = c.values;
    while (v.length < row) v.push(undefined);
    v.push(value);
  } else {
    if (row >= numbers.length) {
      let cap = numbers.length * 2;
      while (cap <= row) cap *= 2;
      const n = new Float64Array(cap);
      n.set(numbers);
      const h = new Uint8Array(cap);
      h.set(c.has!);
      c.numbers = n;
      c.has = h;
    }
    c.numbers![row] = c.type === ValueType.Double ? Number(value) : value === true ? 1 : 0;
    c.has![row] = 1;
  }
  c.count++;
}

/** Whether row `r` of a field column has a value. */
const present = (c: ColumnState, r: number): boolean => (c.has !== undefined ? r < c.has.length && c.has[r] === 1 : c.values[r] !== undefined);

interface SeriesState {
  /** Identity within the table (identityKey), not the canonical key, which is written by the encoder. */
  key: string;
  /** Sorted by name (compareBytes). */
  /** Tag names and values, sorted by name (compareBytes); names often shared between series. */
  names: readonly string[];
  values: string[];
  /** Table rows of this series, in insertion order. */
  rows: number[];
}

interface TableState {
  name: string;
  /** In order of first appearance. */
  columns: Map<string, ColumnState>;
  /** By identityKey, in order of first appearance. */
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
  /**
   * Tag names of the last row that found its tags in increasing order and all of them tag
   * columns already: a row with the same names (traces: every span, each a new series) skips
   * those checks.
   */
  tagNames: string[];
  /** A number per tag name seen, for identityKey. */
  tagNumbers: Map<string, number>;
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
/**
 * The identity of a series within its table: its sorted tags as `<name number>:<value length>:
 * <value>`, injective like the canonical key but without the names: a span's canonical key is
 * about 450 characters, most of them tag names, and hashing it for the series map cost a
 * microsecond a row. The canonical key itself is only written, by the encoder.
 */
function identityKey(t: TableState, names: readonly string[], values: readonly string[]): string {
  const parts: string[] = [];
  for (let i = 0; i < names.length; i++) {
    let n = t.tagNumbers.get(names[i]!);
    if (n === undefined) t.tagNumbers.set(names[i]!, (n = t.tagNumbers.size));
    parts.push(numberColon(n), numberColon(values[i]!.length), values[i]!);
  }
  return parts.join('');
}

/** `${n}:` for small numbers, made once. */
const NUMBER_COLON: string[] = [];
function numberColon(n: number): string {
  if (n >= 4096) return n + ':';
  let t = NUMBER_COLON[n];
  if (t === undefined) {
    while (NUMBER_COLON.length < n) NUMBER_COLON.push(NUMBER_COLON.length + ':');
    NUMBER_COLON[n] = t = n + ':';
  }
  return t;
}

/**
 * The UTF-8 bytes of an escaped name in a canonical key: a table as it is, a tag as
 * `,<name>=`; made once per name (a span has nine long tag names).
 */
function fragment(name: string, tag: boolean, fragments: Map<string, Uint8Array>): Uint8Array {
  let f = fragments.get(name);
  if (f === undefined) fragments.set(name, (f = encoder.encode(tag ? `,${escapeKeyPart(name)}=` : escapeKeyPart(name))));
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
  /** Escaped table and tag names of series keys as UTF-8 (names repeat; values rarely do). */
  readonly #fragments = { tags: new Map<string, Uint8Array>(), tables: new Map<string, Uint8Array>() };

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
      t = {
        name: table,
        columns: new Map(),
        series: new Map(),
        seriesByRaw: new Map(),
        seriesByHint: new Map(),
        rawMisses: 0,
        rawHits: 0,
        ts: [],
        rowCount: 0,
        tagNames: [],
        tagNumbers: new Map(),
      };
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
    let names: readonly string[] | undefined;
    let values: string[] | undefined;
    let key = '';
    let newTags: string[] | undefined;
    let tagsChecked = false;
    if (series === undefined) {
      const known = t.tagNames;
      let same = known.length === tags.length;
      for (let i = 0; i < tags.length && same; i++) same = tags[i]![0] === known[i];
      // Tags usually come sorted (Prometheus sorts labels; the trace and OpenTSDB parsers emit
      // them in order): then there are no duplicates and nothing to sort.
      let increasing = true;
      if (!same) for (let i = 1; i < tags.length && increasing; i++) increasing = compareBytes(tags[i - 1]![0], tags[i]![0]) < 0;
      const vs: string[] = [];
      if (same) {
        names = known;
        for (let i = 0; i < tags.length; i++) vs.push(tags[i]![1]);
      } else if (increasing) {
        tagsChecked = true;
        const ns: string[] = [];
        for (const [k, v] of tags) {
          checkName(k, 'tag');
          ns.push(k);
          vs.push(v);
        }
        names = ns;
      } else {
        const seen = new Set<string>();
        const pairs: Array<[string, string]> = [];
        for (const [k, v] of tags) {
          if (seen.has(k)) continue;
          seen.add(k);
          checkName(k, 'tag');
          pairs.push([k, v]);
        }
        pairs.sort((a, b) => compareBytes(a[0], b[0]));
        names = pairs.map(([k]) => k);
        for (const [, v] of pairs) vs.push(v);
      }
      values = vs;
      if (!same) {
        for (const k of names) {
          const c = t.columns.get(k);
          if (c === undefined) (newTags ??= []).push(k);
          else if (c.kind !== ColumnKind.Tag) this.#explain(t, tags, fields);
        }
      }
      key = identityKey(t, names, values);
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
      for (const k of newTags) t.columns.set(k, { name: k, kind: ColumnKind.Tag, type: ValueType.Tag, values: [], numbers: undefined, has: undefined, count: 0, stamp: 0 });
    }
    if (newFields.length > 0) {
      const sorted = newFields.length > 1 ? [...newFields].sort((a, b) => compareBytes(a.name, b.name)) : newFields;
      for (const f of sorted) {
        const c = fieldColumn(f.name, f.type, stamp);
        t.columns.set(f.name, c);
        cols.push(c);
        vals.push(f.value);
      }
    }
    if (series === undefined) {
      series = { key, names: names!, values: values!, rows: [] };
      t.series.set(series.key, series);
    }
    if (names !== undefined && (tagsKey !== undefined || useRaw)) cache.set(raw, series);
    const row = t.rowCount++;
    t.ts.push(ts);
    series.rows.push(row);
    for (let i = 0; i < cols.length; i++) store(cols[i]!, row, vals[i]!);
    if (tagsChecked) t.tagNames = names as string[];
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
    for (const t of this.#tables.values()) encodeTable(w, t, this.#fragments);
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

function encodeTable(w: Writer, t: TableState, fragments: { tags: Map<string, Uint8Array>; tables: Map<string, Uint8Array> }): void {
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
    if (w.asciiSeries(min, max, r.length, sorted, tableFragment, lastFragments, lastIndexes, s.values)) continue;
    w.i64(min);
    w.i64(max);
    w.u32(r.length);
    w.u8(sorted ? 1 : 0);
    w.u8(0);
    w.u16(s.names.length);
    w.canonicalKey(t.name, s.names, s.values, fragments.tags, fragments.tables);
    for (let i = 0; i < s.names.length; i++) {
      w.u16(lastIndexes[i]!);
      w.u16(0);
      w.str32(s.values[i]!);
    }
    w.pad8();
  }

  for (const s of series) for (const r of s.rows) w.i64(ts[r]!);

  // Rows already in series order (each series' rows one after the other, as a batch of spans or
  // of sorted input has them): typed columns are copied whole.
  let inOrder = true;
  for (let i = 0, next = 0; i < series.length && inOrder; i++) {
    const r = series[i]!.rows;
    for (let k = 0; k < r.length && inOrder; k++) inOrder = r[k] === next++;
  }

  for (const c of columns) {
    if (c.kind !== ColumnKind.Field) continue;
    const v = c.values;
    // Rows without a value hold 0 in `numbers`: nothing is written there but values.
    const whole = inOrder && c.numbers !== undefined && c.numbers.length >= rows;
    if (c.count < rows) {
      if (whole) w.bytesOf(c.has!.subarray(0, rows));
      else for (const s of series) for (const r of s.rows) w.u8(present(c, r) ? 1 : 0);
      w.pad8();
    }
    switch (c.type) {
      case ValueType.Double: {
        const n = c.numbers!;
        if (whole) w.bytesOf(new Uint8Array(n.buffer, 0, rows * 8));
        else for (const s of series) for (const r of s.rows) w.f64(present(c, r) ? n[r]! : 0);
        break;
      }
      case ValueType.BigInt:
        for (const s of series) for (const r of s.rows) w.i64(v[r] !== undefined ? BigInt.asIntN(64, BigInt(v[r] as bigint)) : 0n);
        break;
      case ValueType.Unsigned:
        for (const s of series) for (const r of s.rows) w.u64(v[r] !== undefined ? BigInt.asUintN(64, BigInt(v[r] as bigint)) : 0n);
        break;
      case ValueType.Boolean: {
        const n = c.numbers!;
        for (const s of series) for (const r of s.rows) w.u8(present(c, r) && n[r] === 1 ? 1 : 0);
        w.pad8();
        break;
      }
      case ValueType.String: {
        // The bytes go to a scratch buffer first (one encodeInto each), so that the offsets,
        // which come first in the format, need no separate pass to measure UTF-8 lengths.
        const bytes = stringScratch;
        w.u32(0);
        if (inOrder) w.stringOffsets(v, rows, bytes);
        else {
          for (const s of series) {
            for (const r of s.rows) {
              if (v[r] !== undefined) bytes.utf8(String(v[r]));
              w.u32(bytes.length);
            }
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
  /**
   * A u32 byte length, then the canonical series key (FORMAT.md §1) of a table and its sorted
   * tags in UTF-8: names and values with `\`, `,`, `=` and space escaped.
   */
  canonicalKey(table: string, names: readonly string[], values: readonly string[], fragments: Map<string, Uint8Array>, tableFragments: Map<string, Uint8Array>): void {
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
  asciiSeries(min: bigint, max: bigint, rows: number, sorted: boolean, table: Uint8Array, names: readonly Uint8Array[], indexes: readonly number[], values: readonly string[]): boolean {
    let size = 40 + table.length;
    for (let i = 0; i < names.length; i++) size += names[i]!.length + 3 * values[i]!.length + 8;
    this.#reserve(size);
    const buf = this.#buf;
    const dv = this.#dv;
    let p = this.length;
    dv.setBigInt64(p, min, true);
    dv.setBigInt64(p + 8, max, true);
    dv.setUint32(p + 16, rows, true);
    buf[p + 20] = sorted ? 1 : 0;
    buf[p + 21] = 0;
    dv.setUint16(p + 22, names.length, true);
    const keyAt = p + 24;
    p += 28;
    buf.set(table, p);
    p += table.length;
    for (let i = 0; i < names.length; i++) {
      const f = names[i]!;
      for (let j = 0; j < f.length; j++) buf[p + j] = f[j]!;
      p += f.length;
      const v = values[i]!;
      for (let j = 0; j < v.length; j++) {
        const c = v.charCodeAt(j);
        if (c >= 0x80) return false;
        if (c === 92 || c === 44 || c === 61 || c === 32) buf[p++] = 92;
        buf[p++] = c;
      }
    }
    dv.setUint32(keyAt, p - keyAt - 4, true);
    for (let i = 0; i < names.length; i++) {
      const v = values[i]!;
      dv.setUint16(p, indexes[i]!, true);
      dv.setUint16(p + 2, 0, true);
      dv.setUint32(p + 4, v.length, true);
      p += 8;
      for (let j = 0; j < v.length; j++) buf[p + j] = v.charCodeAt(j);
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
   * The offsets of rows 0..rows-1 of a STRING column (values in row order), their bytes going to
   * `bytes`: one bound check for the offsets instead of a call each.
   */
  stringOffsets(values: ReadonlyArray<FieldValue | undefined>, rows: number, bytes: Writer): void {
    this.#reserve(rows * 4);
    const dv = this.#dv;
    let p = this.length;
    for (let r = 0; r < rows; r++) {
      const s = values[r];
      if (s !== undefined) bytes.utf8(String(s));
      dv.setUint32(p, bytes.length, true);
      p += 4;
    }
    this.length = p;
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
