// Times in InfluxQL: the literals a WHERE clause compares `time` with (now() plus or minus a
// duration, RFC 3339 strings, integers in nanoseconds, integers with a unit such as
// `1700000000000ms`, as Grafana writes them), and the two ways results show a time: RFC3339Nano
// text (Go's layout: fraction digits only as many as needed, `Z`) or an integer in the `epoch` unit.

import { formatTimestamp, parseTimestampNanos } from '../engine/types/index.js';
import type { Expr } from './ast.js';
import { statementError } from './errors.js';

/** The units `epoch=` accepts (InfluxDB 1.x: h, m, s, ms, u, ns; also n, µ and us, as precision takes them). */
export const EPOCH_UNITS: Readonly<Record<string, bigint>> = {
  n: 1n,
  ns: 1n,
  u: 1_000n,
  µ: 1_000n,
  us: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/** `ns` in Go's RFC3339Nano layout: `2023-11-14T22:13:20Z`, `2023-11-14T22:13:20.5Z`. */
export function rfc3339Nano(ns: bigint): string {
  const text = formatTimestamp(ns, 'Nanosecond');
  const dot = text.indexOf('.');
  if (dot < 0) return `${text}Z`;
  return `${text.slice(0, dot)}${text.slice(dot).replace(/0+$/, '')}Z`;
}

/** An RFC 3339 string as SQL's TIMESTAMP literal takes it (nine fraction digits, UTC). */
export function timestampLiteral(ns: bigint): string {
  const text = formatTimestamp(ns, 'Nanosecond');
  const dot = text.indexOf('.');
  const base = dot < 0 ? text : text.slice(0, dot);
  const frac = ((ns % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n;
  return `${base}.${String(frac).padStart(9, '0')}Z`;
}

/**
 * The value of a time expression in nanoseconds since the epoch, with `nowNs` for now(); a
 * duration is a span (and, alone, a time: `1700000000000ms`).
 */
export function evalTime(e: Expr, nowNs: bigint): bigint {
  const ns = timeValue(e, nowNs);
  if (ns < I64_MIN || ns > I64_MAX)
    throw statementError(`time ${ns} is out of range: nanoseconds since the epoch must fit 64 bits`);
  return ns;
}

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

function timeValue(e: Expr, nowNs: bigint): bigint {
  switch (e.kind) {
    case 'paren':
      return timeValue(e.expr, nowNs);
    case 'call':
      if (e.name === 'now' && e.args.length === 0) return nowNs;
      break;
    case 'string': {
      const ns = parseTimestampNanos(e.value);
      if (ns === undefined)
        throw statementError(`invalid time: '${e.value}' is not an RFC 3339 time (want e.g. 2023-11-14T22:13:20Z)`);
      return ns;
    }
    case 'integer':
      return e.value;
    case 'number':
      if (!Number.isFinite(e.value)) break;
      return BigInt(Math.trunc(e.value));
    case 'duration':
      return e.ns;
    case 'binary':
      if (e.op === '+') return timeValue(e.left, nowNs) + timeValue(e.right, nowNs);
      if (e.op === '-') return timeValue(e.left, nowNs) - timeValue(e.right, nowNs);
      break;
    default:
      break;
  }
  throw statementError(
    'invalid time comparison: want now(), now() - <duration>, an RFC 3339 string or an integer epoch (with a unit, e.g. 1700000000000ms)',
  );
}
