// Calendar arithmetic on integer timestamps (no Date objects: they lose nanoseconds and cover
// less range), the timestamp texts CnosDB reads and writes, and interval parsing. Civil-date
// conversion is Howard Hinnant's days_from_civil / civil_from_days (core/calendar.ts,
// http://howardhinnant.github.io/date_algorithms.html), exact for every i64 timestamp.

import type { IntervalValue } from './batch.js';
import { civilFromDays, daysFromCivil } from '../../core/calendar.js';
import { floorDiv } from '../../core/precision.js';
import { unitNanos, type TimeUnit } from './data-types.js';

export { civilFromDays, daysFromCivil, floorDiv };

export const NS_PER_SECOND = 1_000_000_000n;
export const NS_PER_DAY = 86_400n * NS_PER_SECOND;
const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

export function toNanos(v: bigint, unit: TimeUnit): bigint {
  return v * unitNanos(unit);
}

/** Nanoseconds to `unit`, truncating toward negative infinity (as arrow's cast does for instants). */
export function fromNanos(ns: bigint, unit: TimeUnit): bigint {
  const n = unitNanos(unit);
  return n === 1n ? ns : floorDiv(ns, n);
}

export function inI64(v: bigint): boolean {
  return v >= I64_MIN && v <= I64_MAX;
}

const pad = (n: number, w: number): string => String(n).padStart(w, '0');

/**
 * `2022-11-03T06:20:11`, with the fraction only when non-zero, as 3, 6 or 9 digits (chrono's
 * `%.f`, which arrow uses to cast a timestamp to a string and CnosDB shows in .slt results).
 */
export function formatTimestamp(v: bigint, unit: TimeUnit): string {
  const ns = v * unitNanos(unit);
  const days = floorDiv(ns, NS_PER_DAY);
  const rem = ns - days * NS_PER_DAY;
  const [y, m, d] = civilFromDays(Number(days));
  const secOfDay = Number(rem / NS_PER_SECOND);
  const frac = Number(rem % NS_PER_SECOND);
  const year = y < 0 ? `-${pad(-y, 4)}` : y > 9999 ? `+${y}` : pad(y, 4);
  let text = `${year}-${pad(m, 2)}-${pad(d, 2)}T${pad(Math.floor(secOfDay / 3600), 2)}:${pad(Math.floor(secOfDay / 60) % 60, 2)}:${pad(secOfDay % 60, 2)}`;
  if (frac !== 0) {
    if (frac % 1_000_000 === 0) text += '.' + pad(frac / 1_000_000, 3);
    else if (frac % 1000 === 0) text += '.' + pad(frac / 1000, 6);
    else text += '.' + pad(frac, 9);
  }
  return text;
}

