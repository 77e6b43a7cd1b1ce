// What the converted formats of `sundial import` (CSV, NDJSON, Parquet) share: the table's
// shape from the flags (time column, tag columns, given types), and a batcher that gathers their
// line-protocol lines into batches that remember each line's input line, so that a line the
// server refuses is reported at its place in the CSV, not in the request. Converting on the
// client keeps one write path, one error report and one resume rule for every format, and exact
// types; it costs client CPU (bench/RESULTS.md, "sundial import": the server's NDJSON route was
// faster than converting NDJSON here).

import type { Batch, Rejection } from './import-lines.js';
import { escapeKey, escapeTable, fieldText, type ColumnType, quoteString } from './lp-text.js';

export interface TableShape {
  table: string;
  timeColumn: string;
  tags: ReadonlySet<string>;
  /** --types: column types given by the user (others are inferred). */
  types: ReadonlyMap<string, ColumnType>;
  /** ns per unit of an integer time value. */
  timeFactor: bigint;
}

/**
 * The batch being built, as the bytes of its body: a row is begun, written piece by piece (bytes
 * copied from the input, ASCII text, integers as digits) and ended or cancelled. Writing into one
 * buffer instead of joining a string per line took the garbage collector's quarter of the CSV
 * conversion away (bench/RESULTS.md, "sundial import", 2026-11-29 evening).
 */
export class LpBatcher {
  #seq = 0;
  #buf: Buffer;
  #pos = 0;
  #rowStart = 0;
  #lineOf: number[] = [];
  #rows = 0;
  #rejected: Rejection[] = [];

  constructor(
    readonly batchLines: number,
    readonly maxBytes: number,
  ) {
    this.#buf = Buffer.allocUnsafe(Math.min(maxBytes, 1 << 20));
  }

  #room(n: number): void {
    if (this.#pos + n <= this.#buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.#buf.length * 2, this.#pos + n + 1024));
    this.#buf.copy(grown, 0, 0, this.#pos);
    this.#buf = grown;
  }

  /** Starts a row. */
  begin(): void {
    this.#rowStart = this.#pos;
  }

  /** Drops what the row being built has written. */
  cancel(): void {
    this.#pos = this.#rowStart;
  }

  /** Appends `src[start, end)`. */
  bytes(src: Uint8Array, start: number, end: number): void {
    const n = end - start;
    this.#room(n);
    const buf = this.#buf;
    let p = this.#pos;
    // Cells are short: a loop beats the call into the native copy below about 32 bytes.
    if (n < 32) for (let i = start; i < end; i++) buf[p++] = src[i]!;
    else {
      buf.set(src.subarray(start, end), p);
      p += n;
    }
    this.#pos = p;
  }

  /** Appends one byte. */
  byte(c: number): void {
    this.#room(1);
    this.#buf[this.#pos++] = c;
  }

  /** Appends text as UTF-8. */
  text(s: string): void {
    this.#room(s.length * 3);
    this.#pos += this.#buf.write(s, this.#pos, 'utf8');
  }

  /** Appends a safe integer's decimal digits. */
  int(v: number): void {
    if (v < 0) {
      this.byte(45);
      v = -v;
    }
    this.#room(16);
    const buf = this.#buf;
    let digits = 1;
    for (let x = v; x >= 10; x = Math.floor(x / 10)) digits++;
    let p = this.#pos + digits;
    this.#pos = p;
    do {
      const q = Math.floor(v / 10);
      buf[--p] = 48 + (v - q * 10);
      v = q;
    } while (v > 0);
  }

  /** Appends the string field of UTF-8 bytes `src[start, end)`: quoted, with `"` and backslashes escaped. */
  quoted(src: Uint8Array, start: number, end: number): void {
    this.#room((end - start) * 2 + 2);
    const buf = this.#buf;
    let p = this.#pos;
    buf[p++] = 34;
    for (let i = start; i < end; i++) {
      const c = src[i]!;
      if (c === 34 || c === 92) buf[p++] = 92;
      buf[p++] = c;
    }
    buf[p++] = 34;
    this.#pos = p;
  }

  /** Ends the row of input line `line` (`newlines`: line feeds inside its string fields); a full batch when this fills one. */
  end(line: number, newlines = 0): Batch | undefined {
    this.byte(10);
    this.#lineOf.push(line);
    // A string field may hold line feeds: each physical line maps back to the same input line.
    for (let k = 0; k < newlines; k++) this.#lineOf.push(line);
    this.#rows++;
    return this.#rows >= this.batchLines || this.#pos >= this.maxBytes ? this.flush() : undefined;
  }

  /** Adds the line-protocol line of input line `line`; a full batch when this fills one. */
  add(line: number, lp: string): Batch | undefined {
    this.begin();
    this.text(lp);
    let newlines = 0;
    for (let at = lp.indexOf('\n'); at >= 0; at = lp.indexOf('\n', at + 1)) newlines++;
    return this.end(line, newlines);
  }

  reject(line: number, reason: string, text: string): void {
    this.#rejected.push({ line, reason, text });
  }

