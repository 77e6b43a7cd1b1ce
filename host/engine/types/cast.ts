// CAST between engine types, value by value, with arrow-cast 42's rules and error texts (CnosDB
// reports them verbatim): a value that does not fit fails the statement ("Can't cast value -1234
// to type UInt64"), TRY_CAST gives NULL instead. Booleans cast to strings as "1"/"0", as arrow 42
// did (it is why CnosDB's first() of a BOOLEAN shows "1").

import type { IntervalValue, Scalar, Vector } from './batch.js';
import { getValue, isValid, vectorFrom } from './batch.js';
import { executionError, castError, datafusionNotImplemented } from '../errors.js';
import { canCast } from './coercion.js';
import { formatArrowF32, formatArrowF64, formatRustF64 } from './float-text.js';
import { timeOfDayText } from './display-text.js';
import {
  formatTimestamp,
  fromNanos,
  inI64,
  NS_PER_DAY,
  parseInterval,
  parseTimestampNanos,
  civilFromDays,
  floorDiv,
  daysFromCivil,
  timestampParseFailure,
} from './time.js';
import { typeEquals, typeName, unitNanos, type DataType } from './data-types.js';

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const U64_MAX = 2n ** 64n - 1n;

/** A double as arrow writes it (`1.0`, `1.0e-6`, `3.5e10`): the format module's text. */
export const formatFloat = formatArrowF64;

function formatInterval(v: IntervalValue): string {
  const parts: string[] = [];
  if (v.months !== 0) parts.push(`${v.months} mons`);
  if (v.days !== 0) parts.push(`${v.days} days`);
  if (v.nanos !== 0n || parts.length === 0) {
    const neg = v.nanos < 0n;
    let n = neg ? -v.nanos : v.nanos;
    const h = n / 3_600_000_000_000n;
    n %= 3_600_000_000_000n;
    const m = n / 60_000_000_000n;
    n %= 60_000_000_000n;
    const s = n / 1_000_000_000n;
    const frac = n % 1_000_000_000n;
    parts.push(`${neg ? '-' : ''}${h} hours ${m} mins ${s}.${String(frac).padStart(9, '0')} secs`);
  }
  return parts.join(' ');
}

/** Arrow's Binary -> Utf8 cast: the bytes read as UTF-8, an error when they are not. */
function binaryToText(hex: string): string {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw castError('Cannot cast binary to string: the bytes are not valid UTF-8');
  }
}

/** The text of a value as CAST(x AS STRING) gives it. */
export function scalarToString(v: Scalar, type: DataType): string {
  switch (type.id) {
    case 'Boolean':
      return v ? '1' : '0';
    case 'Float64':
      return formatFloat(v as number);
    case 'Float32':
      return formatArrowF32(v as number);
    case 'Timestamp':
      return formatTimestamp(v as bigint, type.unit);
    case 'Date32': {
      const [y, m, d] = civilFromDays(v as number);
      return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
    }
    case 'Interval':
      return formatInterval(v as IntervalValue);
    case 'Time64':
      return timeOfDayText(v as bigint);
    case 'Binary':
      return binaryToText(v as string);
    default:
      return String(v);
  }
}

const TRUE_WORDS = new Set(['t', 'tr', 'tru', 'true', 'y', 'ye', 'yes', 'on', '1']);
const FALSE_WORDS = new Set(['f', 'fa', 'fal', 'fals', 'false', 'n', 'no', 'of', 'off', '0']);
const INTEGER = /^\s*[+-]?\d+\s*$/;
const FLOAT = /^\s*[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|inf|infinity|nan)\s*$/i;

