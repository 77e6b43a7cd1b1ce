// arrow_cast(expr, 'Type'): DataFusion 27 plans it as a CAST to the Arrow type named by its second
// argument, a string constant (datafusion/sql/src/expr/arrow_cast.rs). The names this engine's
// types answer to are parsed; narrower integers widen to the 64-bit ones this engine has, as a
// value cast to Int32 prints the same as one cast to Int64. CnosDB's approx_agg setup casts
// floor(random() * 1e9) to 'Int64' this way.

import { planError } from '../errors.js';
import {
  BOOLEAN,
  DATE32,
  FLOAT32,
  FLOAT64,
  INT64,
  INTERVAL,
  NULL,
  TIME64,
  UINT64,
  UTF8,
  type DataType,
  type TimeUnit,
} from './data-types.js';

const SIMPLE: Readonly<Record<string, DataType>> = {
  Null: NULL,
  Boolean: BOOLEAN,
  Int8: INT64,
  Int16: INT64,
  Int32: INT64,
  Int64: INT64,
  UInt8: UINT64,
  UInt16: UINT64,
  UInt32: UINT64,
  UInt64: UINT64,
  Float32: FLOAT32,
  Float64: FLOAT64,
  Utf8: UTF8,
  LargeUtf8: UTF8,
  Date32: DATE32,
  'Time64(Nanosecond)': TIME64,
  'Interval(MonthDayNano)': INTERVAL,
};

const TIMESTAMP = /^Timestamp\((Second|Millisecond|Microsecond|Nanosecond), (None|Some\("([^"]*)"\))\)$/;

/** The type an arrow_cast names, or DataFusion's planning error. */
export function arrowCastType(text: string): DataType {
  const name = text.trim();
  const simple = SIMPLE[name];
  if (simple !== undefined) return simple;
  const m = TIMESTAMP.exec(name);
  if (m !== null) {
    const unit = m[1] as TimeUnit;
    return m[3] === undefined ? { id: 'Timestamp', unit } : { id: 'Timestamp', unit, tz: m[3] };
  }
  throw planError(
    `Unsupported type '${text}'. Must be a supported arrow type name such as 'Int32' or 'Timestamp(Nanosecond, None)'. Error unrecognized word: ${name}`,
  );
}
