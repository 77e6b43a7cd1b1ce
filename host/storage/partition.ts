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

const I64_MAX = (1n << 63n) - 1n;

/**
 * The oldest time a write may carry under the database TTL, in the database precision, or
 * undefined for an infinite TTL. As in CnosDB, a TTL longer than the 292 years an i64 of
 * nanoseconds holds counts as that much (its durations saturate): `TTL '1000000d'` refuses
 * points before about 1734 (CnosDB's time_window.slt relies on it).
 */
export function retentionCutoff(options: DatabaseOptions, nowMs: number): bigint | undefined {
  if (options.ttlMs === null) return undefined;
  const ttlNs = BigInt(options.ttlMs) * 1_000_000n;
  const cappedMs = (ttlNs > I64_MAX ? I64_MAX : ttlNs) / 1_000_000n;
  return (BigInt(Math.floor(nowMs)) - cappedMs) * unitsPerMs(options.precision);
}

/** True when the partition holding `ts` ends past the largest timestamp (it cannot exist). */
export function partitionOverflows(ts: bigint, units: bigint): boolean {
  return partitionStart(ts, units) > I64_MAX - (units - 1n);
}
