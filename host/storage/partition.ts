// Time partitions: a database's data is cut into partitions of VNODE_DURATION (default 7 days,
// host/core/schema.ts), one segment file per partition per flush, so that retention drops whole
// files and compaction merges files that share a time range. Arithmetic in the database precision.

import type { DatabaseOptions, Precision } from '../core/schema.js';

export function unitsPerMs(precision: Precision): bigint {
  return precision === 'MS' ? 1n : precision === 'US' ? 1000n : 1_000_000n;
}

export function partitionUnits(options: DatabaseOptions): bigint {
  return BigInt(options.vnodeDurationMs) * unitsPerMs(options.precision);
}

/** floor(a / b) for b > 0, also for negative a (times before 1970). */
export function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n ? q - 1n : q;
}

/** Start of the partition holding `ts`. */
export function partitionStart(ts: bigint, units: bigint): bigint {
  return floorDiv(ts, units) * units;
}
