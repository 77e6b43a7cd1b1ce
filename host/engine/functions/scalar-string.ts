// String functions with DataFusion 27's signatures and checks. Lengths count characters (code
// points), as Rust's chars() does, not UTF-16 units; lpad and rpad count grapheme clusters, as
// DataFusion does. DataFusion returns Int32 for lengths; this engine has no Int32, so they are
// BIGINT (the type name only shows in error messages).
//
// DataFusion types a string function's result from its argument *before* casting it: an integer,
// boolean or timestamp first argument matches the signature (anything casts to a string) and
// then fails with the internal error "The \"lpad\" function can only accept strings.", while a
// NULL argument gives a NULL result. `stringResult` reproduces that order.
//
// A function that can return more than it was given sizes its result and asks the query's budget
// first (result-size.ts); none holds an array per character of its input (chunked-string.ts),
// since V8 ends the process on an array past 2^27 elements (issue 24).

import { BOOLEAN, type DataType, INT64, type Scalar, typeName, UTF8 } from '../types/index.js';
import { executionError, internalError } from '../errors.js';
import type { BoundSignature, ScalarFunction } from './function-types.js';
import type { ResultBudget } from './result-size.js';
import { ChunkedString, codePointCount, codePointOffset, unitsAt, unitsBefore, utf8Length } from './chunked-string.js';
import { graphemesUpTo } from './graphemes.js';
import {
  expectArgs,
  matchSignature,
  matchUniform,
  noMatchingSignature,
  rowwise,
  type RowwiseSpec,
} from './signature.js';

const LARGE_UTF8: DataType = { id: 'LargeUtf8' } as unknown as DataType;
const STRINGS_SHOWN = ['Utf8', 'LargeUtf8'];

/** DataFusion's utf8_to_str_type: the first argument must already be a string (or NULL). */
export function requireString(name: string, t: DataType): void {
  if (t.id !== 'Utf8' && t.id !== 'Null') throw internalError(`The "${name}" function can only accept strings.`);
}

/** Maps the LargeUtf8 candidates DataFusion lists to this engine's one string type. */
const plain = (types: readonly DataType[]): DataType[] => types.map((t) => (t === LARGE_UTF8 ? UTF8 : t));

/** A function of signature `candidates` whose first argument must be a string. */
function stringFunction(
  name: string,
  candidates: readonly (readonly DataType[])[],
  returnType: DataType,
  row: RowwiseSpec['row'],
  checkString = true,
): ScalarFunction {
  return rowwise({
    name,
    bind(argTypes) {
      const sig = plain(matchSignature(name, argTypes, candidates));
      if (checkString && argTypes.length > 0) requireString(name, argTypes[0]!);
      return { argTypes: sig, returnType };
    },
    row,
  });
}

/** One string argument (DataFusion's uniform(1, [Utf8, LargeUtf8])). */
function stringUnary(name: string, returnType: DataType, f: (s: string) => Scalar): ScalarFunction {
  return rowwise({
    name,
    bind(argTypes) {
      matchUniform(name, argTypes, 1, [UTF8], STRINGS_SHOWN);
      requireString(name, argTypes[0]!);
      return { argTypes: [UTF8], returnType };
    },
    row: (args) => f(args[0] as string),
  });
}

/** Strips the characters of `chars` from either end, walking code points (no array of them). */
function trimChars(s: string, chars: string, left: boolean, right: boolean): string {
  const set = new Set(Array.from(chars));
  let a = 0;
  let b = s.length;
  if (left) {
    while (a < b) {
      const w = unitsAt(s, a);
      if (!set.has(s.slice(a, a + w))) break;
      a += w;
    }
  }
  if (right) {
    while (b > a) {
      const w = unitsBefore(s, b);
      if (!set.has(s.slice(b - w, b))) break;
      b -= w;
    }
  }
  return s.slice(a, b);
}

function trimFunction(name: string, left: boolean, right: boolean): ScalarFunction {
  return stringFunction(name, [[UTF8], [UTF8, UTF8]], UTF8, (args) =>
    trimChars(args[0] as string, args.length > 1 ? (args[1] as string) : ' ', left, right),
  );
}

