// Aggregates over a group's values as a set or a list: array_agg (DataFusion: NULLs kept, ORDER BY
// honoured, DISTINCT), first_value/last_value without OVER, approx_distinct (exact here:
// DataFusion's HyperLogLog is exact at small cardinalities and this engine has no reason to be
// less so), bool_and/bool_or, bit_and/bit_or/bit_xor, and CnosDB's mode (the most frequent
// non-NULL value; the first one seen wins a tie, where CnosDB's hash map order decides) and
// sample(x, n) (n random values, all of them in input order when there are at most n), and
// max_n(x, n) (the n largest values).

import { type DataType, isValid, type Scalar, typeName, UINT64, type Vector } from '../types/index.js';
import { datafusionNotImplemented, executionError, planError } from '../errors.js';
import { HASH_ENTRY_BYTES, scalarBytes, SET_BYTES } from '../memory/index.js';
import { CollectingAccumulator, compareScalars, scalarKey } from './collecting-accumulator.js';
import type { AggregateFunction, BoundSignature, GroupsAccumulator } from './function-types.js';
import { expectAggregateArity, unsupportedInput } from './signature.js';

const expectArgCount = expectAggregateArity;

/** The UDAF form of the arity error (CnosDB's functions with a signature of any type). */
function expectUdafArgs(name: string, argTypes: readonly DataType[], n: number): void {
  if (argTypes.length !== n)
    throw planError(`The function "${name}" expects ${n} arguments, but ${argTypes.length} were provided`);
}

const listOf = (item: DataType): DataType => ({ id: 'List', item });

/** A group's rows (value, then the ORDER BY keys) in the call's ORDER BY order, or as they came. */
function inCallOrder(rows: Scalar[][], order: NonNullable<BoundSignature['orderBy']>): Scalar[][] {
  if (order.length === 0) return rows;
  return rows.slice().sort((a, b) => {
    for (let k = 0; k < order.length; k++) {
      const x = a[1 + k]!;
      const y = b[1 + k]!;
      if (x === null || y === null) {
        if (x === y) continue;
        return (x === null) === order[k]!.nullsFirst ? -1 : 1;
      }
      const c = compareScalars(x, y);
      if (c !== 0) return order[k]!.asc ? c : -c;
    }
    return 0;
  });
}

const arrayAgg: AggregateFunction = {
  kind: 'aggregate',
  name: 'array_agg',
  displayName: 'ARRAY_AGG',
  orderSensitive: true,
  bind(argTypes): BoundSignature {
    expectArgCount('ArrayAgg', argTypes, 1);
    return { argTypes, returnType: listOf(argTypes[0]!) };
  },
  createAccumulator(sig, distinct): GroupsAccumulator {
    const order = sig.orderBy ?? [];
    return new CollectingAccumulator(sig.returnType, 'all', (rows) => {
      let values = inCallOrder(rows, order).map((r) => r[0]!);
      if (distinct) {
        const seen = new Set<unknown>();
        values = values.filter((v) => {
          const k = scalarKey(v);
          if (seen.has(k)) return false;
          seen.add(k);
          return true;
        });
      }
      return values;
    });
  },
};

/**
 * first_value(x) and last_value(x) called without OVER: DataFusion's aggregates of those names,
 * the value of the group's first or last row (NULL included), in the call's ORDER BY order or,
 * without one, in the order the rows came.
 */
function framelessPick(name: string, displayName: string, debugName: string, last: boolean): AggregateFunction {
  return {
    kind: 'aggregate',
    name,
    displayName,
    orderSensitive: true,
    bind(argTypes): BoundSignature {
      expectArgCount(debugName, argTypes, 1);
      return { argTypes, returnType: argTypes[0]! };
    },
    createAccumulator(sig): GroupsAccumulator {
      const order = sig.orderBy ?? [];
      return new CollectingAccumulator(sig.returnType, 'all', (rows) => {
        if (rows.length === 0) return null;
        const sorted = inCallOrder(rows, order);
        return sorted[last ? sorted.length - 1 : 0]![0]!;
      });
    },
  };
}

