// Text of TIMESTAMP and DATE values as CnosDB 2.4 writes them, straight into a ByteSink:
//   'csv'      arrow-csv 42 `%Y-%m-%dT%H:%M:%S.%9f`: nine fraction digits, no zone. A value with a
//              time zone is written as its UTC instant, also without a zone (CONTRACT.md: CSV
//              timestamps have no zone; CnosDB appends `%:z`, `+00:00` for now()): departs.
//   'display'  Arrow's display (JSON, text/table, .slt files): chrono's NaiveDateTime Debug, the
//              fraction only when non-zero and as 3, 6 or 9 digits; with a time zone RFC 3339 with
//              the same fraction rule and `Z` for UTC (arrow-cast 42 display.rs format_rfc3339).
// The int64 is read as two 32-bit halves and divided by long division in base 2^16, so that the
// hot loop never creates a BigInt (each one is a heap allocation in V8); negative instants,
// rare in time-series data, take a BigInt path.

import { UserError } from '../../core/errors.js';
import { civilFromDays, daysFromCivil } from '../../core/calendar.js';
import type { TimeUnit } from './data-types.js';
import type { ByteSink } from './byte-sink.js';

export type TimestampStyle = 'csv' | 'display';

const UNITS_PER_SECOND: Readonly<Record<TimeUnit, number>> = {
  Second: 1,
  Millisecond: 1e3,
  Microsecond: 1e6,
  Nanosecond: 1e9,
};

/**
 * The seconds chrono's NaiveDateTime holds: years -262144 to 262143 (MIN_YEAR and MAX_YEAR are
 * i32 >> 13). Arrow's display of a timestamp outside fails ("Failed to convert ... to datetime"),
 * so CnosDB's writers answer an error for such a value (a nanosecond time in a millisecond table).
 */
const MIN_CHRONO_SECS = daysFromCivil(-262144, 1, 1) * 86400;
const END_CHRONO_SECS = (daysFromCivil(262143, 12, 31) + 1) * 86400;
const TWO_32 = 4294967296;
/** "00" .. "59" as byte pairs: hours, minutes and seconds without a division loop each. */
const PAIRS = Uint8Array.from({ length: 120 }, (_, i) => 48 + (i & 1 ? (i >> 1) % 10 : Math.floor((i >> 1) / 10)));

/** `YYYY-MM-DD` as chrono writes a date: four digits in 0..=9999, else a sign and at least four. */
export function writeDate(sink: ByteSink, days: number): void {
  const [year, month, day] = civilFromDays(days);
  sink.reserve(16);
  const buf = sink.buf;
  if (year >= 0 && year <= 9999) sink.padded(year, 4);
  else {
    buf[sink.pos++] = year < 0 ? 45 : 43;
    const y = Math.abs(year);
    if (y < 10000) sink.padded(y, 4);
    else sink.int(y);
  }
  buf[sink.pos++] = 45;
  sink.padded(month, 2);
  buf[sink.pos++] = 45;
  sink.padded(day, 2);
}

/** A time zone as an offset in seconds east of UTC at an instant. */
type ZoneOffset = (epochSeconds: number) => number;

