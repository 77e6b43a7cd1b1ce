// DataFusion 27's statistical aggregates: var/var_samp/var_pop, stddev/stddev_samp/stddev_pop,
// covar/covar_samp/covar_pop, corr and regr_*. All read their arguments as DOUBLE and return
// DOUBLE (regr_count: BIGINT UNSIGNED). They update with Welford's online algorithm in the same
// order of operations as DataFusion, so results agree to the last bit: a sample statistic of one
// row is NULL, a population one 0; rows where any argument is NULL are skipped, pairwise.

import { castVector, type DataType, FLOAT64, UINT64, type Vector } from '../types/index.js';
import type { AggregateFunction, BoundSignature, GroupsAccumulator } from './function-types.js';
import { expectAggregateArity, unsupportedInput } from './signature.js';

function grow(a: Float64Array<ArrayBuffer>, n: number): Float64Array<ArrayBuffer> {
  if (a.length >= n) return a;
  const b = new Float64Array(Math.max(n, a.length * 2, 16));
  b.set(a);
  return b;
}

const isNumeric = (t: DataType): boolean => t.id === 'Int64' || t.id === 'UInt64' || t.id === 'Float64';

/** DataFusion's argument checks: the count, then each argument numeric (named by `debugName`). */
function bindNumeric(debugName: string, argTypes: readonly DataType[], arity: number): void {
  expectAggregateArity(debugName, argTypes, arity);
  for (const t of argTypes) if (!isNumeric(t)) throw unsupportedInput(debugName, t);
}

/** Rows valid in every argument (undefined: all rows). */
function validRows(args: readonly Vector[], n: number): Uint8Array | undefined {
  let mask: Uint8Array | undefined;
  for (const a of args) {
    if (a.type.id === 'Null') return new Uint8Array(n);
    if (a.validity === undefined) continue;
    mask ??= new Uint8Array(n).fill(1);
    for (let i = 0; i < n; i++) mask[i]! &= a.validity[i]!;
  }
  return mask;
}

/** Count, mean and sum of squared deviations of one DOUBLE per group. */
class MomentsAccumulator implements GroupsAccumulator {
  #count = new Float64Array(16);
  #mean = new Float64Array(16);
  #m2 = new Float64Array(16);
  readonly #result: (count: number, m2: number) => number | null;

  constructor(result: (count: number, m2: number) => number | null) {
    this.#result = result;
  }