/** Exact distinct count of the non-NULL values; the types DataFusion's sketch supports. */
class DistinctCountAccumulator implements GroupsAccumulator {
  #sets: Set<unknown>[] = [];
  /** Bytes of the sets and their values. */
  #size = 0;

  update(args: readonly Vector[], groups: Int32Array, n: number, numGroups: number): void {
    const a = args[0]!;
    const t = a.type.id;
    if (t !== 'Int64' && t !== 'UInt64' && t !== 'Utf8')
      throw datafusionNotImplemented(
        `Support for 'approx_distinct' for data type ${typeName(a.type)} is not implemented`,
      );
    while (this.#sets.length < numGroups) {
      this.#sets.push(new Set());
      this.#size += SET_BYTES;
    }
    const values = a.values as ArrayLike<unknown>;
    for (let i = 0; i < n; i++) {
      if (!isValid(a, i)) continue;
      const s = this.#sets[groups[i]!]!;
      const before = s.size;
      const v = values[i];
      s.add(v);
      if (s.size > before) this.#size += HASH_ENTRY_BYTES + scalarBytes(v as Scalar);
    }
  }

  finish(numGroups: number): Vector {
    const out = new BigUint64Array(numGroups);
    for (let g = 0; g < numGroups; g++) out[g] = BigInt(this.#sets[g]?.size ?? 0);
    return { type: UINT64, length: numGroups, values: out };
  }

  sizeBytes(): number {
    return this.#size;
  }
}

const approxDistinct: AggregateFunction = {
  kind: 'aggregate',
  name: 'approx_distinct',
  displayName: 'APPROX_DISTINCT',
  bind(argTypes): BoundSignature {
    expectArgCount('ApproxDistinct', argTypes, 1);
    return { argTypes, returnType: UINT64 };
  },
  createAccumulator: () => new DistinctCountAccumulator(),
};

/** A fold over the non-NULL values of a group (NULL for a group without any). */
function fold(
  name: string,
  displayName: string,
  debugName: string,
  accepts: (t: DataType) => boolean,
  step: (acc: Scalar, v: Scalar) => Scalar,
): AggregateFunction {
  return {
    kind: 'aggregate',
    name,
    displayName,
    bind(argTypes): BoundSignature {
      expectArgCount(debugName, argTypes, 1);
      if (!accepts(argTypes[0]!)) throw unsupportedInput(debugName, argTypes[0]!);
      return { argTypes, returnType: argTypes[0]! };
    },
    createAccumulator(sig, distinct): GroupsAccumulator {
      return new CollectingAccumulator(sig.returnType, [0], (rows) => {
        let values = rows.map((r) => r[0]!);
        if (distinct) values = [...new Map(values.map((v) => [scalarKey(v), v])).values()];
        if (values.length === 0) return null;
        let acc: Scalar = values[0]!;
        for (let i = 1; i < values.length; i++) acc = step(acc, values[i]!);
        return acc;
      });
    },
  };
}

const isInteger = (t: DataType): boolean => t.id === 'Int64' || t.id === 'UInt64';
const isBoolean = (t: DataType): boolean => t.id === 'Boolean';

/** mode(x): the most frequent non-NULL value. */
const mode: AggregateFunction = {
  kind: 'aggregate',
  name: 'mode',
  displayName: 'mode',
  bind(argTypes): BoundSignature {
    expectUdafArgs('mode', argTypes, 1);
    return { argTypes, returnType: argTypes[0]! };
  },
  createAccumulator(sig): GroupsAccumulator {
    return new CollectingAccumulator(sig.returnType, [0], (rows) => {
      const counts = new Map<unknown, { value: Scalar; count: number }>();
      let best: { value: Scalar; count: number } | undefined;
      for (const r of rows) {
        const k = scalarKey(r[0]!);
        let e = counts.get(k);
        if (e === undefined) counts.set(k, (e = { value: r[0]!, count: 0 }));
        e.count++;
        if (best === undefined || e.count > best.count) best = e;
      }
      return best === undefined ? null : (best.value as Scalar);
    });
  },
};

/** CnosDB's sample: the value types it lists, with an integer count in (0, 2000]. */
const SAMPLE_VALUE_TYPES = new Set(['Utf8', 'Int64', 'UInt64', 'Float64', 'Timestamp', 'Date32']);

const sample: AggregateFunction = {
  kind: 'aggregate',
  name: 'sample',
  displayName: 'sample',
  bind(argTypes): BoundSignature {
    if (argTypes.length !== 2)
      throw planError(`The function "sample" does not accept ${argTypes.length} function arguments.`);
    const [v, k] = argTypes as [DataType, DataType];
    if (!SAMPLE_VALUE_TYPES.has(v.id) || !isInteger(k)) {
      throw planError(
        `No function matches the given name and argument types 'sample(${typeName(v)}, ${typeName(k)})'. You might need to add explicit type casts.`,
      );
    }
    return { argTypes, returnType: listOf(v) };
  },
  createAccumulator(sig): GroupsAccumulator {
    return new CollectingAccumulator(sig.returnType, 'all', (rows) => {
      if (rows.length === 0) return null;
      const raw = rows[0]![1];
      const k = raw === null ? 0 : Number(raw as bigint);
      if (!(k > 0 && k <= 2000))
        throw executionError(
          "Datafusion: Error during planning: The number of sample points for function 'sample' must be (0, 2000]",
        );
      if (rows.length <= k) return rows.map((r) => r[0]!);
      // k distinct random rows (a partial Fisher-Yates shuffle), kept in input order.
      const idx = Array.from({ length: rows.length }, (_, i) => i);
      for (let i = 0; i < k; i++) {
        const j = i + Math.floor(Math.random() * (idx.length - i));
        [idx[i], idx[j]] = [idx[j]!, idx[i]!];
      }
      return idx
        .slice(0, k)
        .sort((a, b) => a - b)
        .map((i) => rows[i]![0]!);
    });
  },
};

/** CnosDB's max_n(x, n): the n largest non-NULL values, largest first, duplicates kept. */
const maxN: AggregateFunction = {
  kind: 'aggregate',
  name: 'max_n',
  displayName: 'max_n',
  bind(argTypes): BoundSignature {
    expectUdafArgs('max_n', argTypes, 2);
    const [v, k] = argTypes as [DataType, DataType];
    if (v.id === 'List' || v.id === 'Struct' || v.id === 'Null' || !isInteger(k)) {
      throw planError(
        `No function matches the given name and argument types 'max_n(${typeName(v)}, ${typeName(k)})'. You might need to add explicit type casts.`,
      );
    }
    return { argTypes, returnType: listOf(v) };
  },
  createAccumulator(sig): GroupsAccumulator {
    return new CollectingAccumulator(sig.returnType, 'all', (rows) => {
      if (rows.length === 0) return null;
      const raw = rows[0]![1];
      const k = raw === null ? 0 : Number(raw as bigint);
      if (!(k > 0))
        throw executionError(
          "Datafusion: Error during planning: The second argument of function 'max_n' must be a positive integer",
        );
      const values = rows.map((r) => r[0]!).filter((v) => v !== null);
      return values.sort((a, b) => compareScalars(b, a)).slice(0, k);
    });
  },
};

export const COLLECTION_AGGREGATES: readonly AggregateFunction[] = [
  arrayAgg,
  framelessPick('first_value', 'FIRST_VALUE', 'FirstValue', false),
  framelessPick('last_value', 'LAST_VALUE', 'LastValue', true),
  approxDistinct,
  fold('bool_and', 'BOOL_AND', 'BoolAnd', isBoolean, (a, v) => (a as boolean) && (v as boolean)),
  fold('bool_or', 'BOOL_OR', 'BoolOr', isBoolean, (a, v) => (a as boolean) || (v as boolean)),
  fold('bit_and', 'BIT_AND', 'BitAnd', isInteger, (a, v) => (a as bigint) & (v as bigint)),
  fold('bit_or', 'BIT_OR', 'BitOr', isInteger, (a, v) => (a as bigint) | (v as bigint)),
  fold('bit_xor', 'BIT_XOR', 'BitXor', isInteger, (a, v) => (a as bigint) ^ (v as bigint)),
  mode,
  sample,
  maxN,
];
