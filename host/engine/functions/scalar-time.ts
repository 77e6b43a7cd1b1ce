// Time functions: now, date_bin, date_trunc, date_part, to_timestamp*, from_unixtime. They keep
// the input's time unit (a `ms` database's time column stays Timestamp(Millisecond)) and compute
// in nanoseconds with exact integer arithmetic. date_bin floors for instants before the origin
// (DataFusion 27 puts an exact multiple below the origin one bin too low; that is not copied).

import {
  addInterval,
  civilFromDays,
  type DataType,
  DATE32,
  daysFromCivil,
  FLOAT64,
  floorDiv,
  fromNanos,
  inI64,
  INT64,
  INTERVAL,
  intervalNanos,
  type IntervalValue,
  NS_PER_DAY,
  NS_PER_SECOND,
  parseTimestampNanos,
  TIME64,
  timestamp,
  timestampParseFailure,
  type TimeUnit,
  unitNanos,
  UTF8,
  type Vector,
} from '../types/index.js';
import { executionError, planError } from '../errors.js';
import { PhysicalPlanError, type BoundSignature, type EvalContext, type ScalarFunction } from './function-types.js';
import { expectArgs, matchSignature, noMatchingSignature, rowwise } from './signature.js';

export const NOW_TYPE = timestamp('Nanosecond', '+00:00');
const TS_NS = timestamp('Nanosecond');

const now: ScalarFunction = {
  kind: 'scalar',
  name: 'now',
  bind(argTypes): BoundSignature {
    if (argTypes.length > 0) throw noMatchingSignature('now', argTypes, [[]]);
    return { argTypes: [], returnType: NOW_TYPE };
  },
  evaluate(_args, n: number, ctx: EvalContext): Vector {
    return { type: NOW_TYPE, length: n, values: new BigInt64Array(n).fill(ctx.nowNs) };
  },
};

/** The bin of `ns` for a stride of days/nanoseconds (`strideNs`) or of whole months. */
export function binNanos(ns: bigint, stride: IntervalValue, originNs: bigint): bigint {
  const fixed = intervalNanos(stride);
  // A negative stride truncates toward the origin, as DataFusion 27's compute_distance does.
  if (fixed !== undefined && fixed < 0n) return originNs + ((ns - originNs) / fixed) * fixed;
  if (fixed !== undefined) return originNs + floorDiv(ns - originNs, fixed) * fixed;
  if (stride.days !== 0 || stride.nanos !== 0n)
    throw executionError('DATE_BIN stride does not support combination of month, day and nanosecond intervals');
  // Months: count calendar months from the origin.
  const [oy, om] = civilFromDays(Number(floorDiv(originNs, NS_PER_DAY)));
  const [y, m] = civilFromDays(Number(floorDiv(ns, NS_PER_DAY)));
  let k = Math.floor(((y - oy) * 12 + (m - om)) / stride.months);
  let bin = addInterval(originNs, { months: k * stride.months, days: 0, nanos: 0n }, 1);
  while (bin > ns) bin = addInterval(originNs, { months: --k * stride.months, days: 0, nanos: 0n }, 1);
  return bin;
}

function checkStride(stride: IntervalValue): void {
  const fixed = intervalNanos(stride);
  if (fixed !== undefined ? fixed === 0n : stride.months <= 0) throw executionError('DATE_BIN stride must be non-zero');
}

/** DataFusion 27's date_bin signatures, as its no-match error lists them. */
const DATE_BIN_CANDIDATES = (['Nanosecond', 'Microsecond', 'Millisecond', 'Second'] as const).flatMap((u) => {
  const t = `Timestamp(${u}, None)`;
  const n = 'Timestamp(Nanosecond, None)';
  return [
    `date_bin(Interval(MonthDayNano), ${t}, ${n})`,
    `date_bin(Interval(DayTime), ${t}, ${n})`,
    `date_bin(Interval(MonthDayNano), ${t})`,
    `date_bin(Interval(DayTime), ${t})`,
  ];
});