/**
 * lpad / rpad to `length` graphemes with `fill` (a space by default), truncating longer strings.
 * The padding is whole copies of `fill` and a prefix of it, built with String.repeat once its
 * size is known: a loop of one grapheme at a time held the server's thread for 16 s for
 * lpad('a', 1e8) and ended the process for 2e9 (an array past V8's largest).
 */
function pad(name: 'lpad' | 'rpad'): ScalarFunction {
  const candidates = [
    [UTF8, INT64],
    [LARGE_UTF8, INT64],
    [UTF8, INT64, UTF8],
    [LARGE_UTF8, INT64, UTF8],
    [UTF8, INT64, LARGE_UTF8],
    [LARGE_UTF8, INT64, LARGE_UTF8],
  ];
  return stringFunction(name, candidates, UTF8, (args, _ctx, _type, budget) => {
    const n = args[1] as bigint;
    if (n > 2147483647n) throw executionError(`Datafusion: Execution error: ${name} requested length ${n} too large`);
    const length = Math.max(0, Number(n));
    const text = args[0] as string;
    const have = graphemesUpTo(text, length);
    if (have.count === length) return text.slice(0, have.end);
    const fillText = args.length > 2 ? (args[2] as string) : ' ';
    const fillCount = graphemesUpTo(fillText, Infinity).count;
    if (fillCount === 0) return text;
    const missing = length - have.count;
    const whole = Math.floor(missing / fillCount);
    const restText = fillText.slice(0, graphemesUpTo(fillText, missing % fillCount).end);
    budget.string(text.length + whole * fillText.length + restText.length);
    const padding = fillText.repeat(whole) + restText;
    return name === 'lpad' ? padding + text : text + padding;
  });
}

/** concat(a, b, ...): NULL arguments are skipped; any type is shown as text. */
const concat: ScalarFunction = rowwise({
  name: 'concat',
  nullSafe: true,
  bind(argTypes) {
    if (argTypes.length === 0)
      throw noMatchingSignature('concat', argTypes, [], ['concat(Utf8, ..)'], 'Variadic([Utf8])');
    return { argTypes: argTypes.map(() => UTF8), returnType: UTF8 };
  },
  row(args, _ctx, _type, budget) {
    let units = 0;
    for (const a of args) if (a !== null) units += (a as string).length;
    budget.string(units);
    return args.map((a) => (a === null ? '' : (a as string))).join('');
  },
});

const concatWs: ScalarFunction = rowwise({
  name: 'concat_ws',
  nullSafe: true,
  bind(argTypes) {
    if (argTypes.length === 0)
      throw noMatchingSignature('concat_ws', argTypes, [], ['concat_ws(Utf8, ..)'], 'Variadic([Utf8])');
    return { argTypes: argTypes.map(() => UTF8), returnType: UTF8 };
  },
  row(args, _ctx, _type, budget) {
    if (args.length < 2)
      throw internalError(`concat_ws was called with ${args.length} arguments. It requires at least 2.`);
    if (args[0] === null) return null;
    const parts = args.slice(1).filter((a) => a !== null) as string[];
    const separator = args[0] as string;
    let units = Math.max(0, parts.length - 1) * separator.length;
    for (const p of parts) units += p.length;
    budget.string(units);
    return parts.join(separator);
  },
});

/** substr(s, start[, count]): 1-based, characters; start may be < 1 as in PostgreSQL. */
const substr = stringFunction(
  'substr',
  [
    [UTF8, INT64],
    [LARGE_UTF8, INT64],
    [UTF8, INT64, INT64],
    [LARGE_UTF8, INT64, INT64],
  ],
  UTF8,
  (args) => {
    const s = args[0] as string;
    const start = Number(args[1] as bigint);
    let end = Infinity;
    if (args.length > 2) {
      const count = Number(args[2] as bigint);
      if (count < 0)
        throw executionError(
          `Datafusion: Execution error: negative substring length not allowed: substr(<str>, ${start}, ${count})`,
        );
      end = start + count;
    }
    const from = Math.max(start, 1);
    if (end <= from) return '';
    const a = codePointOffset(s, from - 1);
    return end === Infinity ? s.slice(a) : s.slice(a, codePointOffset(s, end - from, a));
  },
);

