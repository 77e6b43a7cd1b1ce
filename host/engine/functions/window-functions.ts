// DataFusion 27's built-in window functions. Each computes one sorted partition at a time
// (window-exec.ts sorts and splits); `peers[i]` is the first row of row i's peer group (rows with
// equal ORDER BY keys), which is what separates rank from row_number. The ranking functions,
// ntile, lag and lead ignore the frame; first_value, last_value and nth_value read it.

import {
  type DataType,
  FLOAT64,
  formatRustF64,
  getValue,
  INT64,
  isValid,
  type Scalar,
  typeName,
  UINT64,
  type Vector,
  vectorFrom,
} from '../types/index.js';
import { castError, planError } from '../errors.js';
import { PhysicalPlanError, type BoundSignature, type WindowFrames, type WindowFunction } from './function-types.js';

/** DataFusion 27's check of a `Signature::any(n)`: the built-in window functions but lag and lead. */
function expectAny(n: number, argTypes: readonly unknown[]): void {
  if (argTypes.length !== n) throw planError(`The function expected ${n} arguments but received ${argTypes.length}`);
}

function noArgs(): (argTypes: readonly unknown[]) => BoundSignature {
  return (argTypes) => {
    expectAny(0, argTypes);
    return { argTypes: [], returnType: UINT64 };
  };
}

/**
 * A literal as DataFusion 27's ScalarValue Debug prints it (`Float64(2.5)`, `Utf8("x")`), for the
 * messages of conversions that fail.
 */
function scalarDebug(type: DataType, v: Scalar | undefined): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number') return `${type.id}(${formatRustF64(v)})`;
  if (typeof v === 'string') return `${type.id}("${v}")`;
  return `${type.id}(${String(v)})`;
}

function u64(values: ArrayLike<number>, n: number): Vector {
  const out = new BigUint64Array(n);
  for (let i = 0; i < n; i++) out[i] = BigInt(values[i]!);
  return { type: UINT64, length: n, values: out };
}

const rowNumber: WindowFunction = {
  kind: 'window',
  name: 'row_number',
  bind: noArgs(),
  evaluatePartition(_args, n): Vector {
    const out = new BigUint64Array(n);
    for (let i = 0; i < n; i++) out[i] = BigInt(i + 1);
    return { type: UINT64, length: n, values: out };
  },
};

const rank: WindowFunction = {
  kind: 'window',
  name: 'rank',
  bind: noArgs(),
  evaluatePartition(_args, n, peers): Vector {
    const r = new Float64Array(n);
    for (let i = 0; i < n; i++) r[i] = peers[i]! + 1;
    return u64(r, n);
  },
};

