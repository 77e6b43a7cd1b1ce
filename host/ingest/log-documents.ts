// JSON log documents -> rows, shared by `/api/v1/es/_bulk` for every log_type (CONTRACT.md
// "Writes"): nested objects flatten with `.`, array elements by index (`a.b.0.c`), empty objects
// and arrays vanish; the `time_column` is an RFC 3339 string or an integer read as nanoseconds
// (missing: the request's time); `tag_columns` become tags (strings as they are, other values as
// their JSON text); every other column is a field: numbers DOUBLE, booleans BOOLEAN, strings
// STRING. A null anywhere is an error, as in CnosDB (it has no type to create a column with).
// Runtime-agnostic.

import { UserError } from '../core/errors.js';
import type { TimeUnit } from '../core/precision.js';
import { ValueType } from '../core/write-batch.js';
import { contentHash, entrySeriesKey, EntryTimes } from './loki-entry-times.js';
import { clip, describe, locate } from './parse-errors.js';
import { parseRfc3339Ns } from './rfc3339.js';
import { RowBatcher, type FieldInput } from './row-batcher.js';
import { TimestampConverter } from './timestamps.js';

export interface LogOptions {
  /** The table of every row; with `indexTables`, of the documents whose action names none ('' for none). */
  table: string;
  /** Bulk only: each action's `_index` names its document's table (the request gave no `table`). */
  indexTables?: boolean;
  /** Column holding each document's time (default `time`). */
  timeColumn: string;
  /**
   * A second name of the time, for a document without `timeColumn`: `time`, when Elasticsearch's
   * `@timestamp` is the time column by default (a document with both is refused).
   */
  fallbackTimeColumn?: string;
  /** Columns stored as tags; every other column is a field. */
  tagColumns: ReadonlySet<string>;
  dbUnit: TimeUnit;
  /**
   * The time of the request's documents without one, in the database precision: the k-th such
   * document (from 0) gets `now + k`. Distinct times keep documents of one series apart (the
   * same time makes them one row); the server takes each request's from a clock that never
   * gives out a time twice (server/log-clock.ts).
   */
  now: bigint;
}

/** Nesting levels a document may have (objects and arrays). */
const MAX_DEPTH = 64;

/** Parses `tag_columns`: comma-separated, trimmed, empty names dropped. */
export function parseTagColumns(text: string | undefined): Set<string> {
  const out = new Set<string>();
  if (text === undefined) return out;
  for (const part of text.split(',')) {
    const name = part.trim();
    if (name !== '') out.add(name);
  }
  return out;
}

/** Accumulates log rows of one table; not re-entrant. */
export class LogRowWriter {
  readonly #opts: LogOptions;
  readonly #out = new RowBatcher();
  readonly #toDb: TimestampConverter;
  /** Loki: where each entry goes in time (loki-entry-times.ts); bulk and NDJSON use #ties. */
  readonly #entryTimes: EntryTimes | undefined;
  /** Bulk and NDJSON: the times this request's rows took, by table (#commit). */
  readonly #ties = new Map<string, EntryTimes>();
  /** Documents without a time so far (LogOptions.now). */
  #timeless = 0n;
  // Scratch state of the document being added, reused across documents: the batch builder copies
  // what it keeps, and allocation per column was a fifth of the time in the profile.
  // Overwritten up to the counts, never emptied: `length = 0` drops an array's storage, and
  // pushing a document's columns into it again allocated a few hundred bytes a document.
  #tags: Array<[string, string]> = [];
  #tagCount = 0;
  #fields: FieldInput[] = [];
  #fieldCount = 0;
  #fieldPool: FieldInput[] = [];
  #ts: bigint | undefined;
  /** The time under LogOptions.fallbackTimeColumn. */
  #fallbackTs: bigint | undefined;
  #raw: string | undefined;
  #table = '';
  #where: string | number = '';
  /** The tags of the last series key made, and the key (#seriesKey). */
  #lastTags: Array<[string, string]> = [];
  #lastKey = '';
  /** Flattened names by parent name and key, so each document reuses the same name strings. */
  readonly #names = new Map<string, Map<string, string>>();

  constructor(options: LogOptions, entryTimes?: EntryTimes) {
    this.#opts = options;
    this.#toDb = new TimestampConverter('ns', options.dbUnit);
    this.#entryTimes = entryTimes;
  }

