// Time partitions: a database's data is cut into partitions of its VNODE_DURATION, at most a
// week, one segment file per partition per flush, so that retention drops whole files and
// compaction merges files that share a time range. CnosDB's default VNODE_DURATION of a year
// (host/core/schema.ts) would keep up to a year of data past its TTL; a week keeps partitions
// small enough to expire promptly and large enough to compress well. What VNODE_DURATION still
// decides as in CnosDB: the last time a point may carry (`partitionOverflows`, on the declared
// width). Arithmetic in the database precision.

import { floorDiv } from '../../core/precision.js';
import type { DatabaseOptions, Precision } from '../../core/schema.js';

export function unitsPerMs(precision: Precision): bigint {
  return precision === 'MS' ? 1n : precision === 'US' ? 1000n : 1_000_000n;
}

export function unitsPerSecond(precision: Precision): bigint {
  return unitsPerMs(precision) * 1000n;
}

/** The widest partition storage cuts, whatever VNODE_DURATION says. */
export const MAX_PARTITION_MS = 7 * 86_400_000;

/** The width of the database's partitions: VNODE_DURATION, at most MAX_PARTITION_MS. */
export function partitionUnits(options: DatabaseOptions): bigint {
  return BigInt(Math.min(options.vnodeDurationMs, MAX_PARTITION_MS)) * unitsPerMs(options.precision);
}

/** VNODE_DURATION as declared, in the database precision (CnosDB's bucket width). */
export function vnodeUnits(options: DatabaseOptions): bigint {
  return BigInt(options.vnodeDurationMs) * unitsPerMs(options.precision);
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
