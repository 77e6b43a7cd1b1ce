// CSV records read from the input's bytes for `sundial import` (import-csv.ts): a scanner that
// finds a record's cells as byte ranges (text made only for quoted cells, whose quotes must be
// undone), the checks that let a cell be copied into line protocol as it is, and a cache of whole
// line-protocol heads (table and tags) by the bytes of a row's tag cells. UTF-8 needs no decoding
// for this: every byte the checks look for is ASCII, and no ASCII byte occurs inside a multi-byte
// character.

const LF = 10;
const CR = 13;
const QUOTE = 34;
const MINUS = 45;
const DOT = 46;

export class CsvScanner {
  buf: Buffer = Buffer.alloc(0);
  /** Start of the unconsumed input. */
  #at = 0;
  /** Input line (1-based) of the record at #at. */
  line = 1;
  /** Cells of the last record read: byte ranges, or the text of a quoted one. */
  count = 0;
  #starts: number[] = [];
  #ends: number[] = [];
  #quoted: (string | undefined)[] = [];
  #newlines = 0;
  #textEnd = 0;
  /** Whether the last record read is an empty line (skipped, as before). */
  blank = false;
  #first = true;

  constructor(readonly delimiter: number) {}

  get length(): number {
    return this.buf.length;
  }

  pending(): number {
    return Math.max(0, this.buf.length - this.#at);
  }

  /** Adds input; the unconsumed rest moves to the start (a record never spans two buffers). */
  append(chunk: Buffer): void {
    this.buf = this.#at < this.buf.length ? Buffer.concat([this.buf.subarray(this.#at), chunk]) : chunk;
    this.#at = 0;
  }

  mark(): { at: number; line: number } {
    return { at: this.#at, line: this.line };
  }

  reset(m: { at: number; line: number }): void {
    this.#at = m.at;
    this.line = m.line;
  }

  /** Moves past the record that ends at `end` (its line feed, or the end of the input). */
  consume(end: number): void {
    this.#at = end + 1;
    this.line += this.#newlines + 1;
  }

  #push(start: number, end: number, quoted: string | undefined): void {
    const n = this.count++;
    this.#starts[n] = start;
    this.#ends[n] = end;
    this.#quoted[n] = quoted;
  }

  /**
   * Reads the record at the unconsumed start: where it ends (its line feed, or the input's end when
   * `final`), or -1 when it may go on in input not read yet. Quoted fields keep text after their
   * closing quote up to the delimiter (lenient, like Python's csv); an unterminated quote takes
   * the rest of the input; a CR before the line feed is dropped.
   */
  record(final: boolean): number {
    const buf = this.buf;
    const n = buf.length;
    const d = this.delimiter;
    this.count = 0;
    this.#newlines = 0;
    if (this.#first) {
      // A UTF-8 byte order mark, which the text decoder used to drop (its bytes may come in
      // more than one chunk).
      if (
        n - this.#at < 3 &&
        !final &&
        [0xef, 0xbb, 0xbf].slice(0, n - this.#at).every((b, k) => buf[this.#at + k] === b)
      )
        return -1;
      this.#first = false;
      if (buf[this.#at] === 0xef && buf[this.#at + 1] === 0xbb && buf[this.#at + 2] === 0xbf) this.#at += 3;
    }
    let i = this.#at;
    if (i >= n) return -1;
    for (;;) {
      if (buf[i] === QUOTE) {
        let value = '';
        let j = i + 1;
        for (;;) {
          const k = buf.indexOf(QUOTE, j);
          if (k < 0) {
            if (!final) return -1;
            value += buf.toString('utf8', j, n);
            this.#newlines += countLf(buf, j, n);
            i = n;
            break;
          }
          if (k + 1 >= n && !final) return -1;
          this.#newlines += countLf(buf, j, k);
          if (buf[k + 1] === QUOTE) {
            value += buf.toString('utf8', j, k + 1);
            j = k + 2;
            continue;
          }
          value += buf.toString('utf8', j, k);
          i = k + 1;
          break;
        }
        let stop = i;
        while (stop < n && buf[stop] !== d && buf[stop] !== LF && buf[stop] !== CR) stop++;
        if (stop > i) value += buf.toString('utf8', i, stop);
        i = stop;
        this.#push(0, 0, value);
      } else {
        let stop = i;
        while (stop < n && buf[stop] !== d && buf[stop] !== LF) stop++;
        if (stop >= n && !final) return -1;
        const end = stop > i && buf[stop - 1] === CR && buf[stop] !== d ? stop - 1 : stop;
        this.#push(i, end, undefined);
        i = stop;
      }
      if (buf[i] === CR && buf[i + 1] === LF) i++;
      if (i >= n) {
        if (!final) return -1;
        return this.#finish(n);
      }
      if (buf[i] === LF) return this.#finish(i);
      i++; // the delimiter
    }
  }

  #finish(end: number): number {
    this.#textEnd = end > this.#at && this.buf[end - 1] === CR ? end - 1 : end;
    this.blank = this.count === 1 && this.#quoted[0] === undefined && this.#starts[0] === this.#ends[0];
    return end;
  }

  isQuoted(k: number): boolean {
    return this.#quoted[k] !== undefined;
  }

  start(k: number): number {
    return this.#starts[k]!;
  }

  end(k: number): number {
    return this.#ends[k]!;
  }

  /** Cell `k` as text ('' when the record has fewer cells). */
  cell(k: number): string {
    if (k >= this.count) return '';
    return this.#quoted[k] ?? this.buf.toString('utf8', this.#starts[k]!, this.#ends[k]!);
  }

  strings(): string[] {
    return Array.from({ length: this.count }, (_, k) => this.cell(k));
  }

  /** The record's text, for a rejection. */
  text(): string {
    return this.buf.toString('utf8', this.#at, this.#textEnd);
  }
}

function countLf(buf: Buffer, from: number, to: number): number {
  let c = 0;
  for (let at = buf.indexOf(LF, from); at >= 0 && at < to; at = buf.indexOf(LF, at + 1)) c++;
  return c;
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/**
 * Whether `buf[s, e)` is an integer that line protocol takes as it is: an optional minus (not
 * when `unsigned`), digits, shorter than `maxLength` characters (longer ones are range-checked
 * on the text path).
 */
export function isInteger(buf: Uint8Array, s: number, e: number, unsigned: boolean, maxLength: number): boolean {
  if (e - s >= maxLength) return false;
  let i = s;
  if (!unsigned && buf[i] === MINUS) i++;
  if (i >= e) return false;
  for (; i < e; i++) if (!isDigit(buf[i]!)) return false;
  return true;
}

/** Whether `buf[s, e)` is a decimal the server reads as it is: `-?\d+(\.\d*)?([eE][+-]?\d+)?` (a leading or trailing point takes the text path, which adds the zero). */
export function isDecimal(buf: Uint8Array, s: number, e: number): boolean {
  let i = s;
  if (buf[i] === MINUS) i++;
  const digits = i;
  while (i < e && isDigit(buf[i]!)) i++;
  if (i === digits) return false;
  if (i < e && buf[i] === DOT) {
    i++;
    if (i === e) return false;
    while (i < e && isDigit(buf[i]!)) i++;
  }
  if (i < e && (buf[i] === 101 || buf[i] === 69)) {
    i++;
    if (i < e && (buf[i] === 43 || buf[i] === MINUS)) i++;
    const exp = i;
    while (i < e && isDigit(buf[i]!)) i++;
    if (i === exp) return false;
  }
  return i === e;
}

const I64_MAX = Buffer.from('9223372036854775807');

/** Whether `buf[s, e)` is an int64 in the text the server takes as nanoseconds: no leading zeros, at most int64's 19 digits. */
export function isNsTime(buf: Uint8Array, s: number, e: number): boolean {
  let i = s;
  if (buf[i] === MINUS) i++;
  const n = e - i;
  if (n < 1 || n > 19 || buf[i] === 48) return false;
  for (let k = i; k < e; k++) if (!isDigit(buf[k]!)) return false;
  if (n < 19) return true;
  for (let k = 0; k < 19; k++) {
    if (buf[i + k]! !== I64_MAX[k]) return buf[i + k]! < I64_MAX[k]!;
  }
  return true;
}

interface Head {
  key: Uint8Array;
  head: Buffer;
  next: Head | undefined;
}

/** Rows' heads kept at most: the TSBS file has 100, a million-series file gets its first 100,000 fast. */
const MAX_HEADS = 100_000;

/**
 * Line-protocol heads (`table,tag=value,...`) by the bytes of a row's unquoted tag cells: one hash
 * and one comparison per row instead of a string and a lookup per tag cell.
 */
export class HeadCache {
  readonly #byHash = new Map<number, Head>();
  #size = 0;

  #hash(buf: Uint8Array, scan: CsvScanner, tags: readonly number[]): number {
    let h = 0x811c9dc5;
    for (const k of tags) {
      const e = scan.end(k);
      for (let i = scan.start(k); i < e; i++) h = Math.imul(h ^ buf[i]!, 0x01000193);
      h = Math.imul(h ^ 0xff, 0x01000193);
    }
    return h >>> 0;
  }

  #matches(key: Uint8Array, buf: Uint8Array, scan: CsvScanner, tags: readonly number[]): boolean {
    let p = 0;
    for (const k of tags) {
      const e = scan.end(k);
      for (let i = scan.start(k); i < e; i++) if (key[p++] !== buf[i]) return false;
      if (key[p++] !== 0xff) return false;
    }
    return p === key.length;
  }

  find(buf: Uint8Array, scan: CsvScanner, tags: readonly number[]): Buffer | undefined {
    for (let h = this.#byHash.get(this.#hash(buf, scan, tags)); h !== undefined; h = h.next)
      if (this.#matches(h.key, buf, scan, tags)) return h.head;
    return undefined;
  }

  add(buf: Uint8Array, scan: CsvScanner, tags: readonly number[], head: Buffer): void {
    if (this.#size >= MAX_HEADS) return;
    let length = 0;
    for (const k of tags) {
      // 0xFF, never in UTF-8, separates the cells in a key: a cell holding one is not cached.
      if (buf.subarray(scan.start(k), scan.end(k)).includes(0xff)) return;
      length += scan.end(k) - scan.start(k) + 1;
    }
    const key = new Uint8Array(length);
    let p = 0;
    for (const k of tags) {
      key.set(buf.subarray(scan.start(k), scan.end(k)), p);
      p += scan.end(k) - scan.start(k);
      key[p++] = 0xff;
    }
    const hash = this.#hash(buf, scan, tags);
    this.#byHash.set(hash, { key, head, next: this.#byHash.get(hash) });
    this.#size++;
  }
}