const PAIRS = [
  [UTF8, UTF8],
  [UTF8, LARGE_UTF8],
  [LARGE_UTF8, UTF8],
  [LARGE_UTF8, LARGE_UTF8],
];

const strpos = stringFunction('strpos', PAIRS, INT64, (args) => {
  const s = args[0] as string;
  const at = s.indexOf(args[1] as string);
  return at < 0 ? 0n : BigInt(codePointCount(s.slice(0, at)) + 1);
});

const splitPart = stringFunction(
  'split_part',
  [
    [UTF8, UTF8, INT64],
    [LARGE_UTF8, UTF8, INT64],
    [UTF8, LARGE_UTF8, INT64],
    [LARGE_UTF8, LARGE_UTF8, INT64],
  ],
  UTF8,
  (args) => {
    const n = Number(args[2] as bigint);
    if (n <= 0) throw executionError('Datafusion: Execution error: field position must be greater than zero');
    const s = args[0] as string;
    const d = args[1] as string;
    // Rust's str::split: an empty delimiter splits before and after every character ('', 'a', ..., '').
    if (d === '') {
      if (n === 1) return '';
      const at = codePointOffset(s, n - 2);
      return at < s.length ? s.slice(at, at + unitsAt(s, at)) : '';
    }
    // The n-th part found by indexOf: split() made an array of every part (fatal past 2^27).
    let from = 0;
    for (let k = 1; k < n; k++) {
      const at = s.indexOf(d, from);
      if (at < 0) return '';
      from = at + d.length;
    }
    const to = s.indexOf(d, from);
    return s.slice(from, to < 0 ? s.length : to);
  },
);

/** Pieces of at most this many are built with String.replaceAll; more with ChunkedString. */
const NATIVE_REPLACE_MATCHES = 1 << 16;

/** `to` as a replacement string of String.replaceAll, which would read `$&`, `$1`, ... in it. */
const literalReplacement = (to: string): string => to.replaceAll('$', '$$$$');

/**
 * Rust's str::replace: an empty pattern matches at every character boundary, the ends included
 * (replace('ab', '', 'X') is 'XaXbX', replace('', '', 'X') is 'X'). The matches are counted
 * first, so the result's size is known before it is built. Many matches are joined in chunks:
 * split/join made an array of every piece and replaceAll kept every match (2e8 of either ended
 * the process).
 */
function replaceAll(s: string, from: string, to: string, budget: ResultBudget): string {
  if (from === '') {
    const boundaries = codePointCount(s) + 1;
    budget.string(s.length + boundaries * to.length);
    const out = new ChunkedString();
    out.append(to);
    for (let i = 0; i < s.length; ) {
      const w = unitsAt(s, i);
      out.append(s.slice(i, i + w));
      out.append(to);
      i += w;
    }
    return out.toString();
  }
  let matches = 0;
  for (let at = s.indexOf(from); at >= 0; at = s.indexOf(from, at + from.length)) matches++;
  if (matches === 0) return s;
  budget.string(s.length + matches * (to.length - from.length));
  if (matches <= NATIVE_REPLACE_MATCHES) return s.replaceAll(from, literalReplacement(to));
  const out = new ChunkedString();
  let last = 0;
  for (let at = s.indexOf(from); at >= 0; at = s.indexOf(from, at + from.length)) {
    out.append(s.slice(last, at));
    out.append(to);
    last = at + from.length;
  }
  out.append(s.slice(last));
  return out.toString();
}

/**
 * translate(s, from, to): each character of `from` becomes the one at its position in `to`, or
 * is removed past the end of `to`. A character repeated in `from` takes its last position, as in
 * DataFusion (a map built in order, later entries replacing earlier ones; PostgreSQL keeps the first).
 * The result is no longer than `s` unless a character becomes one of two UTF-16 units, so only
 * then is its bound (twice `s`) checked; runs of unchanged characters are copied as slices
 * (concatenating one character at a time exhausted the heap over 3e8 characters).
 */
