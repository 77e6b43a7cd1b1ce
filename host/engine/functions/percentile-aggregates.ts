// median (exact) and the t-digest estimates approx_median, approx_percentile_cont and
// approx_percentile_cont_with_weight, with DataFusion 27's typing: the result has the input's
// type, so the estimate of a BIGINT column is truncated toward zero; the median of an even
// number of integers is their mean truncated. The percentile must be a DOUBLE literal in [0, 1],
// checked at planning, with DataFusion's messages.

import {
  type DataType,
  FLOAT64,
  formatRustF64,
  isValid,
  type Scalar,
  typeName,
  type Vector,
  vectorFrom,
} from '../types/index.js';
import { datafusionNotImplemented, planError } from '../errors.js';
import { CollectingAccumulator, compareScalars } from './collecting-accumulator.js';
import type { AggregateFunction, BoundSignature, GroupsAccumulator } from './function-types.js';
import { TDigest } from './t-digest.js';
import { expectAggregateArity, unsupportedInput } from './signature.js';

const DEFAULT_MAX_SIZE = 100;
const isNumeric = (t: DataType): boolean => t.id === 'Int64' || t.id === 'UInt64' || t.id === 'Float64';

const checkArity = expectAggregateArity;

/** The arity error of an aggregate with several exact signatures (DataFusion's OneOf). */
function oneOfArity(debugName: string, argTypes: readonly DataType[], min: number, max = min): void {
  if (argTypes.length < min || argTypes.length > max)
    throw planError(`The function ${debugName} does not accept ${argTypes.length} function arguments.`);
}

function checkNumeric(debugName: string, t: DataType): void {
  if (!isNumeric(t)) throw unsupportedInput(debugName, t);
}

/** A value of the result type from a DOUBLE estimate: integers truncate toward zero and saturate. */
function fromDouble(x: number, type: DataType): Scalar {
  if (type.id === 'Float64') return x;
  if (Number.isNaN(x)) return 0n;
  const t = BigInt(Math.trunc(Math.max(Math.min(x, 1.8446744073709552e19), -9.223372036854776e18)));
  if (type.id === 'UInt64') return t < 0n ? 0n : t > 2n ** 64n - 1n ? 2n ** 64n - 1n : t;
  return t < -(2n ** 63n) ? -(2n ** 63n) : t > 2n ** 63n - 1n ? 2n ** 63n - 1n : t;
}

const median: AggregateFunction = {
  kind: 'aggregate',
  name: 'median',
  displayName: 'MEDIAN',
  bind(argTypes): BoundSignature {
    checkArity('Median', argTypes, 1);
    checkNumeric('Median', argTypes[0]!);
    return { argTypes, returnType: argTypes[0]! };
  },
  createAccumulator(sig): GroupsAccumulator {
    const type = sig.returnType;
    return new CollectingAccumulator(type, [0], (rows) => {
      if (rows.length === 0) return null;
      const xs = rows.map((r) => r[0]!).sort(compareScalars);
      const n = xs.length;
      if (n % 2 === 1) return xs[(n - 1) / 2]!;
      const lo = xs[n / 2 - 1]!;
      const hi = xs[n / 2]!;
      // Integers: (a + b) / 2 in the integer type (Rust's division truncates toward zero).
      if (typeof lo === 'bigint') return BigInt.asIntN(type.id === 'UInt64' ? 65 : 64, (lo + (hi as bigint)) / 2n);
      return ((lo as number) + (hi as number)) / 2;
    });
  },
};

/** Checks the percentile argument (a DOUBLE literal in [0, 1]) and returns it. */
function percentileOf(debugName: string, t: DataType, c: Scalar | undefined): number {
  if (t.id !== 'Float64')
    throw planError(`The percentile argument for ${debugName} must be Float64, not ${typeName(t)}.`);
  if (c === undefined)
    throw datafusionNotImplemented(`Percentile value for 'APPROX_PERCENTILE_CONT' must be a literal`);
  if (typeof c !== 'number')
    throw datafusionNotImplemented(
      `Percentile value for 'APPROX_PERCENTILE_CONT' must be Float32 or Float64 literal (got data type ${typeName(t)})`,
    );
  if (!(c >= 0 && c <= 1))
    throw planError(`Percentile value must be between 0.0 and 1.0 inclusive, ${formatRustF64(c)} is invalid`);
  return c;
}

function maxSizeOf(t: DataType, c: Scalar | undefined): number {
  if (typeof c === 'bigint' && c > 0n && (t.id === 'Int64' || t.id === 'UInt64')) return Number(c);
  throw datafusionNotImplemented(
    `Tdigest max_size value for 'APPROX_PERCENTILE_CONT' must be UInt > 0 literal (got data type ${typeName(t)}).`,
  );
}

/**
 * A t-digest per group; each batch's values of a group are merged at once, as DataFusion does.
 * The percentile (and max size) are literals checked by bind; they arrive as constant argument
 * vectors at positions `percentileArg` (and the one after it).
 */
class DigestAccumulator implements GroupsAccumulator {
  #digests: TDigest[] = [];
  #percentile = 0.5;
  #maxSize = DEFAULT_MAX_SIZE;
  readonly #type: DataType;
  readonly #percentileArg: number | undefined;
  readonly #weighted: boolean;

