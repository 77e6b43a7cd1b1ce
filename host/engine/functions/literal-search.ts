// Search for one short piece of literal characters and single-character wildcards (a LIKE piece
// with `_`, an ILIKE piece, a `~*` literal). A JavaScript RegExp of such a piece is linear: it has
// no alternation and no quantifier to backtrack into, so it compares at most the piece's length
// at each position; it is used up to MAX_PIECE_UNITS, beyond which RE2JS takes the pattern. With
// the `u` flag `[\s\S]` is one character and `i` matches by Unicode simple case folding, as RE2
// and Rust do ('k' finds KELVIN SIGN). On 40-character rows this costs 0.02 to 0.05 us a row where
// RE2JS costs 1.4 to 2.7 (bench:patterns, issue 24).

/** Longest piece searched this way, in UTF-16 units (a wildcard counts one). */
export const MAX_PIECE_UNITS = 64;

/** `s` as a RegExp source matching itself literally (the `u` flag's escapes). */
const source = (s: string): string => s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');

export interface PieceSearch {
  /** End of a match starting exactly at `at`, or -1. */
  at(s: string, at: number): number;
  /** End of the leftmost match starting at or after `from`, or -1. */
  find(s: string, from: number): number;
  /** Start of a match ending at the string's end and starting at or after `from`, or -1. */
  suffix(s: string, from: number): number;
  /** Whether it occurs anywhere in `s`. */
  within(s: string): boolean;
}

/**
 * A search for `items` in order: strings are literal, null is any one character. Not empty, at
 * most MAX_PIECE_UNITS units.
 */
export function pieceSearch(items: ReadonlyArray<string | null>, caseInsensitive: boolean): PieceSearch {
  const src = items.map((item) => (item === null ? '[\\s\\S]' : source(item))).join('');
  const flags = caseInsensitive ? 'iu' : 'u';
  const sticky = new RegExp(src, `${flags}y`);
  const anywhere = new RegExp(src, `${flags}g`);
  const atEnd = new RegExp(`(?:${src})$`, `${flags}g`);
  // Without wildcards a match is as many units as the literal (simple case folding maps a
  // character to one of the same plane), so a suffix can only start there.
  const fixedUnits = items.every((item) => item !== null) ? items.join('').length : undefined;
  return {
    at(s, at) {
      sticky.lastIndex = at;
      return sticky.test(s) ? sticky.lastIndex : -1;
    },
    find(s, from) {
      anywhere.lastIndex = from;
      return anywhere.test(s) ? anywhere.lastIndex : -1;
    },
    suffix(s, from) {
      if (fixedUnits !== undefined) {
        const start = s.length - fixedUnits;
        if (start < from) return -1;
        sticky.lastIndex = start;
        return sticky.test(s) && sticky.lastIndex === s.length ? start : -1;
      }
      atEnd.lastIndex = from;
      const m = atEnd.exec(s);
      return m === null ? -1 : m.index;
    },
    within(s) {
      anywhere.lastIndex = 0;
      return anywhere.test(s);
    },
  };
}
