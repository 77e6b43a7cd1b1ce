// Field values that are numbers or booleans, and timestamps. DOUBLE uses Clinger's exact fast
// path (W. D. Clinger, "How to Read Floating Point Numbers Accurately", PLDI 1990): a significand
// below 2^53 times or divided by an exact power of ten up to 1e22 is one correctly rounded IEEE
// operation. Anything else is flagged for the host, which fills it in with Number(text), so every
// DOUBLE is bit-identical to JavaScript's parse.

import { CH_DOT, CH_MINUS, CH_PLUS, hasClass, isDigit, K_DELIMITER } from './chars';
import {
  E_BIGINT_RANGE, E_BOOLEAN, E_NUMBER, E_TIMESTAMP, E_TIMESTAMP_RANGE, E_UNSIGNED_RANGE, fail,
} from './status';

// Value types as numbered in the write batch (FORMAT.md §1).
export const T_TAG: u8 = 0;
export const T_DOUBLE: u8 = 1;
export const T_BIGINT: u8 = 2;
export const T_UNSIGNED: u8 = 3;
export const T_BOOLEAN: u8 = 4;
export const T_STRING: u8 = 5;

/** Results of the last successful parse. */
export let valueType: u8 = 0;
export let valueBits: u64 = 0;
/** The DOUBLE needs the host's correctly rounded parse of the token (valueBits is 0). */
export let valueNeedsFixup: bool = false;

/** Marks the last value as a STRING (its bytes are in fields.ts). */
export function setStringType(): void {
  valueType = T_STRING;
  valueBits = 0;
  valueNeedsFixup = false;
}

/** 1e0 .. 1e22, all exact in binary64. */
const POW10: usize = memory.data<f64>([
  1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
  1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
]);

const TWO53: u64 = 1 << 53;
const I64_MAX: u64 = 0x7fffffffffffffff;

/** First delimiter (`,` space tab `\r` `\n`) at or after `p`: the end of a bad token, for excerpts. */
export function tokenEnd(p: usize): usize {
  while (!hasClass(load<u8>(p), K_DELIMITER)) p++;
  return p;
}

// ---- decimals, read the same way by every scanner's number grammar ----

/**
 * The decimal being read: its first 19 significant digits (they fit a u64 exactly), the count of
 * all its significant digits, and the power of ten to scale the mantissa by.
 */
export let decMantissa: u64 = 0;
export let decSignificant: i32 = 0;
export let decExponent: i32 = 0;

@inline
export function beginDecimal(): void {
  decMantissa = 0;
  decSignificant = 0;
  decExponent = 0;
}

/**
 * Reads the digits at `i` into the decimal: integer digits (`fraction` false) past the 19th
 * scale it up, fraction digits within the first 19 scale it down. Returns the position after
 * them. Every caller's token ends at a byte that is not a digit (a delimiter, or the sentinel).
 */
@inline
export function readDigits(i: usize, fraction: bool): usize {
  let m = decMantissa;
  let s = decSignificant;
  let x = decExponent;
  let c = <u32>load<u8>(i);
  while (isDigit(c)) {
    if (s < 19) {
      m = m * 10 + <u64>(c - 0x30);
      if (m != 0) s++;
      if (fraction) x--;
    } else {
      s++;
      if (!fraction) x++;
    }
    c = load<u8>(++i);
  }
  decMantissa = m;
  decSignificant = s;
  decExponent = x;
  return i;
}

/**
 * Reads the exponent digits at `i` and adds their value, negated if `negative`, to the decimal's
 * exponent. Returns the position after them.
 */
@inline
export function readExponent(i: usize, negative: bool): usize {
  let v: i32 = 0;
  let c = <u32>load<u8>(i);
  while (isDigit(c)) {
    if (v < 100000) v = v * 10 + <i32>(c - 0x30); // beyond any finite double: the host decides
    c = load<u8>(++i);
  }
  decExponent += negative ? -v : v;
  return i;
}

/**
 * Parses a number field value at `p` (first byte `+`, `-` or a digit): `[+-]?digits` with suffix
 * `i` (BIGINT) or `u` (BIGINT UNSIGNED, no sign), or `[+-]?digits[.digits?]?([eE][+-]?digits)?`
 * (DOUBLE). Returns the position of the delimiter after it, or 0 (via `fail`).
 */
export function parseNumber(p: usize): usize {
  let i = p;
  let c = <u32>load<u8>(i);
  let negative = false;
  let signed = false;
  if (c == CH_MINUS) {
    negative = true;
    signed = true;
    c = load<u8>(++i);
  } else if (c == CH_PLUS) {
    signed = true;
    c = load<u8>(++i);
  }
  const digits = i;
  beginDecimal();
  i = readDigits(i, false);
  let mantissa = decMantissa;
  const significant = decSignificant;
  c = load<u8>(i);
  if (i == digits) return fail(E_NUMBER, p, tokenEnd(p) - p);

  if (c == 0x69 /* i */) {
    if (!hasClass(load<u8>(i + 1), K_DELIMITER)) return fail(E_NUMBER, p, tokenEnd(p) - p);
    // 19 digits are below 1e19 < 2^64; 20 or more exceed 2^63.
    const limit: u64 = negative ? I64_MAX + 1 : I64_MAX;
    if (significant > 19 || mantissa > limit) return fail(E_BIGINT_RANGE, p, i + 1 - p);
    valueType = T_BIGINT;
    valueBits = negative ? 0 - mantissa : mantissa;
    valueNeedsFixup = false;
    return i + 1;
  }
  if (c == 0x75 /* u */) {
    if (!hasClass(load<u8>(i + 1), K_DELIMITER)) return fail(E_NUMBER, p, tokenEnd(p) - p);
    if (signed) return fail(E_UNSIGNED_RANGE, p, i + 1 - p);
    if (significant > 19) {
      const exact = parseU64(digits, i);
      if (exact == 0) return fail(E_UNSIGNED_RANGE, p, i + 1 - p);
      mantissa = exact;
    }
    valueType = T_UNSIGNED;
    valueBits = mantissa;
    valueNeedsFixup = false;
    return i + 1;
  }

  if (c == CH_DOT) {
    i = readDigits(i + 1, true);
    c = load<u8>(i);
  }
  if ((c | 0x20) == 0x65 /* e or E */) {
    c = load<u8>(++i);
    let expNegative = false;
    if (c == CH_MINUS) {
      expNegative = true;
      c = load<u8>(++i);
    } else if (c == CH_PLUS) {
      c = load<u8>(++i);
    }
    if (!isDigit(c)) return fail(E_NUMBER, p, tokenEnd(p) - p);
    i = readExponent(i, expNegative);
    c = load<u8>(i);
  }
  if (!hasClass(c, K_DELIMITER)) return fail(E_NUMBER, p, tokenEnd(p) - p);

  valueType = T_DOUBLE;
  valueNeedsFixup = !exactDecimal(decMantissa, decSignificant, decExponent, negative);
  valueBits = decimalBits;
  return i;
}