/** Casts one non-null value; throws the arrow error (or returns null when `safe`). */
export function castScalar(v: Scalar, from: DataType, to: DataType, safe = false): Scalar {
  if (v === null) return null;
  const fail = (message: string): null => {
    if (safe) return null;
    throw castError(message);
  };
  if (typeEquals(from, to)) return v;
  switch (to.id) {
    case 'Utf8':
      return scalarToString(v, from);
    case 'Int64':
    case 'UInt64': {
      const [lo, hi] = to.id === 'Int64' ? [I64_MIN, I64_MAX] : [0n, U64_MAX];
      let n: bigint;
      if (typeof v === 'bigint') n = v;
      else if (typeof v === 'boolean') n = v ? 1n : 0n;
      else if (typeof v === 'number') {
        if (!Number.isFinite(v)) return fail(`Can't cast value ${formatRustF64(v)} to type ${to.id}`);
        n = BigInt(Math.trunc(v));
      } else if (typeof v === 'string') {
        if (!INTEGER.test(v)) return fail(`Cannot cast string '${v}' to value of ${to.id} type`);
        n = BigInt(v.trim());
      } else return fail(`Unsupported CAST from ${typeName(from)} to ${typeName(to)}`);
      if (n < lo || n > hi)
        return fail(`Can't cast value ${typeof v === 'number' ? formatRustF64(v) : String(v)} to type ${to.id}`);
      return n;
    }
    case 'Float64':
    case 'Float32': {
      // A Float32 is the double rounded once to single precision (Math.fround).
      const single = to.id === 'Float32' ? Math.fround : (x: number): number => x;
      if (typeof v === 'bigint') return single(Number(v));
      if (typeof v === 'number') return single(v);
      if (typeof v === 'boolean') return v ? 1 : 0;
      if (typeof v === 'string') {
        if (!FLOAT.test(v)) return fail(`Cannot cast string '${v}' to value of ${to.id} type`);
        const t = v.trim().toLowerCase();
        return single(
          t.endsWith('inf') || t.endsWith('infinity') ? (t.startsWith('-') ? -Infinity : Infinity) : Number(t),
        );
      }
      return fail(`Unsupported CAST from ${typeName(from)} to ${to.id}`);
    }
    case 'Boolean':
      if (typeof v === 'bigint') return v !== 0n;
      if (typeof v === 'number') return v !== 0;
      if (typeof v === 'string') {
        const w = v.trim().toLowerCase();
        if (TRUE_WORDS.has(w)) return true;
        if (FALSE_WORDS.has(w)) return false;
        // arrow names the value as it compared it, ASCII letters lower-cased.
        return fail(`Cannot cast value '${v.replace(/[A-Z]/g, (c) => c.toLowerCase())}' to value of Boolean type`);
      }
      return fail(`Unsupported CAST from ${typeName(from)} to Boolean`);
    case 'Timestamp': {
      if (from.id === 'Timestamp') {
        const ns = (v as bigint) * unitNanos(from.unit);
        const out = fromNanos(ns, to.unit);
        if (!inI64(out) || (unitNanos(from.unit) > unitNanos(to.unit) && !inI64(ns)))
          return fail(`Overflow converting ${String(v)} to ${typeName(to)}`);
        return out;
      }
      if (typeof v === 'bigint') {
        if (!inI64(v)) return fail(`Can't cast value ${v} to type ${typeName(to)}`);
        return v;
      }
      if (typeof v === 'string') {
        const ns = parseTimestampNanos(v);
        if (ns === undefined) {
          if (safe) return null;
          // Arrow's parser error, not a cast error (CnosDB: "Arrow: Parser error: Error parsing ...").
          throw executionError(`Arrow: Parser error: Error parsing timestamp from '${v}': ${timestampParseFailure(v)}`);
        }
        return fromNanos(ns, to.unit);
      }
      if (from.id === 'Date32') return fromNanos(BigInt(v as number) * NS_PER_DAY, to.unit);
      return fail(`Unsupported CAST from ${typeName(from)} to ${typeName(to)}`);
    }
    case 'Date32':
      if (from.id === 'Timestamp') return Number(floorDiv((v as bigint) * unitNanos(from.unit), NS_PER_DAY));
      if (typeof v === 'bigint') return Number(v);
      if (typeof v === 'string') {
        const m = /^\s*(\d{4})-(\d{1,2})-(\d{1,2})\s*$/.exec(v);
        if (m === null) return fail(`Cannot cast string '${v}' to value of Date32 type`);
        return daysFromCivil(Number(m[1]), Number(m[2]), Number(m[3]));
      }
      return fail(`Unsupported CAST from ${typeName(from)} to Date32`);
    case 'Interval':
      if (typeof v === 'string') {
        const iv = parseInterval(v);
        if (iv === undefined) return fail(`Cannot cast string '${v}' to value of Interval(MonthDayNano) type`);
        return iv;
      }
      return fail(`Unsupported CAST from ${typeName(from)} to Interval(MonthDayNano)`);
    case 'Time64':
      if (typeof v === 'string') {
        // HH:MM[:SS[.fraction]], as arrow parses a time of day.
        const m = /^\s*(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?\s*$/.exec(v);
        if (m === null || Number(m[1]) > 23 || Number(m[2]) > 59 || Number(m[3] ?? 0) > 59)
          return fail(`Cannot cast string '${v}' to value of Time64(Nanosecond) type`);
        return (
          BigInt(Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3] ?? 0)) * 1_000_000_000n +
          BigInt((m[4] ?? '').padEnd(9, '0'))
        );
      }
      return fail(`Unsupported CAST from ${typeName(from)} to Time64(Nanosecond)`);
    default:
      return fail(`Unsupported CAST from ${typeName(from)} to ${typeName(to)}`);
  }
}