const dateBin: ScalarFunction = {
  kind: 'scalar',
  name: 'date_bin',
  bind(argTypes): BoundSignature {
    const t = argTypes[1];
    const unit = t !== undefined && t.id === 'Timestamp' ? t.unit : 'Nanosecond';
    const ts = timestamp(unit);
    let sig: readonly DataType[];
    try {
      sig = matchSignature('date_bin', argTypes, [
        [INTERVAL, ts],
        [INTERVAL, ts, ts],
      ]);
    } catch {
      throw noMatchingSignature('date_bin', argTypes, [], DATE_BIN_CANDIDATES);
    }
    return { argTypes: sig.length === 3 ? [INTERVAL, ts, timestamp('Nanosecond')] : sig, returnType: ts };
  },
  evaluate(args: readonly Vector[], n: number, _ctx, returnType: DataType): Vector {
    const unit = (returnType as { unit: TimeUnit }).unit;
    const per = unitNanos(unit);
    const strideV = args[0]!;
    const src = args[1]!.values as BigInt64Array;
    const out = new BigInt64Array(n);
    let validity: Uint8Array | undefined;
    for (let i = 0; i < n; i++) {
      const ok = [strideV, args[1]!, ...(args[2] ? [args[2]] : [])].every(
        (a) => a.type.id !== 'Null' && (a.validity === undefined || a.validity[i] === 1),
      );
      if (!ok) {
        (validity ??= new Uint8Array(n).fill(1))[i] = 0;
        continue;
      }
      const stride = (strideV.values as IntervalValue[])[i]!;
      checkStride(stride);
      const origin = args[2] ? (args[2].values as BigInt64Array)[i]! : 0n;
      out[i] = fromNanos(binNanos(src[i]! * per, stride, origin), unit);
    }
    return { type: returnType, length: n, values: out, validity };
  },
};

const TRUNC_UNITS = [
  'year',
  'quarter',
  'month',
  'week',
  'day',
  'hour',
  'minute',
  'second',
  'millisecond',
  'microsecond',
];

/** date_trunc of one instant in nanoseconds. */
export function truncNanos(ns: bigint, granularity: string): bigint {
  const days = floorDiv(ns, NS_PER_DAY);
  const dayStart = days * NS_PER_DAY;
  const within = ns - dayStart;
  switch (granularity) {
    case 'microsecond':
      return floorDiv(ns, 1000n) * 1000n;
    case 'millisecond':
      return floorDiv(ns, 1_000_000n) * 1_000_000n;
    case 'second':
      return dayStart + (within / NS_PER_SECOND) * NS_PER_SECOND;
    case 'minute':
      return dayStart + (within / (60n * NS_PER_SECOND)) * 60n * NS_PER_SECOND;
    case 'hour':
      return dayStart + (within / (3600n * NS_PER_SECOND)) * 3600n * NS_PER_SECOND;
    case 'day':
      return dayStart;
    case 'week': {
      // Weeks start on Monday; 1970-01-01 was a Thursday.
      const dow = Number(((days % 7n) + 7n + 3n) % 7n);
      return dayStart - BigInt(dow) * NS_PER_DAY;
    }
    default: {
      const [y, m] = civilFromDays(Number(days));
      const month = granularity === 'month' ? m : granularity === 'quarter' ? m - ((m - 1) % 3) : 1;
      return BigInt(daysFromCivil(y, month, 1)) * NS_PER_DAY;
    }
  }
}

const dateTrunc: ScalarFunction = {
  kind: 'scalar',
  name: 'date_trunc',
  bind(argTypes): BoundSignature {
    const t = argTypes[1];
    const unit = t !== undefined && t.id === 'Timestamp' ? t.unit : 'Nanosecond';
    matchSignature('date_trunc', argTypes, [[UTF8, TS_NS]], 'Exact([Utf8, Timestamp(Nanosecond, None)])');
    return { argTypes: [UTF8, timestamp(unit)], returnType: timestamp(unit) };
  },
  evaluate(args: readonly Vector[], n: number, _ctx, returnType: DataType): Vector {
    const unit = (returnType as { unit: TimeUnit }).unit;
    const per = unitNanos(unit);
    const g = args[0]!;
    const src = args[1]!;
    const out = new BigInt64Array(n);
    let validity: Uint8Array | undefined;
    for (let i = 0; i < n; i++) {
      if (g.type.id === 'Null' || src.type.id === 'Null' || g.validity?.[i] === 0 || src.validity?.[i] === 0) {
        (validity ??= new Uint8Array(n).fill(1))[i] = 0;
        continue;
      }
      const granularity = (g.values as string[])[i]!.toLowerCase();
      if (!TRUNC_UNITS.includes(granularity))
        throw executionError(
          `Datafusion: Execution error: Unsupported date_trunc granularity: ${(g.values as string[])[i]}`,
        );
      out[i] = fromNanos(truncNanos((src.values as BigInt64Array)[i]! * per, granularity), unit);
    }
    return { type: returnType, length: n, values: out, validity };
  },
};

