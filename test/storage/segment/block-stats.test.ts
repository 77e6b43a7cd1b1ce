import { describe, expect, it } from 'vitest';
import { ValueType } from '../../../host/core/write-batch.js';
import { computeStats } from '../../../host/storage/segment/block-stats.js';

describe('computeStats', () => {
  const cases: Array<[string, ValueType, ArrayLike<unknown>, number[] | undefined, object]> = [
    [
      'small BIGINT with NULLs',
      ValueType.BigInt,
      BigInt64Array.of(5n, -7n, 100n, 3n),
      [1, 1, 0, 1],
      { count: 3, min: -7n, max: 5n, sum: 1n },
    ],
    [
      'BIGINT at the 32-bit edges',
      ValueType.BigInt,
      BigInt64Array.of(2147483647n, -2147483648n),
      undefined,
      { count: 2, min: -2147483648n, max: 2147483647n, sum: -1n },
    ],
    [
      'wide BIGINT',
      ValueType.BigInt,
      BigInt64Array.of(2n ** 40n, -(2n ** 63n), 1n),
      undefined,
      { count: 3, min: -(2n ** 63n), max: 2n ** 40n, sum: -(2n ** 63n) + 2n ** 40n + 1n },
    ],
    [
      'BIGINT sum overflowing',
      ValueType.BigInt,
      BigInt64Array.of(2n ** 63n - 1n, 1n),
      undefined,
      { count: 2, min: 1n, max: 2n ** 63n - 1n },
    ],
    [
      'BIGINT UNSIGNED above 2^31',
      ValueType.Unsigned,
      BigUint64Array.of(2n ** 31n, 1n, 2n ** 64n - 1n),
      undefined,
      { count: 3, min: 1n, max: 2n ** 64n - 1n },
    ],
    [
      'small BIGINT UNSIGNED',
      ValueType.Unsigned,
      BigUint64Array.of(7n, 2n ** 31n - 1n),
      undefined,
      { count: 2, min: 7n, max: 2n ** 31n - 1n, sum: 2n ** 31n + 6n },
    ],
    [
      'DOUBLE with -0 and 0',
      ValueType.Double,
      Float64Array.of(0, -0, 2.5),
      undefined,
      { count: 3, min: -0, max: 2.5, sum: 2.5 },
    ],
    ['DOUBLE with NaN', ValueType.Double, Float64Array.of(1, NaN), undefined, { count: 2, sum: NaN }],
    ['BOOLEAN', ValueType.Boolean, Uint8Array.of(1, 0, 1), [1, 1, 1], { count: 3, min: 0, max: 1, sum: 2 }],
    ['all NULL', ValueType.BigInt, BigInt64Array.of(1n, 2n), [0, 0], { count: 0 }],
    ['STRING', ValueType.String, ['a', 'b'], undefined, { count: 2 }],
  ];
  for (const [name, type, values, validity, want] of cases) {
    it(name, () => {
      const got = computeStats(
        type,
        values as never,
        validity === undefined ? undefined : Uint8Array.from(validity),
        values.length,
      );
      expect(got).toEqual(want);
      if ('min' in want && Object.is(want.min, -0)) expect(Object.is(got.min, -0)).toBe(true);
    });
  }
});
