// DataFusion 27's array functions over List values (the reference's "DataFusion 27 built-ins"):
// make_array (and the `[a, b]` literal), array_append, array_prepend, array_concat,
// array_length, array_ndims, array_dims, cardinality, array_position, array_positions,
// array_has, array_has_all, array_has_any, array_to_string and trim_array. Positions and
// dimensions count from 1, as DataFusion's do; lengths are BIGINT UNSIGNED. A list value is a
// JavaScript array of its elements (NULL elements are null).

import {
  BOOLEAN,
  commonType,
  type DataType,
  INT64,
  isValid,
  type Scalar,
  typeName,
  UINT64,
  UTF8,
  vectorFrom,
} from '../types/index.js';
import { planError } from '../errors.js';
import type { ScalarFunction } from './function-types.js';
import { expectArgs, rowwise } from './signature.js';

type ListType = Extract<DataType, { id: 'List' }>;

const listOf = (item: DataType): ListType => ({ id: 'List', item });

/** The list type of argument `i`, or DataFusion's planning error naming the function. */
function listArg(name: string, argTypes: readonly DataType[], i: number): ListType {
  const t = argTypes[i];
  if (t?.id === 'Null') return listOf(t); // a NULL list: the result is NULL (or, in array_concat, left out)
  if (t === undefined || t.id !== 'List')
    throw planError(
      `The ${name} function can only accept list as the ${i === 0 ? 'first' : 'second'} argument, got ${t === undefined ? 'nothing' : typeName(t)}`,
    );
  return t;
}

/** DataFusion's arity error, the function's name quoted (signature.ts expectArgs). */
const arity = (name: string, argTypes: readonly DataType[], min: number, max = min): void =>
  expectArgs(`"${name}"`, argTypes, min, max);

/** The type an element argument is cast to: the list's item type (the element's own for a NULL list). */
const elementType = (list: ListType, element: DataType): DataType => (list.item.id === 'Null' ? element : list.item);

/** Element equality of two values of the item type (both cast to it): lists element by element. */
function same(a: Scalar, b: Scalar): boolean {
  if (a === b) return true;
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  return (a as Scalar[]).every((x, i) => same(x, (b as Scalar[])[i]!));
}

/** The number of nested list levels of a type. */
function ndims(t: DataType): number {
  let n = 0;
  for (let x = t; x.id === 'List'; x = x.item) n++;
  return n;
}

/** The leaves of a (nested) list value. */
function leaves(v: readonly Scalar[], out: Scalar[] = []): Scalar[] {
  for (const e of v) {
    if (Array.isArray(e)) leaves(e as Scalar[], out);
    else out.push(e);
  }
  return out;
}

/** Text of an element as DataFusion's array_to_string writes it (Rust's Display). */
function elementText(v: Scalar): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < 1e21 ? v.toFixed(0) : String(v);
  return JSON.stringify(v);
}

const makeArray = rowwise({
  name: 'make_array',
  nullSafe: true,
  bind(argTypes) {
    if (argTypes.length === 0) return { argTypes: [], returnType: listOf({ id: 'Null' }) };
    const item = commonType(argTypes);
    if (item === undefined)
      throw planError(`Unsupported argument types for make_array: ${argTypes.map(typeName).join(', ')}`);
    return { argTypes: argTypes.map(() => item), returnType: listOf(item.id === 'Null' ? INT64 : item) };
  },
  row: (args) => [...args],
});

/** array_append(list, element) and array_prepend(element, list): the element cast to the list's item type. */
function addOne(name: 'array_append' | 'array_prepend'): ScalarFunction {
  const at = name === 'array_append' ? 0 : 1;
  return rowwise({
    name,
    nullSafe: true,
    bind(argTypes) {
      arity(name, argTypes, 2);
      const list = listArg(name, argTypes, at);
      const item = elementType(list, argTypes[1 - at]!);
      const types = at === 0 ? [list, item] : [item, list];
      return { argTypes: types, returnType: listOf(item) };
    },
    row(args, _ctx, _type, budget) {
      const list = args[at] as Scalar[] | null;
      const e = args[1 - at]!;
      if (list === null) return [e];
      budget.list(list.length + 1);
      return at === 0 ? [...list, e] : [e, ...list];
    },
  });
}

const arrayConcat = rowwise({
  name: 'array_concat',
  nullSafe: true,
  bind(argTypes) {
    if (argTypes.length === 0) throw planError('The function "array_concat" expects at least 1 argument');
    const lists = argTypes.map((_, i) => listArg('array_concat', argTypes, i));
    const item = commonType(lists.map((t) => t.item));
    // One level of numbers only: a cast of whole lists does not exist here.
    const ok =
      item !== undefined &&
      lists.every(
        (t) =>
          t.item.id === 'Null' ||
          t.item.id === item.id ||
          (item.id === 'Float64' && (t.item.id === 'Int64' || t.item.id === 'UInt64')),
      );
    if (!ok) throw planError(`Unsupported argument types for array_concat: ${argTypes.map(typeName).join(', ')}`);
    return { argTypes: lists, returnType: listOf(item!) };
  },
  row(args, _ctx, type, budget) {
    const parts = args.filter((a): a is Scalar[] => a !== null);
    if (parts.length === 0) return null;
    budget.list(parts.reduce((n, p) => n + p.length, 0));
    const toDouble = (type as ListType).item.id === 'Float64';
    return parts.flat(1).map((e) => (toDouble && typeof e === 'bigint' ? Number(e) : e));
  },
});

