// floorDiv: the bucket, page or day holding a time, before 1970 too (the page statistics of the
// storage and the engine's time buckets both rely on it).

import { describe, expect, it } from 'vitest';
import { floorDiv } from '../../host/core/precision.js';

describe('floorDiv', () => {
  const HOUR = 3_600_000_000_000n;
  const cases: Array<[bigint, bigint, bigint]> = [
    [0n, HOUR, 0n],
    [HOUR - 1n, HOUR, 0n],
    [HOUR, HOUR, 1n],
    [-1n, HOUR, -1n],
    [-HOUR, HOUR, -1n],
    [-HOUR - 1n, HOUR, -2n],
    [7n, -2n, -4n],
    [-7n, -2n, 3n],
    [6n, -2n, -3n],
    [-(2n ** 63n), 10n, -922337203685477581n],
  ];
  for (const [a, b, want] of cases) it(`floor(${a} / ${b}) = ${want}`, () => expect(floorDiv(a, b)).toBe(want));
});