/** Throws at planning time when no CAST from `from` to `to` exists, with DataFusion's text. */
export function checkCast(from: DataType, to: DataType): void {
  if (!canCast(from, to)) throw datafusionNotImplemented(`Unsupported CAST from ${typeName(from)} to ${typeName(to)}`);
}

/** Casts a whole vector. Fast paths for the common numeric and timestamp cases. */
export function castVector(v: Vector, to: DataType, safe = false): Vector {
  const from = v.type;
  if (typeEquals(from, to)) return v;
  const n = v.length;
  if (from.id === 'Null') return vectorFrom(to, new Array<Scalar>(n).fill(null), new Uint8Array(n));
  // Reinterpretations that keep the bits: Int64 <-> Timestamp of any unit.
  if ((from.id === 'Int64' && to.id === 'Timestamp') || (from.id === 'Timestamp' && to.id === 'Int64')) {
    return { type: to, length: n, values: v.values, validity: v.validity };
  }
  if (from.id === 'Timestamp' && to.id === 'Timestamp' && unitNanos(from.unit) === unitNanos(to.unit)) {
    return { type: to, length: n, values: v.values, validity: v.validity };
  }
  // A Float32's values are doubles already: widening keeps them.
  if (from.id === 'Float32' && to.id === 'Float64')
    return { type: to, length: n, values: v.values, validity: v.validity };
  if ((from.id === 'Int64' || from.id === 'UInt64') && to.id === 'Float64') {
    // Through the two 32-bit halves, no BigInt per row: hi * 2^32 is exact and adding the low
    // half rounds once, to the double nearest the value, as Number(bigint) does.
    const src = v.values as BigInt64Array | BigUint64Array;
    const w = new Int32Array(src.buffer, src.byteOffset, n * 2);
    const out = new Float64Array(n);
    if (from.id === 'Int64') for (let i = 0; i < n; i++) out[i] = w[2 * i + 1]! * 4294967296 + (w[2 * i]! >>> 0);
    else for (let i = 0; i < n; i++) out[i] = (w[2 * i + 1]! >>> 0) * 4294967296 + (w[2 * i]! >>> 0);
    return { type: to, length: n, values: out, validity: v.validity };
  }
  const values = new Array<Scalar>(n);
  let validity: Uint8Array | undefined;
  for (let i = 0; i < n; i++) {
    if (!isValid(v, i)) {
      values[i] = null;
      continue;
    }
    const out = castScalar(getValue(v, i), from, to, safe);
    if (out === null) (validity ??= new Uint8Array(n).fill(1))[i] = 0;
    values[i] = out;
  }
  if (v.validity !== undefined) {
    validity ??= new Uint8Array(n).fill(1);
    for (let i = 0; i < n; i++) if (v.validity[i] === 0) validity[i] = 0;
  }
  return vectorFrom(to, values, validity);
}
