// Series keys: the canonical key (`table,tag=value,...`, FORMAT.md §1) users and batches see, and
// the id key (`<id>:<length>:<value>` per tag) storage keys series by, so that renames keep them.

import { bug } from './errors.js';

/**
 * Compares two strings by their UTF-8 bytes (the order of tags in a series key). UTF-8 byte
 * order is code point order; UTF-16 code unit order differs from it only where a surrogate
 * (a code point above U+FFFF) meets a unit in U+E000..U+FFFF, which is handled explicitly.
 */
export function compareBytes(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if (ca === cb) continue;
    const sa = ca >= 0xd800 && ca <= 0xdfff;
    const sb = cb >= 0xd800 && cb <= 0xdfff;
    if (sa !== sb) return sa ? 1 : -1;
    return ca - cb;
  }
  return a.length - b.length;
}

/** Escapes `\`, `,`, `=` and space with a backslash, as in the canonical series key. */
export function escapeKeyPart(s: string): string {
  return /[\\,= ]/.test(s) ? s.replace(/[\\,= ]/g, '\\$&') : s;
}

/** The canonical series key of a table and its tags (unsorted input is sorted here). */
export function seriesKey(table: string, tags: ReadonlyArray<readonly [string, string]>): string {
  let key = escapeKeyPart(table);
  const sorted = tags.length > 1 ? [...tags].sort((x, y) => compareBytes(x[0], y[0])) : tags;
  for (const [k, v] of sorted) key += ',' + escapeKeyPart(k) + '=' + escapeKeyPart(v);
  return key;
}

/**
 * A series' tag descriptors as the batch holds them (FORMAT.md §1), all ASCII: `count` times a
 * u16 column index, u16 0, u32 value length and the value's bytes, from `at` of `bytes`. Lets a
 * reader build what it needs from the tags without decoding them into strings first.
 */
export interface RawTags {
  readonly bytes: Uint8Array;
  readonly dv: DataView;
  readonly at: number;
  readonly count: number;
}

/** What batchSeriesIdKey reads of a write batch's series (write-batch.ts BatchSeries). */
export interface BatchSeriesTags {
  /** [batch column index, value], by increasing column name. */
  readonly tags: ReadonlyArray<readonly [number, string]>;
  readonly rawTags?: RawTags | undefined;
}

/** [tag column id, value], sorted by id. */
export type SeriesTags = ReadonlyArray<readonly [number, string]>;

/**
 * The internal identity of a series within its table: its tags by column id, length-prefixed so
 * that the encoding is injective whatever the values hold. Independent of tag names, so a tag
 * rename keeps every series.
 */
export function seriesIdKey(tags: SeriesTags): string {
  let key = '';
  for (const [id, v] of tags) key += id + ':' + v.length + ':' + v;
  return key;
}

/** The tags of a seriesIdKey (its inverse): the memtable keeps only the key of a series. */
export function parseSeriesIdKey(key: string): Array<[number, string]> {
  const tags: Array<[number, string]> = [];
  let i = 0;
  while (i < key.length) {
    const a = key.indexOf(':', i);
    const b = key.indexOf(':', a + 1);
    if (a < 0 || b < 0) throw bug(`malformed series key '${key}'`);
    const len = Number(key.slice(a + 1, b));
    tags.push([Number(key.slice(i, a)), key.slice(b + 1, b + 1 + len)]);
    i = b + 1 + len;
  }
  return tags;
}

/**
 * seriesIdKey of a write batch series' tags ([batch column, value] in name order) under the
 * column ids `ids`: from the encoded tags when they are ASCII (rawIdKey), else without building
 * the sorted tag list when the ids already increase in name order (the catalog creates a table's
 * new tags in name order, so they usually do).
 */
export function batchSeriesIdKey(series: BatchSeriesTags, ids: ArrayLike<number>): string {
  const raw = series.rawTags;
  if (raw !== undefined) {
    const key = rawIdKey(raw, ids);
    if (key !== undefined) return key;
  }
  const tags = series.tags;
  let prev = -1;
  for (let i = 0; i < tags.length; i++) {
    const id = ids[tags[i]![0]]!;
    if (id <= prev) {
      const sorted: Array<[number, string]> = tags.map(([ci, v]) => [ids[ci]!, v]);
      sorted.sort((x, y) => x[0] - y[0]);
      return seriesIdKey(sorted);
    }
    prev = id;
  }
  // A reused scratch (a fresh array grown to 27 parts was half a kilobyte a span); join makes a
  // flat string at once, where a key built by += is a rope the map must flatten first.
  const parts = KEY_PARTS;
  let p = 0;
  for (let i = 0; i < tags.length; i++) {
    const [ci, v] = tags[i]!;
    parts[p++] = numberColon(ids[ci]!);
    parts[p++] = numberColon(v.length);
    parts[p++] = v;
  }
  parts.length = p;
  return parts.join('');
}

