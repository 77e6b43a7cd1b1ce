// Builds a write batch (host/storage/FORMAT.md §1) row by row in TypeScript. Every wire format
// other than line protocol (which the Wasm scanner encodes directly) goes through this, and
// tests use it as the reference encoder.
//
// Rows are kept column-wise per table (one value array per field column, indexed by row; DOUBLE
// and BOOLEAN in typed arrays), and a row's series is found by the tags exactly as given, so the
// common row (a known series, known columns) costs a few map lookups: no per-row Map, Set or
// sort. That took OpenTSDB text parsing (10 tags per point, bench/ingest-bodies.ts) from 75 k to
// about 300 k points/s. Rows of new series (a span each) are cheap too: a row with the last
// row's tag names skips the tag checks, series are found by a hash of their tags (no key string
// per series), and the canonical key is only written when encoding (write-batch-encoder.ts).
// Anything unusual in a row (a new or conflicting name) goes through the plain checks in
// #explain, so errors keep their wording and order (test/ingest/write-batch-builder.test.ts holds
// it to the former implementation, byte for byte).

import { bug, UserError } from './errors.js';
import { compareBytes } from './series-key.js';
import { ColumnKind, ValueType, VALUE_TYPE_NAMES, type FieldType } from './write-batch.js';
import { encodeBatch, type KeyFragments } from './write-batch-encoder.js';
import type { ColumnState, FieldValue, SeriesState, TableState } from './write-batch-state.js';

export interface FieldInput {
  name: string;
  type: FieldType;
  value: FieldValue;
}

/** A field column with storage for its type. */
function fieldColumn(name: string, type: ValueType, stamp: number): ColumnState {
  const typed = type === ValueType.Double || type === ValueType.Boolean;
  return {
    name,
    kind: ColumnKind.Field,
    type,
    values: [],
    numbers: typed ? new Float64Array(16) : undefined,
    has: typed ? new Uint8Array(16) : undefined,
    count: 0,
    stamp,
  };
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

const encoder = new TextEncoder();
const MAX_NAME_BYTES = 65535;
/** Columns per table: the batch format counts them in 16 bits (as the line-protocol scanner). */
const MAX_COLUMNS = 65535;

/**
 * A hash of a series' identity within its table: its sorted tags, names by their number in the
 * table. The series map is keyed by it, and a hit is confirmed by comparing names and values
 * (sameTags). A string key for the map (`<name number>:<length>:<value>` per tag, 100 characters
 * for a span) was built, hashed by the map and kept for every row of a new series: a span each.
 */
function identityHash(t: TableState, names: readonly string[], values: readonly string[]): number {
  let numbers = t.hashNumbers;
  if (t.hashNames !== names) {
    numbers = [];
    for (const name of names) {
      let n = t.tagNumbers.get(name);
      if (n === undefined) t.tagNumbers.set(name, (n = t.tagNumbers.size));
      numbers.push(n);
    }
    t.hashNames = names;
    t.hashNumbers = numbers;
  }
  return tagsHash(numbers, values);
}

/** FNV-1a over tag name numbers, value lengths and characters (exported for the collision test). */
export function tagsHash(numbers: readonly number[], values: readonly string[]): number {
  let h = 0x811c9dc5 ^ values.length;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    h = Math.imul(h ^ numbers[i]!, 0x01000193);
    h = Math.imul(h ^ v.length, 0x01000193);
    for (let j = 0; j < v.length; j++) h = Math.imul(h ^ v.charCodeAt(j), 0x01000193);
  }
  return h;
}

/** Whether a series has exactly these tags (sorted names, their values). */
function sameTags(s: SeriesState, names: readonly string[], values: readonly string[]): boolean {
  if (s.names.length !== names.length) return false;
  for (let i = 0; i < names.length; i++) if (s.values[i] !== values[i] || s.names[i] !== names[i]) return false;
  return true;
}

