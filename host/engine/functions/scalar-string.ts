// String functions with DataFusion 27's signatures and checks. Lengths count characters (code
// points), as Rust's chars() does, not UTF-16 units; lpad and rpad count grapheme clusters, as
// DataFusion does. DataFusion returns Int32 for lengths; this engine has no Int32, so they are
// BIGINT (the type name only shows in error messages).
//
// DataFusion types a string function's result from its argument *before* casting it: an integer,
// boolean or timestamp first argument matches the signature (anything casts to a string) and
// then fails with the internal error "The \"lpad\" function can only accept strings.", while a
// NULL argument gives a NULL result. `stringResult` reproduces that order.

import type { Scalar } from '../batch.js';
import { BOOLEAN, INT64, typeName, UTF8, type DataType } from '../types.js';
import { executionError, internalError } from '../errors.js';
import type { BoundSignature, ScalarFunction } from './function-types.js';
import { expectArgs, matchSignature, matchUniform, noMatchingSignature, rowwise } from './signature.js';

const LARGE_UTF8: DataType = { id: 'LargeUtf8' } as unknown as DataType;
const STRINGS_SHOWN = ['Utf8', 'LargeUtf8'];

function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++;
  }
  return n;
}

/** DataFusion's utf8_to_str_type: the first argument must already be a string (or NULL). */
export function requireString(name: string, t: DataType): void {
  if (t.id !== 'Utf8' && t.id !== 'Null') throw internalError(`The "${name}" function can only accept strings.`);
}

/** Maps the LargeUtf8 candidates DataFusion lists to this engine's one string type. */
const plain = (types: readonly DataType[]): DataType[] => types.map((t) => (t === LARGE_UTF8 ? UTF8 : t));

