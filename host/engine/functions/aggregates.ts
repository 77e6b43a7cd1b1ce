// The everyday aggregates with DataFusion 27's typing and messages (COUNT, SUM, AVG, MIN, MAX)
// and CnosDB's first/last. Result types: COUNT BIGINT; SUM keeps BIGINT / BIGINT UNSIGNED /
// DOUBLE; AVG is DOUBLE; MIN/MAX keep the input type; first/last keep it too, except that a
// BOOLEAN or NULL value comes back as a string ("1"/"0"), CnosDB's quirk, because its signature
// list has no BOOLEAN and Utf8 is the first type a BOOLEAN casts to.

import { datafusionNotImplemented, planError } from '../errors.js';
import { type DataType, FLOAT64, INT64, typeName, UTF8 } from '../types/index.js';
import {
  CountAccumulator,
  CountDistinctAccumulator,
  DistinctAccumulator,
  FirstLastAccumulator,
  FloatMinMaxAccumulator,
  FloatSumAccumulator,
  GenericMinMaxAccumulator,
  IntMinMaxAccumulator,
  IntSumAccumulator,
} from './accumulators.js';
import type { AggregateFunction, BoundSignature, GroupsAccumulator } from './function-types.js';

function expectOne(display: string, argTypes: readonly DataType[]): DataType {
  if (argTypes.length !== 1)
    throw planError(`The function ${display} expects 1 arguments, but ${argTypes.length} were provided`);
  return argTypes[0]!;
}

function unsupported(display: string, t: DataType): Error {
  return planError(`The function ${display} does not support inputs of type ${typeName(t)}.`);
}

const count: AggregateFunction = {
  kind: 'aggregate',
  name: 'count',
  displayName: 'COUNT',
  bind(argTypes): BoundSignature {
    if (argTypes.length === 0) throw planError('The function Count expects at least one argument');
    return { argTypes, returnType: INT64 };
  },
  createAccumulator(_sig, distinct): GroupsAccumulator {
    return distinct ? new CountDistinctAccumulator() : new CountAccumulator();
  },
};

const sum: AggregateFunction = {
  kind: 'aggregate',
  name: 'sum',
  displayName: 'SUM',
  bind(argTypes): BoundSignature {
    const t = expectOne('Sum', argTypes);
    if (t.id === 'Int64' || t.id === 'UInt64' || t.id === 'Float64') return { argTypes: [t], returnType: t };
    // DataFusion 27's sum_return_type: a Float32 sums in Float64.
    if (t.id === 'Float32') return { argTypes: [FLOAT64], returnType: FLOAT64 };
    throw unsupported('Sum', t);
  },
  createAccumulator(sig, distinct): GroupsAccumulator {
    const make = (): GroupsAccumulator =>
      sig.returnType.id === 'Float64' ? new FloatSumAccumulator(false) : new IntSumAccumulator(sig.returnType);
    return distinct ? new DistinctAccumulator(sig.argTypes[0]!, make) : make();
  },
};

const avg: AggregateFunction = {
  kind: 'aggregate',
  name: 'avg',
  displayName: 'AVG',
  bind(argTypes): BoundSignature {
    const t = expectOne('Avg', argTypes);
    if (t.id === 'Int64' || t.id === 'UInt64' || t.id === 'Float64' || t.id === 'Float32')
      return { argTypes: [FLOAT64], returnType: FLOAT64 };
    throw unsupported('Avg', t);
  },
  createAccumulator(_sig, distinct): GroupsAccumulator {
    const make = (): GroupsAccumulator => new FloatSumAccumulator(true);
    return distinct ? new DistinctAccumulator(FLOAT64, make) : make();
  },
};

