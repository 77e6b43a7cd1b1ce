// Arrow's display of one value (arrow-cast 42 ArrayFormatter): the text of every cell of text/table,
// of nested values in CSV and TSV, and of .slt expectations. Slow path (one string per value);
// the CSV and JSON hot loops format the common types in place instead.
//   Struct    `{start: 1999-12-31T00:00:00, end: 1999-12-31T00:00:00.010}`
//   List      `[1, 2, 3]`
//   Interval  `0 years 1 mons 2 days 3 hours 4 mins 5.000000000 secs` (MonthDayNano)
//   NULL      `nullText` (empty for the HTTP formats, `NULL` in .slt files), also inside nested values

import type { IntervalValue, Scalar, Vector } from './batch.js';
import { getValue } from './batch.js';
import { bug } from '../../core/errors.js';
import type { DataType } from './data-types.js';
import { ByteSink } from './byte-sink.js';
import { writeArrowF32, writeArrowF64 } from './float-text.js';
import { TimestampWriter, writeDate, type TimestampStyle } from './time-text.js';

const scratch = new ByteSink(256);
const timestampWriters = new Map<string, TimestampWriter>();

function timestampWriter(type: Extract<DataType, { id: 'Timestamp' }>, style: TimestampStyle): TimestampWriter {
  const key = `${type.unit}|${type.tz ?? ''}|${style}`;
  let w = timestampWriters.get(key);
  if (w === undefined) {
    w = new TimestampWriter(type.unit, type.tz, style);
    timestampWriters.set(key, w);
  }
  return w;
}

function scratchText(fill: (sink: ByteSink) => void): string {
  scratch.pos = 0;
  fill(scratch);
  // The texts are ASCII and short: one fromCharCode over the bytes.
  return String.fromCharCode.apply(null, scratch.buf.subarray(0, scratch.pos) as unknown as number[]);
}

/** A timestamp's text in `style` (`value` in the unit of `type`, a Timestamp type). */
export function timestampText(type: DataType, value: bigint, style: TimestampStyle): string {
  if (type.id !== 'Timestamp') throw bug(`timestampText of a ${type.id} value`);
  const w = timestampWriter(type, style);
  return scratchText((sink) => w.writeBig(sink, value));
}

/** A Date32 (days since the epoch) as `YYYY-MM-DD`. */
export function dateText(days: number): string {
  return scratchText((sink) => writeDate(sink, days));
}

/**
 * A Time64(Nanosecond) as chrono's NaiveTime shows it: `HH:MM:SS`, then the fraction only when
 * it is not zero, in 3, 6 or 9 digits.
 */
export function timeOfDayText(nanos: bigint): string {
  const pad = (x: bigint, w: number): string => x.toString().padStart(w, '0');
  const secs = nanos / 1_000_000_000n;
  const frac = nanos % 1_000_000_000n;
  let text = `${pad(secs / 3600n, 2)}:${pad((secs / 60n) % 60n, 2)}:${pad(secs % 60n, 2)}`;
  if (frac !== 0n)
    text +=
      frac % 1_000_000n === 0n
        ? `.${pad(frac / 1_000_000n, 3)}`
        : frac % 1000n === 0n
          ? `.${pad(frac / 1000n, 6)}`
          : `.${pad(frac, 9)}`;
  return text;
}

/** Arrow 42's display of an IntervalMonthDayNano (Rust integer division truncates toward zero). */
export function intervalText(v: IntervalValue): string {
  const nanos = v.nanos;
  let secs = nanos / 1_000_000_000n;
  let mins = secs / 60n;
  const hours = mins / 60n;
  secs -= mins * 60n;
  mins -= hours * 60n;
  const frac = nanos % 1_000_000_000n;
  const sign = secs < 0n || frac < 0n ? '-' : '';
  const abs = (b: bigint): bigint => (b < 0n ? -b : b);
  return `0 years ${v.months} mons ${v.days} days ${hours} hours ${mins} mins ${sign}${abs(secs)}.${abs(frac).toString().padStart(9, '0')} secs`;
}

/** Arrow's display of a value of `type`; `null` is `nullText`. */
export function displayScalar(type: DataType, value: Scalar, nullText = ''): string {
  if (value === null) return nullText;
  switch (type.id) {
    case 'Null':
      return nullText;
    case 'Boolean':
      return value ? 'true' : 'false';
    case 'Int64':
    case 'UInt64':
      return String(value);
    case 'Float64':
      return scratchText((sink) => writeArrowF64(sink, value as number));
    case 'Float32':
      return scratchText((sink) => writeArrowF32(sink, value as number));
    case 'Utf8':
    case 'Binary':
      return value as string;
    case 'Timestamp':
      return timestampText(type, value as bigint, 'display');
    case 'Date32':
      return dateText(value as number);
    case 'Time64':
      return timeOfDayText(value as bigint);
    case 'Interval':
      return intervalText(value as IntervalValue);
    case 'Struct': {
      const o = value as { [field: string]: Scalar };
      return `{${type.fields.map((f) => `${f.name}: ${displayScalar(f.type, o[f.name] ?? null, nullText)}`).join(', ')}}`;
    }
    case 'List':
      return `[${(value as Scalar[]).map((x) => displayScalar(type.item, x ?? null, nullText)).join(', ')}]`;
  }
}

/** Arrow's display of row `i` of `v`. */
export function displayValue(v: Vector, i: number, nullText = ''): string {
  return displayScalar(v.type, getValue(v, i), nullText);
}
