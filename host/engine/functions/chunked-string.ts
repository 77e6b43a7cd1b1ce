// Long strings built from many pieces, and code-point walks that need no array of characters.
// V8 ends the process when an array must grow past 2^27 elements ("Fatal JavaScript invalid
// size error 134217728": `split` of a string of 2e8 separators, `Array.from` of as many
// characters), and String.prototype.replace or replaceAll over 2e8 matches exhausted a 4 GB heap
// (measured on Node 20, issue 24). The string functions use these instead, so that a string
// within the query's memory budget never takes an array per character to process.

/** Pieces joined a few thousand at a time: no array holds more than that many pieces. */
export class ChunkedString {
  readonly #pieces: string[] = [];
  readonly #chunks: string[] = [];

  append(s: string): void {
    if (s === '') return;
    this.#pieces.push(s);
    if (this.#pieces.length === 4096) {
      this.#chunks.push(this.#pieces.join(''));
      this.#pieces.length = 0;
    }
  }

  toString(): string {
    if (this.#chunks.length === 0) return this.#pieces.join('');
    this.#chunks.push(this.#pieces.join(''));
    this.#pieces.length = 0;
    return this.#chunks.join('');
  }
}

/** UTF-16 units of the code point at `i` (2 for a surrogate pair, else 1), as Array.from splits. */
export function unitsAt(s: string, i: number): number {
  const c = s.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
}

/** UTF-16 units of the code point that ends at `end` (exclusive). */
export function unitsBefore(s: string, end: number): number {
  const c = s.charCodeAt(end - 1);
  return (c & 0xfc00) === 0xdc00 && end >= 2 && (s.charCodeAt(end - 2) & 0xfc00) === 0xd800 ? 2 : 1;
}

/** Any surrogate: without one, UTF-16 offsets are code point offsets. */
const SURROGATE = /[\ud800-\udfff]/;
/** A high surrogate, which the code point counts below skip (Rust counts the pair once). */
const HIGH_SURROGATES = /[\ud800-\udbff]/g;

/**
 * The UTF-16 offset `k` code points after `from` (the string's end when it has fewer). A
 * regex scan for surrogates first: V8 runs it about five times faster than a charCodeAt loop
 * (0.15 against 0.5 to 1.1 s over 1e8 characters on the CI machine).
 */
export function codePointOffset(s: string, k: number, from = 0): number {
  if (k <= 0) return from;
  if (!SURROGATE.test(s)) return Math.min(s.length, from + k);
  let i = from;
  for (let n = 0; n < k && i < s.length; n++) i += unitsAt(s, i);
  return i;
}

/** The code points of `s` (characters, as Rust counts them): its units less its high surrogates. */
export function codePointCount(s: string): number {
  let n = s.length;
  HIGH_SURROGATES.lastIndex = 0;
  while (HIGH_SURROGATES.exec(s) !== null) n--;
  return n;
}

/** UTF-8 bytes of `s` (a lone surrogate is written as U+FFFD, 3 bytes, as TextEncoder does). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}
