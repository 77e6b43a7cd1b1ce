// LIKE and ILIKE patterns as DataFusion 27 reads them: `%` is any run of characters (newlines
// too), `_` one character, and the ESCAPE character makes the next one literal. No pattern needs
// a regex engine over the whole row: the pieces between `%` are matched left to right, the first
// at the start, the last at the end and each middle one at its leftmost place (exact for pieces
// of a fixed number of characters, which these are), literals with String methods, pieces with
// `_` and ILIKE pieces with the linear search of functions/literal-search.ts. Only such a piece
// over 64 characters makes the pattern compile to RE2JS. Every path is linear in the row.
// Before, every pattern was a backtracking RegExp, and `'<300 a>' LIKE '%a%a%a%a%a%b'` held the
// server's thread for minutes (issue 24).

import { RE2JS } from 're2js';
import { executionError } from '../errors.js';
import { MAX_PIECE_UNITS, pieceSearch } from '../functions/literal-search.js';
import { compileBuiltRegex, RegexError } from '../functions/rust-regex.js';

export type LikeMatcher = (s: string) => boolean;

/** `%` and `_` in a parsed pattern; literal runs are strings. */
const ANY = 0;
const ONE = 1;
type Part = string | typeof ANY | typeof ONE;
/** A piece between two `%`: literal runs and `_`. */
type Piece = Array<string | typeof ONE>;

/** The pattern as literal runs and wildcards, runs of `%` collapsed. */
function parse(pattern: string, escapeChar: string | undefined): Part[] {
  const parts: Part[] = [];
  let literal = '';
  const chars = Array.from(pattern);
  const flush = (): void => {
    if (literal !== '') parts.push(literal);
    literal = '';
  };
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (escapeChar !== undefined && c === escapeChar && i + 1 < chars.length) literal += chars[++i]!;
    else if (c === '%') {
      flush();
      if (parts[parts.length - 1] !== ANY) parts.push(ANY);
    } else if (c === '_') {
      flush();
      parts.push(ONE);
    } else literal += c;
  }
  flush();
  return parts;
}

/** How one piece is matched: at a place, at its leftmost place, or ending at the end. */
interface PieceMatcher {
  /** End of a match starting at `at`, or -1. */
  at(s: string, at: number): number;
  /** End of the leftmost match starting at or after `from`, or -1. */
  find(s: string, from: number): number;
  /** Start of a match ending at the string's end and starting at or after `from`, or -1. */
  suffix(s: string, from: number): number;
}

function literalPiece(text: string): PieceMatcher {
  return {
    at: (s, at) => (s.startsWith(text, at) ? at + text.length : -1),
    find(s, from) {
      const at = s.indexOf(text, from);
      return at < 0 ? -1 : at + text.length;
    },
    suffix: (s, from) => (s.length - text.length >= from && s.endsWith(text) ? s.length - text.length : -1),
  };
}

const pieceUnits = (piece: Piece): number => piece.reduce<number>((n, item) => n + (item === ONE ? 1 : item.length), 0);

/**
 * Pieces between `%` matched in order: the first at the start, the last at the end, the middle
 * ones at their leftmost places in between (the leftmost place also ends first, since a piece is
 * a fixed number of characters, so it leaves the most room to the pieces after it).
 */
function piecewise(pieces: PieceMatcher[], anchoredStart: boolean, anchoredEnd: boolean): LikeMatcher {
  const first = anchoredStart ? pieces[0] : undefined;
  const last = anchoredEnd ? pieces[pieces.length - 1] : undefined;
  const middle = pieces.slice(anchoredStart ? 1 : 0, anchoredEnd ? pieces.length - 1 : pieces.length);
  return (s) => {
    let p = first === undefined ? 0 : first.at(s, 0);
    if (p < 0) return false;
    const end = last === undefined ? s.length : last.suffix(s, p);
    if (end < 0) return false;
    for (let k = 0; k < middle.length; k++) {
      p = middle[k]!.find(s, p);
      if (p < 0 || p > end) return false;
    }
    return true;
  };
}

/** The common shapes of a case-sensitive literal pattern, each one String method. */
function literalShape(parts: readonly Part[]): LikeMatcher | undefined {
  if (parts.length === 0) return (s) => s === '';
  if (parts.length === 1) {
    const p = parts[0]!;
    if (p === ANY) return () => true;
    if (typeof p === 'string') return (s) => s === p;
    return undefined;
  }
  if (parts.length === 2 && typeof parts[0] === 'string' && parts[1] === ANY) {
    const prefix = parts[0];
    return (s) => s.startsWith(prefix);
  }
  if (parts.length === 2 && parts[0] === ANY && typeof parts[1] === 'string') {
    const suffix = parts[1];
    return (s) => s.endsWith(suffix);
  }
  if (parts.length === 3 && parts[0] === ANY && typeof parts[1] === 'string' && parts[2] === ANY) {
    const inner = parts[1];
    return (s) => s.includes(inner);
  }
  return undefined;
}

/** RE2's text of a literal: its metacharacters escaped. */
const quote = (s: string): string => s.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');

/** The whole pattern as one RE2JS program (ILIKE with `_`, long ILIKE pieces). */
function regexMatcher(parts: readonly Part[], caseInsensitive: boolean): LikeMatcher {
  const re2 = parts.map((p) => (p === ANY ? '.*' : p === ONE ? '.' : quote(p))).join('');
  let re: RE2JS;
  try {
    re = compileBuiltRegex(re2, RE2JS.DOTALL | (caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0));
  } catch (e) {
    // arrow's like kernels: "Unable to build regex from LIKE pattern: {e}".
    if (e instanceof RegexError)
      throw executionError(`Arrow error: Compute error: Unable to build regex from LIKE pattern: ${e.message}`);
    throw e;
  }
  return (s) => re.testExact(s);
}

/** Compiles a LIKE pattern (ILIKE with `caseInsensitive`) to a test of whole strings. */
export function compileLike(pattern: string, escapeChar: string | undefined, caseInsensitive: boolean): LikeMatcher {
  const parts = parse(pattern, escapeChar);
  if (!caseInsensitive) {
    const shape = literalShape(parts);
    if (shape !== undefined) return shape;
  }
  const pieces: Piece[] = [[]];
  for (const p of parts) {
    if (p === ANY) pieces.push([]);
    else pieces[pieces.length - 1]!.push(p);
  }
  const anchoredStart = pieces[0]!.length > 0;
  const anchoredEnd = pieces.length === 1 || pieces[pieces.length - 1]!.length > 0;
  const kept = pieces.filter((p, i) => p.length > 0 || (i === 0 && pieces.length === 1));
  const matchers: PieceMatcher[] = [];
  for (const piece of kept) {
    const literal = piece.every((item) => typeof item === 'string') ? (piece as string[]).join('') : undefined;
    if (literal !== undefined && (!caseInsensitive || literal === '')) matchers.push(literalPiece(literal));
    else if (pieceUnits(piece) <= MAX_PIECE_UNITS)
      matchers.push(
        pieceSearch(
          piece.map((item) => (item === ONE ? null : item)),
          caseInsensitive,
        ),
      );
    else return regexMatcher(parts, caseInsensitive);
  }
  if (pieces.length === 1) {
    // No `%`: the one piece is the whole string.
    const only = matchers[0]!;
    return (s) => only.at(s, 0) === s.length;
  }
  return piecewise(matchers, anchoredStart, anchoredEnd);
}
