// DataFusion 27's built-in window functions. Each computes one sorted partition at a time
// (window-exec.ts sorts and splits); `peers[i]` is the first row of row i's peer group (rows with
// equal ORDER BY keys), which is what separates rank from row_number. The ranking functions,
// ntile, lag and lead ignore the frame; first_value, last_value and nth_value read it.

import type { Scalar, Vector } from '../batch.js';
import { getValue, isValid, vectorFrom } from '../batch.js';
import { PhysicalPlanError, planError } from '../errors.js';
import { commonType } from '../planner/coercion.js';
import { FLOAT64, INT64, typeName, UINT64, type DataType } from '../types.js';
import type { BoundSignature, WindowFrames, WindowFunction } from './function-types.js';

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

/** Rows up to and including the row's last peer, over the partition size. */
const cumeDist: WindowFunction = {
  kind: 'window',
  name: 'cume_dist',
  bind: (argTypes) => ({ ...noArgs('cume_dist')(argTypes), returnType: FLOAT64 }),
  evaluatePartition(_args, n, peers): Vector {
    const out = new Float64Array(n);
    let i = n - 1;
    while (i >= 0) {
      const first = peers[i]!;
      for (let k = first; k <= i; k++) out[k] = (i + 1) / n;
      i = first - 1;
    }
    return { type: FLOAT64, length: n, values: out };
  },
};

/** The integer literal at `index` of a window call's arguments, or `fallback` when absent. */
function integerArg(name: string, argTypes: readonly DataType[], constants: readonly (Scalar | undefined)[] | undefined, index: number, fallback: bigint): bigint {
  if (argTypes.length <= index) return fallback;
  const v = constants?.[index];
  if (typeof v !== 'bigint') {
    throw new PhysicalPlanError('sqlPlan', `Datafusion: Error during planning: The ${index === 0 ? 'first' : 'second'} argument of ${name} must be an integer literal, got ${typeName(argTypes[index]!)}`);
  }
  return v;
}

const ntile: WindowFunction = {
  kind: 'window',
  name: 'ntile',
  bind(argTypes, constants): BoundSignature {
    if (argTypes.length !== 1) throw planError(`The function ntile expects 1 arguments, but ${argTypes.length} were provided`);
    if (integerArg('ntile', argTypes, constants, 0, 0n) <= 0n) throw new PhysicalPlanError('sqlExecute', 'Datafusion: Execution error: NTILE requires a positive integer');
    return { argTypes: [INT64], returnType: UINT64 };
  },
  evaluatePartition(args, n): Vector {
    // DataFusion 27: bucket = floor(i * buckets / n) + 1.
    const buckets = BigInt((args[0]!.values as BigInt64Array)[0] ?? 1n);
    const out = new BigUint64Array(n);
    for (let i = 0; i < n; i++) out[i] = (BigInt(i) * buckets) / BigInt(n) + 1n;
    return { type: UINT64, length: n, values: out };
  },
};

/** lag / lead: the value `offset` rows before / after, else the default (NULL by default). */
function shifted(name: 'lag' | 'lead'): WindowFunction {
  const sign = name === 'lag' ? -1 : 1;
  return {
    kind: 'window',
    name,
    bind(argTypes, constants): BoundSignature {
      if (argTypes.length < 1 || argTypes.length > 3) throw planError(`The function ${name} expects 1 to 3 arguments, but ${argTypes.length} were provided`);
      integerArg(name, argTypes, constants, 1, 1n);
      const t = argTypes[0]!;
      if (argTypes.length < 3) return { argTypes: argTypes.length === 1 ? [t] : [t, INT64], returnType: t };
      const common = commonType([t, argTypes[2]!]) ?? t;
      return { argTypes: [common, INT64, common], returnType: common };
    },
    evaluatePartition(args, n, _peers, sig): Vector {
      const value = args[0]!;
      const offset = args.length > 1 ? Number((args[1]!.values as BigInt64Array)[0] ?? 1n) : 1;
      const fallback = args[2];
      const out: Scalar[] = new Array(n);
      for (let i = 0; i < n; i++) {
        const j = i + sign * offset;
        if (j >= 0 && j < n) out[i] = isValid(value, j) ? getValue(value, j) : null;
        else out[i] = fallback !== undefined && isValid(fallback, i) ? getValue(fallback, i) : null;
      }
      return vectorFrom(sig.returnType, out, Uint8Array.from(out, (v) => (v === null ? 0 : 1)));
    },
  };
}

/** first_value / last_value / nth_value: a row picked from the frame, NULL for an empty frame. */
function framePick(name: string, arity: number, pick: (start: number, end: number, nth: number) => number): WindowFunction {
  return {
    kind: 'window',
    name,
    bind(argTypes, constants): BoundSignature {
      if (argTypes.length !== arity) throw planError(`The function ${name} expects ${arity} arguments, but ${argTypes.length} were provided`);
      if (arity === 2 && integerArg(name, argTypes, constants, 1, 1n) <= 0n) throw new PhysicalPlanError('sqlExecute', 'Datafusion: Execution error: nth_value expect n to be > 0');
      return { argTypes: arity === 2 ? [argTypes[0]!, INT64] : argTypes, returnType: argTypes[0]! };
    },
    evaluatePartition(args, n, _peers, sig, frames: WindowFrames): Vector {
      const value = args[0]!;
      const nth = args.length > 1 ? Number((args[1]!.values as BigInt64Array)[0] ?? 1n) : 1;
      const out: Scalar[] = new Array(n);
      for (let i = 0; i < n; i++) {
        const s = frames.start[i]!;
        const e = frames.end[i]!;
        const j = e > s ? pick(s, e, nth) : -1;
        out[i] = j >= s && j < e && isValid(value, j) ? getValue(value, j) : null;
      }
      return vectorFrom(sig.returnType, out, Uint8Array.from(out, (v) => (v === null ? 0 : 1)));
    },
  };
}

export const WINDOW_FUNCTIONS: readonly WindowFunction[] = [
  rowNumber,
  rank,
  denseRank,
  percentRank,
  cumeDist,
  ntile,
  shifted('lag'),
  shifted('lead'),
  framePick('first_value', 1, (s) => s),
  framePick('last_value', 1, (_s, e) => e - 1),
  framePick('nth_value', 2, (s, _e, nth) => s + nth - 1),
];

