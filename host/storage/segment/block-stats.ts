// Per-block statistics the segment writer stores in the footer index (FORMAT.md §5.3), so that
// count/min/max/sum over whole blocks need no decoding. Exactness rules: a DOUBLE block holding
// NaN has no min/max (SQL engines order NaN differently); an integer sum that leaves 64 bits is
// not stored; STRING blocks carry only the count.

import { ValueType } from '../../core/write-batch.js';
import type { BlockStats } from './segment-format.js';
import type { FieldValues } from '../series/index.js';

/** Bytes of a statistics record in the index and in page blocks. */
export const STATS_BYTES = 29;

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const U64_MAX = 2n ** 64n - 1n;

/**
 * Statistics in one shape, every field present (undefined when not known): blocks of different
 * kinds otherwise had up to four hidden classes, and the code folding them was polymorphic.
 */
export function blockStats(
  count: number,
  min?: number | bigint,
  max?: number | bigint,
  sum?: number | bigint,
): BlockStats {
  return { count, min, max, sum };
}

export function computeStats(
  type: ValueType,
  values: FieldValues,
  validity: Uint8Array | undefined,
  rows: number,
): BlockStats {
  let count = 0;
  switch (type) {
    case ValueType.Double: {
      const v = values as Float64Array;
      let min = Infinity;
      let max = -Infinity;
      let sum = 0;
      let nan = false;
      for (let i = 0; i < rows; i++) {
        if (validity !== undefined && validity[i] === 0) continue;
        const x = v[i]!;
        count++;
        sum += x;
        if (x !== x) nan = true;
        else {
          if (x < min || (x === 0 && min === 0 && Object.is(x, -0))) min = x;
          if (x > max || (x === 0 && max === 0 && Object.is(max, -0))) max = x;
        }
      }
      return count === 0
        ? blockStats(0)
        : nan
          ? blockStats(count, undefined, undefined, sum)
          : blockStats(count, min, max, sum);
    }
    case ValueType.BigInt:
    case ValueType.Unsigned: {
      const small = smallIntStats(type, values as BigInt64Array, validity, rows);
      if (small !== undefined) return small;
      const v = values as BigInt64Array;
      let min: bigint | undefined;
      let max: bigint | undefined;
      let sum = 0n;
      for (let i = 0; i < rows; i++) {
        if (validity !== undefined && validity[i] === 0) continue;
        const x = v[i]!;
        count++;
        sum += x;
        if (min === undefined || x < min) min = x;
        if (max === undefined || x > max) max = x;
      }
      if (count === 0) return blockStats(0);
      const fits = type === ValueType.BigInt ? sum >= I64_MIN && sum <= I64_MAX : sum <= U64_MAX;
      return blockStats(count, min, max, fits ? sum : undefined);
    }
    case ValueType.Boolean: {
      const v = values as Uint8Array;
      let trues = 0;
      for (let i = 0; i < rows; i++) {
        if (validity !== undefined && validity[i] === 0) continue;
        count++;
        trues += v[i]!;
      }
      if (count === 0) return blockStats(0);
      return blockStats(count, trues === count ? 1 : 0, trues > 0 ? 1 : 0, trues);
    }
    default:
      return presentStats(validity, rows);
  }
}

/** The statistics of a STRING block: the count of present values. */
export function presentStats(validity: Uint8Array | undefined, rows: number): BlockStats {
  if (validity === undefined) return blockStats(rows);
  let count = 0;
  for (let i = 0; i < rows; i++) if (validity[i] === 1) count++;
  return blockStats(count);
}

/**
 * Integer statistics without a BigInt per value when every value fits in 32 bits (the common
 * case: the profile of a TSBS flush showed BigInt compares as its largest JavaScript cost).
 * Reads the low and high words through an Int32Array alias; undefined when a value is wider.
 */
function smallIntStats(
  type: ValueType,
  values: BigInt64Array,
  validity: Uint8Array | undefined,
  rows: number,
): BlockStats | undefined {
  const w = new Int32Array(values.buffer, values.byteOffset, rows * 2);
  const unsigned = type === ValueType.Unsigned;
  let count = 0;
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  for (let i = 0; i < rows; i++) {
    if (validity !== undefined && validity[i] === 0) continue;
    const lo = w[2 * i]!;
    const hi = w[2 * i + 1]!;
    if (unsigned ? hi !== 0 || lo < 0 : hi !== lo >> 31) return undefined;
    count++;
    sum += lo; // at most 2^20 rows of 2^31: exact in a double
    if (lo < min) min = lo;
    if (lo > max) max = lo;
  }
  if (count === 0) return blockStats(0);
  return blockStats(count, BigInt(min), BigInt(max), BigInt(sum));
}

/** Writes a statistics record (STATS_BYTES: count u32, flags u8, min, max, sum 8 bytes each; FORMAT.md §5.1). */
export function putStats(dv: DataView, p: number, s: BlockStats, type: ValueType): void {
  dv.setUint32(p, s.count, true);
  const hasMinMax = s.min !== undefined && s.max !== undefined;
  const hasSum = s.sum !== undefined;
  dv.setUint8(p + 4, (hasMinMax ? 1 : 0) | (hasSum ? 2 : 0));
  const put = (at: number, v: number | bigint | undefined): void => {
    if (v === undefined) dv.setBigUint64(at, 0n, true);
    else if (type === ValueType.Double) dv.setFloat64(at, v as number, true);
    else if (type === ValueType.BigInt) dv.setBigInt64(at, BigInt(v), true);
    else dv.setBigUint64(at, BigInt(v), true);
  };
  put(p + 5, s.min);
  put(p + 13, s.max);
  put(p + 21, s.sum);
}

/** Reads a statistics record written by putStats. */
export function getStats(dv: DataView, p: number, type: ValueType): BlockStats {
  const count = dv.getUint32(p, true);
  const flags = dv.getUint8(p + 4);
  const get = (at: number): number | bigint =>
    type === ValueType.Double
      ? dv.getFloat64(at, true)
      : type === ValueType.BigInt
        ? dv.getBigInt64(at, true)
        : type === ValueType.Boolean
          ? Number(dv.getBigUint64(at, true))
          : dv.getBigUint64(at, true);
  return blockStats(
    count,
    flags & 1 ? get(p + 5) : undefined,
    flags & 1 ? get(p + 13) : undefined,
    flags & 2 ? get(p + 21) : undefined,
  );
}
