// Type coercion, after DataFusion 27's `type_coercion/binary.rs` as CnosDB runs it: which common
// type two operands of a comparison or an arithmetic operator are cast to, and which casts exist.
// Deliberate details: a number compared with a string compares as strings (DataFusion's
// string_numeric_coercion), a BOOLEAN with a string not at all (no rule of DataFusion 27 joins
// them: CnosDB's sqlancer case fails `b NOT IN (TRUE, '0')`); an integer compared with a timestamp is read in the timestamp's
// unit (CnosDB accepts `time > 3`); Int64 with UInt64 meets at Int64.

import { planError } from '../errors.js';
import { operatorText, type BinaryOperator } from './operators.js';
import {
  BOOLEAN,
  DATE32,
  FLOAT32,
  FLOAT64,
  INT64,
  INTERVAL,
  isInteger,
  isNumeric,
  typeEquals,
  typeName,
  UINT64,
  UTF8,
  type DataType,
  type TimeUnit,
} from './data-types.js';

const UNIT_RANK: Record<TimeUnit, number> = { Second: 0, Millisecond: 1, Microsecond: 2, Nanosecond: 3 };

/** The numeric type two numeric types meet at. */
export function numericCoercion(l: DataType, r: DataType): DataType | undefined {
  if (!isNumeric(l) || !isNumeric(r)) return undefined;
  if (l.id === 'Float64' || r.id === 'Float64') return FLOAT64;
  // DataFusion 27's numerical coercion: a Float32 beside any integer stays Float32.
  if (l.id === 'Float32' || r.id === 'Float32') return FLOAT32;
  if (l.id === 'Int64' || r.id === 'Int64') return INT64;
  return UINT64;
}

function temporalCoercion(l: DataType, r: DataType): DataType | undefined {
  if (l.id === 'Timestamp' && r.id === 'Timestamp') {
    // The column's unit wins over a literal's: compare in the coarser of the two units.
    const unit = UNIT_RANK[l.unit] <= UNIT_RANK[r.unit] ? l.unit : r.unit;
    const tz = l.tz ?? r.tz;
    return tz === undefined ? { id: 'Timestamp', unit } : { id: 'Timestamp', unit, tz };
  }
  if (l.id === 'Timestamp' && (r.id === 'Utf8' || isInteger(r) || r.id === 'Date32')) return l;
  if (r.id === 'Timestamp' && (l.id === 'Utf8' || isInteger(l) || l.id === 'Date32')) return r;
  if (l.id === 'Date32' && r.id === 'Utf8') return l;
  if (r.id === 'Date32' && l.id === 'Utf8') return r;
  if ((l.id === 'Time64' && r.id === 'Utf8') || (l.id === 'Time64' && r.id === 'Time64')) return l;
  if (r.id === 'Time64' && l.id === 'Utf8') return r;
  if (l.id === 'Interval' && r.id === 'Interval') return INTERVAL;
  return undefined;
}

/** The type both sides of `=`, `<`, ... (and IN lists, BETWEEN, CASE) are cast to. */
export function comparisonCoercion(l: DataType, r: DataType): DataType | undefined {
  if (typeEquals(l, r)) return l;
  if (l.id === 'Null') return r;
  if (r.id === 'Null') return l;
  return (
    numericCoercion(l, r) ??
    temporalCoercion(l, r) ??
    (l.id === 'Utf8' && isNumeric(r) ? UTF8 : undefined) ??
    (r.id === 'Utf8' && isNumeric(l) ? UTF8 : undefined)
  );
}

/** The common type of several values (CASE branches, IN lists, VALUES columns, COALESCE). */
export function commonType(types: readonly DataType[]): DataType | undefined {
  let out: DataType = { id: 'Null' };
  for (const t of types) {
    const next = comparisonCoercion(out, t);
    if (next === undefined) return undefined;
    out = next;
  }
  return out;
}

export interface BinarySignature {
  left: DataType;
  right: DataType;
  result: DataType;
}

const COMPARISON = new Set<BinaryOperator>([
  '=',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  'IS DISTINCT FROM',
  'IS NOT DISTINCT FROM',
]);
const ARITHMETIC = new Set<BinaryOperator>(['+', '-', '*', '/', '%']);
const BITWISE = new Set<BinaryOperator>(['&', '|', '^', '<<', '>>']);