const KEY_PARTS: string[] = [];

/** Where rawIdKey writes a key before decoding it (kept; grown for a longer key). */
let keyScratch = new Uint8Array(1024);
const asciiDecoder = new TextDecoder();

/**
 * seriesIdKey straight from a batch's ASCII tag bytes: the key's bytes are written into a
 * scratch buffer and decoded once, so a new series costs one string where the decoded tags cost
 * a string, a pair and a key part per tag (a span has nine tags; that was a third of the bytes
 * the memtable allocated for spans). Undefined when the ids do not increase in name order.
 */
function rawIdKey(raw: RawTags, ids: ArrayLike<number>): string | undefined {
  const { bytes, dv, count } = raw;
  let size = 0;
  let prev = -1;
  for (let k = 0, pos = raw.at; k < count; k++) {
    const id = ids[dv.getUint16(pos, true)]!;
    if (id <= prev) return undefined;
    prev = id;
    const len = dv.getUint32(pos + 4, true);
    size += 22 + len; // two numbers of at most 10 digits and two colons
    pos += 8 + len;
  }
  if (keyScratch.length < size) keyScratch = new Uint8Array(Math.max(size, keyScratch.length * 2));
  const out = keyScratch;
  let p = 0;
  for (let k = 0, pos = raw.at; k < count; k++) {
    const len = dv.getUint32(pos + 4, true);
    p = writeDecimal(out, p, ids[dv.getUint16(pos, true)]!);
    out[p++] = 58; // ':'
    p = writeDecimal(out, p, len); // ASCII: UTF-16 length = byte length
    out[p++] = 58;
    const from = pos + 8;
    if (len > 32) out.set(bytes.subarray(from, from + len), p);
    else for (let i = 0; i < len; i++) out[p + i] = bytes[from + i]!;
    p += len;
    pos = from + len;
  }
  return asciiDecoder.decode(out.subarray(0, p));
}

/** Writes the ASCII decimal digits of a non-negative integer at `p`; returns the position after them. */
export function writeDecimal(out: Uint8Array, p: number, n: number): number {
  if (n < 10) {
    out[p] = 48 + n;
    return p + 1;
  }
  let digits = 1;
  for (let x = n; x >= 10; x = Math.floor(x / 10)) digits++;
  for (let i = digits - 1, x = n; i >= 0; i--, x = Math.floor(x / 10)) out[p + i] = 48 + (x % 10);
  return p + digits;
}

/** `${n}:` for the small numbers of ids and lengths, made once (a String() per tag showed in profiles). */
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

/** A table's tag names by column id, and the reverse. */
export interface TagNaming {
  readonly names: ReadonlyMap<number, string>;
  readonly ids: ReadonlyMap<string, number>;
}

/**
 * The tags of a listed series by name, read from its id key when asked, rather than kept as a
 * Map. The series list of a table (storage series-list.ts) holds one per series of every source,
 * for as long as the sources stand: with a span a series, a Map of names and the parsed tag list
 * each held 1.2 KB of heap per span after the first query (393,216 spans: 176 -> 630 MB live).
 * This holds the key, which the segment index or memtable keeps anyway, and the table's naming,
 * shared by all.
 */
export class KeyTags implements ReadonlyMap<string, string> {
  readonly #key: string;
  readonly #naming: TagNaming;

  constructor(key: string, naming: TagNaming) {
    this.#key = key;
    this.#naming = naming;
  }

  get(name: string): string | undefined {
    const id = this.#naming.ids.get(name);
    if (id === undefined) return undefined;
    const key = this.#key;
    for (let i = 0; i < key.length; ) {
      const a = key.indexOf(':', i);
      const b = key.indexOf(':', a + 1);
      const len = Number(key.slice(a + 1, b));
      if (Number(key.slice(i, a)) === id) return key.slice(b + 1, b + 1 + len);
      i = b + 1 + len;
    }
    return undefined;
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  get size(): number {
    let n = 0;
    for (const _ of this.entries()) n++;
    return n;
  }

  /** [name, value] in the key's order (tag column ids ascending); tags without a name are left out. */
  *entries(): MapIterator<[string, string]> {
    const key = this.#key;
    for (let i = 0; i < key.length; ) {
      const a = key.indexOf(':', i);
      const b = key.indexOf(':', a + 1);
      const len = Number(key.slice(a + 1, b));
      const name = this.#naming.names.get(Number(key.slice(i, a)));
      if (name !== undefined) yield [name, key.slice(b + 1, b + 1 + len)];
      i = b + 1 + len;
    }
  }

  *keys(): MapIterator<string> {
    for (const [k] of this.entries()) yield k;
  }

  *values(): MapIterator<string> {
    for (const [, v] of this.entries()) yield v;
  }

  [Symbol.iterator](): MapIterator<[string, string]> {
    return this.entries();
  }

  forEach(fn: (value: string, key: string, map: ReadonlyMap<string, string>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
  }
}