  get rowCount(): number {
    return this.#out.rowCount;
  }

  /**
   * Adds one parsed JSON document as one row, of `table` (default: the options' table). `where`
   * names it in error messages (a number n means "line n"); `raw` is its source text, used only
   * to read an integer time beyond 2^53 exactly.
   */
  addDocument(doc: unknown, where: string | number, raw?: string, table = this.#opts.table): void {
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
      throw new UserError('logParse', `${whereText(where)}: expected a JSON object, found ${describe(doc)}`);
    }
    this.#begin(where, raw, table);
    try {
      this.#flatten('', doc, 0);
      this.#commit();
    } catch (e) {
      throw locate(e, whereText(where), 'logParse');
    }
  }

  /**
   * Adds one row from columns already flat (Loki entries): `columns` as [name, value] with JSON
   * scalar values, `tsNs` the row's time in nanoseconds.
   */
  addColumns(columns: ReadonlyArray<readonly [string, unknown]>, tsNs: bigint, where: string): void {
    this.#begin(where, undefined, this.#opts.table);
    try {
      this.#ts = this.#toDb.convert(tsNs);
      for (const [k, v] of columns) this.#column(k, v);
      this.#commit();
    } catch (e) {
      throw locate(e, where, 'logParse');
    }
  }

  finish(): Uint8Array[] {
    return this.#out.finish();
  }

  #begin(where: string | number, raw: string | undefined, table: string): void {
    this.#table = table;
    this.#tagCount = 0;
    this.#fieldCount = 0;
    this.#ts = undefined;
    this.#fallbackTs = undefined;
    this.#raw = raw;
    this.#where = where;
  }

  #commit(): void {
    if (this.#fieldCount === 0)
      throw new UserError(
        'logParse',
        `${whereText(this.#where)}: the document has no field columns (only tags and time)`,
      );
    if (this.#tags.length !== this.#tagCount) this.#tags.length = this.#tagCount;
    if (this.#fields.length !== this.#fieldCount) this.#fields.length = this.#fieldCount;
    if (this.#fallbackTs !== undefined) {
      if (this.#ts !== undefined) {
        throw new UserError(
          'logParse',
          `${whereText(this.#where)}: the document has both '${clip(this.#opts.timeColumn)}' and '${clip(this.#opts.fallbackTimeColumn!)}'; name its time column with the time_column parameter`,
        );
      }
      this.#ts = this.#fallbackTs;
    }
    let ts = this.#ts ?? this.#opts.now + this.#timeless++;
    if (this.#entryTimes !== undefined) {
      const placed = this.#entryTimes.place(
        this.#seriesKey(),
        this.#tags,
        ts,
        contentHash(this.#fields, this.#fieldCount),
      );
      if (placed === undefined) return;
      ts = placed;
    } else {
      // Bulk and NDJSON: a document whose series already has a row of this request at its time
      // goes to the next free unit, so that both are kept (docs/http-api.md, "Writes").
      let ties = this.#ties.get(this.#table);
      if (ties === undefined) this.#ties.set(this.#table, (ties = new EntryTimes([], true)));
      ts = ties.place(this.#seriesKey(), this.#tags, ts, 0)!;
    }
    this.#out.add(this.#table, this.#tags, ts, this.#fields);
  }

  /**
   * The key of the row's tags. A Loki stream's entries share one label set, so the last key is
   * kept with the tags it was made of and reused while they repeat: sorting and joining the
   * labels of every entry was a fifth of a Loki push's parse and most of its garbage.
   */
  #seriesKey(): string {
    const last = this.#lastTags;
    let same = last.length === this.#tagCount;
    for (let i = 0; same && i < this.#tagCount; i++) {
      const t = this.#tags[i]!;
      same = last[i]![0] === t[0] && last[i]![1] === t[1];
    }
    if (same) return this.#lastKey;
    this.#lastTags = this.#tags.slice(0, this.#tagCount).map(([k, v]) => [k, v] as [string, string]);
    return (this.#lastKey = entrySeriesKey(this.#lastTags));
  }

  #field(name: string, type: FieldInput['type'], value: FieldInput['value']): void {
    const n = this.#fieldCount++;
    let f = this.#fieldPool[n];
    if (f === undefined) this.#fieldPool.push((f = { name, type, value }));
    else {
      f.name = name;
      f.type = type;
      f.value = value;
    }
    this.#fields[n] = f;
  }

  /** `parent.key` (or `key` at the top), the same string object every time. */
  #name(parent: string, key: string): string {
    if (parent === '') return key;
    let children = this.#names.get(parent);
    if (children === undefined) this.#names.set(parent, (children = new Map()));
    let name = children.get(key);
    if (name === undefined) children.set(key, (name = `${parent}.${key}`));
    return name;
  }

  #flatten(prefix: string, v: unknown, depth: number): void {
    if (typeof v === 'object' && v !== null) {
      // JSON.parse takes any depth; recursing without a bound would overflow the stack (a 500).
      if (depth === MAX_DEPTH)
        throw new UserError(
          'logParse',
          `${whereText(this.#where)}: the document is nested deeper than ${MAX_DEPTH} levels`,
        );
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) this.#flatten(this.#name(prefix, String(i)), v[i], depth + 1);
      } else {
        for (const k in v) this.#flatten(this.#name(prefix, k), (v as Record<string, unknown>)[k], depth + 1);
      }
      return;
    }
    this.#column(prefix, v);
  }

  #column(name: string, v: unknown): void {
    if (v === null || v === undefined) {
      throw new UserError(
        'logParse',
        `${whereText(this.#where)}: column '${clip(name)}' is null; null values are not supported`,
      );
    }
    if (name === this.#opts.timeColumn) {
      this.#ts = this.#time(name, v);
      return;
    }
    if (name === this.#opts.fallbackTimeColumn) {
      this.#fallbackTs = this.#time(name, v);
      return;
    }
    if (this.#opts.tagColumns.has(name)) {
      const value = typeof v === 'string' ? v : JSON.stringify(v);
      const pair = this.#tags[this.#tagCount++]; // reused: the batch builder copies what it keeps
      if (pair === undefined) this.#tags[this.#tagCount - 1] = [name, value];
      else {
        pair[0] = name;
        pair[1] = value;
      }
      return;
    }
    switch (typeof v) {
      case 'number':
        this.#field(name, ValueType.Double, v);
        return;
      case 'boolean':
        this.#field(name, ValueType.Boolean, v);
        return;
      case 'string':
        this.#field(name, ValueType.String, v);
        return;
      default:
        throw new UserError(
          'logParse',
          `${whereText(this.#where)}: column '${clip(name)}' has an unsupported value ${describe(v)}`,
        );
    }
  }

  #time(name: string, v: unknown): bigint {
    if (typeof v === 'string') {
      const ns = parseRfc3339Ns(v);
      if (typeof ns === 'string')
        throw new UserError('logParse', `${whereText(this.#where)}: time column '${clip(name)}': ${ns}`);
      return this.#toDb.convert(ns);
    }
    if (typeof v === 'number' && Number.isInteger(v)) {
      if (Number.isSafeInteger(v)) return this.#toDb.convert(BigInt(v));
      const exact = this.#exactInteger(name);
      if (exact !== undefined) return this.#toDb.convert(exact);
      throw new UserError(
        'logParse',
        `${whereText(this.#where)}: time column '${clip(name)}' holds an integer beyond 2^53 that JSON cannot carry exactly here; send it as an RFC 3339 string`,
      );
    }
    throw new UserError(
      'logParse',
      `${whereText(this.#where)}: time column '${clip(name)}' must be an RFC 3339 string or an integer of nanoseconds, found ${describe(v)}`,
    );
  }

  /**
   * JSON.parse rounds integers beyond 2^53 (nanosecond times are ~1.7e18), so the digits are read
   * again from the source text: the one occurrence of `"<key>": <integer>` for the column's last
   * path segment. Ambiguous (several occurrences) or not found: undefined.
   */
  #exactInteger(name: string): bigint | undefined {
    if (this.#raw === undefined) return undefined;
    const key = name.slice(name.lastIndexOf('.') + 1);
    const pattern = new RegExp(`${escapeRegExp(JSON.stringify(key))}\\s*:\\s*(-?\\d+)(?=\\s*[,}\\]])`, 'g');
    const matches = [...this.#raw.matchAll(pattern)];
    return matches.length === 1 ? BigInt(matches[0]![1]!) : undefined;
  }
}

function whereText(where: string | number): string {
  return typeof where === 'number' ? `line ${where}` : where;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
