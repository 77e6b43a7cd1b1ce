// The scalar functions that read the structs of gauge_agg (delta, time_delta, rate, idelta_left,
// idelta_right, first_val, last_val, first_time, last_time) and of state_agg /
// compact_state_agg (duration_in, state_at). They accept one argument of any type and check at
// planning that it is the right struct, failing as CnosDB's analyzer does ("Expected GaugeData,
// got Int64(NULL)"). A NULL struct (a group without points) gives NULL.

import {
  addInterval,
  type DataType,
  FLOAT64,
  getValue,
  INTERVAL,
  type IntervalValue,
  isValid,
  literalName,
  type Scalar,
  timestamp,
  type TimeUnit,
  typeName,
  unitNanos,
  type Vector,
  vectorFrom,
} from '../types/index.js';
import { UserError } from '../../core/errors.js';
import { planError } from '../errors.js';
import type { BoundSignature, ScalarFunction } from './function-types.js';
import { instantDiff } from './time-series-aggregates.js';

/** CnosDB's analyzer errors: "Failed to do analyze. err: ...". */
function analyzeError(message: string): UserError {
  return new UserError('sqlPlan', `Failed to do analyze. err: ${message}`);
}

function isStructWith(t: DataType, names: readonly string[]): t is Extract<DataType, { id: 'Struct' }> {
  return t.id === 'Struct' && t.fields.length === names.length && t.fields.every((f, i) => f.name === names[i]);
}

const GAUGE_FIELDS = ['first', 'second', 'penultimate', 'last', 'num_elements'];
const STATE_FIELDS = ['state_duration', 'state_periods'];

interface GaugeData {
  first: { ts: bigint; val: number };
  second: { ts: bigint; val: number };
  penultimate: { ts: bigint; val: number };
  last: { ts: bigint; val: number };
  num_elements: bigint;
}

function gaugeUnit(t: DataType): TimeUnit {
  const first = (t as Extract<DataType, { id: 'Struct' }>).fields[0]!.type as Extract<DataType, { id: 'Struct' }>;
  return (first.fields[0]!.type as { unit: TimeUnit }).unit;
}

/** An accessor of gauge_agg's struct: `read` gives the value (or null) of one gauge. */
function gaugeAccessor(
  name: string,
  returnType: (unit: TimeUnit) => DataType,
  read: (g: GaugeData, unit: TimeUnit) => Scalar,
): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind(argTypes): BoundSignature {
      if (argTypes.length !== 1)
        throw planError(`The function "${name}" expects 1 arguments, but ${argTypes.length} were provided`);
      const t = argTypes[0]!;
      if (!isStructWith(t, GAUGE_FIELDS)) throw analyzeError(`Expected GaugeData, got ${literalName(null, t)}`);
      return { argTypes, returnType: returnType(gaugeUnit(t)) };
    },
    evaluate(args: readonly Vector[], n: number, _ctx, type: DataType): Vector {
      const unit = gaugeUnit(args[0]!.type);
      const out: Scalar[] = [];
      for (let i = 0; i < n; i++)
        out.push(isValid(args[0]!, i) ? read(getValue(args[0]!, i) as unknown as GaugeData, unit) : null);
      return vectorFrom(
        type,
        out,
        Uint8Array.from(out, (v) => (v === null ? 0 : 1)),
      );
    },
  };
}

const double = (): DataType => FLOAT64;
const difference = (a: number, b: number): number | null => {
  const d = a - b;
  return Number.isFinite(d) || !Number.isFinite(a) || !Number.isFinite(b) ? d : null;
};

export const GAUGE_ACCESSORS: readonly ScalarFunction[] = [
  gaugeAccessor('delta', double, (g) => difference(g.last.val, g.first.val)),
  gaugeAccessor(
    'time_delta',
    () => INTERVAL,
    (g, unit) => instantDiff(g.last.ts * unitNanos(unit), g.first.ts * unitNanos(unit)),
  ),
  gaugeAccessor('rate', double, (g) => {
    // Per unit of the time column (per nanosecond for a nanosecond table), as CnosDB divides.
    const dt = g.last.ts - g.first.ts;
    if (g.num_elements === 0n || dt === 0n) return null;
    const d = difference(g.last.val, g.first.val);
    return d === null ? null : d / Number(dt);
  }),
  gaugeAccessor('idelta_left', double, (g) => difference(g.second.val, g.first.val)),
  gaugeAccessor('idelta_right', double, (g) => difference(g.last.val, g.penultimate.val)),
  gaugeAccessor('first_val', double, (g) => g.first.val),
  gaugeAccessor('last_val', double, (g) => g.last.val),
  gaugeAccessor(
    'first_time',
    (unit) => timestamp(unit),
    (g) => g.first.ts,
  ),
  gaugeAccessor(
    'last_time',
    (unit) => timestamp(unit),
    (g) => g.last.ts,
  ),
];

// ------------------------------------------------------------------------------------------
// duration_in, state_at

interface StateAggData {
  state_duration: { state: Scalar; duration: IntervalValue }[];
  state_periods: { state: Scalar; periods: { start_time: bigint; end_time: bigint }[] }[];
}

function stateShape(t: DataType): { unit: TimeUnit; state: DataType } | undefined {
  if (!isStructWith(t, STATE_FIELDS)) return undefined;
  const periods = t.fields[1]!.type as Extract<DataType, { id: 'List' }>;
  const entry = periods.item as Extract<DataType, { id: 'Struct' }>;
  const period = (entry.fields[1]!.type as Extract<DataType, { id: 'List' }>).item as Extract<
    DataType,
    { id: 'Struct' }
  >;
  return { unit: (period.fields[0]!.type as { unit: TimeUnit }).unit, state: entry.fields[0]!.type };
}

