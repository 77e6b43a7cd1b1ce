// Timestamps of every non-line-protocol format, converted exactly into the database precision:
// multiply, or divide truncating toward zero as CnosDB does, and refuse what leaves the signed
// 64-bit range (422 020012) instead of wrapping around. Runtime-agnostic.

import { UserError } from '../core/errors.js';
import { unitConversion, type RequestUnit, type TimeUnit } from '../core/precision.js';

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

/** Converts timestamps from one unit to the database unit. */
export class TimestampConverter {
  readonly #mul: bigint;
  readonly #div: bigint;
  readonly from: RequestUnit;
  readonly to: TimeUnit;

  constructor(from: RequestUnit, to: TimeUnit) {
    const c = unitConversion(from, to);
    this.#mul = c.multiplier;
    this.#div = c.divisor;
    this.from = from;
    this.to = to;
  }

  /** `ts` (in `from`) in the database unit; throws 422 timestampOverflow outside i64. */
  convert(ts: bigint): bigint {
    if (ts < I64_MIN || ts > I64_MAX) throw overflow(ts, this.from);
    if (this.#mul !== 1n) {
      const v = ts * this.#mul;
      if (v < I64_MIN || v > I64_MAX) throw overflow(ts, this.from);
      return v;
    }
    return this.#div === 1n ? ts : ts / this.#div;
  }
}

function overflow(ts: bigint, unit: RequestUnit): UserError {
  return new UserError(
    'timestampOverflow',
    `timestamp ${ts} (${unit}) is out of range when converted to the database precision`,
  );
}
