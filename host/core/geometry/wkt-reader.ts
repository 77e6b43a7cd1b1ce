// readWkt: WKT text -> Geometry, with the grammar and the error texts of the Rust `wkt` crate as
// CnosDB runs it (through geozero): a tokenizer that splits at whitespace, parentheses and
// commas; numbers parsed as Rust parses f64; optional z and m numbers after x and y; MULTIPOINT
// points with or without parentheses; EMPTY for any type; text after the geometry is ignored.
// Errors carry geozero's wrapper ("processing geometry `...`"), since every caller shows it so.

import type { Coord, Geometry } from './geometry.js';

/** A WKT text that is not a geometry; `message` is what CnosDB reports. */
export class WktError extends Error {
  override readonly name = 'WktError';
  /** The `wkt` crate's own words, without geozero's wrapper. */
  readonly reason: string;
  constructor(reason: string) {
    super(`processing geometry \`${reason}\``);
    this.reason = reason;
  }
}

type Token = { t: '(' } | { t: ')' } | { t: ',' } | { t: 'num'; v: number } | { t: 'word'; v: string };

// Rust's f64::from_str: decimal with optional exponent, or inf/infinity/nan in any case.
const RUST_F64 = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)$/i;
// Nesting bound: a GEOMETRYCOLLECTION may nest itself; a hostile text must not exhaust the stack.
const MAX_DEPTH = 64;

class Tokens {
  #s: string;
  #i = 0;
  #peeked: Token | null | undefined;
  constructor(s: string) {
    this.#s = s;
  }

  next(): Token | null {
    if (this.#peeked !== undefined) {
      const t = this.#peeked;
      this.#peeked = undefined;
      return t;
    }
    return this.#read();
  }

  peek(): Token | null {
    if (this.#peeked === undefined) this.#peeked = this.#read();
    return this.#peeked;
  }

  #read(): Token | null {
    const s = this.#s;
    while (this.#i < s.length && isSpace(s[this.#i]!)) this.#i++;
    if (this.#i >= s.length) return null;
    const c = s[this.#i++]!;
    if (c === '\0') return null;
    if (c === '(' || c === ')' || c === ',') return { t: c };
    if (c === '.' || c === '-' || c === '+' || (c >= '0' && c <= '9')) {
      const text = this.#untilSpace(c === '+' ? '' : c);
      if (!RUST_F64.test(text)) throw new WktError('Unable to parse input number as the desired output type');
      const lower = text.toLowerCase().replace(/^[+-]/, '');
      const sign = text.startsWith('-') ? -1 : 1;
      return { t: 'num', v: lower === 'nan' ? NaN : lower.startsWith('inf') ? sign * Infinity : Number(text) };
    }
    return { t: 'word', v: this.#untilSpace(c) };
  }

  #untilSpace(first: string): string {
    const s = this.#s;
    let out = first;
    while (this.#i < s.length) {
      const c = s[this.#i]!;
      if (c === '\0' || c === '(' || c === ')' || c === ',') break;
      this.#i++;
      if (isSpace(c)) break;
      out += c;
    }
    return out;
  }
}

const isSpace = (c: string): boolean => c === ' ' || c === '\n' || c === '\r' || c === '\t';
const isEmptyWord = (t: Token | null): boolean => t !== null && t.t === 'word' && t.v.toUpperCase() === 'EMPTY';

function coord(ts: Tokens): Coord {
  const x = ts.next();
  if (x?.t !== 'num') throw new WktError('Expected a number for the X coordinate');
  const y = ts.next();
  if (y?.t !== 'num') throw new WktError('Expected a number for the Y coordinate');
  if (ts.peek()?.t === 'num') ts.next(); // z
  if (ts.peek()?.t === 'num') ts.next(); // m
  return [x.v, y.v];
}

/** `( body )`, or EMPTY (the type's empty value). */
function withParens<T>(ts: Tokens, empty: T, body: () => T): T {
  const open = ts.next();
  if (isEmptyWord(open)) return empty;
  if (open?.t !== '(') throw new WktError('Missing open parenthesis for type');
  const result = body();
  if (ts.next()?.t !== ')') throw new WktError('Missing closing parenthesis for type');
  return result;
}

function commaMany<T>(ts: Tokens, item: () => T): T[] {
  const items = [item()];
  while (ts.peek()?.t === ',') {
    ts.next();
    items.push(item());
  }
  return items;
}

const lineBody = (ts: Tokens): Coord[] => commaMany(ts, () => coord(ts));
const ringList = (ts: Tokens): Coord[][] => commaMany(ts, () => withParens(ts, [], () => lineBody(ts)));

function pointMaybeParens(ts: Tokens): Coord | null {
  return ts.peek()?.t === '(' ? withParens<Coord | null>(ts, null, () => coord(ts)) : coord(ts);
}

function geometryAfterWord(word: string, ts: Tokens, depth: number): Geometry {
  if (depth > MAX_DEPTH) throw new WktError('Invalid WKT format');
  switch (word.toUpperCase()) {
    case 'POINT':
      return { kind: 'Point', coord: withParens<Coord | null>(ts, null, () => coord(ts)) };
    case 'LINESTRING':
    case 'LINEARRING':
      return { kind: 'LineString', coords: withParens(ts, [], () => lineBody(ts)) };
    case 'POLYGON':
      return { kind: 'Polygon', rings: withParens(ts, [], () => ringList(ts)) };
    case 'MULTIPOINT':
      return { kind: 'MultiPoint', points: withParens(ts, [], () => commaMany(ts, () => pointMaybeParens(ts))) };
    case 'MULTILINESTRING':
      return { kind: 'MultiLineString', lines: withParens(ts, [], () => ringList(ts)) };
    case 'MULTIPOLYGON':
      return {
        kind: 'MultiPolygon',
        polygons: withParens(ts, [], () => commaMany(ts, () => withParens(ts, [], () => ringList(ts)))),
      };
    case 'GEOMETRYCOLLECTION':
      return {
        kind: 'GeometryCollection',
        geometries: withParens(ts, [], () =>
          commaMany(ts, () => {
            const w = ts.next();
            if (w?.t !== 'word') throw new WktError('Expected a word in GEOMETRYCOLLECTION');
            return geometryAfterWord(w.v, ts, depth + 1);
          }),
        ),
      };
    default:
      throw new WktError('Invalid type encountered');
  }
}

/** Parses WKT, or throws WktError with the `wkt` crate's message. */
export function readWkt(text: string): Geometry {
  const ts = new Tokens(text);
  const first = ts.next();
  if (first?.t !== 'word') throw new WktError('Invalid WKT format');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the class is all of ASCII
  if (!/^[\x00-\x7f]*$/.test(first.v)) throw new WktError('Encountered non-ascii word');
  return geometryAfterWord(first.v, ts, 0);
}