  constructor(type: DataType, percentileArg: number | undefined, weighted: boolean) {
    this.#type = type;
    this.#percentileArg = percentileArg;
    this.#weighted = weighted;
  }

  update(args: readonly Vector[], groups: Int32Array, n: number, numGroups: number): void {
    const p = this.#percentileArg;
    if (p !== undefined && n > 0) {
      this.#percentile = (args[p]!.values as Float64Array)[0]!;
      const size = args[p + 1];
      if (size !== undefined && this.#digests.length === 0) this.#maxSize = Number((size.values as BigInt64Array)[0]!);
    }
    while (this.#digests.length < numGroups) this.#digests.push(new TDigest(this.#maxSize));
    const values = args[0]!;
    const weights = this.#weighted ? args[1]! : undefined;
    const perGroup = new Map<number, number[][]>();
    const num = (v: Vector, i: number): number => Number((v.values as ArrayLike<number | bigint>)[i]!);
    // DataFusion 27's weighted accumulator reads the arrays' value buffers, nulls included, where
    // a null slot holds 0: a row with a null value or weight still counts, as a 0.
    const weightedNum = (v: Vector, i: number): number => (isValid(v, i) ? num(v, i) : 0);
    for (let i = 0; i < n; i++) {
      if (weights === undefined && !isValid(values, i)) continue;
      let list = perGroup.get(groups[i]!);
      if (list === undefined) perGroup.set(groups[i]!, (list = []));
      list.push(weights === undefined ? [num(values, i)] : [weightedNum(values, i), weightedNum(weights, i)]);
    }
    for (const [g, list] of perGroup) {
      const d = this.#digests[g]!;
      if (weights === undefined) this.#digests[g] = d.mergeSorted(list.map((x) => x[0]!).sort((a, b) => a - b));
      else {
        // DataFusion makes a one-centroid digest per row (counting the row once, whatever its weight).
        const singles = list.map(
          ([mean, weight]) => new TDigest(DEFAULT_MAX_SIZE, [{ mean: mean!, weight: weight! }], 1, mean!, mean!),
        );
        this.#digests[g] = TDigest.merge([d, ...singles], d.maxSize);
      }
    }
  }

  finish(numGroups: number): Vector {
    const out: Scalar[] = [];
    for (let g = 0; g < numGroups; g++) {
      const d = this.#digests[g];
      out.push(d === undefined || d.count === 0 ? null : fromDouble(d.quantile(this.#percentile), this.#type));
    }
    return vectorFrom(
      this.#type,
      out,
      Uint8Array.from(out, (v) => (v === null ? 0 : 1)),
    );
  }

  sizeBytes(): number {
    let n = 0;
    for (const d of this.#digests) n += 64 + d.centroids.length * 32;
    return n;
  }
}

const approxPercentileCont: AggregateFunction = {
  kind: 'aggregate',
  name: 'approx_percentile_cont',
  displayName: 'APPROX_PERCENTILE_CONT',
  bind(argTypes, _distinct, constants = []): BoundSignature {
    oneOfArity('ApproxPercentileCont', argTypes, 2, 3);
    checkNumeric('ApproxPercentileCont', argTypes[0]!);
    percentileOf('ApproxPercentileCont', argTypes[1]!, constants[1]);
    if (argTypes.length > 2) maxSizeOf(argTypes[2]!, constants[2]);
    return { argTypes, returnType: argTypes[0]! };
  },
  createAccumulator(sig): GroupsAccumulator {
    return new DigestAccumulator(sig.returnType, 1, false);
  },
};

const approxPercentileContWithWeight: AggregateFunction = {
  kind: 'aggregate',
  name: 'approx_percentile_cont_with_weight',
  displayName: 'APPROX_PERCENTILE_CONT_WITH_WEIGHT',
  bind(argTypes, _distinct, constants = []): BoundSignature {
    const name = 'ApproxPercentileContWithWeight';
    oneOfArity(name, argTypes, 3);
    checkNumeric(name, argTypes[0]!);
    if (!isNumeric(argTypes[1]!))
      throw planError(`The weight argument for ${name} does not support inputs of type ${typeName(argTypes[1]!)}.`);
    percentileOf(name, argTypes[2]!, constants[2]);
    return { argTypes: [argTypes[0]!, argTypes[0]!, FLOAT64], returnType: argTypes[0]! };
  },
  createAccumulator(sig): GroupsAccumulator {
    return new DigestAccumulator(sig.returnType, 2, true);
  },
};

const approxMedian: AggregateFunction = {
  kind: 'aggregate',
  name: 'approx_median',
  displayName: 'APPROX_MEDIAN',
  bind(argTypes): BoundSignature {
    checkArity('ApproxMedian', argTypes, 1);
    checkNumeric('ApproxMedian', argTypes[0]!);
    return { argTypes, returnType: argTypes[0]! };
  },
  createAccumulator(sig): GroupsAccumulator {
    return new DigestAccumulator(sig.returnType, undefined, false);
  },
};

export const PERCENTILE_AGGREGATES: readonly AggregateFunction[] = [
  median,
  approxMedian,
  approxPercentileCont,
  approxPercentileContWithWeight,
];