const translate = stringFunction('translate', [[UTF8, UTF8, UTF8]], UTF8, (args, _ctx, _type, budget) => {
  const s = args[0] as string;
  const from = Array.from(args[1] as string);
  const to = Array.from(args[2] as string);
  const map = new Map<string, string>();
  from.forEach((c, i) => {
    map.set(c, to[i] ?? '');
  });
  if (map.size === 0 || s === '') return s;
  let grows = false;
  for (const [c, r] of map) if (r.length > c.length) grows = true;
  if (grows) budget.string(2 * s.length);
  const out = new ChunkedString();
  let last = 0;
  for (let i = 0; i < s.length; ) {
    const w = unitsAt(s, i);
    const r = map.get(w === 1 ? s[i]! : s.slice(i, i + 2));
    if (r !== undefined) {
      out.append(s.slice(last, i));
      out.append(r);
      last = i + w;
    }
    i += w;
  }
  if (last === 0) return s;
  out.append(s.slice(last));
  return out.toString();
});

/**
 * chr(code) and to_hex(n): one BIGINT argument, text out. `typedFromArg`: DataFusion types the
 * result from the argument as given (to_hex), so a NULL literal, which matches the signature,
 * then fails with the internal error "The to_hex function can only accept integers." (chr's
 * result is fixed).
 */
function integerToString(name: string, f: (v: bigint) => string, typedFromArg = false): ScalarFunction {
  return rowwise({
    name,
    bind(argTypes) {
      const sig = matchUniform(name, argTypes, 1, [INT64]);
      if (typedFromArg && argTypes[0]!.id === 'Null')
        throw internalError(`The ${name} function can only accept integers.`);
      return { argTypes: sig, returnType: UTF8 };
    },
    row: (args) => f(args[0] as bigint),
  });
}

const arrowTypeof: ScalarFunction = {
  kind: 'scalar',
  name: 'arrow_typeof',
  bind(argTypes): BoundSignature {
    expectArgs('arrow_typeof', argTypes, 1);
    return { argTypes, returnType: UTF8 };
  },
  evaluate(args, n) {
    const name = typeName(args[0]!.type);
    return { type: UTF8, length: n, values: new Array<string>(n).fill(name) };
  },
};

const uuid: ScalarFunction = {
  kind: 'scalar',
  name: 'uuid',
  volatile: true,
  bind(argTypes): BoundSignature {
    if (argTypes.length > 0) throw noMatchingSignature('uuid', argTypes, [[]]);
    return { argTypes: [], returnType: UTF8 };
  },
  evaluate(_args, n) {
    const out = new Array<string>(n);
    for (let i = 0; i < n; i++) out[i] = globalThis.crypto.randomUUID();
    return { type: UTF8, length: n, values: out };
  },
};

const repeatFn = stringFunction(
  'repeat',
  [
    [UTF8, INT64],
    [LARGE_UTF8, INT64],
  ],
  UTF8,
  (args, _ctx, _type, budget) => {
    const s = args[0] as string;
    const n = s === '' ? 0 : Math.max(0, Number(args[1] as bigint));
    budget.string(s.length * n);
    return s.repeat(n);
  },
);
const left = stringFunction(
  'left',
  [
    [UTF8, INT64],
    [LARGE_UTF8, INT64],
  ],
  UTF8,
  (args) => {
    const s = args[0] as string;
    const k = Number(args[1] as bigint);
    return s.slice(0, codePointOffset(s, k < 0 ? codePointCount(s) + k : k));
  },
);
const right = stringFunction(
  'right',
  [
    [UTF8, INT64],
    [LARGE_UTF8, INT64],
  ],
  UTF8,
  (args) => {
    const s = args[0] as string;
    const k = Number(args[1] as bigint);
    return s.slice(codePointOffset(s, k < 0 ? -k : Math.max(0, codePointCount(s) - k)));
  },
);

/** The characters of `s` in reverse order, walked from the end (no array of them). */
function reverse(s: string): string {
  const out = new ChunkedString();
  for (let i = s.length; i > 0; ) {
    const w = unitsBefore(s, i);
    out.append(s.slice(i - w, i));
    i -= w;
  }
  return out.toString();
}