const TIMESTAMP_RE =
  /^\s*([+-]?\d{4,6})-(\d{1,2})-(\d{1,2})(?:(?:[Tt]|\s+)(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?\s*$/;

/**
 * Parses the timestamp texts arrow accepts: `2021-01-01`, `1999-12-31 00:00:00.005`,
 * `2022-10-19T06:40:00Z`, `...+08:00`. Without a zone the text is UTC. Returns nanoseconds since
 * the epoch, or undefined when the text is not a timestamp or is out of the i64 range.
 */
/**
 * Why arrow 42 refuses a timestamp text, as its parser words it (the tail of "Error parsing
 * timestamp from '...': ..."): too short, a bad date, a bad separator, or a bad time.
 */
export function timestampParseFailure(text: string): string {
  if (new TextEncoder().encode(text).length < 10) return 'timestamp must contain at least 10 characters';
  if (parseTimestampNanos(text.slice(0, 10)) === undefined) return 'error parsing date';
  if (text.length > 10 && !/^[Tt ]$/.test(text[10]!)) return 'invalid timestamp separator';
  return 'error parsing time';
}

export function parseTimestampNanos(text: string): bigint | undefined {
  const m = TIMESTAMP_RE.exec(text);
  if (m === null) return undefined;
  const [, ys, mos, ds, hs, mis, ss, fs, zone] = m;
  const y = Number(ys);
  const mo = Number(mos);
  const d = Number(ds);
  const h = hs === undefined ? 0 : Number(hs);
  const mi = mis === undefined ? 0 : Number(mis);
  const s = ss === undefined ? 0 : Number(ss);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 60) return undefined;
  let ns = BigInt(daysFromCivil(y, mo, d)) * NS_PER_DAY + BigInt(h * 3600 + mi * 60 + s) * NS_PER_SECOND;
  if (fs !== undefined) ns += BigInt(fs.padEnd(9, '0'));
  if (zone !== undefined && zone !== 'Z' && zone !== 'z') {
    const sign = zone[0] === '-' ? -1n : 1n;
    const digits = zone.slice(1).replace(':', '');
    const offsetMin = BigInt(Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0'));
    ns -= sign * offsetMin * 60n * NS_PER_SECOND;
  }
  return inI64(ns) ? ns : undefined;
}

export function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(m) ? 30 : 31;
}

/** Months, days, nanoseconds per unit of arrow-cast 42's interval parser. */
export const INTERVAL_UNITS: Readonly<Record<string, readonly [number, number, number]>> = {
  century: [1200, 0, 0],
  decade: [120, 0, 0],
  year: [12, 0, 0],
  month: [1, 0, 0],
  week: [0, 7, 0],
  day: [0, 1, 0],
  hour: [0, 0, 3.6e12],
  minute: [0, 0, 6e10],
  second: [0, 0, 1e9],
  millisecond: [0, 0, 1e6],
  microsecond: [0, 0, 1e3],
  nanosecond: [0, 0, 1],
};
const INTERVAL_ALIASES: Readonly<Record<string, string>> = {
  centuries: 'century',
  ms: 'millisecond',
  us: 'microsecond',
  ns: 'nanosecond',
  s: 'second',
  sec: 'second',
  secs: 'second',
  min: 'minute',
  mins: 'minute',
  h: 'hour',
  hr: 'hour',
  hrs: 'hour',
  d: 'day',
  w: 'week',
  y: 'year',
  yr: 'year',
  yrs: 'year',
};

function intervalUnit(word: string): readonly [number, number, number] | undefined {
  const w = word.toLowerCase();
  return INTERVAL_UNITS[w] ?? INTERVAL_UNITS[INTERVAL_ALIASES[w] ?? ''] ?? INTERVAL_UNITS[w.replace(/s$/, '')];
}

/**
 * An interval text as arrow-cast 42 reads it: `'1 minute'`, `'1 day 2 hours'`, `'1.5 hours'`, a
 * bare number in `defaultUnit`. Fractional months spill into 30-day days and fractional days into
 * nanoseconds. Undefined when the text is not an interval.
 */
export function parseInterval(text: string, defaultUnit = 'second'): IntervalValue | undefined {
  const words = text
    .trim()
    .replace(/(\d)([a-zA-Z])/g, '$1 $2')
    .split(/\s+/);
  if (words.length === 0 || words[0] === '') return undefined;
  if (words.length % 2 === 1) words.push(defaultUnit);
  let months = 0;
  let days = 0;
  let nanos = 0n;
  for (let i = 0; i < words.length; i += 2) {
    const amountText = words[i]!;
    const unit = intervalUnit(words[i + 1]!);
    if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(amountText) || unit === undefined) return undefined;
    const amount = Number(amountText);
    const month = amount * unit[0];
    let day = amount * unit[1] + (month - Math.trunc(month)) * 30;
    const nano = amount * unit[2] + (day - Math.trunc(day)) * 8.64e13;
    day = Math.trunc(day);
    months += Math.trunc(month);
    days += day;
    nanos +=
      /^[+-]?\d+$/.test(amountText) && unit[2] !== 0 ? BigInt(amountText) * BigInt(unit[2]) : BigInt(Math.trunc(nano));
  }
  return { months, days, nanos };
}

/** An interval of only days and nanoseconds as nanoseconds (undefined when it has months). */
export function intervalNanos(v: IntervalValue): bigint | undefined {
  if (v.months !== 0) return undefined;
  return BigInt(v.days) * NS_PER_DAY + v.nanos;
}

/** Adds an interval to a timestamp in nanoseconds (months move the calendar date). */
export function addInterval(ns: bigint, v: IntervalValue, sign: 1 | -1): bigint {
  let out = ns;
  if (v.months !== 0) {
    const days = floorDiv(out, NS_PER_DAY);
    const rem = out - days * NS_PER_DAY;
    const [y, m, d] = civilFromDays(Number(days));
    const total = y * 12 + (m - 1) + sign * v.months;
    const ny = Math.floor(total / 12);
    const nm = total - ny * 12 + 1;
    const nd = Math.min(d, daysInMonth(ny, nm));
    out = BigInt(daysFromCivil(ny, nm, nd)) * NS_PER_DAY + rem;
  }
  return out + BigInt(sign) * (BigInt(v.days) * NS_PER_DAY + v.nanos);
}