const denseRank: WindowFunction = {
  kind: 'window',
  name: 'dense_rank',
  bind: noArgs(),
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
  bind: (argTypes) => ({ ...noArgs()(argTypes), returnType: FLOAT64 }),
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
  bind: (argTypes) => ({ ...noArgs()(argTypes), returnType: FLOAT64 }),
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
function integerArg(
  name: string,
  argTypes: readonly DataType[],
  constants: readonly (Scalar | undefined)[] | undefined,
  index: number,
  fallback: bigint,
): bigint {
  if (argTypes.length <= index) return fallback;
  const v = constants?.[index];
  if (typeof v !== 'bigint') {
    throw new PhysicalPlanError(
      'sqlPlan',
      `Datafusion: Error during planning: The ${index === 0 ? 'first' : 'second'} argument of ${name} must be an integer literal, got ${typeName(argTypes[index]!)}`,
    );
  }
  return v;
}

const ntile: WindowFunction = {
  kind: 'window',
  name: 'ntile',
  bind(argTypes, constants): BoundSignature {
    expectAny(1, argTypes);
    if (integerArg('ntile', argTypes, constants, 0, 0n) <= 0n)
      throw new PhysicalPlanError('sqlExecute', 'Datafusion: Execution error: NTILE requires a positive integer');
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

/**
 * lag / lead: the value `offset` rows before / after, else the default (NULL without one). As in
 * DataFusion 27, an offset literal that is not an integer (1.5, 'x', NULL, true) counts as 1, and
 * the default must be an integer literal, converted to the value's type.
 */
function shifted(name: 'lag' | 'lead'): WindowFunction {
  const sign = name === 'lag' ? -1 : 1;
  return {
    kind: 'window',
    name,
    bind(argTypes, constants): BoundSignature {
      if (argTypes.length < 1 || argTypes.length > 3) {
        throw planError(
          `Coercion from [${argTypes.map(typeName).join(', ')}] to the signature OneOf([Any(1), Any(2), Any(3)]) failed.`,
        );
      }
      literalArg(argTypes, constants, 1);
      const t = argTypes[0]!;
      // The offset and default stay as written: they are read from the argument's first row.
      if (argTypes.length < 3) return { argTypes: argTypes.length === 1 ? [t] : [t, argTypes[1]!], returnType: t };
      literalArg(argTypes, constants, 2);
      if (typeof constants?.[2] !== 'bigint') {
        throw new PhysicalPlanError(
          'sqlPlan',
          "Datafusion: Internal error: Expects default value to have Int64 type. This was likely caused by a bug in DataFusion's code and we would welcome that you file an bug report in our issue tracker",
          { argTypes: [t, argTypes[1]!, argTypes[2]!], returnType: t },
        );
      }
      return { argTypes: [t, argTypes[1]!, INT64], returnType: t };
    },
    evaluatePartition(args, n, _peers, sig): Vector {
      const value = args[0]!;
      const written = args.length > 1 && isValid(args[1]!, 0) ? getValue(args[1]!, 0) : null;
      const offset = typeof written === 'bigint' ? Number(written) : 1;
      const fallback =
        args.length > 2 && isValid(args[2]!, 0) ? castDefault(getValue(args[2]!, 0) as bigint, sig.returnType) : null;
      const out: Scalar[] = new Array(n);
      for (let i = 0; i < n; i++) {
        const j = i + sign * offset;
        out[i] = j >= 0 && j < n ? (isValid(value, j) ? getValue(value, j) : null) : fallback;
      }
      return vectorFrom(
        sig.returnType,
        out,
        Uint8Array.from(out, (v) => (v === null ? 0 : 1)),
      );
    },
  };
}

/**
 * An integer default as the value's type, as DataFusion casts the integer's text to that type
 * (arrow reads `1` and `0` as booleans; any other integer is no boolean).
 */
function castDefault(v: bigint, type: DataType): Scalar {
  switch (type.id) {
    case 'Float64':
      return Number(v);
    case 'Float32':
      return Math.fround(Number(v));
    case 'Utf8':
      return String(v);
    case 'Boolean':
      if (v === 0n || v === 1n) return v === 1n;
      throw castError(`Cannot cast string '${v}' to value of Boolean type`);
    default:
      return v;
  }
}

/** A window call's argument at `index` must be a literal (DataFusion reads it from the plan). */
function literalArg(
  argTypes: readonly DataType[],
  constants: readonly (Scalar | undefined)[] | undefined,
  index: number,
): void {
  if (argTypes.length > index && constants?.[index] === undefined) {
    throw new PhysicalPlanError(
      'sqlPlan',
      `Datafusion: This feature is not implemented: There is only support Literal types for field at idx: ${index} in Window Function`,
    );
  }
}

/** first_value / last_value / nth_value: a row picked from the frame, NULL for an empty frame. */
function framePick(
  name: string,
  arity: number,
  pick: (start: number, end: number, nth: number) => number,
): WindowFunction {
  return {
    kind: 'window',
    name,
    bind(argTypes, constants): BoundSignature {
      expectAny(arity, argTypes);
      if (arity === 1) return { argTypes, returnType: argTypes[0]! };
      literalArg(argTypes, constants, 1);
      const k = constants?.[1];
      const fallback = { argTypes: [argTypes[0]!, INT64], returnType: argTypes[0]! };
      if (typeof k !== 'bigint') {
        throw new PhysicalPlanError(
          'sqlExecute',
          `Datafusion: Execution error: Internal("Cannot convert ${scalarDebug(argTypes[1]!, k).replaceAll('"', '\\"')} to i64")`,
          fallback,
        );
      }
      if (k === 0n)
        throw new PhysicalPlanError(
          'sqlExecute',
          'Datafusion: Execution error: nth_value expect n to be > 0',
          fallback,
        );
      return fallback;
    },
    evaluatePartition(args, n, _peers, sig, frames: WindowFrames): Vector {
      const value = args[0]!;
      // DataFusion 27 takes n as a u32: a negative n is a position past any frame (NULL).
      const k = args.length > 1 ? BigInt.asUintN(32, getValue(args[1]!, 0) as bigint) : 1n;
      const nth = Number(k);
      const out: Scalar[] = new Array(n);
      for (let i = 0; i < n; i++) {
        const s = frames.start[i]!;
        const e = frames.end[i]!;
        const j = e > s ? pick(s, e, nth) : -1;
        out[i] = j >= s && j < e && isValid(value, j) ? getValue(value, j) : null;
      }
      return vectorFrom(
        sig.returnType,
        out,
        Uint8Array.from(out, (v) => (v === null ? 0 : 1)),
      );
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
