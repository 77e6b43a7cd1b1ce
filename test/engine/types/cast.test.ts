// CAST of 64-bit integer columns to DOUBLE, read through 32-bit halves: every value must round
// as Number(bigint) rounds it, at the extremes, past 2^53 and on ties.

import { describe, expect, it } from 'vitest';
import { castVector } from '../../../host/engine/types/cast.js';
import { FLOAT64, INT64, UINT64 } from '../../../host/engine/types/data-types.js';

describe('castVector BIGINT -> DOUBLE', () => {
  const edges = [
    0n,
    1n,
    -1n,
    2n ** 53n,
    2n ** 53n + 1n,
    2n ** 53n + 3n,
    -(2n ** 53n) - 1n,
    2n ** 62n + 2n ** 9n,
    2n ** 63n - 1n,
    -(2n ** 63n),
    4294967295n,
    -4294967296n,
    123456789012345678n,
  ];
  it('rounds signed values as Number() does', () => {
    const r = Array.from({ length: 2000 }, (_, i) =>
      BigInt.asIntN(64, BigInt(Math.floor(Math.sin(i) * 2 ** 31)) * 2n ** BigInt(i % 33) + BigInt(i)),
    );
    const values = BigInt64Array.from([...edges, ...r]);
    const out = castVector({ type: INT64, length: values.length, values }, FLOAT64);
    expect([...(out.values as Float64Array)]).toEqual([...values].map((v) => Number(v)));
  });
  it('rounds unsigned values as Number() does, and keeps NULLs', () => {
    const values = BigUint64Array.from([0n, 2n ** 64n - 1n, 2n ** 63n, 2n ** 53n + 1n, 2n ** 32n + 7n]);
    const validity = Uint8Array.of(1, 1, 0, 1, 1);
    const out = castVector({ type: UINT64, length: 5, values, validity }, FLOAT64);
    expect([...(out.values as Float64Array)].filter((_, i) => i !== 2)).toEqual(
      [...values].filter((_, i) => i !== 2).map((v) => Number(v)),
    );
    expect(out.validity).toEqual(validity);
  });
});
