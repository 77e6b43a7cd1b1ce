// ORDER BY through ranks sorted natively (sort-keys.ts) must give the comparator's order, ties in
// input order: every rankable type, NULLs first and last, both directions, NaN and -0, several
// keys, seeded random columns with many repeats.

import { describe, expect, it } from 'vitest';
import type { Vector } from '../../../host/engine/types/batch.js';
import { rowComparator } from '../../../host/engine/exec/sort-comparators.js';
import { rankedPermutation } from '../../../host/engine/exec/sort-keys.js';
import type { SortExpr } from '../../../host/engine/plan/expr.js';
import { BOOLEAN, FLOAT64, INT64, UINT64, UTF8, type DataType } from '../../../host/engine/types/data-types.js';
import { mulberry32 as rng } from '../../support/rng.js';

const TIMESTAMP: DataType = { id: 'Timestamp', unit: 'Nanosecond' } as DataType;
const DATE32: DataType = { id: 'Date32' } as DataType;

function column(type: DataType, n: number, r: () => number, nulls: boolean): Vector {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  let values: Vector['values'];
  switch (type.id) {
    case 'Float64':
      values = Float64Array.from({ length: n }, () =>
        pick([NaN, -0, 0, 1.5, -1.5, Infinity, -Infinity, 2 ** 60, 1e-300, r()]),
      );
      break;
    case 'Int64':
      values = BigInt64Array.from({ length: n }, () =>
        pick([-(2n ** 51n), -1n, 0n, 7n, 2n ** 51n, BigInt(Math.floor(r() * 1e6))]),
      );
      break;
    case 'UInt64':
      values = BigUint64Array.from({ length: n }, () =>
        pick([0n, 1n, 2n ** 52n, 2n ** 52n + 3n, BigInt(Math.floor(r() * 1e6))]),
      );
      break;
    case 'Timestamp':
      values = BigInt64Array.from(
        { length: n },
        () => 1_451_606_400_000_000_000n + BigInt(Math.floor(r() * 40)) * 3_600_000_000_000n,
      );
      break;
    case 'Date32':
      values = Int32Array.from({ length: n }, () => Math.floor(r() * 20) - 10);
      break;
    case 'Boolean':
      values = Uint8Array.from({ length: n }, () => (r() < 0.5 ? 1 : 0));
      break;
    default:
      values = Array.from({ length: n }, () => pick(['', 'a', 'B', 'host_10', 'host_9', 'é', '\u{1F600}', 'ab']));
  }
  const validity = nulls ? Uint8Array.from({ length: n }, () => (r() < 0.2 ? 0 : 1)) : undefined;
  return { type, length: n, values, validity } as Vector;
}

function reference(keys: readonly Vector[], order: readonly SortExpr[], n: number): Int32Array {
  const cmp = rowComparator(keys, order);
  return Int32Array.from(Array.from({ length: n }, (_, i) => i).sort((i, j) => cmp(i, j) || i - j));
}

const expr = { kind: 'column', name: 'k' } as unknown as SortExpr['expr'];

describe('rankedPermutation', () => {
  const types = [FLOAT64, INT64, UINT64, TIMESTAMP, DATE32, BOOLEAN, UTF8];
  for (const type of types) {
    for (const nulls of [false, true]) {
      it(`orders ${type.id}${nulls ? ' with NULLs' : ''} as the comparator does, in every direction`, () => {
        const r = rng(type.id.length * 7 + (nulls ? 1 : 0));
        const n = 500;
        const v = column(type, n, r, nulls);
        for (const asc of [true, false]) {
          for (const nullsFirst of [true, false]) {
            const order = [{ expr, asc, nullsFirst }];
            const perm = rankedPermutation([v], order, n);
            expect(perm).toBeDefined();
            expect(perm).toEqual(reference([v], order, n));
          }
        }
      });
    }
  }

  it('orders by several keys of mixed types and directions', () => {
    const r = rng(99);
    const n = 2000;
    const keys = [column(UTF8, n, r, true), column(TIMESTAMP, n, r, false), column(FLOAT64, n, r, true)];
    const order = [
      { expr, asc: true, nullsFirst: false },
      { expr, asc: false, nullsFirst: true },
      { expr, asc: true, nullsFirst: true },
    ];
    expect(rankedPermutation(keys, order, n)).toEqual(reference(keys, order, n));
  });

  it('returns the identity for sorted input, and declines what it cannot rank', () => {
    const sorted: Vector = { type: INT64, length: 4, values: BigInt64Array.of(1n, 2n, 2n, 9n) };
    expect([...rankedPermutation([sorted], [{ expr, asc: true, nullsFirst: false }], 4)!]).toEqual([0, 1, 2, 3]);
    const wide: Vector = { type: INT64, length: 2, values: BigInt64Array.of(-(2n ** 62n), 2n ** 62n) };
    expect(rankedPermutation([wide], [{ expr, asc: true, nullsFirst: false }], 2)).toBeUndefined();
    const distinct: Vector = { type: UTF8, length: 300, values: Array.from({ length: 300 }, (_, i) => `s${i}`) };
    expect(rankedPermutation([distinct], [{ expr, asc: true, nullsFirst: false }], 300)).toBeUndefined();
  });
});
