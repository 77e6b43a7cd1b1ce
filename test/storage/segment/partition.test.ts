// Partition and retention arithmetic at the edges of the i64 time line.

import { describe, expect, it } from 'vitest';
import { DEFAULT_DATABASE_OPTIONS, DAY_MS, type DatabaseOptions } from '../../../host/core/schema.js';
import {
  partitionOverflows,
  partitionStart,
  partitionUnits,
  retentionCutoff,
} from '../../../host/storage/segment/partition.js';

const I64_MAX = (1n << 63n) - 1n;
const I64_MIN = -(1n << 63n);
const opts = (o: Partial<DatabaseOptions>): DatabaseOptions => ({ ...DEFAULT_DATABASE_OPTIONS, ...o });
const NOW_MS = Date.UTC(2026, 10, 23);

describe('partitionStart', () => {
  it('floors toward minus infinity, also before 1970', () => {
    expect([
      partitionStart(15n, 10n),
      partitionStart(-1n, 10n),
      partitionStart(-10n, 10n),
      partitionStart(I64_MIN, 10n),
    ]).toEqual([10n, -10n, -10n, I64_MIN - 2n]);
  });
});

describe('partitionOverflows', () => {
  const week = partitionUnits(opts({}));
  it('is true only in the last partition, which would end past the largest timestamp', () => {
    const lastStart = partitionStart(I64_MAX, week);
    expect([
      partitionOverflows(I64_MAX, week),
      partitionOverflows(lastStart, week),
      partitionOverflows(lastStart - 1n, week),
      partitionOverflows(0n, week),
      partitionOverflows(I64_MIN, week),
    ]).toEqual([true, true, false, false, false]);
  });
});

describe('retentionCutoff', () => {
  it('is undefined for an infinite TTL', () => {
    expect(retentionCutoff(opts({ ttlMs: null }), NOW_MS)).toBeUndefined();
  });

  it('is now minus the TTL in the database precision', () => {
    expect(retentionCutoff(opts({ ttlMs: 10 * DAY_MS, precision: 'MS' }), NOW_MS)).toBe(BigInt(NOW_MS - 10 * DAY_MS));
    expect(retentionCutoff(opts({ ttlMs: 10 * DAY_MS, precision: 'NS' }), NOW_MS)).toBe(
      BigInt(NOW_MS - 10 * DAY_MS) * 1_000_000n,
    );
  });

  it('caps a TTL longer than an i64 of nanoseconds at that (CnosDB saturates its durations)', () => {
    const cutoff = retentionCutoff(opts({ ttlMs: 1_000_000 * DAY_MS, precision: 'NS' }), NOW_MS)!;
    const year = (ns: bigint): number => new Date(Number(ns / 1_000_000n)).getUTCFullYear();
    expect(year(cutoff)).toBe(1734);
    expect(cutoff > -9223372036854775808n).toBe(true);
  });
});