/** A function of signature `candidates` whose first argument must be a string. */
function stringFunction(name: string, candidates: readonly (readonly DataType[])[], returnType: DataType, row: (args: Scalar[]) => Scalar, checkString = true): ScalarFunction {
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

function trimChars(s: string, chars: string, left: boolean, right: boolean): string {
  const set = new Set(Array.from(chars));
  const cps = Array.from(s);
  let a = 0;
  let b = cps.length;
  if (left) while (a < b && set.has(cps[a]!)) a++;
  if (right) while (b > a && set.has(cps[b - 1]!)) b--;
  return cps.slice(a, b).join('');
}

function trimFunction(name: string, left: boolean, right: boolean): ScalarFunction {
  return stringFunction(name, [[UTF8], [UTF8, UTF8]], UTF8, (args) => trimChars(args[0] as string, args.length > 1 ? (args[1] as string) : ' ', left, right));
}

const segmenter = typeof Intl !== 'undefined' && 'Segmenter' in Intl ? new Intl.Segmenter(undefined, { granularity: 'grapheme' }) : undefined;
function graphemes(s: string): string[] {
  if (segmenter === undefined) return Array.from(s);
  return Array.from(segmenter.segment(s), (x) => x.segment);
}

/** lpad / rpad to `length` graphemes with `fill` (a space by default), truncating longer strings. */
function pad(name: 'lpad' | 'rpad'): ScalarFunction {
  const candidates = [
    [UTF8, INT64],
    [LARGE_UTF8, INT64],
    [UTF8, INT64, UTF8],
    [LARGE_UTF8, INT64, UTF8],
    [UTF8, INT64, LARGE_UTF8],
    [LARGE_UTF8, INT64, LARGE_UTF8],
  ];
  return stringFunction(name, candidates, UTF8, (args) => {
    const n = args[1] as bigint;
    if (n > 2147483647n) throw executionError(`Datafusion: Execution error: ${name} requested length ${n} too large`);
    const length = Math.max(0, Number(n));
    const s = graphemes(args[0] as string);
    if (length <= s.length) return s.slice(0, length).join('');
    const fill = graphemes(args.length > 2 ? (args[2] as string) : ' ');
    if (fill.length === 0) return s.join('');
    const extra: string[] = [];
    for (let i = 0; extra.length < length - s.length; i++) extra.push(fill[i % fill.length]!);
    return name === 'lpad' ? extra.join('') + s.join('') : s.join('') + extra.join('');
  });
}

/** concat(a, b, ...): NULL arguments are skipped; any type is shown as text. */
const concat: ScalarFunction = rowwise({
  name: 'concat',
  nullSafe: true,
  bind(argTypes) {
    if (argTypes.length === 0) throw noMatchingSignature('concat', argTypes, [], ['concat(Utf8, ..)'], 'Variadic([Utf8])');
    return { argTypes: argTypes.map(() => UTF8), returnType: UTF8 };
  },
  row: (args) => args.map((a) => (a === null ? '' : (a as string))).join(''),
});

const concatWs: ScalarFunction = rowwise({
  name: 'concat_ws',
  nullSafe: true,
  bind(argTypes) {
    if (argTypes.length === 0) throw noMatchingSignature('concat_ws', argTypes, [], ['concat_ws(Utf8, ..)'], 'Variadic([Utf8])');
    return { argTypes: argTypes.map(() => UTF8), returnType: UTF8 };
  },
  row(args) {
    if (args.length < 2) throw internalError(`concat_ws was called with ${args.length} arguments. It requires at least 2.`);
    return args[0] === null ? null : args.slice(1).filter((a) => a !== null).join(args[0] as string);
  },
});

/** substr(s, start[, count]): 1-based, characters; start may be < 1 as in PostgreSQL. */
const substr = stringFunction('substr', [[UTF8, INT64], [LARGE_UTF8, INT64], [UTF8, INT64, INT64], [LARGE_UTF8, INT64, INT64]], UTF8, (args) => {
  const cps = Array.from(args[0] as string);
  const start = Number(args[1] as bigint);
  let end = cps.length + 1;
  if (args.length > 2) {
    const count = Number(args[2] as bigint);
    if (count < 0) throw executionError(`Datafusion: Execution error: negative substring length not allowed: substr(<str>, ${start}, ${count})`);
    end = start + count;
  }
  const from = Math.max(start, 1);
  return end <= from ? '' : cps.slice(from - 1, end - 1).join('');
});

const PAIRS = [
  [UTF8, UTF8],
  [UTF8, LARGE_UTF8],
  [LARGE_UTF8, UTF8],
  [LARGE_UTF8, LARGE_UTF8],
];

const strpos = stringFunction('strpos', PAIRS, INT64, (args) => {
  const s = args[0] as string;
  const at = s.indexOf(args[1] as string);
  return at < 0 ? 0n : BigInt(codePointLength(s.slice(0, at)) + 1);
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
    const parts = d === '' ? ['', ...Array.from(s), ...(s === '' ? [] : [''])] : s.split(d);
    return parts[n - 1] ?? '';
  },
);

/**
 * Rust's str::replace: an empty pattern matches at every character boundary, the ends included
 * (replace('ab', '', 'X') is 'XaXbX', replace('', '', 'X') is 'X').
 */
function replaceAll(s: string, from: string, to: string): string {
  if (from === '') return to + Array.from(s).join(to) + (s === '' ? '' : to);
  return s.split(from).join(to);
}

/**
 * translate(s, from, to): each character of `from` becomes the one at its position in `to`, or
 * is removed past the end of `to`. A character repeated in `from` takes its last position, as in
 * DataFusion (a map built in order, later entries replacing earlier ones; PostgreSQL keeps the first).
 */
const translate = stringFunction('translate', [[UTF8, UTF8, UTF8]], UTF8, (args) => {
  const from = Array.from(args[1] as string);
  const to = Array.from(args[2] as string);
  const map = new Map<string, string | undefined>();
  from.forEach((c, i) => map.set(c, to[i]));
  let out = '';
  for (const c of args[0] as string) {
    if (!map.has(c)) out += c;
    else out += map.get(c) ?? '';
  }
  return out;
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
      if (typedFromArg && argTypes[0]!.id === 'Null') throw internalError(`The ${name} function can only accept integers.`);
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

const repeatFn = stringFunction('repeat', [[UTF8, INT64], [LARGE_UTF8, INT64]], UTF8, (args) => (args[0] as string).repeat(Math.max(0, Number(args[1] as bigint))));
const left = stringFunction('left', [[UTF8, INT64], [LARGE_UTF8, INT64]], UTF8, (args) => {
  const cps = Array.from(args[0] as string);
  const k = Number(args[1] as bigint);
  return (k < 0 ? cps.slice(0, Math.max(0, cps.length + k)) : cps.slice(0, k)).join('');
});
const right = stringFunction('right', [[UTF8, INT64], [LARGE_UTF8, INT64]], UTF8, (args) => {
  const cps = Array.from(args[0] as string);
  const k = Number(args[1] as bigint);
  return (k < 0 ? cps.slice(Math.min(cps.length, -k)) : cps.slice(Math.max(0, cps.length - k))).join('');
});

// DataFusion 27's lower, upper and initcap change ASCII letters only (Rust's to_ascii_lowercase /
// to_ascii_uppercase in string_expressions.rs; full Unicode case mapping came later): upper('straße')
// is 'STRAßE', lower('ÀB') is 'Àb'.
const asciiLower = (s: string): string => s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
const asciiUpper = (s: string): string => s.replace(/[a-z]+/g, (m) => m.toUpperCase());
/** DataFusion 27's initcap: a letter after an ASCII letter or digit is lowered, any other raised (ASCII only). */
function asciiInitcap(s: string): string {
  let out = '';
  let afterAlnum = false;
  for (const c of s) {
    out += afterAlnum ? asciiLower(c) : asciiUpper(c);
    afterAlnum = /[A-Za-z0-9]/.test(c);
  }
  return out;
}

export const STRING_FUNCTIONS: readonly ScalarFunction[] = [
  stringUnary('lower', UTF8, asciiLower),
  stringUnary('upper', UTF8, asciiUpper),
  stringUnary('character_length', INT64, (s) => BigInt(codePointLength(s))),
  stringUnary('octet_length', INT64, (s) => BigInt(new TextEncoder().encode(s).length)),
  stringUnary('bit_length', INT64, (s) => BigInt(new TextEncoder().encode(s).length * 8)),
  // ascii takes any type as its text (DataFusion coerces to Utf8): ascii(98) is ascii('98').
  rowwise({
    name: 'ascii',
    bind(argTypes) {
      matchUniform('ascii', argTypes, 1, [UTF8], STRINGS_SHOWN);
      return { argTypes: [UTF8], returnType: INT64 };
    },
    row: (args) => BigInt((args[0] as string).length === 0 ? 0 : (args[0] as string).codePointAt(0)!),
  }),
  stringUnary('reverse', UTF8, (s) => Array.from(s).reverse().join('')),
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
  stringFunction('replace', [[UTF8, UTF8, UTF8]], UTF8, (args) => replaceAll(args[0] as string, args[1] as string, args[2] as string)),
  translate,
  splitPart,
  repeatFn,
  left,
  right,
  integerToString('chr', (v) => {
    if (v === 0n) throw executionError('Datafusion: Execution error: null character not permitted.');
    if (v < 0n || v > 0x10ffffn || (v >= 0xd800n && v <= 0xdfffn)) throw executionError('Datafusion: Execution error: requested character too large for encoding.');
    return String.fromCodePoint(Number(v));
  }),
  integerToString('to_hex', (v) => BigInt.asUintN(64, v).toString(16), true),
  arrowTypeof,
  uuid,
];

export { expectArgs, noMatchingSignature };
