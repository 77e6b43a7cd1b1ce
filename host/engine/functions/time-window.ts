// CnosDB's time_window(time, window[, slide[, origin]]): the window(s) {start, end} a row falls
// in. Tumbling (no slide, or slide = window) is an ordinary scalar function; sliding needs each
// row once per window, which the planner turns into a TimeWindow plan node (logical-plan.ts).
// Window and slide are constants: an interval or a duration text ('10ms', '1 day'), each at
// least 1 ms and at most 365 days, the slide no larger than the window; origin defaults to
// 1970-01-01T00:00:00Z.

import {
  type DataType,
  floorDiv,
  intervalNanos,
  type IntervalValue,
  parseInterval,
  parseTimestampNanos,
  type Scalar,
  timestamp,
  type TimeUnit,
  unitNanos,
  type Vector,
} from '../types/index.js';
import { bug, UserError } from '../../core/errors.js';
import { planError } from '../errors.js';
import type { BoundSignature, ScalarFunction } from './function-types.js';

const MIN_NS = 1_000_000n;
const MAX_NS = 365n * 86_400_000_000_000n;

export interface WindowParams {
  windowNs: bigint;
  slideNs: bigint;
  originNs: bigint;
}

export function windowStructType(unit: TimeUnit): DataType {
  return {
    id: 'Struct',
    fields: [
      { name: 'start', type: timestamp(unit), nullable: false },
      { name: 'end', type: timestamp(unit), nullable: false },
    ],
  };
}

function durationOf(v: Scalar | undefined, type: DataType, what: string): bigint {
  let iv: IntervalValue | undefined;
  if (type.id === 'Interval' && v !== undefined && v !== null) iv = v as IntervalValue;
  else if (type.id === 'Utf8' && typeof v === 'string') iv = parseInterval(v);
  const ns = iv === undefined ? undefined : intervalNanos(iv);
  if (ns === undefined)
    throw planError(
      `Invalid time_window parameter: the ${what} must be a constant interval or duration text without months`,
    );
  if (ns < MIN_NS || ns > MAX_NS)
    throw planError(`Invalid time_window parameter: the ${what} must be between 1ms and 365d`);
  return ns;
}

/** Checks the arguments of a time_window call (types and constant values). */
export function windowParams(argTypes: readonly DataType[], constants: readonly (Scalar | undefined)[]): WindowParams {
  if (argTypes.length < 2 || argTypes.length > 4)
    throw planError(`The function time_window expects 2 to 4 arguments, but ${argTypes.length} were provided`);
  if (argTypes[0]!.id !== 'Timestamp')
    throw planError(`The first argument of time_window must be a timestamp, got ${argTypes[0]!.id}`);
  const windowNs = durationOf(constants[1], argTypes[1]!, 'window');
  const slideNs = argTypes.length > 2 ? durationOf(constants[2], argTypes[2]!, 'slide') : windowNs;
  if (slideNs > windowNs)
    throw planError('Invalid time_window parameter: the slide must not be larger than the window');
  let originNs = 0n;
  if (argTypes.length > 3) {
    const o = constants[3];
    const t = argTypes[3]!;
    const parsed =
      t.id === 'Utf8' && typeof o === 'string'
        ? parseTimestampNanos(o)
        : t.id === 'Timestamp' && typeof o === 'bigint'
          ? o * unitNanos(t.unit)
          : undefined;
    if (parsed === undefined) throw planError('Invalid time_window parameter: the origin must be a constant timestamp');
    originNs = parsed;
  }
  return { windowNs, slideNs, originNs };
}

/** The tumbling form, evaluated per row. */
export const TIME_WINDOW: ScalarFunction = {
  kind: 'scalar',
  name: 'TIME_WINDOW',
  bind(argTypes, constants): BoundSignature {
    const p = windowParams(argTypes, constants);
    if (p.slideNs !== p.windowNs) throw bug('a sliding time_window must be planned as a TimeWindow node');
    const unit = (argTypes[0] as { unit: TimeUnit }).unit;
    return { argTypes, returnType: windowStructType(unit) };
  },
  evaluate(args: readonly Vector[], n: number, _ctx, returnType: DataType): Vector {
    const t = args[0]!;
    const unit = (t.type as { unit: TimeUnit }).unit;
    const per = unitNanos(unit);
    const constants = args.map((a) =>
      a.length > 0 && (a.validity === undefined || a.validity[0] === 1) && a.values !== null
        ? (a.values as ArrayLike<Scalar>)[0]
        : undefined,
    );
    const p = windowParams(
      args.map((a) => a.type),
      constants,
    );
    const src = t.values as BigInt64Array;
    const start = new BigInt64Array(n);
    const end = new BigInt64Array(n);
    for (let i = 0; i < n; i++) {
      const s = p.originNs + floorDiv(src[i]! * per - p.originNs, p.windowNs) * p.windowNs;
      start[i] = floorDiv(s, per);
      end[i] = floorDiv(s + p.windowNs, per);
    }
    const st = timestamp(unit);
    return {
      type: returnType,
      length: n,
      values: [
        { type: st, length: n, values: start },
        { type: st, length: n, values: end },
      ],
      validity: t.validity,
    };
  },
};

/**
 * locf(x) / interpolate(x): markers of the gap-filling query (gapfill-planner.ts), which
 * replaces them by their argument; anywhere else they are an error.
 */
function fillMarker(name: string): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind(argTypes): BoundSignature {
      if (argTypes.length !== 1)
        throw planError(`The function ${name} expects 1 arguments, but ${argTypes.length} were provided`);
      return { argTypes, returnType: argTypes[0]! };
    },
    evaluate(): Vector {
      throw planError(`${name} must be called on an aggregate in a query grouped by time_window_gapfill`);
    },
  };
}

export const GAPFILL_MARKERS: readonly ScalarFunction[] = [
  fillMarker('locf'),
  fillMarker('interpolate'),
]; /** CnosDB copies each row into every window it falls in and refuses more than this many. */
const MAX_OVERLAPPING_WINDOWS = 100n;

/** Refuses a sliding window that would copy each row into more than 100 windows (CnosDB's limit). */
export function checkWindowOverlap(windowNs: bigint, slideNs: bigint): void {
  const overlap = (windowNs + slideNs - 1n) / slideNs;
  if (overlap > MAX_OVERLAPPING_WINDOWS) {
    throw new UserError(
      'sqlPlan',
      `Datafusion: transform_time_window\ncaused by\nError during planning: Too many overlapping windows: ${windowNs / slideNs}`,
    );
  }
}
