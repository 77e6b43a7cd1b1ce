// CnosDB's time-series aggregates: increase (a counter's growth, resets counted as from zero),
// gauge_agg (the first, second, penultimate and last points of a gauge and their number, read
// by the accessors in gauge-accessors.ts), state_agg / compact_state_agg (the time spent in each
// state, with the periods unless compact; read by duration_in and state_at) and the data-quality
// ratios completeness, consistency, timeliness and validity (data-quality.ts).
//
// Every one sorts a group's rows by time itself, so `ORDER BY time` inside the call is optional
// here (CnosDB needs it for increase). Signatures follow CnosDB's: a timestamp of any unit
// (a string is read as a nanosecond timestamp) and a value whose types each function lists.

import {
  type DataType,
  FLOAT64,
  type IntervalValue,
  type Scalar,
  timestamp,
  type TimeUnit,
  typeName,
  UINT64,
  unitNanos,
} from '../types/index.js';
import { planError } from '../errors.js';
import { CollectingAccumulator } from './collecting-accumulator.js';
import { dataQualityRatio, type DataQualityKind } from './data-quality.js';
import type { AggregateFunction, BoundSignature, GroupsAccumulator } from './function-types.js';
import { noMatchingSignature } from './signature.js';

const TIME_UNITS: readonly TimeUnit[] = ['Second', 'Millisecond', 'Microsecond', 'Nanosecond'];
/** DataFusion's NUMERICS, the value types of increase's candidate list. */
const NUMERIC_NAMES = ['Int8', 'Int16', 'Int32', 'Int64', 'UInt8', 'UInt16', 'UInt32', 'UInt64', 'Float32', 'Float64'];

/** The timestamp type a time argument takes: its own, or nanoseconds for a string or NULL. */
export function timeArg(t: DataType): DataType | undefined {
  if (t.id === 'Timestamp' && t.tz === undefined) return t;
  if (t.id === 'Utf8' || t.id === 'Null' || t.id === 'Date32') return timestamp('Nanosecond');
  return undefined;
}

export function arity(name: string, argTypes: readonly DataType[], n: number): void {
  if (argTypes.length !== n)
    throw planError(`The function "${name}" does not accept ${argTypes.length} function arguments.`);
}

function candidates(name: string, values: readonly string[], argTypes: readonly DataType[]): Error {
  const shown = values.flatMap((v) => TIME_UNITS.map((u) => `${name}(Timestamp(${u}, None), ${v})`));
  return planError(
    `No function matches the given name and argument types '${name}(${argTypes.map(typeName).join(', ')})'. You might need to add explicit type casts.\n\tCandidate functions:\n\t${shown.join('\n\t')}`,
  );
}

/** Rows of a group as [time ns, ...rest], NULL times dropped, sorted by time (stable). */
export function byTime(rows: Scalar[][], unit: TimeUnit): Scalar[][] {
  const per = unitNanos(unit);
  return rows
    .filter((r) => r[0] !== null)
    .map((r) => [(r[0] as bigint) * per, ...r.slice(1)])
    .sort((a, b) => ((a[0] as bigint) < (b[0] as bigint) ? -1 : (a[0] as bigint) > (b[0] as bigint) ? 1 : 0));
}

/** A difference of two instants as DataFusion gives it: whole days and the rest in nanoseconds. */
export function instantDiff(laterNs: bigint, earlierNs: bigint): IntervalValue {
  const d = laterNs - earlierNs;
  const days = d / 86_400_000_000_000n;
  return { months: 0, days: Number(days), nanos: d - days * 86_400_000_000_000n };
}