function datePart(part: string, ns: bigint): number {
  const days = floorDiv(ns, NS_PER_DAY);
  const within = ns - days * NS_PER_DAY;
  const [y, m, d] = civilFromDays(Number(days));
  const secOfDay = Number(within / NS_PER_SECOND);
  const nanos = Number(within % NS_PER_SECOND);
  switch (part) {
    case 'year':
      return y;
    case 'quarter':
      return Math.floor((m - 1) / 3) + 1;
    case 'month':
      return m;
    case 'week': {
      // ISO week number.
      const dow = (Number(((days % 7n) + 7n) % 7n) + 3) % 7; // Monday = 0
      const thursday = Number(days) - dow + 3;
      const [ty] = civilFromDays(thursday);
      return Math.floor((thursday - daysFromCivil(ty, 1, 1)) / 7) + 1;
    }
    case 'day':
      return d;
    case 'hour':
      return Math.floor(secOfDay / 3600);
    case 'minute':
      return Math.floor(secOfDay / 60) % 60;
    case 'second':
      return (secOfDay % 60) + nanos / 1e9;
    case 'millisecond':
      return (secOfDay % 60) * 1000 + nanos / 1e6;
    case 'microsecond':
      return (secOfDay % 60) * 1e6 + nanos / 1e3;
    case 'nanosecond':
      return (secOfDay % 60) * 1e9 + nanos;
    case 'dow':
      return Number(((days % 7n) + 7n + 4n) % 7n);
    case 'doy':
      return Number(days) - daysFromCivil(y, 1, 1) + 1;
    case 'epoch':
      return Number(ns) / 1e9;
    default:
      throw executionError(`Datafusion: Execution error: Date part '${part.toUpperCase()}' not supported`);
  }
}

/** DataFusion 27's candidates for date_part (the Date64 and time-zone ones do not occur here). */
const DATE_PART_CANDIDATES = [
  'Date32',
  'Date64',
  'Timestamp(Second, None)',
  'Timestamp(Microsecond, None)',
  'Timestamp(Millisecond, None)',
  'Timestamp(Nanosecond, None)',
  'Timestamp(Nanosecond, Some("+00:00"))',
].map((t) => `date_part(Utf8, ${t})`);

const datePartFn: ScalarFunction = rowwise({
  name: 'date_part',
  bind(argTypes) {
    const t = argTypes[1];
    const unit = t !== undefined && t.id === 'Timestamp' ? t.unit : 'Nanosecond';
    try {
      matchSignature('date_part', argTypes, [[UTF8, TS_NS]]);
    } catch {
      throw noMatchingSignature('date_part', argTypes, [], DATE_PART_CANDIDATES);
    }
    return { argTypes: [UTF8, timestamp(unit)], returnType: FLOAT64 };
  },
  row(args, _ctx, _rt) {
    return datePart((args[0] as string).toLowerCase(), args[1] as bigint);
  },
});

// date_part's rowwise wrapper does not see the argument unit, so scale explicitly.
const datePartScaled: ScalarFunction = {
  ...datePartFn,
  evaluate(args, n, ctx, returnType) {
    const t = args[1]!.type;
    if (t.id !== 'Timestamp' || t.unit === 'Nanosecond') return datePartFn.evaluate(args, n, ctx, returnType);
    const per = unitNanos(t.unit);
    const src = args[1]!.values as BigInt64Array;
    const scaled = new BigInt64Array(n);
    for (let i = 0; i < n; i++) scaled[i] = src[i]! * per;
    return datePartFn.evaluate([args[0]!, { ...args[1]!, type: TS_NS, values: scaled }], n, ctx, returnType);
  },
};