const sameState = (a: Scalar, b: Scalar): boolean =>
  a === b || (typeof a === 'object' && JSON.stringify(a) === JSON.stringify(b));
const ZERO: IntervalValue = { months: 0, days: 0, nanos: 0n };
const isCompact = (s: StateAggData): boolean => s.state_periods.length === 0 && s.state_duration.length > 0;

const durationIn: ScalarFunction = {
  kind: 'scalar',
  name: 'duration_in',
  bind(argTypes): BoundSignature {
    if (argTypes.length < 2 || argTypes.length > 4)
      throw planError(`The function "duration_in" expects 2 to 4 arguments, but ${argTypes.length} were provided`);
    const shape = stateShape(argTypes[0]!);
    if (shape === undefined)
      throw new UserError('sqlExecute', 'Datafusion: Execution error: Get duration_in ReturnTypeFunction error');
    if (argTypes.length >= 3 && argTypes[2]!.id !== 'Timestamp' && argTypes[2]!.id !== 'Utf8')
      throw analyzeError(`Expect Timestamp type, but found ${typeName(argTypes[2]!)} type.`);
    if (argTypes.length === 4 && argTypes[3]!.id !== 'Interval' && argTypes[3]!.id !== 'Utf8')
      throw analyzeError(`Expect Interval type, but found ${typeName(argTypes[3]!)} type.`);
    const types: DataType[] = [argTypes[0]!, shape.state];
    if (argTypes.length >= 3) types.push(timestamp('Nanosecond'));
    if (argTypes.length === 4) types.push(INTERVAL);
    return { argTypes: types, returnType: INTERVAL };
  },
  evaluate(args: readonly Vector[], n: number): Vector {
    const { unit } = stateShape(args[0]!.type)!;
    const per = unitNanos(unit);
    const out: Scalar[] = [];
    for (let i = 0; i < n; i++) {
      if (!isValid(args[0]!, i)) {
        out.push(null);
        continue;
      }
      const agg = getValue(args[0]!, i) as unknown as StateAggData;
      const state = getValue(args[1]!, i);
      if (args.length === 2) {
        out.push(agg.state_duration.find((e) => sameState(e.state, state))?.duration ?? ZERO);
        continue;
      }
      if (isCompact(agg)) {
        throw analyzeError(
          `duration_in(state_agg, state, start_time${args.length === 4 ? ', interval' : ''}) doesn't support compact_agg`,
        );
      }
      const start = getValue(args[2]!, i) as bigint | null;
      const interval = args.length === 4 ? (getValue(args[3]!, i) as IntervalValue | null) : null;
      const periods = agg.state_periods.find((e) => sameState(e.state, state))?.periods ?? [];
      if (start === null) {
        out.push(agg.state_duration.find((e) => sameState(e.state, state))?.duration ?? ZERO);
        continue;
      }
      const end = interval === null ? undefined : addInterval(start, interval, 1);
      // The overlap of each period with [start, end), summed in days and nanoseconds.
      let days = 0;
      let nanos = 0n;
      for (const p of periods) {
        const s = p.start_time * per;
        const e = p.end_time * per;
        if (e <= start || (end !== undefined && s >= end)) continue;
        const d = instantDiff(end !== undefined && e > end ? end : e, s < start ? start : s);
        days += d.days;
        nanos += d.nanos;
      }
      out.push({ months: 0, days, nanos });
    }
    return vectorFrom(
      INTERVAL,
      out,
      Uint8Array.from(out, (v) => (v === null ? 0 : 1)),
    );
  },
};

const stateAt: ScalarFunction = {
  kind: 'scalar',
  name: 'state_at',
  bind(argTypes): BoundSignature {
    if (argTypes.length !== 2)
      throw planError(`The function "state_at" expects 2 arguments, but ${argTypes.length} were provided`);
    const shape = stateShape(argTypes[0]!);
    if (shape === undefined) throw analyzeError(`Expected StateAggData, got ${literalName(null, argTypes[0]!)}`);
    if (argTypes[1]!.id !== 'Timestamp' && argTypes[1]!.id !== 'Utf8' && argTypes[1]!.id !== 'Null')
      throw analyzeError(`Expect Timestamp type, but found ${typeName(argTypes[1]!)} type.`);
    return { argTypes: [argTypes[0]!, timestamp('Nanosecond')], returnType: shape.state };
  },
  evaluate(args: readonly Vector[], n: number, _ctx, type: DataType): Vector {
    const { unit } = stateShape(args[0]!.type)!;
    const per = unitNanos(unit);
    const out: Scalar[] = [];
    for (let i = 0; i < n; i++) {
      if (!isValid(args[0]!, i) || !isValid(args[1]!, i)) {
        out.push(null);
        continue;
      }
      const agg = getValue(args[0]!, i) as unknown as StateAggData;
      if (isCompact(agg))
        throw analyzeError("duration_in(state_agg, state, start_time, interval) doesn't support compact_agg");
      const at = getValue(args[1]!, i) as bigint;
      const hit = agg.state_periods.find((e) =>
        e.periods.some((p) => p.start_time * per <= at && at < p.end_time * per),
      );
      out.push(hit === undefined ? null : hit.state);
    }
    return vectorFrom(
      type,
      out,
      Uint8Array.from(out, (v) => (v === null ? 0 : 1)),
    );
  },
};

export const STATE_ACCESSORS: readonly ScalarFunction[] = [durationIn, stateAt];
