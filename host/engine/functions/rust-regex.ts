// CnosDB's regular expressions (the Rust regex crate's syntax, which DataFusion 27 uses) run on
// RE2JS, which matches in time linear in the input: JavaScript's backtracking RegExp held the
// server's only thread for minutes on `^(a+)+$` over 50,000 characters (issue 24). Patterns are
// translated, not passed through, where the two dialects differ:
// - Rust's \d, \s and \w are Unicode classes (RE2's are ASCII): \d is \p{Nd}, \s White_Space,
//   \w letters, marks, decimal digits, connector punctuation, letter numbers, the join controls
//   and the circled letters (Alphabetic's Other_Alphabetic symbols), unless (?-u) is in effect.
// - \u{..}, \uXXXX and \U escapes become \x{..}; the x flag's whitespace and # comments are
//   dropped; u and x are tracked here, i, m, s and U are RE2's own.
// - What Rust refuses is refused with its own text (backreferences, look-around, unknown
//   escapes, unclosed groups and classes, \< and \>); what only RE2 lacks (nested classes and
//   class set operations, \W or \S inside a class that also negates, the R flag, repetition
//   counts above 1000) is refused in the same form naming the construct.
// Errors carry Rust's texts (rust-regex-errors.ts).

import { RE2JS } from 're2js';
import { MAX_PIECE_UNITS, pieceSearch } from './literal-search.js';
import { fromRe2, RegexError, syntaxError, tooBig } from './rust-regex-errors.js';

export { RegexError };

/** Rust's nest limit (regex::RegexBuilder::nest_limit's default). */
const NEST_LIMIT = 250;

/**
 * The program a pattern may compile to. Matching costs up to one step per instruction per input
 * character (RE2JS falls back from its DFA to the NFA when states explode: `[a-z]{1000}` over
 * 50,000 characters took 0.5 s, 10,000 instructions of `\pL` 9 s); compiling costs memory per
 * class range copied (`\pL{1000}` holds 1.4 million). Rust's own bound is 10 MiB of compiled
 * program (CompiledTooBig); these are tighter, for a single thread that every request shares.
 */
export const MAX_PROGRAM_INSTRUCTIONS = 10_000;
/** The estimated size (instructions plus class ranges) checked before compiling. */
const MAX_ESTIMATED_SIZE = 250_000;

/** Rust's White_Space, as class content. */
const SPACE = '\\t-\\r \\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}';
/** Rust's Unicode \w (Alphabetic, M, Nd, Pc, Join_Control), as class content. */
const WORD =
  '\\p{L}\\p{M}\\p{Nd}\\p{Pc}\\p{Nl}\\x{200C}\\x{200D}\\x{24B6}-\\x{24E9}\\x{1F130}-\\x{1F149}\\x{1F150}-\\x{1F169}\\x{1F170}-\\x{1F189}';
/** Estimated class ranges, for the size estimate. */
const RANGES = { property: 700, word: 800, space: 12, digit: 70 } as const;

/** Rust's general category names, loosely matched (case, spaces, `_` and `-` ignored), to RE2's. */
const CATEGORIES: Readonly<Record<string, string>> = (() => {
  const pairs: Array<[string, string]> = [
    ['L', 'letter'],
    ['Lu', 'uppercaseletter'],
    ['Ll', 'lowercaseletter'],
    ['Lt', 'titlecaseletter'],
    ['Lm', 'modifierletter'],
    ['Lo', 'otherletter'],
    ['M', 'mark'],
    ['Mn', 'nonspacingmark'],
    ['Mc', 'spacingmark'],
    ['Me', 'enclosingmark'],
    ['N', 'number'],
    ['Nd', 'decimalnumber'],
    ['Nl', 'letternumber'],
    ['No', 'othernumber'],
    ['P', 'punctuation'],
    ['Pc', 'connectorpunctuation'],
    ['Pd', 'dashpunctuation'],
    ['Ps', 'openpunctuation'],
    ['Pe', 'closepunctuation'],
    ['Pi', 'initialpunctuation'],
    ['Pf', 'finalpunctuation'],
    ['Po', 'otherpunctuation'],
    ['S', 'symbol'],
    ['Sm', 'mathsymbol'],
    ['Sc', 'currencysymbol'],
    ['Sk', 'modifiersymbol'],
    ['So', 'othersymbol'],
    ['Z', 'separator'],
    ['Zs', 'spaceseparator'],
    ['Zl', 'lineseparator'],
    ['Zp', 'paragraphseparator'],
    ['C', 'other'],
    ['Cc', 'control'],
    ['Cf', 'format'],
    ['Co', 'privateuse'],
    ['Cs', 'surrogate'],
  ];
  const map: Record<string, string> = { any: 'Any', digit: 'Nd' };
  for (const [short, long] of pairs) {
    map[short.toLowerCase()] = short;
    map[long] = short;
  }
  return map;
})();