/** The bits of the last exactDecimal that returned true (0 after a false). */
export let decimalBits: u64 = 0;

/**
 * The DOUBLE of the decimal `mantissa` (its first 19 significant digits; `significant` counts
 * them all) times 10^`exponent`, negated if `negative`, when Clinger's fast path decides it
 * exactly: true with `decimalBits` set. False leaves it to the host's Number(text) (a fixup).
 * Shared by every scanner that reads numbers (line protocol, OpenTSDB text, JSON logs).
 */
@inline
export function exactDecimal(mantissa: u64, significant: i32, exponent: i32, negative: bool): bool {
  if (mantissa == 0 && significant == 0) {
    decimalBits = negative ? 0x8000000000000000 : 0;
    return true;
  }
  if (significant <= 19 && mantissa <= TWO53 && exponent >= -22 && exponent <= 22) {
    let v = <f64>mantissa;
    if (exponent >= 0) v *= load<f64>(POW10 + (<usize>exponent << 3));
    else v /= load<f64>(POW10 + (<usize>-exponent << 3));
    decimalBits = reinterpret<u64>(negative ? -v : v);
    return true;
  }
  decimalBits = 0;
  return false;
}

/** Exact u64 value of the digits `[p, e)`, or 0 on overflow (callers only pass values >= 1e19). */
function parseU64(p: usize, e: usize): u64 {
  let v: u64 = 0;
  for (let i = p; i < e; i++) {
    const d = <u64>(load<u8>(i) - 0x30);
    if (v > (0xffffffffffffffff - d) / 10) return 0;
    v = v * 10 + d;
  }
  return v;
}

/**
 * Parses a boolean field value at `p`: exactly t T true True TRUE f F false False FALSE,
 * followed by a delimiter. Returns the position of that delimiter, or 0.
 */
export function parseBoolean(p: usize): usize {
  const e = tokenEnd(p);
  const n = e - p;
  const c = <u32>load<u8>(p);
  let ok = false;
  let value: u64 = 0;
  if (n == 1) {
    ok = true;
    value = (c | 0x20) == 0x74 ? 1 : 0;
  } else if (n == 4) {
    const w = load<u32>(p);
    ok = w == 0x65757274 /* true */ || w == 0x65757254 /* True */ || w == 0x45555254; /* TRUE */
    value = 1;
  } else if (n == 5) {
    const w = load<u32>(p);
    const last = <u32>load<u8>(p + 4);
    ok =
      (w == 0x736c6166 /* fals */ && last == 0x65) ||
      (w == 0x736c6146 /* Fals */ && last == 0x65) ||
      (w == 0x534c4146 /* FALS */ && last == 0x45);
    value = 0;
  }
  if (!ok) return fail(E_BOOLEAN, p, n);
  valueType = T_BOOLEAN;
  valueBits = value;
  valueNeedsFixup = false;
  return e;
}

/** The timestamp parsed last. */
export let timestamp: i64 = 0;

/**
 * Parses a timestamp at `p`: `-?digits` in the i64 range, followed by space, tab, `\r` or `\n`.
 * Returns the position after it, or 0.
 */
export function parseTimestamp(p: usize): usize {
  let i = p;
  let c = <u32>load<u8>(i);
  const negative = c == CH_MINUS;
  if (negative) c = load<u8>(++i);
  const digits = i;
  let v: u64 = 0;
  let significant: i32 = 0;
  while (isDigit(c)) {
    if (significant < 19) {
      v = v * 10 + <u64>(c - 0x30);
      if (v != 0) significant++;
    } else {
      significant++;
    }
    c = load<u8>(++i);
  }
  if (i == digits || !endsTimestamp(c)) {
    return fail(E_TIMESTAMP, p, timestampTokenEnd(p) - p);
  }
  if (significant > 19 || v > (negative ? I64_MAX + 1 : I64_MAX)) return fail(E_TIMESTAMP_RANGE, p, i - p);
  timestamp = negative ? <i64>(0 - v) : <i64>v;
  return i;
}

/** A timestamp ends at whitespace only (a ',' after it is part of a bad token). */
@inline
function endsTimestamp(c: u32): bool {
  return c == 0x20 || c == 0x09 || c == 0x0d || c == 0x0a;
}

function timestampTokenEnd(p: usize): usize {
  while (!endsTimestamp(load<u8>(p))) p++;
  return p;
}