  /** The batch gathered so far (possibly of rejections alone), or undefined when there is nothing. */
  flush(): Batch | undefined {
    if (this.#rows === 0 && this.#rejected.length === 0) return undefined;
    // The body keeps this buffer (the sender holds it while later batches are built): a new one follows.
    const body = this.#buf.subarray(0, this.#pos);
    const b: Batch = {
      seq: this.#seq++,
      body,
      firstLine: this.#lineOf[0] ?? this.#rejected[0]!.line,
      lineOf: this.#lineOf,
      rows: this.#rows,
      rejected: this.#rejected,
    };
    this.#buf = Buffer.allocUnsafe(
      Math.min(this.maxBytes + (1 << 16), Math.max(this.#pos + (this.#pos >> 3), 1 << 16)),
    );
    this.#pos = 0;
    this.#rowStart = 0;
    this.#lineOf = [];
    this.#rows = 0;
    this.#rejected = [];
    return b;
  }
}

/** Builds one line of line protocol from named values; the tag and field keys are escaped once. */
export class LineBuilder {
  readonly #prefix: string;
  readonly #keys = new Map<string, string>();
  /** Escaped tag values: tags repeat, and the regex test is a fifth of the conversion's time. */
  readonly #tagCache = new Map<string, string>();
  readonly #fragments = new Map<string, Map<string, string>>();

  constructor(readonly shape: TableShape) {
    this.#prefix = escapeTable(shape.table);
  }

  key(name: string): string {
    let k = this.#keys.get(name);
    if (k === undefined) this.#keys.set(name, (k = escapeKey(name)));
    return k;
  }

  tagValue(v: string): string {
    let e = this.#tagCache.get(v);
    if (e === undefined) {
      e = escapeKey(v);
      if (this.#tagCache.size < 100_000) this.#tagCache.set(v, e);
    }
    return e;
  }

  /**
   * The line of one row: `tags` as [name, value] (sorted by the caller's column order), `fields`
   * as [name, line-protocol text], the time in ns. An Error when the row cannot be a point.
   */
  line(tags: Array<[string, string]>, fields: Array<[string, string]>, time: bigint): string | Error {
    let s = this.#prefix;
    for (const [k, v] of tags) {
      const t = this.tag(k, v);
      if (t instanceof Error) return t;
      s += t;
    }
    let f = '';
    for (const [k, v] of fields) f += this.field(f, k, v);
    return this.finish(s, f, time.toString());
  }

  /** The line's start: the escaped table name. */
  get prefix(): string {
    return this.#prefix;
  }

  /** `,key=value` of a tag ('' for an empty value: a missing tag, as the server stores it). */
  tag(k: string, v: string): string | Error {
    if (v === '') return '';
    // Whole fragments are cached per column: tag values repeat, and building `,k=v` anew was a
    // quarter of the CSV conversion's own time.
    let byValue = this.#fragments.get(k);
    if (byValue === undefined) this.#fragments.set(k, (byValue = new Map()));
    const cached = byValue.get(v);
    if (cached !== undefined) return cached;
    if (v.includes('\n')) return new Error(`tag '${k}' holds a line feed`);
    const fragment = ',' + this.key(k) + '=' + escapeKey(v);
    if (byValue.size < 10_000) byValue.set(v, fragment);
    return fragment;
  }

  /** `key=text` of a field, after a comma unless it is the first (`fieldsSoFar` empty). */
  field(fieldsSoFar: string, k: string, text: string): string {
    return (fieldsSoFar === '' ? '' : ',') + this.key(k) + '=' + text;
  }

  /** The whole line from the table-and-tags part, the fields part and the time text (ns). */
  finish(head: string, fields: string, time: string): string | Error {
    if (fields === '') return new Error('no field values (every field column is empty)');
    return head + ' ' + fields + ' ' + time;
  }
}

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

/** A field's text from a JavaScript value (NDJSON, Parquet) of column type `type`. */
export function fieldOfValue(type: ColumnType, v: unknown): string | Error {
  switch (typeof v) {
    case 'string':
      return type === 'string' ? quoteString(v) : fieldText(type, v);
    case 'number':
      if (type === 'string') return quoteString(String(v));
      if (type === 'double') return Number.isFinite(v) ? String(v) : new Error(`${v} is not a finite DOUBLE`);
      if (!Number.isInteger(v))
        return new Error(
          `${v} is not a ${type === 'bigint' ? 'BIGINT' : type === 'unsigned' ? 'BIGINT UNSIGNED' : 'BOOLEAN'}`,
        );
      return fieldText(type, String(v));
    case 'bigint':
      // An Int64 column's value is in range as it is: no text check (a fifth of Parquet's time).
      if (type === 'bigint' && v >= I64_MIN && v <= I64_MAX) return v.toString() + 'i';
      return type === 'string'
        ? quoteString(String(v))
        : type === 'double'
          ? String(Number(v))
          : fieldText(type, String(v));
    case 'boolean':
      return type === 'boolean'
        ? String(v)
        : type === 'string'
          ? quoteString(String(v))
          : new Error(`${v} is not a ${type.toUpperCase()}`);
    default:
      return new Error(`${v === null ? 'null' : typeof v} is not a field value`);
  }
}
