// Math functions with DataFusion 27's signatures: most take one DOUBLE (integers are cast; the
// candidate shows as `sqrt(Float64/Float32)`; abs too; a Float32 stays Float32), power keeps
// BIGINT for two integers, factorial/gcd/lcm are BIGINT. Rust's rounding is half away from zero
// (round(-2.5) = -3), unlike JavaScript's Math.round, so `roundHalfAway` does it by hand.
// log and atan2 list Float32 first (one_of Exact), so DataFusion computes them of integers in
// Float32, as Rust's f32 methods do: log(2) is 0.30102998 (ln 2 / ln 10, each rounded to single).

import { BOOLEAN, FLOAT32, FLOAT64, INT64, type Scalar, type Vector } from '../types/index.js';
import { executionError } from '../errors.js';
import type { BoundSignature, ScalarFunction } from './function-types.js';
import { MATH_TYPES_SHOWN, matchSignature, matchUniform, noMatchingSignature, rowwise } from './signature.js';

function roundHalfAway(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

/**
 * A one-argument DOUBLE -> DOUBLE function with a tight loop over Float64Array; of a Float32 (the
 * uniform signature's exact match) it is Float32 -> Float32, rounded to single.
 */
function unaryF64(name: string, f: (x: number) => number): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind(argTypes): BoundSignature {
      const sig = matchUniform(name, argTypes, 1, [FLOAT64, FLOAT32], MATH_TYPES_SHOWN);
      return { argTypes: sig, returnType: sig[0]! };
    },
    evaluate(args: readonly Vector[], n: number, _ctx, returnType): Vector {
      const a = args[0]!;
      const out = new Float64Array(n);
      if (a.type.id === 'Null') return { type: returnType, length: n, values: out, validity: new Uint8Array(n) };
      const x = a.values as Float64Array;
      if (returnType.id === 'Float32') for (let i = 0; i < n; i++) out[i] = Math.fround(f(x[i]!));
      else for (let i = 0; i < n; i++) out[i] = f(x[i]!);
      return { type: returnType, length: n, values: out, validity: a.validity };
    },
  };
}

// DataFusion 27's abs takes only floats (uniform Float64/Float32), so an integer comes back as a
// DOUBLE: abs(-2) is 2.0 (CnosDB's abs.slt); integer abs arrived in DataFusion 32.
const abs = unaryF64('abs', Math.abs);

const round = rowwise({
  name: 'round',
  bind(argTypes) {
    const sig = matchSignature('round', argTypes, [[FLOAT64, INT64], [FLOAT32, INT64], [FLOAT64], [FLOAT32]]);
    return { argTypes: sig, returnType: sig[0]! };
  },
  row(args: Scalar[]): Scalar {
    const x = args[0] as number;
    const digits = args.length > 1 ? Number(args[1] as bigint) : 0;
    if (digits === 0) return roundHalfAway(x) + 0;
    const p = 10 ** digits;
    return roundHalfAway(x * p) / p + 0;
  },
});

const power = rowwise({
  name: 'power',
  bind(argTypes) {
    const sig = matchSignature('power', argTypes, [
      [INT64, INT64],
      [FLOAT64, FLOAT64],
    ]);
    return { argTypes: sig, returnType: sig[0]! };
  },
  row(args: Scalar[], _ctx, returnType): Scalar {
    if (returnType.id === 'Int64') {
      const e = args[1] as bigint;
      // A negative exponent has no integer result: NULL, as CnosDB answers power(2, -2).
      if (e < 0n) return null;
      const v = (args[0] as bigint) ** e;
      if (v > 2n ** 63n - 1n || v < -(2n ** 63n))
        throw executionError(`Arrow error: Compute error: Overflow happened on: ${String(args[0])} ^ ${String(e)}`);
      return v;
    }
    return (args[0] as number) ** (args[1] as number);
  },
});

/**
 * log(x) is log(10, x); log(base, x) is Rust's x.log(base), ln(x) / ln(base) (in single precision,
 * each step rounded, for Float32).
 */
const log = rowwise({
  name: 'log',
  bind(argTypes) {
    const sig = matchSignature('log', argTypes, [[FLOAT32], [FLOAT64], [FLOAT32, FLOAT32], [FLOAT64, FLOAT64]]);
    return { argTypes: sig, returnType: sig[0]! };
  },
  row(args: Scalar[], _ctx, returnType): Scalar {
    const [base, x] = args.length === 1 ? [10, args[0] as number] : [args[0] as number, args[1] as number];
    if (returnType.id === 'Float32') return Math.fround(Math.fround(Math.log(x)) / Math.fround(Math.log(base)));
    return Math.log(x) / Math.log(base);
  },
});