/** Each match of `re` (a global RegExp) in `s` replaced by `f` of it, joined in chunks. */
function replaceRuns(s: string, re: RegExp, f: (run: string) => string): string {
  const out = new ChunkedString();
  let last = 0;
  for (const m of s.matchAll(re)) {
    out.append(s.slice(last, m.index));
    out.append(f(m[0]));
    last = m.index + m[0].length;
  }
  if (last === 0) return s;
  out.append(s.slice(last));
  return out.toString();
}

// DataFusion 27's lower, upper and initcap change ASCII letters only (Rust's to_ascii_lowercase /
// to_ascii_uppercase in string_expressions.rs; full Unicode case mapping came later): upper('straße')
// is 'STRAßE', lower('ÀB') is 'Àb'. Runs are replaced through matchAll and joined in chunks: a
// replace() callback keeps every match (2e8 runs ended the process, issue 24).
const asciiLower = (s: string): string => replaceRuns(s, /[A-Z]+/g, (m) => m.toLowerCase());
const asciiUpper = (s: string): string => replaceRuns(s, /[a-z]+/g, (m) => m.toUpperCase());
/** DataFusion 27's initcap: a letter after an ASCII letter or digit is lowered, any other raised (ASCII only). */
const asciiInitcap = (s: string): string =>
  replaceRuns(s, /[A-Za-z0-9]+/g, (run) => run[0]!.toUpperCase() + run.slice(1).toLowerCase());

export const STRING_FUNCTIONS: readonly ScalarFunction[] = [
  stringUnary('lower', UTF8, asciiLower),
  stringUnary('upper', UTF8, asciiUpper),
  stringUnary('character_length', INT64, (s) => BigInt(codePointCount(s))),
  stringUnary('octet_length', INT64, (s) => BigInt(utf8Length(s))),
  stringUnary('bit_length', INT64, (s) => BigInt(utf8Length(s) * 8)),
  // ascii takes any type as its text (DataFusion coerces to Utf8): ascii(98) is ascii('98').
  rowwise({
    name: 'ascii',
    bind(argTypes) {
      matchUniform('ascii', argTypes, 1, [UTF8], STRINGS_SHOWN);
      return { argTypes: [UTF8], returnType: INT64 };
    },
    row: (args) => BigInt((args[0] as string).length === 0 ? 0 : (args[0] as string).codePointAt(0)!),
  }),
  stringUnary('reverse', UTF8, reverse),
  stringUnary('initcap', UTF8, asciiInitcap),
  // A BOOLEAN result is not typed from the text, so any type is cast: starts_with(123, '12') is true.
  stringFunction('starts_with', PAIRS, BOOLEAN, (args) => (args[0] as string).startsWith(args[1] as string), false),
  stringFunction('ends_with', PAIRS, BOOLEAN, (args) => (args[0] as string).endsWith(args[1] as string), false),
  trimFunction('btrim', true, true),
  trimFunction('trim', true, true),
  trimFunction('ltrim', true, false),
  trimFunction('rtrim', false, true),
  pad('lpad'),
  pad('rpad'),
  concat,
  concatWs,
  substr,
  strpos,
  stringFunction('replace', [[UTF8, UTF8, UTF8]], UTF8, (args, _ctx, _type, budget) =>
    replaceAll(args[0] as string, args[1] as string, args[2] as string, budget),
  ),
  translate,
  splitPart,
  repeatFn,
  left,
  right,
  integerToString('chr', (v) => {
    if (v === 0n) throw executionError('Datafusion: Execution error: null character not permitted.');
    if (v < 0n || v > 0x10ffffn || (v >= 0xd800n && v <= 0xdfffn))
      throw executionError('Datafusion: Execution error: requested character too large for encoding.');
    return String.fromCodePoint(Number(v));
  }),
  integerToString('to_hex', (v) => BigInt.asUintN(64, v).toString(16), true),
  arrowTypeof,
  uuid,
];

export { expectArgs, noMatchingSignature };