/** A function of one list (and, for array_length, a dimension) to a BIGINT UNSIGNED. */
function listMeasure(
  name: string,
  measure: (list: readonly Scalar[], dim: bigint) => bigint | null,
  withDim = false,
): ScalarFunction {
  return rowwise({
    name,
    bind(argTypes) {
      arity(name, argTypes, 1, withDim ? 2 : 1);
      const list = listArg(name, argTypes, 0);
      return { argTypes: withDim && argTypes.length === 2 ? [list, INT64] : [list], returnType: UINT64 };
    },
    row: (args) => measure(args[0] as Scalar[], args.length > 1 ? (args[1] as bigint) : 1n),
  });
}

/** The length of the dimension `dim` (from 1), following the first element down; NULL past the last. */
function lengthAt(list: readonly Scalar[], dim: bigint): bigint | null {
  let level: Scalar = list as Scalar;
  for (let d = 1n; d < dim; d++) {
    const first: Scalar | undefined = (level as Scalar[])[0];
    if (!Array.isArray(first)) return null;
    level = first as Scalar;
  }
  return dim < 1n || !Array.isArray(level) ? null : BigInt((level as Scalar[]).length);
}

/** The nesting depth of the argument's type, for each row that is not NULL. */
const arrayNdims: ScalarFunction = {
  kind: 'scalar',
  name: 'array_ndims',
  bind(argTypes) {
    arity('array_ndims', argTypes, 1);
    return { argTypes: [listArg('array_ndims', argTypes, 0)], returnType: UINT64 };
  },
  evaluate(args, n, _ctx, returnType) {
    const dims = BigInt(ndims(args[0]!.type));
    const out = new Array<Scalar>(n);
    const validity = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      validity[i] = isValid(args[0]!, i) ? 1 : 0;
      out[i] = validity[i] === 1 ? dims : null;
    }
    return vectorFrom(returnType, out, validity);
  },
};

const arrayDims = rowwise({
  name: 'array_dims',
  bind(argTypes) {
    arity('array_dims', argTypes, 1);
    return { argTypes: [listArg('array_dims', argTypes, 0)], returnType: listOf(UINT64) };
  },
  row(args) {
    const out: bigint[] = [];
    let level: Scalar = args[0]!;
    while (Array.isArray(level)) {
      out.push(BigInt((level as Scalar[]).length));
      level = (level as Scalar[])[0] ?? null;
    }
    return out as unknown as Scalar;
  },
});

/** array_position(list, element[, from]) and array_positions(list, element): 1-based. */
function positions(name: 'array_position' | 'array_positions'): ScalarFunction {
  const all = name === 'array_positions';
  return rowwise({
    name,
    bind(argTypes) {
      arity(name, argTypes, 2, all ? 2 : 3);
      const list = listArg(name, argTypes, 0);
      const item = elementType(list, argTypes[1]!);
      return {
        argTypes: argTypes.length === 3 ? [list, item, INT64] : [list, item],
        returnType: all ? listOf(UINT64) : UINT64,
      };
    },
    row(args) {
      const list = args[0] as Scalar[];
      const from = args.length > 2 ? Number(args[2] as bigint) : 1;
      const found: bigint[] = [];
      for (let i = Math.max(from, 1) - 1; i < list.length; i++) {
        if (!same(list[i]!, args[1]!)) continue;
        if (!all) return BigInt(i + 1);
        found.push(BigInt(i + 1));
      }
      return all ? (found as unknown as Scalar) : null;
    },
  });
}

/** array_has(list, element), array_has_all(list, list), array_has_any(list, list). */
function has(name: 'array_has' | 'array_has_all' | 'array_has_any'): ScalarFunction {
  return rowwise({
    name,
    bind(argTypes) {
      arity(name, argTypes, 2);
      const list = listArg(name, argTypes, 0);
      if (name === 'array_has') return { argTypes: [list, elementType(list, argTypes[1]!)], returnType: BOOLEAN };
      return { argTypes: [list, listArg(name, argTypes, 1)], returnType: BOOLEAN };
    },
    row(args) {
      const list = args[0] as Scalar[];
      if (name === 'array_has') return list.some((e) => same(e, args[1]!));
      const wanted = args[1] as Scalar[];
      const test = (w: Scalar): boolean => list.some((e) => same(e, w));
      return name === 'array_has_all' ? wanted.every(test) : wanted.some(test);
    },
  });
}

const arrayToString = rowwise({
  name: 'array_to_string',
  bind(argTypes) {
    arity('array_to_string', argTypes, 2);
    return { argTypes: [listArg('array_to_string', argTypes, 0), UTF8], returnType: UTF8 };
  },
  // NULL elements are left out, as DataFusion 27 does. The texts are sized before they are joined.
  row(args, _ctx, _type, budget) {
    const texts = leaves(args[0] as Scalar[])
      .filter((e) => e !== null)
      .map(elementText);
    const separator = args[1] as string;
    let units = Math.max(0, texts.length - 1) * separator.length;
    for (const t of texts) units += t.length;
    budget.string(units);
    return texts.join(separator);
  },
});

const trimArray = rowwise({
  name: 'trim_array',
  bind(argTypes) {
    arity('trim_array', argTypes, 2);
    const list = listArg('trim_array', argTypes, 0);
    return { argTypes: [list, INT64], returnType: list };
  },
  row(args) {
    const list = args[0] as Scalar[];
    const n = Number(args[1] as bigint);
    return n <= 0 ? list : list.slice(0, Math.max(0, list.length - n));
  },
});

export const ARRAY_FUNCTIONS: readonly ScalarFunction[] = [
  makeArray,
  addOne('array_append'),
  addOne('array_prepend'),
  arrayConcat,
  listMeasure('array_length', lengthAt, true),
  listMeasure('cardinality', (list) => BigInt(leaves(list).length)),
  arrayNdims,
  arrayDims,
  positions('array_position'),
  positions('array_positions'),
  has('array_has'),
  has('array_has_all'),
  has('array_has_any'),
  arrayToString,
  trimArray,
];
