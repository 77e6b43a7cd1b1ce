// CnosDB's data-repair functions timestamp_repair, value_fill and value_repair: aggregates over
// (time, value[, 'key=value&...']) that return a whole repaired series. Their result here is a
// struct of two lists, {time, value}; the planner unnests it into rows of two columns, `time`
// and the call's name, as CnosDB shows them (planner/series-repair.ts). Options are read when the
// query runs, so a bad one fails as CnosDB's does, with an execution error.

import { type DataType, FLOAT64, type Scalar, timestamp, type TimeUnit, typeName, unitNanos } from '../types/index.js';
import { executionError, planError } from '../errors.js';
import { CollectingAccumulator } from './collecting-accumulator.js';
import {
  timestampRepair,
  valueFill,
  valueRepair,
  type FillMethod,
  type IntervalMethod,
  type StartMode,
} from './data-repair.js';
import type { AggregateFunction, BoundSignature, GroupsAccumulator } from './function-types.js';
import { byTime, timeArg } from './time-series-aggregates.js';
import { floatOption, integerOption, parseUrlOptions } from './url-options.js';

export const SERIES_REPAIR_FUNCTIONS: ReadonlySet<string> = new Set(['timestamp_repair', 'value_fill', 'value_repair']);

/** The struct a repair aggregate returns: the repaired series as two lists of one length. */
export function repairedSeriesType(unit: TimeUnit): DataType {
  return {
    id: 'Struct',
    fields: [
      { name: 'time', type: { id: 'List', item: timestamp(unit) }, nullable: true },
      { name: 'value', type: { id: 'List', item: FLOAT64 }, nullable: true },
    ],
  };
}

const fail = (message: string): Error => executionError(`Datafusion: Execution error: ${message}`);

type Repair = (times: bigint[], values: number[], options: string) => { time: bigint[]; values: number[] };

const MS = 1_000_000n;

/** timestamp_repair works in milliseconds, as IoTDB's does: the interval option and its costs are in ms. */
const repairTimestamps: Repair = (times, values, options) => {
  const o = parseUrlOptions(options, ['method', 'interval', 'start_mode']);
  const method = o.get('method') ?? 'median';
  if (method !== 'median' && method !== 'mode' && method !== 'cluster') throw fail(`Invalid method: ${method}`);
  const startMode = o.get('start_mode') ?? 'mode';
  if (startMode !== 'linear' && startMode !== 'mode') throw fail(`Invalid start_mode: ${startMode}`);
  const intervalText = o.get('interval');
  const interval = intervalText === undefined ? undefined : integerOption(intervalText);
  if (interval !== undefined && interval <= 0n) throw fail('interval must be positive');
  const r = timestampRepair(
    times.map((t) => t / MS),
    values,
    { method: method as IntervalMethod, interval, startMode: startMode as StartMode },
  );
  return { time: r.time.map((t) => t * MS), values: r.values };
};

const FILL_METHODS: readonly FillMethod[] = ['linear', 'previous', 'mean', 'ar', 'ma'];

const fillValues: Repair = (times, values, options) => {
  const o = parseUrlOptions(options, ['method']);
  const method = o.get('method') ?? 'linear';
  const m = FILL_METHODS.find((f) => f === method.toLowerCase());
  if (m === undefined) throw fail(`Invalid fill method: ${method}`);
  return { time: times, values: valueFill(values, m) };
};

const repairValues: Repair = (times, values, options) => {
  const o = parseUrlOptions(options, ['method', 'min_speed', 'max_speed', 'center', 'sigma']);
  const method = (o.get('method') ?? 'screen').toLowerCase();
  if (method !== 'screen' && method !== 'lsgreedy') throw fail(`Invalid method: ${o.get('method')!}`);
  const num = (k: string): number | undefined => (o.has(k) ? floatOption(o.get(k)!) : undefined);
  // Relative times keep nanosecond gaps exact as doubles; the algorithms read only differences.
  const t0 = times[0] ?? 0n;
  const rel = times.map((t) => Number(t - t0));
  const repaired = valueRepair(rel, values, {
    method,
    minSpeed: num('min_speed'),
    maxSpeed: num('max_speed'),
    center: num('center') ?? 0,
    sigma: num('sigma'),
  });
  return { time: times, values: repaired };
};

function seriesRepair(name: string, repair: Repair): AggregateFunction {
  return {
    kind: 'aggregate',
    name,
    displayName: name,
    bind(argTypes, _distinct, constants): BoundSignature {
      if (argTypes.length !== 2 && argTypes.length !== 3)
        throw planError(`The function "${name}" does not accept ${argTypes.length} function arguments.`);
      const time = timeArg(argTypes[0]!);
      const v = argTypes[1]!;
      const numeric = ['Int64', 'UInt64', 'Float64', 'Null'].includes(v.id);
      const options = argTypes[2];
      if (time === undefined || !numeric || (options !== undefined && options.id !== 'Utf8')) {
        throw planError(
          `No function matches the given name and argument types '${name}(${argTypes.map(typeName).join(', ')})'. You might need to add explicit type casts.\n\tCandidate functions:\n\t${name}(Timestamp(Nanosecond, None), Float64)\n\t${name}(Timestamp(Nanosecond, None), Float64, Utf8)`,
        );
      }
      if (options !== undefined && typeof constants?.[2] !== 'string')
        throw planError(`The third argument of ${name} must be a constant string of options`);
      const unit = (time as { unit: TimeUnit }).unit;
      return {
        argTypes: options === undefined ? [time, FLOAT64] : [time, FLOAT64, options],
        returnType: repairedSeriesType(unit),
      };
    },
    createAccumulator(sig): GroupsAccumulator {
      const unit = (sig.argTypes[0] as { unit: TimeUnit }).unit;
      const per = unitNanos(unit);
      return new CollectingAccumulator(sig.returnType, 'all', (rows): Scalar => {
        const pts = byTime(rows, unit);
        if (pts.length === 0) return { time: [], value: [] };
        const options = (rows.find((r) => typeof r[2] === 'string')?.[2] as string | undefined) ?? '';
        // A NULL value is a missing one (NaN), as the algorithms read it.
        const r = repair(
          pts.map((p) => p[0] as bigint),
          pts.map((p) => (p[1] === null ? NaN : (p[1] as number))),
          options,
        );
        return { time: r.time.map((t) => t / per), value: r.values };
      });
    },
  };
}

export const DATA_REPAIR_AGGREGATES: readonly AggregateFunction[] = [
  seriesRepair('timestamp_repair', repairTimestamps),
  seriesRepair('value_fill', fillValues),
  seriesRepair('value_repair', repairValues),
];
