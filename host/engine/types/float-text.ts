// Text of a DOUBLE exactly as CnosDB 2.4 prints it, in three Rust flavours, all with the shortest
// digits that read back to the same double (JavaScript's own Number-to-string choice):
//   Arrow display / CSV (arrow-cast 42 via lexical-core 0.8): `1.0`, `0.00001`, `4000000000.0`,
//     exponent outside 1e-5 <= |x| < 1e10 as `1.0e-6`, `3.5e10`; `NaN`, `inf`, `-0.0`.
//     (lexical-write-float shared.rs: scientific when sci_exp < -5 or > 9; trim_floats off.)
//   JSON (serde_json via ryu 1.0 pretty): the same inside 1e-5 <= |x| < 1e16, else `1e16`,
//     `1.5e-7` (ryu src/pretty/mod.rs: decimal when -5 < kk <= 16).
//   Rust `{}` (DataFusion's literal names): never an exponent, `3.0` is `3`.
// arrow-rs switched its display to ryu only in 2024 (PR 5401), after the 42.0 CnosDB pins.

import { ByteSink, POW10 } from './byte-sink.js';

/** Fixed-point digits are taken from x * 10^k only while m < 2^50: then at most one k-digit
 * decimal lies within half an ulp of x and the rounding error of x * 10^k stays below 1/8, so
 * the first k that reads back is the shortest and the nearest, as the shortest algorithms pick. */
const FAST_LIMIT = 2 ** 50;

/** Scientific notation thresholds on the decimal exponent of the first significant digit. */
const ARROW_MIN_EXP = -5;
const ARROW_MAX_EXP = 9;
const JSON_MIN_EXP = -5;
const JSON_MAX_EXP = 15;
/** The double nearest 10^e for the exponents above (the same double a literal names). */
const POW10_OF: Readonly<Record<number, number>> = { [-5]: 1e-5, 10: 1e10, 16: 1e16 };