/** Fixed offsets (`+08:00`, `-0530`, `UTC`) and IANA names (through Intl, present in Node and browsers). */
export function zoneOffset(tz: string): ZoneOffset {
  const upper = tz.toUpperCase();
  if (upper === 'UTC' || upper === 'Z' || upper === 'GMT' || upper === 'ETC/UTC') return () => 0;
  const fixed = /^([+-])(\d{2}):?(\d{2})?$/.exec(tz);
  if (fixed !== null) {
    const s = (Number(fixed[2]) * 3600 + Number(fixed[3] ?? 0) * 60) * (fixed[1] === '-' ? -1 : 1);
    return () => s;
  }
  let dtf: Intl.DateTimeFormat;
  try {
    dtf = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  } catch {
    return () => 0;
  }
  return (epochSeconds) => {
    const ms = epochSeconds * 1000;
    if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return 0;
    const parts: Record<string, number> = {};
    for (const p of dtf.formatToParts(ms)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
    const local = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
    return Math.round((local - (ms - (((ms % 1000) + 1000) % 1000))) / 1000);
  };
}

/**
 * Writes the timestamps of one column. Keeps the date of the previous value: a result's rows
 * mostly fall on few days, and the calendar arithmetic is the costliest part.
 */
export class TimestampWriter {
  readonly #perSecond: number;
  readonly #nanosPerUnit: number;
  readonly #style: TimestampStyle;
  readonly #offset: ZoneOffset | undefined;
  readonly #bigPerSecond: bigint;
  readonly #typeName: string;
  #day = NaN;
  /** The text of day #day, exactly as long as it is. */
  #date = new Uint8Array(0);

  constructor(unit: TimeUnit, tz: string | undefined, style: TimestampStyle) {
    this.#perSecond = UNITS_PER_SECOND[unit];
    this.#bigPerSecond = BigInt(this.#perSecond);
    this.#nanosPerUnit = 1e9 / this.#perSecond;
    this.#style = style;
    this.#offset = tz === undefined || style === 'csv' ? undefined : zoneOffset(tz);
    this.#typeName = `Timestamp(${unit}, ${tz === undefined ? 'None' : `Some("${tz}")`})`;
  }

  /** CnosDB's answer when Arrow cannot write the value (HttpError::FetchResult around its CastError). */
  #outOfRange(value: bigint): UserError {
    return new UserError(
      'fetchResult',
      `Fetch result: Cast error: Failed to convert ${value} to datetime for ${this.#typeName}`,
    );
  }

  /** Writes value `i` of `values`; `words` is an Int32Array over the same memory. */
  write(sink: ByteSink, values: BigInt64Array, words: Int32Array, i: number): void {
    const lo = words[2 * i]! >>> 0;
    const hi = words[2 * i + 1]!;
    const d = this.#perSecond;
    let secs: number;
    let frac: number;
    if (hi >= 0 && hi < 0x200000) {
      // value < 2^53: plain double arithmetic is exact.
      const v = hi * TWO_32 + lo;
      secs = Math.floor(v / d);
      frac = v - secs * d;
      // v / d may round up to the next integer when v is just below a multiple of d.
      if (frac < 0) {
        secs -= 1;
        frac += d;
      }
    } else if (hi >= 0) {
      // Long division of hi:lo by d in base 2^16; every partial remainder stays below 2^53.
      let r = hi >>> 16;
      const q3 = Math.floor(r / d);
      r = (r - q3 * d) * 65536 + (hi & 0xffff);
      const q2 = Math.floor(r / d);
      r = (r - q2 * d) * 65536 + (lo >>> 16);
      const q1 = Math.floor(r / d);
      r = (r - q1 * d) * 65536 + (lo & 0xffff);
      const q0 = Math.floor(r / d);
      frac = r - q0 * d;
      secs = ((q3 * 65536 + q2) * 65536 + q1) * 65536 + q0;
    } else {
      const v = values[i]!;
      let s = v / this.#bigPerSecond;
      let r = v % this.#bigPerSecond;
      if (r < 0n) {
        s -= 1n;
        r += this.#bigPerSecond;
      }
      secs = Number(s);
      frac = Number(r);
    }
    if (secs < MIN_CHRONO_SECS || secs >= END_CHRONO_SECS) throw this.#outOfRange(values[i]!);
    const offset = this.#offset === undefined ? 0 : this.#offset(secs);
    this.#writeParts(sink, secs + offset, frac * this.#nanosPerUnit, offset);
  }

  /** Writes an instant given as seconds and nanoseconds (slow path for nested values). */
  writeBig(sink: ByteSink, value: bigint): void {
    let s = value / this.#bigPerSecond;
    let r = value % this.#bigPerSecond;
    if (r < 0n) {
      s -= 1n;
      r += this.#bigPerSecond;
    }
    const secs = Number(s);
    if (secs < MIN_CHRONO_SECS || secs >= END_CHRONO_SECS) throw this.#outOfRange(value);
    const offset = this.#offset === undefined ? 0 : this.#offset(secs);
    this.#writeParts(sink, secs + offset, Number(r) * this.#nanosPerUnit, offset);
  }

  #writeParts(sink: ByteSink, secs: number, nanos: number, offset: number): void {
    const day = Math.floor(secs / 86400);
    let sod = secs - day * 86400;
    if (day !== this.#day) this.#cacheDate(sink, day);
    sink.reserve(48);
    const buf = sink.buf;
    buf.set(this.#date, sink.pos);
    const p = sink.pos + this.#date.length;
    const h = Math.floor(sod / 3600);
    sod -= h * 3600;
    const m = Math.floor(sod / 60);
    const sec = sod - m * 60;
    buf[p] = 84; // 'T'
    buf[p + 1] = PAIRS[2 * h]!;
    buf[p + 2] = PAIRS[2 * h + 1]!;
    buf[p + 3] = 58;
    buf[p + 4] = PAIRS[2 * m]!;
    buf[p + 5] = PAIRS[2 * m + 1]!;
    buf[p + 6] = 58;
    buf[p + 7] = PAIRS[2 * sec]!;
    buf[p + 8] = PAIRS[2 * sec + 1]!;
    sink.pos = p + 9;
    if (this.#style === 'csv') {
      buf[sink.pos++] = 46;
      sink.padded(nanos, 9);
    } else if (nanos !== 0) {
      buf[sink.pos++] = 46;
      if (nanos % 1e6 === 0) sink.padded(nanos / 1e6, 3);
      else if (nanos % 1e3 === 0) sink.padded(nanos / 1e3, 6);
      else sink.padded(nanos, 9);
    }
    if (this.#offset === undefined) return;
    if (offset === 0) {
      buf[sink.pos++] = 90; // 'Z'
      return;
    }
    buf[sink.pos++] = offset < 0 ? 45 : 43;
    const abs = Math.abs(offset);
    sink.padded(Math.floor(abs / 3600), 2);
    buf[sink.pos++] = 58;
    sink.padded(Math.floor((abs % 3600) / 60), 2);
  }

  #cacheDate(sink: ByteSink, day: number): void {
    // Format into the sink's spare room, then keep a copy.
    sink.reserve(16);
    const start = sink.pos;
    writeDate(sink, day);
    this.#date = sink.buf.slice(start, sink.pos);
    sink.pos = start;
    this.#day = day;
  }
}