/** to_timestamp*: strings are parsed; integers are in the function's unit. */
function toTimestamp(name: string, unit: TimeUnit): ScalarFunction {
  const out = timestamp(unit);
  return rowwise({
    name,
    bind(argTypes) {
      expectArgs(name, argTypes, 1);
      const t = argTypes[0]!;
      if (t.id === 'Int64') return { argTypes: [INT64], returnType: out };
      // DataFusion 27's coercion lets an unsigned argument through; its physical planner then
      // has no kernel for it ("Ok(UInt64)": it prints the Result it matched on).
      if (t.id === 'UInt64') {
        throw new PhysicalPlanError(
          'sqlPlan',
          `Datafusion: Internal error: Unsupported data type Ok(UInt64) for function ${name}. This was likely caused by a bug in DataFusion's code and we would welcome that you file an bug report in our issue tracker`,
          { argTypes: [INT64], returnType: out },
        );
      }
      if (t.id === 'Utf8' || t.id === 'Null') return { argTypes: [UTF8], returnType: out };
      if (t.id === 'Timestamp') return { argTypes: [out], returnType: out };
      // DataFusion 27's signatures list no float (a DOUBLE of seconds arrived in DataFusion 29), so
      // it coerces a DOUBLE to text, which then fails to parse as a timestamp: CnosDB's
      // to_timestamp.slt expects "Arrow: Parser error: Error parsing timestamp from
      // '1672539600.987654': error parsing date".
      if (t.id === 'Float64') return { argTypes: [UTF8], returnType: out };
      throw planError(`The function ${name} does not support inputs of type ${t.id}.`);
    },
    row(args, _ctx) {
      const v = args[0]!;
      if (typeof v === 'string') {
        const ns = parseTimestampNanos(v);
        if (ns === undefined)
          throw executionError(`Arrow: Parser error: Error parsing timestamp from '${v}': ${timestampParseFailure(v)}`);
        return fromNanos(ns, unit);
      }
      return v as bigint;
    },
  });
}

const fromUnixtime = rowwise({
  name: 'from_unixtime',
  bind(argTypes) {
    matchSignature('from_unixtime', argTypes, [[INT64]], 'Uniform(1, [Int64])');
    return { argTypes: [INT64], returnType: timestamp('Second') };
  },
  row: (args) => args[0] as bigint,
});

/** current_time(): the time of day of the statement's now() (UTC), Time64(Nanosecond). */
const currentTime: ScalarFunction = {
  kind: 'scalar',
  name: 'current_time',
  bind(argTypes): BoundSignature {
    if (argTypes.length > 0) throw noMatchingSignature('current_time', argTypes, [[]]);
    return { argTypes: [], returnType: TIME64 };
  },
  evaluate(_args, n: number, ctx: EvalContext): Vector {
    const ofDay = ctx.nowNs - floorDiv(ctx.nowNs, NS_PER_DAY) * NS_PER_DAY;
    return { type: TIME64, length: n, values: new BigInt64Array(n).fill(ofDay) };
  },
};

/** current_date(): the statement's now() as a date (UTC). */
const currentDate: ScalarFunction = {
  kind: 'scalar',
  name: 'current_date',
  bind(argTypes): BoundSignature {
    if (argTypes.length > 0) throw noMatchingSignature('current_date', argTypes, [[]]);
    return { argTypes: [], returnType: DATE32 };
  },
  evaluate(_args, n: number, ctx: EvalContext): Vector {
    return { type: DATE32, length: n, values: new Int32Array(n).fill(Number(floorDiv(ctx.nowNs, NS_PER_DAY))) };
  },
};

/** Validates a timestamp literal for the planner (constant folding of string -> timestamp). */
export function checkTimestampRange(ns: bigint): boolean {
  return inI64(ns);
}

export const TIME_FUNCTIONS: readonly ScalarFunction[] = [
  now,
  dateBin,
  dateTrunc,
  { ...datePartScaled, name: 'date_part' },
  toTimestamp('to_timestamp', 'Nanosecond'),
  toTimestamp('to_timestamp_nanos', 'Nanosecond'),
  toTimestamp('to_timestamp_micros', 'Microsecond'),
  toTimestamp('to_timestamp_millis', 'Millisecond'),
  toTimestamp('to_timestamp_seconds', 'Second'),
  fromUnixtime,
  currentDate,
  currentTime,
];

export { datePart };