/** Types the operands of a binary operator, or throws the planning error DataFusion gives. */
export function binarySignature(op: BinaryOperator, l: DataType, r: DataType): BinarySignature {
  if (COMPARISON.has(op)) {
    const t = comparisonCoercion(l, r);
    if (t === undefined)
      throw planError(`Cannot infer common argument type for comparison operation ${typeName(l)} ${op} ${typeName(r)}`);
    return { left: t, right: t, result: BOOLEAN };
  }
  if (op === 'AND' || op === 'OR') {
    const ok = (t: DataType): boolean => t.id === 'Boolean' || t.id === 'Null';
    if (!ok(l) || !ok(r))
      throw planError(
        `Cannot infer common argument type for logical boolean operation ${typeName(l)} ${op} ${typeName(r)}`,
      );
    return { left: BOOLEAN, right: BOOLEAN, result: BOOLEAN };
  }
  if (op === '||') {
    const ok = (t: DataType): boolean => t.id !== 'Struct' && t.id !== 'List';
    if (!(l.id === 'Utf8' || r.id === 'Utf8' || (l.id === 'Null' && r.id === 'Null')) || !ok(l) || !ok(r)) {
      throw planError(`Unsupported argument types. Can not evaluate ${typeName(l)} ${op} ${typeName(r)}`);
    }
    return { left: UTF8, right: UTF8, result: UTF8 };
  }
  if (op === '~' || op === '~*' || op === '!~' || op === '!~*') {
    const ok = (t: DataType): boolean => t.id === 'Utf8' || t.id === 'Null';
    if (!ok(l) || !ok(r))
      throw planError(`Unsupported argument types. Can not evaluate ${typeName(l)} ${op} ${typeName(r)}`);
    return { left: UTF8, right: UTF8, result: BOOLEAN };
  }
  if (BITWISE.has(op)) {
    // DataFusion 27's bitwise_coercion over the integers this engine has: UInt64 wins.
    const ok = (t: DataType): boolean => isInteger(t) || t.id === 'Null';
    if (!ok(l) || !ok(r))
      throw planError(`Unsupported argument types. Can not evaluate ${typeName(l)} ${operatorText(op)} ${typeName(r)}`);
    const t = l.id === 'UInt64' || r.id === 'UInt64' ? UINT64 : INT64;
    return { left: t, right: t, result: t };
  }
  if (ARITHMETIC.has(op)) {
    const sig = arithmeticSignature(op, l, r);
    if (sig === undefined)
      throw planError(`Unsupported argument types. Can not evaluate ${typeName(l)} ${op} ${typeName(r)}`);
    return sig;
  }
  throw planError(`Unsupported operator ${op}`);
}

function arithmeticSignature(op: BinaryOperator, l: DataType, r: DataType): BinarySignature | undefined {
  if (l.id === 'Null' && r.id === 'Null') return { left: INT64, right: INT64, result: INT64 };
  const ln = l.id === 'Null' ? r : l;
  const rn = r.id === 'Null' ? l : r;
  const num = numericCoercion(ln, rn);
  if (num !== undefined) return { left: num, right: num, result: num };
  // Time arithmetic: timestamp +/- interval, interval + timestamp, timestamp - timestamp.
  if (ln.id === 'Timestamp' && rn.id === 'Interval' && (op === '+' || op === '-'))
    return { left: ln, right: INTERVAL, result: ln };
  if (ln.id === 'Interval' && rn.id === 'Timestamp' && op === '+') return { left: INTERVAL, right: rn, result: rn };
  // date +/- interval, interval + date: a date (arrow's add_month_day_nano: whole days only).
  if (ln.id === 'Date32' && rn.id === 'Interval' && (op === '+' || op === '-'))
    return { left: DATE32, right: INTERVAL, result: DATE32 };
  if (ln.id === 'Interval' && rn.id === 'Date32' && op === '+')
    return { left: INTERVAL, right: DATE32, result: DATE32 };
  if (ln.id === 'Timestamp' && rn.id === 'Timestamp' && op === '-') {
    const t = temporalCoercion(ln, rn)!;
    return { left: t, right: t, result: INTERVAL };
  }
  if (ln.id === 'Interval' && rn.id === 'Interval' && (op === '+' || op === '-'))
    return { left: INTERVAL, right: INTERVAL, result: INTERVAL };
  if (ln.id === 'Interval' && isNumeric(rn) && (op === '*' || op === '/'))
    return { left: INTERVAL, right: INT64, result: INTERVAL };
  return undefined;
}

/** Whether CAST(x AS to) exists for x of type `from` (a value may still fail at run time). */
export function canCast(from: DataType, to: DataType): boolean {
  if (typeEquals(from, to) || from.id === 'Null') return true;
  if (to.id === 'Utf8') return from.id !== 'Struct' && from.id !== 'List';
  switch (from.id) {
    case 'Boolean':
      return isNumeric(to);
    case 'Int64':
    case 'UInt64':
      return isNumeric(to) || to.id === 'Boolean' || to.id === 'Timestamp' || to.id === 'Date32';
    case 'Float64':
    case 'Float32':
      return isNumeric(to) || to.id === 'Boolean';
    case 'Utf8':
      return (
        isNumeric(to) ||
        to.id === 'Boolean' ||
        to.id === 'Timestamp' ||
        to.id === 'Date32' ||
        to.id === 'Interval' ||
        to.id === 'Time64'
      );
    case 'Timestamp':
      return to.id === 'Timestamp' || to.id === 'Int64' || to.id === 'Date32';
    case 'Date32':
      return to.id === 'Timestamp' || to.id === 'Int64';
    default:
      return false;
  }
}
