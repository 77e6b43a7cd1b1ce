// Ranking window functions. Each computes one sorted partition at a time (window-exec.ts sorts
// and splits); `peers[i]` is the first row of row i's peer group (rows with equal ORDER BY keys),
// which is what separates rank from row_number.

import type { Vector } from '../batch.js';
import { planError } from '../errors.js';
import { FLOAT64, UINT64 } from '../types.js';
import type { BoundSignature, WindowFunction } from './function-types.js';

function noArgs(name: string): (argTypes: readonly unknown[]) => BoundSignature {
  return (argTypes) => {
    if (argTypes.length !== 0) throw planError(`The function ${name} expects 0 arguments, but ${argTypes.length} were provided`);
    return { argTypes: [], returnType: UINT64 };
  };
}

function u64(values: ArrayLike<number>, n: number): Vector {
  const out = new BigUint64Array(n);
  for (let i = 0; i < n; i++) out[i] = BigInt(values[i]!);
  return { type: UINT64, length: n, values: out };
}

const rowNumber: WindowFunction = {
  kind: 'window',
  name: 'row_number',
  bind: noArgs('row_number'),
  evaluatePartition(_args, n): Vector {
    const out = new BigUint64Array(n);
    for (let i = 0; i < n; i++) out[i] = BigInt(i + 1);
    return { type: UINT64, length: n, values: out };
  },
};

const rank: WindowFunction = {
  kind: 'window',
  name: 'rank',
  bind: noArgs('rank'),
  evaluatePartition(_args, n, peers): Vector {
    const r = new Float64Array(n);
    for (let i = 0; i < n; i++) r[i] = peers[i]! + 1;
    return u64(r, n);
  },
};

const denseRank: WindowFunction = {
  kind: 'window',
  name: 'dense_rank',
  bind: noArgs('dense_rank'),
  evaluatePartition(_args, n, peers): Vector {
    const r = new Float64Array(n);
    let d = 0;
    for (let i = 0; i < n; i++) {
      if (peers[i] === i) d++;
      r[i] = d;
    }
    return u64(r, n);
  },
};

const percentRank: WindowFunction = {
  kind: 'window',
  name: 'percent_rank',
  bind: (argTypes) => ({ ...noArgs('percent_rank')(argTypes), returnType: FLOAT64 }),
  evaluatePartition(_args, n, peers): Vector {
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = n <= 1 ? 0 : peers[i]! / (n - 1);
    return { type: FLOAT64, length: n, values: out };
  },
};

export const WINDOW_FUNCTIONS: readonly WindowFunction[] = [rowNumber, rank, denseRank, percentRank];