const increase: AggregateFunction = {
  kind: 'aggregate',
  name: 'increase',
  displayName: 'increase',
  orderSensitive: true,
  bind(argTypes): BoundSignature {
    arity('increase', argTypes, 2);
    const time = timeArg(argTypes[0]!);
    const v = argTypes[1]!;
    if (time === undefined || (v.id !== 'Int64' && v.id !== 'UInt64' && v.id !== 'Float64'))
      throw candidates('increase', NUMERIC_NAMES, argTypes);
    return { argTypes: [time, v], returnType: v };
  },
  createAccumulator(sig): GroupsAccumulator {
    const type = sig.returnType;
    const unit = (sig.argTypes[0] as { unit: TimeUnit }).unit;
    const zero: Scalar = type.id === 'Float64' ? 0 : 0n;
    return new CollectingAccumulator(type, [0, 1], (rows) => {
      let total = zero;
      let last: Scalar = null;
      for (const r of byTime(rows, unit)) {
        const v = r[1]!;
        if (last !== null) {
          // A drop is a counter reset: the new value is all growth since the reset.
          if (v > last) total = (total as number) + ((v as number) - (last as number));
          else if (v < last) total = (total as number) + (v as number);
        }
        last = v;
      }
      return total;
    });
  },
};

// ------------------------------------------------------------------------------------------
// gauge_agg

/** The struct gauge_agg returns: {first, second, penultimate, last} points and num_elements. */
export function gaugeType(unit: TimeUnit): DataType {
  const point: DataType = {
    id: 'Struct',
    fields: [
      { name: 'ts', type: timestamp(unit), nullable: true },
      { name: 'val', type: FLOAT64, nullable: true },
    ],
  };
  return {
    id: 'Struct',
    fields: [
      ...['first', 'second', 'penultimate', 'last'].map((name) => ({ name, type: point, nullable: true })),
      { name: 'num_elements', type: UINT64, nullable: true },
    ],
  };
}

const gaugeAgg: AggregateFunction = {
  kind: 'aggregate',
  name: 'gauge_agg',
  displayName: 'gauge_agg',
  orderSensitive: true,
  bind(argTypes): BoundSignature {
    arity('gauge_agg', argTypes, 2);
    const time = timeArg(argTypes[0]!);
    const v = argTypes[1]!;
    if (time === undefined || (v.id !== 'Int64' && v.id !== 'UInt64' && v.id !== 'Float64' && v.id !== 'Null'))
      throw candidates('gauge_agg', ['Float64'], argTypes);
    const unit = (time as { unit: TimeUnit }).unit;
    return { argTypes: [time, FLOAT64], returnType: gaugeType(unit) };
  },
  createAccumulator(sig): GroupsAccumulator {
    const unit = (sig.argTypes[0] as { unit: TimeUnit }).unit;
    const per = unitNanos(unit);
    return new CollectingAccumulator(sig.returnType, [0, 1], (rows) => {
      const pts = byTime(rows, unit);
      if (pts.length === 0) return null;
      const point = (k: number): Scalar => ({ ts: (pts[k]![0] as bigint) / per, val: pts[k]![1]! });
      const n = pts.length;
      return {
        first: point(0),
        second: point(n > 1 ? 1 : 0),
        penultimate: point(n > 1 ? n - 2 : 0),
        last: point(n - 1),
        num_elements: BigInt(n),
      };
    });
  },
};

// ------------------------------------------------------------------------------------------
// state_agg, compact_state_agg

/** The struct state_agg returns; compact_state_agg's has an empty state_periods list. */
export function stateAggType(unit: TimeUnit, state: DataType): DataType {
  const period: DataType = {
    id: 'Struct',
    fields: [
      { name: 'start_time', type: timestamp(unit), nullable: true },
      { name: 'end_time', type: timestamp(unit), nullable: true },
    ],
  };
  return {
    id: 'Struct',
    fields: [
      {
        name: 'state_duration',
        type: {
          id: 'List',
          item: {
            id: 'Struct',
            fields: [
              { name: 'state', type: state, nullable: true },
              { name: 'duration', type: { id: 'Interval' }, nullable: true },
            ],
          },
        },
        nullable: true,
      },
      {
        name: 'state_periods',
        type: {
          id: 'List',
          item: {
            id: 'Struct',
            fields: [
              { name: 'state', type: state, nullable: true },
              { name: 'periods', type: { id: 'List', item: period }, nullable: true },
            ],
          },
        },
        nullable: true,
      },
    ],
  };
}

