// The Wasm 64-bit integer kernels give exactly the TypeScript kernels' results and errors, on
// random data with NULLs, extremes and zero divisors.

import { beforeAll, describe, expect, it } from 'vitest';
import type { Vector } from '../../../host/engine/types/batch.js';
import { arithmetic } from '../../../host/engine/exec/compute.js';
import { compare } from '../../../host/engine/types/compare.js';
import { installKernels, int64Kernels, KERNEL_MIN_ROWS } from '../../../host/engine/types/kernels.js';
import { INT64, UINT64 } from '../../../host/engine/types/data-types.js';
import { loadCore } from '../../support/core.js';

const N = KERNEL_MIN_ROWS * 4;

function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function column(r: () => number, unsigned: boolean, constant = false): Vector {
  const pool = unsigned
    ? [0n, 1n, 7n, 2n ** 63n, 2n ** 64n - 1n]
    : [0n, 1n, -1n, 7n, -(2n ** 63n), 2n ** 63n - 1n, 123456789n];
  const values = unsigned ? new BigUint64Array(N) : new BigInt64Array(N);
  const first = pool[Math.floor(r() * pool.length)]!;
  for (let i = 0; i < N; i++)
    values[i] = constant
      ? first
      : r() < 0.5
        ? pool[Math.floor(r() * pool.length)]!
        : BigInt(Math.floor(r() * 2000) - (unsigned ? 0 : 1000));
  const validity = constant ? undefined : Uint8Array.from({ length: N }, () => (r() < 0.9 ? 1 : 0));
  return { type: unsigned ? UINT64 : INT64, length: N, values, validity, constant };
}

function outcome(f: () => Vector): string {
  try {
    const v = f();
    return JSON.stringify([
      Array.from(v.values as ArrayLike<unknown>, String),
      v.validity ? Array.from(v.validity) : null,
    ]);
  } catch (e) {
    return `error: ${(e as Error).message}`;
  }
}

describe('Wasm int64 kernels', () => {
  beforeAll(async () => installKernels(await loadCore()));

  it('are installed for long vectors only', () => {
    expect(int64Kernels(N)).toBeDefined();
    expect(int64Kernels(KERNEL_MIN_ROWS - 1)).toBeUndefined();
  });

  for (const unsigned of [false, true]) {
    it(`compare ${unsigned ? 'unsigned' : 'signed'} columns like the TypeScript loop`, () => {
      const r = random(unsigned ? 11 : 12);
      for (const op of ['=', '!=', '<', '<=', '>', '>='] as const) {
        for (const [ca, cb] of [
          [false, false],
          [false, true],
          [true, false],
        ] as const) {
          const a = column(r, unsigned, ca);
          const b = column(r, unsigned, cb);
          const wasm = compare(op, a, b);
          // The TypeScript path: the same vectors, too short for the kernels piece by piece.
          const ts = Array.from({ length: N }, (_, i) => {
            const x = (a.values as BigInt64Array)[i]!;
            const y = (b.values as BigInt64Array)[i]!;
            return op === '='
              ? x === y
              : op === '!='
                ? x !== y
                : op === '<'
                  ? x < y
                  : op === '<='
                    ? x <= y
                    : op === '>'
                      ? x > y
                      : x >= y;
          });
          expect(Array.from(wasm.values as Uint8Array, (x) => x === 1)).toEqual(ts);
        }
      }
    });

    it(`compute ${unsigned ? 'unsigned' : 'signed'} arithmetic with the same results and errors`, () => {
      const r = random(unsigned ? 21 : 22);
      for (const op of ['+', '-', '*', '/', '%'] as const) {
        for (let round = 0; round < 4; round++) {
          const a = column(r, unsigned);
          const b = column(r, unsigned, round === 3);
          const type = unsigned ? UINT64 : INT64;
          const wasm = outcome(() => arithmetic(op, a, b, type));
          const slice = (v: Vector, s: number, e: number): Vector => ({
            ...v,
            length: e - s,
            values: (v.values as BigInt64Array).subarray(s, e),
            validity: v.validity?.subarray(s, e),
            constant: false,
          });
          // Run the TypeScript loop on pieces shorter than the kernel threshold.
          const ts = outcome(() => {
            const parts: Vector[] = [];
            for (let s = 0; s < N; s += KERNEL_MIN_ROWS - 1)
              parts.push(
                arithmetic(
                  op,
                  slice(a, s, Math.min(N, s + KERNEL_MIN_ROWS - 1)),
                  slice(b, s, Math.min(N, s + KERNEL_MIN_ROWS - 1)),
                  type,
                ),
              );
            const values = unsigned ? new BigUint64Array(N) : new BigInt64Array(N);
            const validity = new Uint8Array(N);
            let at = 0;
            for (const p of parts) {
              values.set(p.values as BigInt64Array, at);
              validity.set(p.validity ?? new Uint8Array(p.length).fill(1), at);
              at += p.length;
            }
            return { type, length: N, values, validity };
          });
          const norm = (s: string): string =>
            s.startsWith('error')
              ? s
              : JSON.stringify(
                  JSON.parse(s).map((x: unknown, k: number) =>
                    k === 0
                      ? (x as string[]).map((v, i) => ((JSON.parse(s)[1] as number[] | null)?.[i] === 0 ? '-' : v))
                      : x,
                  ),
                );
          expect(norm(wasm)).toBe(norm(ts));
        }
      }
    });
  }
});
