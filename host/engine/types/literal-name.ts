// A value as DataFusion 27's ScalarValue Debug form prints it (`Int64(1)`, `Utf8("x")`,
// `IntervalMonthDayNano("...")`): the names of literal columns, EXPLAIN and some error texts.

import type { IntervalValue, Scalar } from './batch.js';
import { typeName, type DataType } from './data-types.js';
import { formatRustF32, formatRustF64 } from './float-text.js';

/** The packed i128 of an IntervalMonthDayNano as DataFusion prints it. */
export function packInterval(v: IntervalValue): bigint {
  const packed =
    (BigInt.asUintN(32, BigInt(v.months)) << 96n) |
    (BigInt.asUintN(32, BigInt(v.days)) << 64n) |
    BigInt.asUintN(64, v.nanos);
  return BigInt.asIntN(128, packed);
}

const TIMESTAMP_NAMES = {
  Second: 'TimestampSecond',
  Millisecond: 'TimestampMillisecond',
  Microsecond: 'TimestampMicrosecond',
  Nanosecond: 'TimestampNanosecond',
} as const;

/** ScalarValue's Debug form: `Int64(1)`, `Utf8("x")`, `Utf8(NULL)`, `Boolean(true)`, `NULL`. */
export function literalName(value: Scalar, type: DataType): string {
  const inner = (text: string): string => (value === null ? 'NULL' : text);
  switch (type.id) {
    case 'Null':
      return 'NULL';
    case 'Boolean':
      return `Boolean(${inner(String(value))})`;
    case 'Int64':
      return `Int64(${inner(String(value))})`;
    case 'UInt64':
      return `UInt64(${inner(String(value))})`;
    case 'Float64':
      return `Float64(${inner(formatRustF64(value as number))})`;
    case 'Float32':
      return `Float32(${inner(formatRustF32(value as number))})`;
    case 'Utf8':
      return value === null ? 'Utf8(NULL)' : `Utf8("${value as string}")`;
    case 'Timestamp':
      return `${TIMESTAMP_NAMES[type.unit]}(${inner(String(value))}, ${type.tz === undefined ? 'None' : `Some("${type.tz}")`})`;
    case 'Date32':
      return `Date32("${inner(String(value))}")`;
    case 'Time64':
      return `Time64Nanosecond(${inner(String(value))})`;
    case 'Interval':
      return value === null
        ? 'IntervalMonthDayNano(NULL)'
        : `IntervalMonthDayNano("${packInterval(value as IntervalValue)}")`;
    default:
      return `${typeName(type)}(${inner(JSON.stringify(value, (_k, x: unknown) => (typeof x === 'bigint' ? String(x) : x)))})`;
  }
}