const isHex = (c: string): boolean => /^[0-9A-Fa-f]$/.test(c);
/** Rust's char::is_whitespace (White_Space), for the x flag. */
const isSpace = (c: string): boolean => /^[\t-\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/.test(c);

interface Frame {
  /** Offset of the group's `(`. */
  readonly open: number;
  /** The flags outside the group, restored at its `)`. */
  readonly verbose: boolean;
  readonly unicode: boolean;
  /** Estimated size so far, and of the last atom (which a quantifier repeats). */
  size: number;
  last: number;
}

/** One pass over a Rust pattern that writes its RE2 form and estimates its compiled size. */
class Translator {
  readonly #p: string;
  #i = 0;
  #out = '';
  #verbose = false;
  #unicode = true;
  readonly #frames: Frame[] = [];
  #top: Frame = { open: -1, verbose: false, unicode: true, size: 0, last: 0 };
  /**
   * Right after `(?flags)`, which is no atom: Rust refuses a quantifier there, where RE2 would
   * apply it to the atom before the group (`c(?s)?` would make `c` optional).
   */
  #afterFlags = false;

  constructor(pattern: string) {
    this.#p = pattern;
  }

  translate(): { re2: string; size: number } {
    const p = this.#p;
    while (this.#i < p.length) {
      const c = p[this.#i]!;
      if (this.#verbose && this.#skipSpace()) continue;
      if (
        this.#afterFlags &&
        (c === '*' || c === '+' || c === '?' || (c === '{' && /^\{\d/.test(p.slice(this.#i, this.#i + 2))))
      ) {
        throw syntaxError(p, this.#i, this.#i + 1, 'repetition operator missing expression');
      }
      this.#afterFlags = false;
      switch (c) {
        case '\\':
          this.#escape();
          break;
        case '[':
          this.#class();
          break;
        case '(':
          this.#group();
          break;
        case ')':
          this.#close();
          break;
        case '*':
        case '+':
        case '?':
          this.#emit(c, 1, true);
          this.#i++;
          break;
        case '{':
          this.#counted();
          break;
        case '|':
          this.#emit(c, 1, true);
          this.#i++;
          break;
        default: {
          const cp = p.codePointAt(this.#i)!;
          const ch = String.fromCodePoint(cp);
          this.#emit(ch, 1);
          this.#i += ch.length;
        }
      }
    }
    if (this.#frames.length > 0) throw syntaxError(p, this.#top.open, this.#top.open + 1, 'unclosed group');
    return { re2: this.#out, size: this.#top.size };
  }

  /** Writes `text`, an atom of estimated size `size` (or an operator that ends the atom). */
  #emit(text: string, size: number, operator = false): void {
    this.#out += text;
    this.#top.size += size;
    this.#top.last = operator ? 0 : size;
  }

  /** Skips whitespace or a # comment in x mode; false when there was none. */
  #skipSpace(): boolean {
    const p = this.#p;
    const c = p[this.#i]!;
    if (isSpace(c)) {
      this.#i++;
      return true;
    }
    if (c === '#') {
      const nl = p.indexOf('\n', this.#i);
      this.#i = nl < 0 ? p.length : nl + 1;
      return true;
    }
    return false;
  }

  /** `{m}`, `{m,}` or `{m,n}` repeats the last atom; any other `{` is left for RE2 to judge. */
  #counted(): void {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(this.#p.slice(this.#i, this.#i + 24));
    if (m === null) {
      this.#emit('{', 1);
      this.#i++;
      return;
    }
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === '' ? min + 1 : Number(m[3]);
    const k = Math.max(min, max, 1);
    this.#top.size += this.#top.last * (k - 1) + k;
    this.#top.last = 0;
    this.#out += m[0];
    this.#i += m[0].length;
  }

  #group(): void {
    const p = this.#p;
    const start = this.#i;
    if (this.#frames.length >= NEST_LIMIT)
      throw syntaxError(
        p,
        start,
        start + 1,
        `exceed the maximum number of nested parentheses/brackets (${NEST_LIMIT})`,
      );
    if (p[start + 1] !== '?') {
      this.#push(start);
      this.#out += '(';
      this.#i++;
      return;
    }
    const after = p.slice(start + 2, start + 4);
    if (after.startsWith('=') || after.startsWith('!'))
      throw syntaxError(p, start, start + 3, 'look-around, including look-ahead and look-behind, is not supported');
    if (after === '<=' || after === '<!')
      throw syntaxError(p, start, start + 4, 'look-around, including look-ahead and look-behind, is not supported');
    if (after === 'P<' || after.startsWith('<')) {
      const nameAt = start + (after === 'P<' ? 4 : 3);
      const close = p.indexOf('>', nameAt);
      if (close < 0) throw syntaxError(p, nameAt, p.length, 'unclosed capture group name');
      if (close === nameAt) throw syntaxError(p, nameAt, nameAt + 1, 'empty capture group name');
      this.#push(start);
      this.#out += `(?P<${p.slice(nameAt, close)}>`;
      this.#i = close + 1;
      return;
    }
    this.#flags(start);
  }

  /** `(?flags)` or `(?flags:`: u and x are applied here; i, m, s and U are passed to RE2. */
  #flags(start: number): void {
    const p = this.#p;
    let j = start + 2;
    let negated = false;
    let negationAt = -1;
    let re2 = '';
    let any = false;
    let verbose = this.#verbose;
    let unicode = this.#unicode;
    const seen = new Map<string, number>();
    for (;;) {
      if (j >= p.length) throw syntaxError(p, j, j, 'expected flag but got end of regex');
      const c = p[j]!;
      if (c === ')' || c === ':') break;
      if (c === '-') {
        if (negated) throw syntaxError(p, j, j + 1, 'flag negation operator repeated');
        negated = true;
        negationAt = j;
        re2 += '-';
        j++;
        continue;
      }
      if (seen.has(c)) throw syntaxError(p, j, j + 1, 'duplicate flag');
      seen.set(c, j);
      switch (c) {
        case 'i':
        case 'm':
        case 's':
        case 'U':
          re2 += c;
          break;
        case 'x':
          verbose = !negated;
          break;
        case 'u':
          unicode = !negated;
          break;
        case 'R':
          throw syntaxError(p, j, j + 1, 'CRLF mode (the R flag) is not supported by this engine');
        default:
          throw syntaxError(p, j, j + 1, 'unrecognized flag');
      }
      any = true;
      j++;
    }
    if (negated && negationAt === j - 1)
      throw syntaxError(p, negationAt, negationAt + 1, 'dangling flag negation operator');
    const end = p[j]!;
    if (end === ')' && !any) throw syntaxError(p, start + 1, start + 2, 'repetition operator missing expression');
    // RE2 refuses `(?-i)` spelled with nothing after the `-` once x and u are taken out.
    const flags = re2.endsWith('-') ? re2.slice(0, -1) : re2;
    if (end === ')') {
      if (flags !== '') this.#out += `(?${flags})`;
      this.#afterFlags = true;
      this.#verbose = verbose;
      this.#unicode = unicode;
    } else {
      this.#push(start);
      this.#out += `(?${flags}:`;
      this.#verbose = verbose;
      this.#unicode = unicode;
    }
    this.#i = j + 1;
  }

  #push(open: number): void {
    this.#frames.push(this.#top);
    this.#top = { open, verbose: this.#verbose, unicode: this.#unicode, size: 0, last: 0 };
  }

  #close(): void {
    const inner = this.#top;
    const outer = this.#frames.pop();
    if (outer === undefined) throw syntaxError(this.#p, this.#i, this.#i + 1, 'unopened group');
    this.#verbose = inner.verbose;
    this.#unicode = inner.unicode;
    this.#top = outer;
    this.#emit(')', inner.size + 2);
    this.#i++;
  }

  /** An escape outside a class. */
  #escape(): void {
    const e = this.#readEscape();
    if (e.kind === 'class') this.#emit(`[${e.negated ? '^' : ''}${e.content}]`, 1 + e.ranges);
    else this.#emit(e.text, 1);
  }

  /**
   * Reads the escape at #i and advances past it: a perl or Unicode class (its content for a
   * bracket class, negated for \S and \W), or text RE2 reads as Rust does.
   */
  #readEscape(): { kind: 'class'; content: string; negated: boolean; ranges: number } | { kind: 'text'; text: string } {
    const p = this.#p;
    const at = this.#i;
    if (at + 1 >= p.length)
      throw syntaxError(p, at, at + 1, 'incomplete escape sequence, reached end of pattern prematurely');
    const c = p[at + 1]!;
    this.#i = at + 2;
    if (c >= '0' && c <= '9') throw syntaxError(p, at, at + 2, 'backreferences are not supported');
    switch (c) {
      case 'd':
      case 'D':
        if (!this.#unicode) return { kind: 'text', text: `\\${c}` };
        return { kind: 'class', content: c === 'd' ? '\\p{Nd}' : '\\P{Nd}', negated: false, ranges: RANGES.digit };
      case 's':
      case 'S':
        if (!this.#unicode) return { kind: 'text', text: `\\${c}` };
        return { kind: 'class', content: SPACE, negated: c === 'S', ranges: RANGES.space };
      case 'w':
      case 'W':
        if (!this.#unicode) return { kind: 'text', text: `\\${c}` };
        return { kind: 'class', content: WORD, negated: c === 'W', ranges: RANGES.word };
      case 'p':
      case 'P':
        return this.#unicodeClass(at, c === 'P');
      case 'u':
      case 'U':
        return { kind: 'text', text: this.#hexEscape(at, c === 'u' ? 4 : 8) };
      case 'x':
        return { kind: 'text', text: this.#hexEscape(at, 2) };
      case 'a':
      case 'f':
      case 't':
      case 'n':
      case 'r':
      case 'v':
      case 'A':
      case 'z':
      case 'b':
      case 'B':
        return { kind: 'text', text: `\\${c}` };
      default: {
        // Rust escapes any ASCII character that is not a letter, a digit, `<` or `>`.
        const code = c.charCodeAt(0);
        if (code < 0x80 && !/[A-Za-z<>]/.test(c)) return { kind: 'text', text: `\\${c}` };
        const width = String.fromCodePoint(p.codePointAt(at + 1)!).length;
        throw syntaxError(p, at, at + 1 + width, 'unrecognized escape sequence');
      }
    }
  }

  /** \xHH, \x{H..}, \uHHHH, \u{H..}, \UHHHHHHHH, \U{H..} as RE2's \x{H..}. */
  #hexEscape(at: number, digits: number): string {
    const p = this.#p;
    let hex: string;
    if (p[this.#i] === '{') {
      const close = p.indexOf('}', this.#i);
      if (close < 0)
        throw syntaxError(p, at, p.length, 'incomplete escape sequence, reached end of pattern prematurely');
      hex = p.slice(this.#i + 1, close);
      if (hex === '') throw syntaxError(p, at, close + 1, 'hexadecimal literal empty');
      const bad = [...hex].findIndex((h) => !isHex(h));
      if (bad >= 0) throw syntaxError(p, this.#i + 1 + bad, this.#i + 2 + bad, 'invalid hexadecimal digit');
      this.#i = close + 1;
    } else {
      hex = p.slice(this.#i, this.#i + digits);
      if (hex.length < digits)
        throw syntaxError(p, at, p.length, 'incomplete escape sequence, reached end of pattern prematurely');
      const bad = [...hex].findIndex((h) => !isHex(h));
      if (bad >= 0) throw syntaxError(p, this.#i + bad, this.#i + bad + 1, 'invalid hexadecimal digit');
      this.#i += digits;
    }
    const cp = hex.length > 8 ? Infinity : parseInt(hex, 16);
    if (!(cp <= 0x10ffff) || (cp >= 0xd800 && cp <= 0xdfff))
      throw syntaxError(p, at, this.#i, 'hexadecimal literal is not a Unicode scalar value');
    return `\\x{${cp.toString(16)}}`;
  }

  /** \pX, \p{Name}, \PX, \P{Name}: general categories by any of Rust's names, scripts as RE2 names them. */
  #unicodeClass(at: number, negated: boolean): { kind: 'class'; content: string; negated: boolean; ranges: number } {
    const p = this.#p;
    let name: string;
    if (p[this.#i] === '{') {
      const close = p.indexOf('}', this.#i);
      if (close < 0)
        throw syntaxError(p, at, p.length, 'incomplete escape sequence, reached end of pattern prematurely');
      name = p.slice(this.#i + 1, close);
      this.#i = close + 1;
    } else {
      if (this.#i >= p.length)
        throw syntaxError(p, at, at + 2, 'incomplete escape sequence, reached end of pattern prematurely');
      name = String.fromCodePoint(p.codePointAt(this.#i)!);
      this.#i += name.length;
    }
    let neg = negated;
    if (name.startsWith('^')) {
      neg = !neg;
      name = name.slice(1);
    }
    // `gc=L`, `script:Greek` (Rust also takes `!=`, which is refused here as an unknown name).
    const kv = /^([^=:]*)[=:](.*)$/.exec(name);
    if (kv !== null) {
      const key = kv[1]!.toLowerCase().replace(/[\s_-]/g, '');
      if (!['gc', 'generalcategory', 'sc', 'script', 'scx', 'scriptextensions'].includes(key))
        throw syntaxError(p, at, this.#i, 'invalid Unicode character class');
      name = kv[2]!;
    }
    const re2Name = CATEGORIES[name.toLowerCase().replace(/[\s_-]/g, '')] ?? name.trim();
    if (!/^[A-Za-z_]+$/.test(re2Name)) throw syntaxError(p, at, this.#i, 'invalid Unicode character class');
    return { kind: 'class', content: `\\${neg ? 'P' : 'p'}{${re2Name}}`, negated: false, ranges: RANGES.property };
  }

  /** A bracket class `[...]`, written as RE2's (or as an alternation when it holds \W or \S). */
  #class(): void {
    const p = this.#p;
    const open = this.#i;
    this.#i++;
    let negated = false;
    if (p[this.#i] === '^') {
      negated = true;
      this.#i++;
    }
    let content = '';
    let ranges = 0;
    const negatives: string[] = [];
    let first = true;
    for (;;) {
      if (this.#i >= p.length) throw syntaxError(p, open, open + 1, 'unclosed character class');
      if (this.#verbose && this.#skipSpace()) continue;
      const c = p[this.#i]!;
      if (c === ']' && !first) {
        this.#i++;
        break;
      }
      if ((c === ']' || c === '-') && first) {
        content += `\\${c}`;
        ranges++;
        this.#i++;
        first = false;
        continue;
      }
      first = false;
      if (c === '[') {
        const posix = /^\[:\^?[a-z]+:\]/.exec(p.slice(this.#i, this.#i + 16));
        if (posix === null)
          throw syntaxError(p, this.#i, this.#i + 1, 'nested character classes are not supported by this engine');
        content += posix[0];
        ranges += 8;
        this.#i += posix[0].length;
        continue;
      }
      const two = p.slice(this.#i, this.#i + 2);
      if (two === '&&' || two === '--' || two === '~~')
        throw syntaxError(
          p,
          this.#i,
          this.#i + 2,
          `character class set operations (${two}) are not supported by this engine`,
        );
      if (c === '\\') {
        const escapeAt = this.#i;
        const e = this.#readEscape();
        if (e.kind === 'text') {
          content += e.text;
          ranges++;
        } else if (!e.negated) {
          content += e.content;
          ranges += e.ranges;
        } else if (negated) {
          throw syntaxError(
            p,
            escapeAt,
            this.#i,
            'a negated perl class (\\W, \\S) inside a negated class is not supported by this engine; name the characters to keep, e.g. [\\p{L}\\p{Nd}]',
          );
        } else {
          negatives.push(e.content);
          ranges += e.ranges;
        }
        continue;
      }
      const ch = String.fromCodePoint(p.codePointAt(this.#i)!);
      content += ch;
      ranges++;
      this.#i += ch.length;
    }
    const size = 1 + ranges;
    if (negatives.length === 0) {
      this.#emit(`[${negated ? '^' : ''}${content}]`, size);
      return;
    }
    // [\W_] is "not a word character, or _": RE2 has no class difference, so an alternation.
    const parts = negatives.map((n) => `[^${n}]`);
    if (content !== '') parts.unshift(`[${content}]`);
    this.#emit(`(?:${parts.join('|')})`, size + parts.length);
  }
}

/**
 * Compiles a CnosDB pattern with its flags as DataFusion does (`(?flags)pattern`; none when
 * `flags` is undefined or empty). Throws RegexError.
 */
export function compileRustRegex(pattern: string, flags?: string): RE2JS {
  const full = flags === undefined || flags === '' ? pattern : `(?${flags})${pattern}`;
  const { re2, size } = new Translator(full).translate();
  if (size > MAX_ESTIMATED_SIZE)
    throw tooBig(
      `the pattern would compile to about ${size} instructions and class ranges, at most ${MAX_ESTIMATED_SIZE}`,
    );
  let re: RE2JS;
  try {
    re = RE2JS.compile(re2);
  } catch (e) {
    const x = e as { error?: string; input?: string | null; message: string };
    throw fromRe2(full, x.error ?? x.message, x.input ?? null);
  }
  const instructions = re.programSize();
  if (instructions > MAX_PROGRAM_INSTRUCTIONS)
    throw tooBig(`the pattern compiles to ${instructions} instructions, at most ${MAX_PROGRAM_INSTRUCTIONS}`);
  return re;
}

/** Compiles an RE2 pattern the engine built itself (a LIKE pattern), with the same size bound. */
export function compileBuiltRegex(re2: string, flags: number): RE2JS {
  const re = RE2JS.compile(re2, flags);
  const instructions = re.programSize();
  if (instructions > MAX_PROGRAM_INSTRUCTIONS)
    throw tooBig(`the pattern compiles to ${instructions} instructions, at most ${MAX_PROGRAM_INSTRUCTIONS}`);
  return re;
}

/**
 * The longest run of literal characters every match of a CnosDB pattern contains, or undefined
 * when there is none or this conservative scan cannot tell (an alternation outside groups, a
 * case-insensitive or verbose flag, a `{` RE2 reads as a literal). Only runs outside groups and
 * classes count; a quantifier that allows zero copies takes its character off the run, and any
 * quantifier ends it ('ab+c' requires 'ab' and 'c', not 'abc').
 */
export function requiredLiteral(pattern: string, flags?: string): string | undefined {
  if (flags !== undefined && /[ix]/.test(flags)) return undefined;
  const p = pattern;
  const runs: string[] = [];
  let run = '';
  const end = (): void => {
    if (run !== '') runs.push(run);
    run = '';
  };
  const dropLast = (): void => {
    run = run.slice(0, run.length - (run.length >= 2 && (run.charCodeAt(run.length - 1) & 0xfc00) === 0xdc00 ? 2 : 1));
  };
  for (let i = 0; i < p.length; ) {
    const c = p[i]!;
    if (c === '\\') {
      const e = p[i + 1] ?? '';
      i += 2;
      if (e !== '' && e.charCodeAt(0) < 0x80 && !/[A-Za-z0-9<>]/.test(e)) {
        run += e;
        continue;
      }
      end();
      // Past the escape's argument: \x41, \u00e9, \U0001F600, \pL, or any of them in braces.
      const width = ({ x: 2, u: 4, U: 8, p: 1, P: 1 } as Record<string, number>)[e];
      if (width !== undefined) i = p[i] === '{' ? p.indexOf('}', i) + 1 || p.length : i + width;
    } else if (c === '[') {
      end();
      // Past the class: a leading ] or ^] is a member; [:name:] is one item.
      let j = i + 1;
      if (p[j] === '^') j++;
      if (p[j] === ']') j++;
      while (j < p.length && p[j] !== ']')
        j += p[j] === '\\' ? 2 : p.startsWith('[:', j) ? Math.max(2, p.indexOf(':]', j + 2) + 2 - j) : 1;
      i = j + 1;
    } else if (c === '(') {
      if (/^\(\?[a-zA-Z-]*[ix][a-zA-Z-]*[):]/.test(p.slice(i, i + 16))) return undefined;
      end();
      let depth = 0;
      let j = i;
      for (; j < p.length; j++) {
        if (p[j] === '\\') j++;
        else if (p[j] === '[') {
          j++;
          if (p[j] === '^') j++;
          if (p[j] === ']') j++;
          while (j < p.length && p[j] !== ']') j += p[j] === '\\' ? 2 : 1;
        } else if (p[j] === '(') depth++;
        else if (p[j] === ')' && --depth === 0) break;
      }
      i = j + 1;
    } else if (c === '|') return undefined;
    else if (c === '*' || c === '?') {
      dropLast();
      end();
      i++;
    } else if (c === '+') {
      end();
      i++;
    } else if (c === '{') {
      const m = /^\{(\d+)(,\d*)?\}/.exec(p.slice(i, i + 24));
      if (m === null) return undefined;
      if (Number(m[1]) === 0) dropLast();
      end();
      i += m[0].length;
    } else if (c === '.' || c === '^' || c === '$') {
      end();
      i++;
    } else {
      const w = (p.charCodeAt(i) & 0xfc00) === 0xd800 && i + 1 < p.length ? 2 : 1;
      run += p.slice(i, i + w);
      i += w;
    }
  }
  end();
  return runs.reduce<string | undefined>(
    (best, r) => (best === undefined || r.length > best.length ? r : best),
    undefined,
  );
}

/** A pattern of literal characters only (escaped punctuation included), after optional flags. */
const LITERAL_PATTERN = /^(?:\(\?([imsUu]*)\))?((?:[^\\.+*?()|[\]{}^$#\s]|\\[\\.+*?()|[\]{}^$#&\-~])*)$/;

/**
 * A test of whether a CnosDB pattern matches anywhere in a string (arrow's regexp_is_match, the
 * `~` operators). A plain literal skips the regex engine: RE2JS costs 1.4 to 2.7 us a call on
 * 40-character rows where String.includes costs 0.1 (bench:patterns), and `~* 'error'` is a
 * common case; a case-insensitive one is searched as literal-search.ts does.
 */
export function compileRustTest(pattern: string, flags?: string): (s: string) => boolean {
  const re = compileRustRegex(pattern, flags);
  const m = LITERAL_PATTERN.exec(flags === undefined || flags === '' ? pattern : `(?${flags})${pattern}`);
  if (m === null) {
    // A row without the literal every match needs is no match (most rows of a log filter).
    const needed = requiredLiteral(pattern, flags);
    return needed === undefined ? (s) => re.test(s) : (s) => s.includes(needed) && re.test(s);
  }
  const text = m[2]!.replace(/\\(.)/g, '$1');
  if (!(m[1] ?? '').includes('i') || text === '') return (s) => s.includes(text);
  if (text.length > MAX_PIECE_UNITS) return (s) => re.test(s);
  const folded = pieceSearch([text], true);
  return (s) => folded.within(s);
}
