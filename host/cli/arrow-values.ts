// Values of Arrow columns for `sundial export` (the server's Arrow IPC answer): 64-bit integers
// and timestamps as BigInt from the raw buffers, because apache-arrow's get() turns a nanosecond
// timestamp into a millisecond double and drops the rest.

import { DataType, type Data, type Vector } from 'apache-arrow';
import type { ColumnType } from './lp-text.js';

/** ns per unit of Arrow's TimeUnit enum (SECOND, MILLISECOND, MICROSECOND, NANOSECOND). */
const UNIT_NS = [1_000_000_000n, 1_000_000n, 1000n, 1n];

export type Kind = { column: ColumnType } | { time: bigint } | undefined;

/** What an Arrow type holds for line protocol: a field type, a time (ns per unit), or nothing importable. */
export function kindOf(type: DataType): Kind {
  if (DataType.isTimestamp(type)) return { time: UNIT_NS[type.unit]! };
  if (DataType.isFloat(type)) return { column: 'double' };
  if (DataType.isInt(type)) return { column: type.isSigned || type.bitWidth < 64 ? 'bigint' : 'unsigned' };
  if (DataType.isBool(type)) return { column: 'boolean' };
  if (DataType.isUtf8(type) || DataType.isLargeUtf8(type)) return { column: 'string' };
  if (DataType.isDictionary(type) && (DataType.isUtf8(type.dictionary) || DataType.isLargeUtf8(type.dictionary)))
    return { column: 'string' };
  return undefined;
}

/** Reads row `i` of a column: null, or a bigint (64-bit integers, timestamps), number, boolean or string. */
export type Getter = (i: number) => bigint | number | boolean | string | null;

export function getter(v: Vector): Getter {
  const data = v.data;
  if (data.length !== 1) return (i) => (v.isValid(i) ? (v.get(i) as never) : null);
  const d = data[0] as Data;
  const valid = d.nullCount === 0 ? undefined : (i: number) => v.isValid(i);
  if (DataType.isTimestamp(d.type) || (DataType.isInt(d.type) && d.type.bitWidth === 64)) {
    const values = d.values as BigInt64Array | BigUint64Array;
    return valid === undefined ? (i) => values[i]! : (i) => (valid(i) ? values[i]! : null);
  }
  return (i) => {
    if (!v.isValid(i)) return null;
    return v.get(i) as bigint | number | boolean | string;
  };
}