function minMax(name: 'min' | 'max'): AggregateFunction {
  const display = name === 'min' ? 'Min' : 'Max';
  const isMax = name === 'max';
  return {
    kind: 'aggregate',
    name,
    displayName: name.toUpperCase(),
    bind(argTypes): BoundSignature {
      const t = expectOne(display, argTypes);
      if (t.id === 'Struct' || t.id === 'List' || t.id === 'Interval') throw unsupported(display, t);
      return { argTypes: [t], returnType: t };
    },
    createAccumulator(sig, distinct): GroupsAccumulator {
      // DISTINCT changes nothing for MIN and MAX.
      void distinct;
      const t = sig.argTypes[0]!;
      if (t.id === 'Float64') return new FloatMinMaxAccumulator(isMax);
      if (t.id === 'Int64' || t.id === 'UInt64' || t.id === 'Timestamp') return new IntMinMaxAccumulator(t, isMax);
      return new GenericMinMaxAccumulator(t, isMax);
    },
  };
}

/** The value types of CnosDB's first/last signature list, in its order. */
const FIRST_LAST_VALUE_TYPES = [
  'Utf8',
  'LargeUtf8',
  'Int8',
  'Int16',
  'Int32',
  'Int64',
  'UInt8',
  'UInt16',
  'UInt32',
  'UInt64',
  'Float32',
  'Float64',
  'Timestamp(Second, None)',
  'Timestamp(Millisecond, None)',
  'Timestamp(Microsecond, None)',
  'Timestamp(Nanosecond, None)',
  'Date32',
  'Date64',
  'Binary',
  'LargeBinary',
  'FixedSizeBinary(2147483647)',
  'Time32(Second)',
  'Time32(Millisecond)',
  'Time64(Microsecond)',
  'Time64(Nanosecond)',
];
const TIME_TYPES = ['Second', 'Millisecond', 'Microsecond', 'Nanosecond'].map((u) => `Timestamp(${u}, None)`);

function firstLast(name: 'first' | 'last'): AggregateFunction {
  return {
    kind: 'aggregate',
    name,
    displayName: name,
    bind(argTypes): BoundSignature {
      if (argTypes.length !== 2)
        throw planError(`The function "${name}" does not accept ${argTypes.length} function arguments.`);
      const [time, value] = argTypes as [DataType, DataType];
      if (time.id !== 'Timestamp' || value.id === 'Struct' || value.id === 'List' || value.id === 'Interval') {
        const candidates = FIRST_LAST_VALUE_TYPES.flatMap((v) => TIME_TYPES.map((t) => `${name}(${t}, ${v})`));
        throw planError(
          `No function matches the given name and argument types '${name}(${typeName(time)}, ${typeName(value)})'. You might need to add explicit type casts.\n\tCandidate functions:\n\t${candidates.join('\n\t')}`,
        );
      }
      const out = value.id === 'Boolean' || value.id === 'Null' ? UTF8 : value;
      return { argTypes: [time, out], returnType: out };
    },
    createAccumulator(sig): GroupsAccumulator {
      return new FirstLastAccumulator(sig.returnType, name === 'last');
    },
  };
}

/** grouping(e): computed by the grouping-sets aggregate; anywhere else DataFusion 27's error. */
const grouping: AggregateFunction = {
  kind: 'aggregate',
  name: 'grouping',
  displayName: 'GROUPING',
  bind(argTypes): BoundSignature {
    if (argTypes.length !== 1)
      throw planError(`The function Grouping expects 1 arguments, but ${argTypes.length} were provided`);
    return { argTypes, returnType: INT64 };
  },
  createAccumulator(): GroupsAccumulator {
    throw datafusionNotImplemented('physical plan is not yet implemented for GROUPING aggregate function');
  },
};

export const AGGREGATE_FUNCTIONS: readonly AggregateFunction[] = [
  grouping,
  count,
  // CnosDB's exact_count counts rows after merging duplicate points, which is what count does
  // here (storage never returns duplicates).
  { ...count, name: 'exact_count', displayName: 'exact_count' },
  sum,
  avg,
  { ...avg, name: 'mean' },
  minMax('min'),
  minMax('max'),
  firstLast('first'),
  firstLast('last'),
];