const atan2 = rowwise({
  name: 'atan2',
  bind(argTypes) {
    const sig = matchSignature('atan2', argTypes, [
      [FLOAT32, FLOAT32],
      [FLOAT64, FLOAT64],
    ]);
    return { argTypes: sig, returnType: sig[0]! };
  },
  row: (args, _ctx, returnType) =>
    (returnType.id === 'Float32' ? Math.fround : Number)(Math.atan2(args[0] as number, args[1] as number)),
});

/**
 * isnan(x): DataFusion 27's one_of(Exact([Float32]), Exact([Float64])), BOOLEAN; an integer
 * matches the Float32 candidate and is never NaN.
 */
const isnan = rowwise({
  name: 'isnan',
  bind(argTypes) {
    return { argTypes: matchSignature('isnan', argTypes, [[FLOAT32], [FLOAT64]]), returnType: BOOLEAN };
  },
  row: (args) => Number.isNaN(args[0] as number),
});

function nullary(name: string, value: () => number, volatile = false): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    volatile,
    bind(argTypes): BoundSignature {
      if (argTypes.length > 0) throw noMatchingSignature(name, argTypes, [[]]);
      return { argTypes: [], returnType: FLOAT64 };
    },
    evaluate(_args, n: number): Vector {
      const out = new Float64Array(n);
      for (let i = 0; i < n; i++) out[i] = value();
      return { type: FLOAT64, length: n, values: out };
    },
  };
}

function integerFunction(name: string, arity: number, f: (args: bigint[]) => bigint): ScalarFunction {
  return rowwise({
    name,
    bind(argTypes) {
      return { argTypes: matchUniform(name, argTypes, arity, [INT64]), returnType: INT64 };
    },
    row: (args) => f(args as bigint[]),
  });
}

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

const I64_MAX = 2n ** 63n - 1n;

export const MATH_FUNCTIONS: readonly ScalarFunction[] = [
  abs,
  round,
  power,
  log,
  atan2,
  isnan,
  // Rounding to zero gives +0.0 as CnosDB shows it (ceil(-0.5) is 0.0, not -0.0).
  unaryF64('trunc', (x) => Math.trunc(x) + 0),
  unaryF64('floor', Math.floor),
  unaryF64('ceil', (x) => Math.ceil(x) + 0),
  unaryF64('sqrt', Math.sqrt),
  unaryF64('cbrt', Math.cbrt),
  unaryF64('exp', Math.exp),
  unaryF64('ln', Math.log),
  unaryF64('log10', Math.log10),
  unaryF64('log2', Math.log2),
  // Rust's f64::signum: 1.0 for +0.0 and every positive, -1.0 for -0.0 and every negative.
  unaryF64('signum', (x) => (x !== x ? NaN : x > 0 || Object.is(x, 0) ? 1 : -1)),
  unaryF64('sin', Math.sin),
  unaryF64('cos', Math.cos),
  unaryF64('tan', Math.tan),
  unaryF64('asin', Math.asin),
  unaryF64('acos', Math.acos),
  unaryF64('atan', Math.atan),
  unaryF64('sinh', Math.sinh),
  unaryF64('cosh', Math.cosh),
  unaryF64('tanh', Math.tanh),
  unaryF64('asinh', Math.asinh),
  unaryF64('acosh', Math.acosh),
  unaryF64('atanh', Math.atanh),
  unaryF64('degrees', (x) => (x * 180) / Math.PI),
  unaryF64('radians', (x) => (x * Math.PI) / 180),
  nullary('pi', () => Math.PI),
  nullary('random', Math.random, true),
  integerFunction('factorial', 1, ([x]) => {
    if (x! < 0n) return 1n;
    let r = 1n;
    for (let k = 2n; k <= x!; k++) {
      r *= k;
      if (r > I64_MAX) throw executionError(`Arrow error: Compute error: Overflow happened on FACTORIAL(${x})`);
    }
    return r;
  }),
  integerFunction('gcd', 2, ([a, b]) => gcd(a!, b!)),
  integerFunction('lcm', 2, ([a, b]) => {
    if (a === 0n || b === 0n) return 0n;
    const r = ((a! < 0n ? -a! : a!) / gcd(a!, b!)) * (b! < 0n ? -b! : b!);
    if (r > I64_MAX) throw executionError(`Arrow error: Compute error: Signed integer overflow in LCM(${a}, ${b})`);
    return r;
  }),
];