function stateAgg(name: 'state_agg' | 'compact_state_agg'): AggregateFunction {
  const compact = name === 'compact_state_agg';
  return {
    kind: 'aggregate',
    name,
    displayName: name,
    orderSensitive: true,
    bind(argTypes): BoundSignature {
      arity(name, argTypes, 2);
      const time = timeArg(argTypes[0]!);
      const state = argTypes[1]!;
      if (time === undefined || state.id === 'Struct' || state.id === 'List' || state.id === 'Interval')
        throw noMatchingSignature(name, argTypes, []);
      const unit = (time as { unit: TimeUnit }).unit;
      return { argTypes: [time, state], returnType: stateAggType(unit, state) };
    },
    createAccumulator(sig): GroupsAccumulator {
      const unit = (sig.argTypes[0] as { unit: TimeUnit }).unit;
      const per = unitNanos(unit);
      return new CollectingAccumulator(sig.returnType, [0, 1], (rows) => {
        // Each record's state lasts until the next record. The last one has no duration yet: its
        // state is listed with a zero duration and no period when no earlier record had it (as
        // CnosDB's finalize adds it; its docs' example ends in 'stopping', 0 secs).
        const pts = byTime(rows, unit);
        const entries = new Map<unknown, { state: Scalar; days: number; nanos: bigint; periods: Scalar[] }>();
        for (let i = 0; i + 1 < pts.length; i++) {
          const state = pts[i]![1]!;
          const key = typeof state === 'bigint' ? `${state}n` : state;
          let e = entries.get(key);
          if (e === undefined) entries.set(key, (e = { state, days: 0, nanos: 0n, periods: [] }));
          const d = instantDiff(pts[i + 1]![0] as bigint, pts[i]![0] as bigint);
          e.days += d.days;
          e.nanos += d.nanos;
          e.periods.push({ start_time: (pts[i]![0] as bigint) / per, end_time: (pts[i + 1]![0] as bigint) / per });
        }
        // Not for a state_agg of one record: with no period at all it would read as compact
        // (time-series-accessors.ts isCompact), and state_at and duration_in from a start refuse that.
        if (pts.length > (compact ? 0 : 1)) {
          const state = pts[pts.length - 1]![1]!;
          const key = typeof state === 'bigint' ? `${state}n` : state;
          if (!entries.has(key)) entries.set(key, { state, days: 0, nanos: 0n, periods: [] });
        }
        const list = [...entries.values()];
        return {
          state_duration: list.map((e) => ({ state: e.state, duration: { months: 0, days: e.days, nanos: e.nanos } })),
          state_periods: compact
            ? []
            : list.filter((e) => e.periods.length > 0).map((e) => ({ state: e.state, periods: e.periods })),
        };
      });
    },
  };
}

// ------------------------------------------------------------------------------------------
// completeness, consistency, timeliness, validity

function dataQuality(name: DataQualityKind): AggregateFunction {
  return {
    kind: 'aggregate',
    name,
    displayName: name,
    bind(argTypes): BoundSignature {
      arity(name, argTypes, 2);
      const time = timeArg(argTypes[0]!);
      const v = argTypes[1]!;
      if (time === undefined || (v.id !== 'Int64' && v.id !== 'UInt64' && v.id !== 'Float64'))
        throw candidates(name, ['Int64', 'Float64'], argTypes);
      return { argTypes: [time, v], returnType: FLOAT64 };
    },
    createAccumulator(sig): GroupsAccumulator {
      const t = sig.argTypes[0] as { unit: TimeUnit };
      const unsigned = sig.argTypes[1]!.id === 'UInt64';
      return new CollectingAccumulator(FLOAT64, [0], (rows) => {
        const pts = byTime(rows, t.unit);
        // Only relative gaps matter, so any time scale does (CnosDB's differs by unit). NULL and
        // unsigned values read as NaN, as CnosDB converts them.
        const times = pts.map((r) => Number(r[0] as bigint));
        const values = pts.map((r) => (r[1] === null || unsigned ? NaN : Number(r[1])));
        return dataQualityRatio(name, times, values);
      });
    },
  };
}

export const TIME_SERIES_AGGREGATES: readonly AggregateFunction[] = [
  increase,
  gaugeAgg,
  stateAgg('state_agg'),
  stateAgg('compact_state_agg'),
  dataQuality('completeness'),
  dataQuality('consistency'),
  dataQuality('timeliness'),
  dataQuality('validity'),
];
