// Math functions. DataFusion 27 computes them on DOUBLE (integers are cast), except abs, which
// keeps its argument's type. Rust's rounding is half away from zero (round(-2.5) = -3), unlike
// JavaScript's Math.round, so `roundHalfAway` does it by hand.

import type { Scalar, Vector } from '../batch.js';
import { FLOAT64, INT64, UINT64, type DataType } from '../types.js';
import { executionError } from '../errors.js';
import type { BoundSignature, ScalarFunction } from './function-types.js';
import { expectArgs, matchSignature, NUMERIC_UNARY, noMatchingSignature, rowwise } from './signature.js';

function roundHalfAway(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

/** A one-argument DOUBLE -> DOUBLE function with a tight loop over Float64Array. */
function unaryF64(name: string, f: (x: number) => number): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind(argTypes): BoundSignature {
      const sig = matchSignature(name, argTypes, NUMERIC_UNARY);
      return { argTypes: sig, returnType: FLOAT64 };
    },
    evaluate(args: readonly Vector[], n: number): Vector {
      const a = args[0]!;
      const out = new Float64Array(n);
      if (a.type.id === 'Null') return { type: FLOAT64, length: n, values: out, validity: new Uint8Array(n) };
      const x = a.values as Float64Array;
      for (let i = 0; i < n; i++) out[i] = f(x[i]!);
      return { type: FLOAT64, length: n, values: out, validity: a.validity };
    },
  };
}

const abs: ScalarFunction = {
  kind: 'scalar',
  name: 'abs',
  bind(argTypes): BoundSignature {
    expectArgs('abs', argTypes, 1);
    const t = argTypes[0]!;
    if (t.id === 'Int64' || t.id === 'UInt64' || t.id === 'Float64') return { argTypes: [t], returnType: t };
    if (t.id === 'Null') return { argTypes: [FLOAT64], returnType: FLOAT64 };
    throw noMatchingSignature('abs', argTypes, [[INT64], [UINT64], [FLOAT64]]);
  },
  evaluate(args: readonly Vector[], n: number, _ctx, returnType: DataType): Vector {
    const a = args[0]!;
    if (returnType.id === 'Float64') {
      const x = a.values as Float64Array;
      const out = new Float64Array(n);
      for (let i = 0; i < n; i++) out[i] = Math.abs(x[i]!);
      return { type: returnType, length: n, values: out, validity: a.validity };
    }
    if (returnType.id === 'UInt64') return a;
    const x = a.values as BigInt64Array;
    const out = new BigInt64Array(n);
    for (let i = 0; i < n; i++) {
      const v = x[i]!;
      if (v === -(2n ** 63n) && (a.validity === undefined || a.validity[i] === 1)) throw executionError(`Arrow error: Compute error: Int64 overflow on abs(${v})`);
      out[i] = v < 0n ? -v : v;
    }
    return { type: returnType, length: n, values: out, validity: a.validity };
  },
};

const round = rowwise({
  name: 'round',
  bind(argTypes) {
    const sig = matchSignature('round', argTypes, [[FLOAT64], [FLOAT64, INT64]]);
    return { argTypes: sig, returnType: FLOAT64 };
  },
  row(args: Scalar[]): Scalar {
    const x = args[0] as number;
    const digits = args.length > 1 ? Number(args[1] as bigint) : 0;
    if (digits === 0) return roundHalfAway(x);
    const p = 10 ** digits;
    return roundHalfAway(x * p) / p;
  },
});

const trunc = rowwise({
  name: 'trunc',
  bind(argTypes) {
    const sig = matchSignature('trunc', argTypes, [[FLOAT64], [FLOAT64, INT64]]);
    return { argTypes: sig, returnType: FLOAT64 };
  },
  row(args: Scalar[]): Scalar {
    const x = args[0] as number;
    const digits = args.length > 1 ? Number(args[1] as bigint) : 0;
    const p = 10 ** digits;
    return Math.trunc(x * p) / p;
  },
});

const power = rowwise({
  name: 'power',
  bind(argTypes) {
    const sig = matchSignature('power', argTypes, [[INT64, INT64], [FLOAT64, FLOAT64]]);
    return { argTypes: sig, returnType: sig[0]! };
  },
  row(args: Scalar[], _ctx, returnType): Scalar {
    if (returnType.id === 'Int64') {
      const e = args[1] as bigint;
      if (e < 0n) throw executionError('Arrow error: Compute error: Negative exponent in integer power');
      const v = (args[0] as bigint) ** e;
      if (v > 2n ** 63n - 1n || v < -(2n ** 63n)) throw executionError(`Arrow error: Compute error: Overflow happened on: ${String(args[0])} ^ ${String(e)}`);
      return v;
    }
    return (args[0] as number) ** (args[1] as number);
  },
});

export const MATH_FUNCTIONS: readonly ScalarFunction[] = [
  abs,
  round,
  trunc,
  power,
  unaryF64('floor', Math.floor),
  unaryF64('ceil', Math.ceil),
  unaryF64('sqrt', Math.sqrt),
  unaryF64('cbrt', Math.cbrt),
  unaryF64('exp', Math.exp),
  unaryF64('ln', Math.log),
  unaryF64('log10', Math.log10),
  unaryF64('log2', Math.log2),
  unaryF64('signum', (x) => (x > 0 ? 1 : x < 0 ? -1 : 0)),
  unaryF64('sin', Math.sin),
  unaryF64('cos', Math.cos),
  unaryF64('tan', Math.tan),
  unaryF64('asin', Math.asin),
  unaryF64('acos', Math.acos),
  unaryF64('atan', Math.atan),
  unaryF64('degrees', (x) => (x * 180) / Math.PI),
  unaryF64('radians', (x) => (x * Math.PI) / 180),
];