/** Rust's `{}` for f64: shortest round-trip digits, never an exponent; `3.0` is "3". */
export function formatRustF64(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const sign = x < 0 ? '-' : '';
  const { digits, sciExp } = shortestDigits(Math.abs(x));
  const point = sciExp + 1;
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** Arrow's display of a Float64 (CSV, TSV, text/table, .slt files): `1.0`, `1.0e-6`, `NaN`. */
export function formatArrowF64(x: number): string {
  const sink = new ByteSink(32);
  writeArrowF64(sink, x);
  return String.fromCharCode.apply(null, sink.buf.subarray(0, sink.pos) as unknown as number[]);
}

/** serde_json's text of a finite f64: `1.0`, `1e16`, `1.5e-7`. NaN and infinities have none. */
export function formatJsonF64(x: number): string {
  if (!Number.isFinite(x)) throw new Error(`BUG: JSON has no text for ${x}`);
  const sink = new ByteSink(32);
  writeJsonF64(sink, x);
  return String.fromCharCode.apply(null, sink.buf.subarray(0, sink.pos) as unknown as number[]);
}

/** Appends Arrow's display of `x`. */
export function writeArrowF64(sink: ByteSink, x: number): void {
  sink.reserve(32);
  if (x !== x) return sink.ascii('NaN');
  if (x === Infinity) return sink.ascii('inf');
  if (x === -Infinity) return sink.ascii('-inf');
  writeFinite(sink, x, ARROW_MIN_EXP, ARROW_MAX_EXP, true);
}

/** Appends serde_json's text of a finite `x` (the caller writes `null` for NaN and infinities). */
export function writeJsonF64(sink: ByteSink, x: number): void {
  sink.reserve(32);
  writeFinite(sink, x, JSON_MIN_EXP, JSON_MAX_EXP, false);
}

/**
 * Arrow's display of a Float32 `x` (a double holding a single): the same layout as a Float64's
 * with the shortest digits that read back to the same single (lexical-core's f32 path):
 * log(2) in Float32 shows `0.30102998`, not the double's 0.30102998018264771.
 */
export function writeArrowF32(sink: ByteSink, x: number): void {
  sink.reserve(32);
  if (x !== x) return sink.ascii('NaN');
  if (x === Infinity) return sink.ascii('inf');
  if (x === -Infinity) return sink.ascii('-inf');
  writeFinite(sink, x, ARROW_MIN_EXP, ARROW_MAX_EXP, true, shortestDigitsF32);
}

/** serde_json's text of a finite Float32 (ryu's f32 path, the f64 layout). */
export function writeJsonF32(sink: ByteSink, x: number): void {
  sink.reserve(32);
  writeFinite(sink, x, JSON_MIN_EXP, JSON_MAX_EXP, false, shortestDigitsF32);
}

/** Arrow's display of a Float32 as a string. */
export function formatArrowF32(x: number): string {
  const sink = new ByteSink(32);
  writeArrowF32(sink, x);
  return String.fromCharCode.apply(null, sink.buf.subarray(0, sink.pos) as unknown as number[]);
}

/** Rust's `{}` for f32 (DataFusion's literal names): shortest single digits, never an exponent. */
export function formatRustF32(x: number): string {
  if (Number.isNaN(x) || !Number.isFinite(x) || x === 0) return formatRustF64(x);
  const sign = x < 0 ? '-' : '';
  const { digits, sciExp } = shortestDigitsF32(Math.abs(x));
  const point = sciExp + 1;
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/**
 * The shortest significant digits of a single x > 0 that read back to it as a single: the nearest
 * decimal of 1, 2, ... 9 digits (9 always reads back), as Ryu's f32 path picks.
 */
export function shortestDigitsF32(x: number): { digits: string; sciExp: number } {
  for (let p = 1; p <= 9; p++) {
    const s = x.toExponential(p - 1);
    if (Math.fround(Number(s)) !== x) continue;
    const e = s.indexOf('e');
    const mantissa = s.slice(0, e).replace('.', '').replace(/0+$/, '');
    return { digits: mantissa === '' ? '0' : mantissa, sciExp: Number(s.slice(e + 1)) };
  }
  return shortestDigits(x);
}

function writeFinite(
  sink: ByteSink,
  x: number,
  minExp: number,
  maxExp: number,
  pointInExponent: boolean,
  digitsOf?: (x: number) => { digits: string; sciExp: number },
): void {
  const buf = sink.buf;
  if (x === 0) {
    if (1 / x < 0) buf[sink.pos++] = 45;
    buf[sink.pos++] = 48;
    buf[sink.pos++] = 46;
    buf[sink.pos++] = 48;
    return;
  }
  if (x < 0) {
    buf[sink.pos++] = 45;
    x = -x;
  }
  // 10^minExp <= x < 10^(maxExp+1) is exactly "decimal notation": the shortest digits of x start
  // at the same power of ten as x itself (both are monotonic and agree on powers of ten).
  if (digitsOf === undefined && x >= POW10_OF[minExp]! && x < POW10_OF[maxExp + 1]! && writeFixedFast(sink, x)) return;
  const { digits, sciExp } = (digitsOf ?? shortestDigits)(x);
  if (sciExp >= minExp && sciExp <= maxExp) {
    writeDecimal(sink, digits, sciExp);
    return;
  }
  // Scientific: `d.ddd` then `e` and the exponent; a single digit is `d.0e..` in lexical-core
  // (trim_floats off) and a bare `de..` in ryu.
  buf[sink.pos++] = digits.charCodeAt(0);
  if (digits.length > 1) {
    buf[sink.pos++] = 46;
    for (let i = 1; i < digits.length; i++) buf[sink.pos++] = digits.charCodeAt(i);
  } else if (pointInExponent) {
    buf[sink.pos++] = 46;
    buf[sink.pos++] = 48;
  }
  buf[sink.pos++] = 101; // 'e'
  sink.int(sciExp);
}

/**
 * `x` (> 0) in decimal notation, its first digit at the same power of ten as x (the caller
 * checked the range). Integers and one to three fraction digits are written without a string.
 * Other values take JavaScript's own text, which in this range (1e-7 <= x < 1e21) is the same
 * shortest digits in decimal notation: one native call, where trying more fraction digits here
 * cost a dozen multiplications and a toExponential() call, slow above all before V8 optimizes it.
 */
function writeFixedFast(sink: ByteSink, x: number): boolean {
  if (Number.isInteger(x)) {
    sink.int(x);
    sink.buf[sink.pos++] = 46;
    sink.buf[sink.pos++] = 48;
    return true;
  }
  // x < 1e16 (the JSON range), so x * 10^3 < 2^60: the roundTrips test stays exact for these k
  // only below FAST_LIMIT, which the loop checks.
  for (let k = 1; k <= 3; k++) {
    const p = POW10[k]!;
    if (x * p >= FAST_LIMIT) break;
    if (!roundTrips(x, k)) continue;
    const m = Math.round(x * p);
    const ip = Math.floor(x);
    sink.int(ip);
    sink.buf[sink.pos++] = 46;
    sink.padded(m - ip * p, k);
    return true;
  }
  sink.ascii(String(x));
  return true;
}

function roundTrips(x: number, k: number): boolean {
  const p = POW10[k]!;
  return Math.round(x * p) / p === x;
}

/** `digits` (no leading or trailing zeros) with its first digit at 10^sciExp, in decimal notation. */
function writeDecimal(sink: ByteSink, digits: string, sciExp: number): void {
  sink.reserve(digits.length + Math.abs(sciExp) + 4);
  const buf = sink.buf;
  let p = sink.pos;
  if (sciExp < 0) {
    buf[p++] = 48;
    buf[p++] = 46;
    for (let i = -1; i > sciExp; i--) buf[p++] = 48;
    for (let i = 0; i < digits.length; i++) buf[p++] = digits.charCodeAt(i);
  } else {
    const intLen = sciExp + 1;
    for (let i = 0; i < intLen; i++) buf[p++] = i < digits.length ? digits.charCodeAt(i) : 48;
    buf[p++] = 46;
    if (digits.length <= intLen) buf[p++] = 48;
    else for (let i = intLen; i < digits.length; i++) buf[p++] = digits.charCodeAt(i);
  }
  sink.pos = p;
}

/** The shortest round-trip significant digits of x > 0 and the power of ten of the first one. */
export function shortestDigits(x: number): { digits: string; sciExp: number } {
  // toExponential() without an argument picks the fewest digits that read back to x, the
  // nearest among those (ECMA-262 Number::toString, the same choice as Ryu and Dragonbox).
  const s = x.toExponential();
  const e = s.indexOf('e');
  const mantissa = s.slice(0, e);
  const digits = mantissa.length === 1 ? mantissa : mantissa[0] + mantissa.slice(2);
  return { digits, sciExp: Number(s.slice(e + 1)) };
}
