// Comparison of values and vectors as DataFusion 27 orders them: strings by UTF-8 bytes (Rust's
// order, not JavaScript's UTF-16 one), intervals field by field, 64-bit integers of long vectors
// in the Wasm kernels. The one order the sort, the aggregates and the operators share.

import { compareBytes } from '../../core/series-key.js';
import type { IntervalValue, Vector } from './batch.js';
import { andValidity, getValue, validityOf } from './batch.js';
import { BOOLEAN } from './data-types.js';
import { int64Kernels } from './kernels.js';

/**
 * UTF-8 byte order (= code point order) of two strings, as Rust compares them: the order of
 * series keys (core's compareBytes), after a quick test for the same string, which sorts and
 * group keys meet often (tags repeat).
 */
export function compareStrings(a: string, b: string): number {
  return a === b ? 0 : compareBytes(a, b);
}

/** Intervals by months, then days, then nanoseconds (30 days are not a month here). */
function compareInterval(a: IntervalValue, b: IntervalValue): number {
  if (a.months !== b.months) return a.months - b.months;
  if (a.days !== b.days) return a.days - b.days;
  return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
}

export type CmpOp = '=' | '!=' | '<' | '<=' | '>' | '>=';

const FLIP: Record<CmpOp, CmpOp> = { '=': '=', '!=': '!=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

function cmpResult(op: CmpOp, c: number): number {
  switch (op) {
    case '=':
      return c === 0 ? 1 : 0;
    case '!=':
      return c !== 0 ? 1 : 0;
    case '<':
      return c < 0 ? 1 : 0;
    case '<=':
      return c <= 0 ? 1 : 0;
    case '>':
      return c > 0 ? 1 : 0;
    case '>=':
      return c >= 0 ? 1 : 0;
  }
}

/** Comparison of two vectors of the same type: a Boolean vector, NULL where either is NULL. */
export function compare(op: CmpOp, a: Vector, b: Vector): Vector {
  const n = a.length;
  const out = new Uint8Array(n);
  const validity = andValidity(validityOf(a), validityOf(b), n);
  const t = a.type.id === 'Null' ? b.type.id : a.type.id;
  if (t === 'Null' || a.values === null || b.values === null)
    return { type: BOOLEAN, length: n, values: out, validity: new Uint8Array(n) };
  const av = a.values as ArrayLike<unknown>;
  const bv = b.values as ArrayLike<unknown>;
  if (t === 'Int64' || t === 'UInt64' || t === 'Timestamp') {
    const k = int64Kernels(n);
    if (k !== undefined) {
      // A constant operand goes in as one value; a constant left side flips the operator.
      const flipped = a.constant === true && b.constant !== true;
      const [x, y] = flipped ? [bv, av] : [av, bv];
      const o = flipped ? FLIP[op] : op;
      const values = k.compare(
        o,
        x as BigInt64Array,
        y as BigInt64Array,
        (flipped ? a : b).constant === true,
        t === 'UInt64',
        n,
      );
      return { type: BOOLEAN, length: n, values, validity };
    }
  }
  switch (t) {
    case 'Float64':
    case 'Float32':
    case 'Int64':
    case 'UInt64':
    case 'Timestamp':
    case 'Time64':
    case 'Boolean':
    case 'Date32': {
      const x = av as ArrayLike<number>;
      const y = bv as ArrayLike<number>;
      switch (op) {
        case '=':
          for (let i = 0; i < n; i++) out[i] = x[i] === y[i] ? 1 : 0;
          break;
        case '!=':
          for (let i = 0; i < n; i++) out[i] = x[i] !== y[i] ? 1 : 0;
          break;
        case '<':
          for (let i = 0; i < n; i++) out[i] = x[i]! < y[i]! ? 1 : 0;
          break;
        case '<=':
          for (let i = 0; i < n; i++) out[i] = x[i]! <= y[i]! ? 1 : 0;
          break;
        case '>':
          for (let i = 0; i < n; i++) out[i] = x[i]! > y[i]! ? 1 : 0;
          break;
        case '>=':
          for (let i = 0; i < n; i++) out[i] = x[i]! >= y[i]! ? 1 : 0;
          break;
      }
      break;
    }
    // Hex text compares as its bytes do.
    case 'Utf8':
    case 'Binary': {
      const x = av as ArrayLike<string>;
      const y = bv as ArrayLike<string>;
      if (op === '=') for (let i = 0; i < n; i++) out[i] = x[i] === y[i] ? 1 : 0;
      else if (op === '!=') for (let i = 0; i < n; i++) out[i] = x[i] !== y[i] ? 1 : 0;
      else for (let i = 0; i < n; i++) out[i] = cmpResult(op, compareStrings(x[i]!, y[i]!));
      break;
    }
    case 'Interval': {
      const x = av as ArrayLike<IntervalValue>;
      const y = bv as ArrayLike<IntervalValue>;
      for (let i = 0; i < n; i++) out[i] = cmpResult(op, compareInterval(x[i]!, y[i]!));
      break;
    }
    default: {
      for (let i = 0; i < n; i++) {
        const l = JSON.stringify(getValue(a, i), bigintJson);
        const r = JSON.stringify(getValue(b, i), bigintJson);
        out[i] = cmpResult(op, l === r ? 0 : l < r ? -1 : 1);
      }
    }
  }
  return { type: BOOLEAN, length: n, values: out, validity };
}

function bigintJson(_k: string, v: unknown): unknown {
  return typeof v === 'bigint' ? String(v) : v;
}
