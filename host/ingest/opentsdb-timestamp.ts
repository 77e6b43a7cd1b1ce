// The OpenTSDB timestamp rule shared by the text and JSON forms (CONTRACT.md "Writes"): with a
// `precision` parameter the number is in that unit; without one, OpenTSDB's own rule applies:
// up to 10 digits are seconds, 11 to 13 digits milliseconds (OpenTSDB requires ms timestamps to
// have 13 digits; shorter ones only occur before 2001 and are read the same way), more is an
// error rather than a silent guess. Runtime-agnostic.

import type { RequestUnit, TimeUnit } from '../core/precision.js';
import { clip } from './parse-errors.js';
import { TimestampConverter } from './timestamps.js';

const INTEGER = /^-?\d+$/;

export class OpenTsdbTimestamps {
  readonly #fixed: TimestampConverter | undefined;
  readonly #seconds: TimestampConverter;
  readonly #millis: TimestampConverter;

  /** `precision`: the request's `precision` parameter, if given. */
  constructor(precision: RequestUnit | undefined, dbUnit: TimeUnit) {
    this.#fixed = precision === undefined ? undefined : new TimestampConverter(precision, dbUnit);
    this.#seconds = new TimestampConverter('s', dbUnit);
    this.#millis = new TimestampConverter('ms', dbUnit);
  }

  /**
   * The timestamp `text` (an optionally negative integer) in the database unit, or a string
   * saying what is wrong with it. Throws 422 timestampOverflow when it does not fit.
   */
  convert(text: string): bigint | string {
    if (!INTEGER.test(text)) return `invalid timestamp '${clip(text)}', expected an integer`;
    const ts = BigInt(text);
    if (this.#fixed !== undefined) return this.#fixed.convert(ts);
    const digits = text.length - (text.charCodeAt(0) === 45 ? 1 : 0);
    if (digits <= 10) return this.#seconds.convert(ts);
    if (digits <= 13) return this.#millis.convert(ts);
    return `timestamp '${clip(text)}' has ${digits} digits; without a precision parameter OpenTSDB timestamps are seconds (up to 10 digits) or milliseconds (13 digits)`;
  }
}
