// Timestamp units: a request's precision (ns, us, ms, s, and InfluxDB's m and h) and a
// database's (NS, US, MS), and the exact integer conversion between them (multiply, or divide
// truncating toward zero as CnosDB).

export type TimeUnit = 'ns' | 'us' | 'ms' | 's';

/** A write request's precision: a TimeUnit, or minutes and hours (InfluxDB's `precision=m`, `h`). */
export type RequestUnit = TimeUnit | 'm' | 'h';

export const NANOS_PER: Readonly<Record<RequestUnit, bigint>> = {
  ns: 1n,
  us: 1000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

export interface UnitConversion {
  multiplier: bigint;
  divisor: bigint;
}

/** The factors that turn a timestamp in `from` into one in `to`: ts * multiplier / divisor. */
export function unitConversion(from: RequestUnit, to: RequestUnit): UnitConversion {
  const f = NANOS_PER[from];
  const t = NANOS_PER[to];
  return f >= t ? { multiplier: f / t, divisor: 1n } : { multiplier: 1n, divisor: t / f };
}

/** Floor division of bigints (toward negative infinity): the bucket, page or day holding a time before 1970 too. */
export function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return q * b !== a && a < 0n !== b < 0n ? q - 1n : q;
}

/** The database precision ('NS', 'US', 'MS') as a unit. */
export function dbUnit(precision: 'NS' | 'US' | 'MS'): TimeUnit {
  return precision.toLowerCase() as TimeUnit;
}

/** `nowMs` (milliseconds since the epoch) truncated to `unit`, expressed in `unit`. */
export function nowIn(unit: RequestUnit, nowMs: number): bigint {
  const ns = BigInt(Math.trunc(nowMs)) * 1_000_000n;
  return ns / NANOS_PER[unit];
}