/** The series of `t` with these tags, if any (`hash` = identityHash). */
function findSeries(
  t: TableState,
  hash: number,
  names: readonly string[],
  values: readonly string[],
): SeriesState | undefined {
  const found = t.seriesByHash.get(hash);
  if (found === undefined) return undefined;
  if (!Array.isArray(found)) return sameTags(found, names, values) ? found : undefined;
  for (const s of found) if (sameTags(s, names, values)) return s;
  return undefined;
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

/** A row's tags as #resolveTags leaves them (names undefined: the series was found by its raw key). */
interface RowTags {
  names: readonly string[] | undefined;
  values: string[];
  hash: number;
  /** Tag columns the row would create. */
  newTags: string[] | undefined;
  /** The names were checked and come in increasing order: the next row with them skips the checks. */
  checked: boolean;
}

/** The state of a table first seen in this batch (registered when its first row is committed). */
function newTable(name: string): TableState {
  checkName(name, 'table');
  return {
    name,
    columns: new Map(),
    series: [],
    seriesByHash: new Map(),
    seriesByRaw: new Map(),
    seriesByHint: new Map(),
    rawMisses: 0,
    rawHits: 0,
    ts: [],
    rowCount: 0,
    tagNames: [],
    tagNumbers: new Map(),
    hashNames: undefined,
    hashNumbers: [],
    fieldCount: 0,
  };
}

export class WriteBatchBuilder {
  #tables = new Map<string, TableState>();
  #rowCount = 0;
  /**
   * Bytes the encoded batch will take, about (the batch is dense: every row of a table has a
   * slot, value and validity byte, in each of its field columns): timestamps, field slots, string
   * bytes (UTF-16 length), series keys.
   */
  #projected = 16;
  #stamp = 0;
  // Scratch of the row being added, reused.
  #cols: ColumnState[] = [];
  #vals: FieldValue[] = [];
  #newFields: FieldInput[] = [];
  #newNames = new Set<string>();
  /** #resolveFields' count of new field names. */
  #newCount = 0;
  /** What #resolveTags found for the row being added. */
  readonly #rowTags: RowTags = { names: undefined, values: [], hash: 0, newTags: undefined, checked: false };
  /** Escaped table and tag names of series keys as UTF-8 (names repeat; values rarely do). */
  readonly #fragments: KeyFragments = { tags: new Map(), tables: new Map() };
  /** Whether series carry their keys (a version 1 batch), see the constructor. */
  readonly #keys: boolean;

  /**
   * `seriesKeys: false` leaves the series keys out (a version 2 batch, FORMAT.md §1) for rows
   * whose series will not be written again, as OTLP spans (a span id is among their tags): the
   * memtable reads a batch's key only to find a series it already holds, and a span's key was
   * half of the bytes of its batch and of the WAL.
   */
  constructor(options: { seriesKeys?: boolean } = {}) {
    this.#keys = options.seriesKeys ?? true;
  }

  /** The encoded size of the batch so far, about (see #projected). */
  get projectedBytes(): number {
    return this.#projected;
  }

  /**
   * Whether adding a row of `fields` to `table` would make the batch larger than `limit` by the
   * new field columns alone (each gives every earlier row of the table a slot): one wide row
   * after many narrow ones would otherwise make a batch of gigabytes from a small body.
   */
  wouldOverfill(table: string, fields: readonly FieldInput[], limit: number): boolean {
    const t = this.#tables.get(table);
    if (t === undefined || t.rowCount === 0) return false;
    const room = limit - this.#projected;
    if (9 * t.rowCount * fields.length <= room) return false; // even if every field were new
    let fresh = 0;
    for (const f of fields) if (!t.columns.has(f.name)) fresh++;
    return fresh > 0 && 9 * t.rowCount * fresh > room;
  }

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
  addRow(
    table: string,
    tags: ReadonlyArray<readonly [string, string]>,
    ts: bigint,
    fields: readonly FieldInput[],
    tagsKey?: string,
  ): void {
    const t = this.#tables.get(table) ?? newTable(table);

    // The series, and the tag columns it would create.
    const useRaw = tagsKey === undefined && (t.rawMisses < 64 || t.rawHits * 2 >= t.rawMisses);
    const raw = tagsKey ?? (useRaw ? rawKey(tags) : '');
    const cache = tagsKey === undefined ? t.seriesByRaw : t.seriesByHint;
    let series = tagsKey !== undefined || useRaw ? cache.get(raw) : undefined;
    if (useRaw) {
      if (series === undefined) t.rawMisses++;
      else t.rawHits++;
    }
    const rt = this.#clearRowTags();
    if (series === undefined) series = this.#resolveTags(t, tags, fields);
    const { names, values, newTags } = rt;

    // The fields: existing columns of the right kind and type, or new names.
    const stamp = ++this.#stamp;
    const nc = this.#resolveFields(t, tags, fields, stamp, newTags);
    const nn = this.#newCount;
    const columnCount = t.columns.size + (newTags?.length ?? 0) + nn;
    if (columnCount > MAX_COLUMNS) {
      throw new UserError(
        'badParameter',
        `table '${table}' would have ${columnCount} columns; at most ${MAX_COLUMNS} are allowed`,
      );
    }

    // Commit: nothing above changed the builder (stamps aside).
    if (!this.#tables.has(table)) this.#tables.set(table, t);
    const cols = this.#cols;
    const n = this.#addColumns(t, nc, nn, newTags, stamp);
    if (series === undefined) series = this.#addSeries(t, names!, values, rt.hash);
    if (names !== undefined && (tagsKey !== undefined || useRaw)) cache.set(raw, series);
    const row = t.rowCount++;
    t.ts.push(ts);
    series.rows.push(row);
    const vals = this.#vals;
    let strings = 0;
    for (let i = 0; i < n; i++) {
      const v = vals[i]!;
      store(cols[i]!, row, v);
      if (typeof v === 'string') strings += v.length;
    }
    this.#projected += 8 + 9 * t.fieldCount + strings;
    if (rt.checked) t.tagNames = names as string[];
    this.#rowCount++;
  }

  #clearRowTags(): RowTags {
    const rt = this.#rowTags;
    rt.names = undefined;
    rt.newTags = undefined;
    rt.checked = false;
    return rt;
  }

  /**
   * A row's tags when its series was not found by its raw key: sorted names and values, the tag
   * columns they would create, into #rowTags; returns the series if the table has it. Methods of
   * their own, not one addRow: V8 compiled that at 65-190 ms a time, two or three times in a
   * parse worker's first span loads.
   */
  #resolveTags(
    t: TableState,
    tags: ReadonlyArray<readonly [string, string]>,
    fields: readonly FieldInput[],
  ): SeriesState | undefined {
    const rt = this.#rowTags;
    const known = t.tagNames;
    let same = known.length === tags.length;
    for (let i = 0; i < tags.length && same; i++) same = tags[i]![0] === known[i];
    // Tags usually come sorted (Prometheus sorts labels; the trace and OpenTSDB parsers emit
    // them in order): then there are no duplicates and nothing to sort.
    let increasing = true;
    if (!same)
      for (let i = 1; i < tags.length && increasing; i++) increasing = compareBytes(tags[i - 1]![0], tags[i]![0]) < 0;
    const vs: string[] = [];
    let names: readonly string[];
    if (same) {
      names = known;
      for (let i = 0; i < tags.length; i++) vs.push(tags[i]![1]);
    } else if (increasing) {
      rt.checked = true;
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
    if (!same) {
      for (const k of names) {
        const c = t.columns.get(k);
        if (c === undefined) (rt.newTags ??= []).push(k);
        else if (c.kind !== ColumnKind.Tag) this.#explain(t, tags, fields);
      }
    }
    rt.names = names;
    rt.values = vs;
    rt.hash = identityHash(t, names, vs);
    return findSeries(t, rt.hash, names, vs);
  }

  /**
   * The row's fields: existing columns (checked for kind and type) into #cols and their values
   * into #vals, returning how many; new names into #newFields, #newCount of them.
   */
  #resolveFields(
    t: TableState,
    tags: ReadonlyArray<readonly [string, string]>,
    fields: readonly FieldInput[],
    stamp: number,
    newTags: readonly string[] | undefined,
  ): number {
    const cols = this.#cols;
    const vals = this.#vals;
    const newFields = this.#newFields;
    // Counted, not emptied with `length = 0`, which drops an array's storage: pushing a row's
    // twenty fields into it again allocated half a kilobyte per array and row.
    let nc = 0;
    let nn = 0;
    const newNames = this.#newNames;
    if (newNames.size > 0) newNames.clear(); // also after a refused row
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i]!;
      const c = t.columns.get(f.name);
      if (c !== undefined) {
        if (c.stamp === stamp) continue;
        if (c.kind !== ColumnKind.Field || c.type !== f.type) this.#explain(t, tags, fields);
        c.stamp = stamp;
        cols[nc] = c;
        vals[nc++] = f.value;
      } else if (!newNames.has(f.name)) {
        if (badName(f.name) || newTags?.includes(f.name)) this.#explain(t, tags, fields);
        newNames.add(f.name);
        newFields[nn++] = f;
      }
    }
    if (nc + nn === 0) this.#explain(t, tags, fields);
    this.#newCount = nn;
    return nc;
  }

  /** Creates the row's new tag and field columns (the fields after the `nc` known ones in #cols); returns the row's field count. */
  #addColumns(t: TableState, nc: number, nn: number, newTags: readonly string[] | undefined, stamp: number): number {
    if (newTags !== undefined) {
      for (const k of newTags)
        t.columns.set(k, {
          name: k,
          kind: ColumnKind.Tag,
          type: ValueType.Tag,
          values: [],
          numbers: undefined,
          has: undefined,
          count: 0,
          stamp: 0,
        });
    }
    if (nn === 0) return nc;
    const cols = this.#cols;
    const vals = this.#vals;
    const added = this.#newFields.slice(0, nn);
    if (nn > 1) added.sort((a, b) => compareBytes(a.name, b.name));
    for (const f of added) {
      const c = fieldColumn(f.name, f.type, stamp);
      t.columns.set(f.name, c);
      t.fieldCount++;
      this.#projected += 9 * t.rowCount;
      cols[nc] = c;
      vals[nc++] = f.value;
    }
    return nc;
  }

  /** A new series of `t` (found by identityHash `hash`). */
  #addSeries(t: TableState, names: readonly string[], values: string[], hash: number): SeriesState {
    const series: SeriesState = { names, values, rows: [] };
    let chars = 0;
    for (const v of values) chars += v.length + 6;
    this.#projected += 32 + 2 * chars;
    t.series.push(series);
    const other = t.seriesByHash.get(hash);
    if (other === undefined) t.seriesByHash.set(hash, series);
    else if (Array.isArray(other)) other.push(series);
    else t.seriesByHash.set(hash, [other, series]);
    return series;
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
    return encodeBatch(this.#tables.values(), this.#tables.size, this.#rowCount, this.#fragments, this.#keys);
  }
}

/** Whether checkName would refuse `name` as a tag or field name. */
function badName(name: string): boolean {
  return (
    name.length === 0 ||
    name === 'time' ||
    (name.length > MAX_NAME_BYTES / 3 && encoder.encode(name).length > MAX_NAME_BYTES)
  );
}

function checkName(name: string, what: string): void {
  if (name.length === 0) throw new UserError('badParameter', `empty ${what} name`);
  if (name === 'time' && what !== 'table')
    throw new UserError('schemaConflict', `'time' is reserved and cannot be a ${what} name`);
  if (name.length > MAX_NAME_BYTES / 3 && encoder.encode(name).length > MAX_NAME_BYTES) {
    throw new UserError('badParameter', `${what} name longer than ${MAX_NAME_BYTES} bytes`);
  }
}