  update(args: readonly Vector[], groups: Int32Array, n: number, numGroups: number): void {
    const count = (this.#count = grow(this.#count, numGroups));
    const mean = (this.#mean = grow(this.#mean, numGroups));
    const m2 = (this.#m2 = grow(this.#m2, numGroups));
    const mask = validRows(args, n);
    const x = args[0]!.values as Float64Array;
    for (let i = 0; i < n; i++) {
      if (mask !== undefined && mask[i] === 0) continue;
      const g = groups[i]!;
      const c = count[g]! + 1;
      const d1 = x[i]! - mean[g]!;
      const m = d1 / c + mean[g]!;
      m2[g]! += d1 * (x[i]! - m);
      mean[g] = m;
      count[g] = c;
    }
  }

  finish(numGroups: number): Vector {
    const out = new Float64Array(numGroups);
    const validity = new Uint8Array(numGroups);
    for (let g = 0; g < numGroups; g++) {
      const r = this.#result(this.#count[g] ?? 0, this.#m2[g] ?? 0);
      if (r === null) continue;
      out[g] = r;
      validity[g] = 1;
    }
    return { type: FLOAT64, length: numGroups, values: out, validity };
  }

  sizeBytes(): number {
    return this.#count.byteLength * 3;
  }
}

/** The co-moments of two DOUBLEs per group (covariance, correlation, regression). */
class CoMomentsAccumulator implements GroupsAccumulator {
  #count = new Float64Array(16);
  #meanX = new Float64Array(16);
  #meanY = new Float64Array(16);
  #m2X = new Float64Array(16);
  #m2Y = new Float64Array(16);
  #c = new Float64Array(16);
  readonly #result: (s: CoMoments) => number | bigint | null;
  readonly #type: DataType;

  /** `y` is the first argument, `x` the second (DataFusion's order for covar and regr_*). */
  constructor(type: DataType, result: (s: CoMoments) => number | bigint | null) {
    this.#type = type;
    this.#result = result;
  }

  update(args: readonly Vector[], groups: Int32Array, n: number, numGroups: number): void {
    const count = (this.#count = grow(this.#count, numGroups));
    const meanX = (this.#meanX = grow(this.#meanX, numGroups));
    const meanY = (this.#meanY = grow(this.#meanY, numGroups));
    const m2X = (this.#m2X = grow(this.#m2X, numGroups));
    const m2Y = (this.#m2Y = grow(this.#m2Y, numGroups));
    const c = (this.#c = grow(this.#c, numGroups));
    const second =
      args[1]!.type.id === 'Float64' || args[1]!.type.id === 'Null' ? args[1]! : castVector(args[1]!, FLOAT64, true);
    const mask = validRows([args[0]!, second], n);
    const ys = args[0]!.values as Float64Array;
    const xs = second.values as Float64Array;
    for (let i = 0; i < n; i++) {
      if (mask !== undefined && mask[i] === 0) continue;
      const g = groups[i]!;
      const x = xs[i]!;
      const y = ys[i]!;
      const k = count[g]! + 1;
      const dx = x - meanX[g]!;
      const dy = y - meanY[g]!;
      const mx = dx / k + meanX[g]!;
      const my = dy / k + meanY[g]!;
      // DataFusion's covariance: delta of the first argument times the second's new deviation.
      c[g]! += dy * (x - mx);
      m2X[g]! += dx * (x - mx);
      m2Y[g]! += dy * (y - my);
      meanX[g] = mx;
      meanY[g] = my;
      count[g] = k;
    }
  }

  finish(numGroups: number): Vector {
    const values: (number | bigint | null)[] = [];
    for (let g = 0; g < numGroups; g++) {
      values.push(
        this.#result({
          count: this.#count[g] ?? 0,
          meanX: this.#meanX[g] ?? 0,
          meanY: this.#meanY[g] ?? 0,
          m2X: this.#m2X[g] ?? 0,
          m2Y: this.#m2Y[g] ?? 0,
          c: this.#c[g] ?? 0,
        }),
      );
    }
    const validity = Uint8Array.from(values, (v) => (v === null ? 0 : 1));
    if (this.#type.id === 'UInt64')
      return {
        type: UINT64,
        length: numGroups,
        values: BigUint64Array.from(values, (v) => (v === null ? 0n : BigInt(v))),
        validity,
      };
    return {
      type: FLOAT64,
      length: numGroups,
      values: Float64Array.from(values, (v) => (v === null ? 0 : Number(v))),
      validity,
    };
  }

  sizeBytes(): number {
    return this.#count.byteLength * 6;
  }
}

interface CoMoments {
  count: number;
  meanX: number;
  meanY: number;
  m2X: number;
  m2Y: number;
  c: number;
}

function moments(
  name: string,
  displayName: string,
  debugName: string,
  result: (count: number, m2: number) => number | null,
): AggregateFunction {
  return {
    kind: 'aggregate',
    name,
    displayName,
    bind(argTypes): BoundSignature {
      bindNumeric(debugName, argTypes, 1);
      return { argTypes: [FLOAT64], returnType: FLOAT64 };
    },
    createAccumulator: () => new MomentsAccumulator(result),
  };
}

/**
 * `firstOnly`: DataFusion 27 checks only the first argument of covar* and corr and hands both to
 * the accumulator, which casts them to DOUBLE as arrow's cast does (a string that is not a number
 * is NULL: covar(f, 'text') is NULL); regr_* check both.
 */
function coMoments(
  name: string,
  displayName: string,
  debugName: string,
  result: (s: CoMoments) => number | bigint | null,
  returnType: DataType = FLOAT64,
  firstOnly = false,
): AggregateFunction {
  return {
    kind: 'aggregate',
    name,
    displayName,
    bind(argTypes): BoundSignature {
      if (!firstOnly) {
        bindNumeric(debugName, argTypes, 2);
        return { argTypes: [FLOAT64, FLOAT64], returnType };
      }
      expectAggregateArity(debugName, argTypes, 2);
      if (!isNumeric(argTypes[0]!)) throw unsupportedInput(debugName, argTypes[0]!);
      const second = argTypes[1]!;
      if (isNumeric(second)) return { argTypes: [FLOAT64, FLOAT64], returnType };
      if (second.id === 'Utf8' || second.id === 'Boolean' || second.id === 'Null')
        return { argTypes: [FLOAT64, second], returnType };
      throw unsupportedInput(debugName, second);
    },
    createAccumulator: () => new CoMomentsAccumulator(returnType, result),
  };
}

const sampleVariance = (count: number, m2: number): number | null => (count <= 1 ? null : m2 / (count - 1));
const populationVariance = (count: number, m2: number): number | null =>
  count === 0 ? null : count === 1 ? 0 : m2 / count;
const sqrtOrNull = (v: number | null): number | null => (v === null ? null : Math.sqrt(v));

const variance = moments('var', 'VARIANCE', 'Variance', sampleVariance);
const stddev = moments('stddev', 'STDDEV', 'Stddev', (c, m) => sqrtOrNull(sampleVariance(c, m)));
const covariance = coMoments(
  'covar',
  'COVARIANCE',
  'Covariance',
  (s) => (s.count <= 1 ? null : s.c / (s.count - 1)),
  FLOAT64,
  true,
);

/** regr_*: y is the first argument. Undefined where the slope is (fewer than 2 rows, constant x). */
function regr(
  suffix: string,
  result: (s: CoMoments) => number | bigint | null,
  returnType: DataType = FLOAT64,
): AggregateFunction {
  const camel = suffix.replace(/^./, (c) => c.toUpperCase());
  return coMoments(`regr_${suffix}`, `REGR_${suffix.toUpperCase()}`, `Regr${camel}`, result, returnType);
}
const slope = (s: CoMoments): number | null => (s.count < 2 || s.m2X === 0 ? null : s.c / s.count / (s.m2X / s.count));

export const STATISTICAL_AGGREGATES: readonly AggregateFunction[] = [
  variance,
  { ...variance, name: 'var_samp' },
  moments('var_pop', 'VARIANCE_POP', 'VariancePop', populationVariance),
  stddev,
  { ...stddev, name: 'stddev_samp' },
  moments('stddev_pop', 'STDDEV_POP', 'StddevPop', (c, m) => sqrtOrNull(populationVariance(c, m))),
  covariance,
  { ...covariance, name: 'covar_samp' },
  coMoments(
    'covar_pop',
    'COVARIANCE_POP',
    'CovariancePop',
    (s) => (s.count === 0 ? null : s.c / s.count),
    FLOAT64,
    true,
  ),
  coMoments(
    'corr',
    'CORRELATION',
    'Correlation',
    (s) => {
      if (s.count === 0) return null;
      const sx = Math.sqrt(s.count === 1 ? 0 : s.m2X / s.count);
      const sy = Math.sqrt(s.count === 1 ? 0 : s.m2Y / s.count);
      const cov = s.c / s.count;
      return sx === 0 || sy === 0 ? 0 : cov / sx / sy;
    },
    FLOAT64,
    true,
  ),
  regr('slope', slope),
  regr('intercept', (s) => {
    const b = slope(s);
    return b === null ? null : s.meanY - b * s.meanX;
  }),
  regr('count', (s) => BigInt(s.count), UINT64),
  regr('r2', (s) => {
    if (s.count < 2 || s.m2X === 0) return null;
    if (s.m2Y === 0) return 1;
    const cov = s.c / s.count;
    return (cov * cov) / ((s.m2X / s.count) * (s.m2Y / s.count));
  }),
  regr('avgx', (s) => (s.count < 1 ? null : s.meanX)),
  regr('avgy', (s) => (s.count < 1 ? null : s.meanY)),
  regr('sxx', (s) => (s.count < 1 ? null : s.m2X)),
  regr('syy', (s) => (s.count < 1 ? null : s.m2Y)),
  regr('sxy', (s) => (s.count < 1 ? null : s.c)),
];
