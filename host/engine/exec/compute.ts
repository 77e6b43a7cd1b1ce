// Vectorized kernels of the binary operators: comparison, arithmetic, boolean logic with SQL's
// three-valued NULL semantics, string concatenation. Both operands arrive cast to the types the
// planner chose (types/coercion.ts). One loop per physical type, constants unboxed before the loop
// (STYLE §22-23). Integer + - * wrap around in 64 bits, as arrow 42's add/subtract/multiply
// kernels that DataFusion 27 runs (CnosDB's sqlancer case: i64::MAX - -1826088151 is a value, not
// an error); division and remainder by zero are errors (a zero divisor column divides to NULL).

import {
  addInterval,
  andValidity,
  type BinaryOperator,
  BOOLEAN,
  compare,
  type DataType,
  FLOAT64,
  getValue,
  int64Kernels,
  INTERVAL,
  type IntervalValue,
  isValid,
  NS_PER_DAY,
  scalarToString,
  typeName,
  unitNanos,
  validityOf,
  type Vector,
} from '../types/index.js';
import { bug } from '../../core/errors.js';
import { executionError } from '../errors.js';
import type { MemoryBudget } from '../functions/function-types.js';
import { MAX_STRING_UNITS, ResultBudget } from '../functions/result-size.js';
import { stringUnitsBytes } from '../memory/index.js';
import { compileRustTest, RegexError } from '../functions/rust-regex.js';
import { bitwise } from './bitwise.js';

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const U64_MAX = 2n ** 64n - 1n;

/** `IS [NOT] DISTINCT FROM`: like = / != but NULL is a value and the result is never NULL. */
export function distinctFrom(negated: boolean, a: Vector, b: Vector): Vector {
  const eq = compare('=', a, b);
  const n = a.length;
  const out = new Uint8Array(n);
  const e = eq.values as Uint8Array;
  for (let i = 0; i < n; i++) {
    const va = isValid(a, i);
    const vb = isValid(b, i);
    const same = va && vb ? e[i] === 1 : va === vb;
    out[i] = same === negated ? 1 : 0;
  }
  return { type: BOOLEAN, length: n, values: out };
}

/** SQL AND / OR with three-valued logic: FALSE AND NULL is FALSE, TRUE OR NULL is TRUE. */
export function logical(op: 'AND' | 'OR', a: Vector, b: Vector): Vector {
  const n = a.length;
  const out = new Uint8Array(n);
  const av = (a.values ?? new Uint8Array(n)) as Uint8Array;
  const bv = (b.values ?? new Uint8Array(n)) as Uint8Array;
  const am = validityOf(a);
  const bm = validityOf(b);
  if (am === undefined && bm === undefined) {
    if (op === 'AND') for (let i = 0; i < n; i++) out[i] = av[i]! & bv[i]!;
    else for (let i = 0; i < n; i++) out[i] = av[i]! | bv[i]!;
    return { type: BOOLEAN, length: n, values: out };
  }
  const validity = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const an = am !== undefined && am[i] === 0;
    const bn = bm !== undefined && bm[i] === 0;
    const x = av[i]!;
    const y = bv[i]!;
    if (op === 'AND') {
      if ((!an && x === 0) || (!bn && y === 0))
        validity[i] = 1; // FALSE
      else if (an || bn) validity[i] = 0;
      else {
        validity[i] = 1;
        out[i] = 1;
      }
    } else {
      if ((!an && x === 1) || (!bn && y === 1)) {
        validity[i] = 1;
        out[i] = 1;
      } else if (an || bn) validity[i] = 0;
      else validity[i] = 1;
    }
  }
  return { type: BOOLEAN, length: n, values: out, validity };
}

function overflow(a: unknown, op: string, b: unknown): Error {
  return executionError(`Arrow error: Compute error: Overflow happened on: ${String(a)} ${op} ${String(b)}`);
}

const divideByZero = (): Error => executionError('Arrow error: Divide by zero error');

/**
 * Division of two columns is DataFusion 27's divide_dyn_opt: a row whose divisor is zero is NULL
 * (CnosDB's sqlancer case reads `t1 || (f0 / f0)` with f0 = 0 as NULL); a constant zero divisor
 * stays the Divide by zero error of divide_scalar. The copy of `validity` this returns is where
 * such rows are cleared.
 */
function nullRow(validity: Uint8Array | undefined, n: number): Uint8Array {
  return validity === undefined ? new Uint8Array(n).fill(1) : validity.slice();
}

/** Arithmetic on two vectors of the (numeric) result type; NULL where either is NULL. */
export function arithmetic(op: '+' | '-' | '*' | '/' | '%', a: Vector, b: Vector, type: DataType): Vector {
  const n = a.length;
  const validity = andValidity(validityOf(a), validityOf(b), n);
  const valid = (i: number): boolean => validity === undefined || validity[i] === 1;
  if (a.type.id === 'Null' || b.type.id === 'Null')
    return { type, length: n, values: emptyValues(type, n), validity: new Uint8Array(n) };
  if (type.id === 'Float32') {
    // Computed in double, then rounded once: exact single results for + - * / of singles.
    const r = arithmetic(op, a, b, FLOAT64);
    const x = r.values as Float64Array;
    for (let i = 0; i < n; i++) x[i] = Math.fround(x[i]!);
    return { ...r, type };
  }
  switch (type.id) {
    case 'Float64': {
      const x = a.values as Float64Array;
      const y = b.values as Float64Array;
      const out = new Float64Array(n);
      let nulled: Uint8Array | undefined;
      switch (op) {
        case '+':
          for (let i = 0; i < n; i++) out[i] = x[i]! + y[i]!;
          break;
        case '-':
          for (let i = 0; i < n; i++) out[i] = x[i]! - y[i]!;
          break;
        case '*':
          for (let i = 0; i < n; i++) out[i] = x[i]! * y[i]!;
          break;
        case '/':
          for (let i = 0; i < n; i++) {
            if (y[i] === 0 && valid(i)) {
              if (b.constant === true) throw divideByZero();
              nulled ??= nullRow(validity, n);
              nulled[i] = 0;
            }
            out[i] = x[i]! / y[i]!;
          }
          break;
        case '%':
          for (let i = 0; i < n; i++) {
            if (y[i] === 0 && valid(i)) throw divideByZero();
            out[i] = x[i]! % y[i]!;
          }
          break;
      }
      return { type, length: n, values: out, validity: nulled ?? validity };
    }
    case 'Int64':
    case 'UInt64': {
      const signed = type.id === 'Int64';
      const x = a.values as BigInt64Array | BigUint64Array;
      const y = b.values as BigInt64Array | BigUint64Array;
      const k = int64Kernels(n);
      if (k !== undefined && a.constant !== true) {
        const r = k.arithmetic(op, x, y, b.constant === true, !signed, validity, n);
        if ('values' in r) return { type, length: n, values: r.values, validity };
        // The loop below wraps what overflowed and makes NULL what a zero divisor column divides.
        if (r.failure.kind === 'divideByZero' && (op !== '/' || b.constant === true)) throw divideByZero();
      }
      const out = signed ? new BigInt64Array(n) : new BigUint64Array(n);
      const lo = signed ? I64_MIN : 0n;
      const hi = signed ? I64_MAX : U64_MAX;
      let nulled: Uint8Array | undefined;
      for (let i = 0; i < n; i++) {
        if (!valid(i)) continue;
        const l = x[i]!;
        const r = y[i]!;
        let v: bigint;
        switch (op) {
          case '+':
            v = l + r;
            break;
          case '-':
            v = l - r;
            break;
          case '*':
            v = l * r;
            break;
          case '/':
            if (r === 0n) {
              if (b.constant === true) throw divideByZero();
              nulled ??= nullRow(validity, n);
              nulled[i] = 0;
              continue;
            }
            v = l / r;
            break;
          case '%':
            if (r === 0n) throw divideByZero();
            v = l % r;
            break;
        }
        out[i] = v < lo || v > hi ? (signed ? BigInt.asIntN(64, v) : BigInt.asUintN(64, v)) : v;
      }
      return { type, length: n, values: out, validity: nulled ?? validity };
    }
    case 'Timestamp': {
      // timestamp +/- interval, interval + timestamp
      const unit = unitNanos(type.unit);
      const out = new BigInt64Array(n);
      const tsLeft = a.type.id === 'Timestamp';
      const ts = (tsLeft ? a.values : b.values) as BigInt64Array;
      const iv = (tsLeft ? b.values : a.values) as IntervalValue[];
      for (let i = 0; i < n; i++) {
        if (!valid(i)) continue;
        const r = addInterval(ts[i]! * unit, iv[i]!, op === '-' ? -1 : 1);
        const v = r / unit;
        if (v < I64_MIN || v > I64_MAX) throw overflow(ts[i], op, 'interval');
        out[i] = v;
      }
      return { type, length: n, values: out, validity };
    }
    case 'Date32': {
      // date +/- interval, interval + date, as arrow's add_month_day_nano: months, then days,
      // then the nanoseconds' whole days (a NaiveDate plus a Duration truncates toward zero).
      const out = new Int32Array(n);
      const dateLeft = a.type.id === 'Date32';
      const days = (dateLeft ? a.values : b.values) as Int32Array;
      const iv = (dateLeft ? b.values : a.values) as IntervalValue[];
      const sign = op === '-' ? -1 : 1;
      for (let i = 0; i < n; i++) {
        if (!valid(i)) continue;
        const { months, days: d, nanos } = iv[i]!;
        const shifted = addInterval(BigInt(days[i]!) * NS_PER_DAY, { months, days: d, nanos: 0n }, sign) / NS_PER_DAY;
        const v = Number(shifted) + sign * Number(nanos / NS_PER_DAY);
        if (v < -2_147_483_648 || v > 2_147_483_647) throw overflow(days[i], op, 'interval');
        out[i] = v;
      }
      return { type, length: n, values: out, validity };
    }
    case 'Interval': {
      const out = new Array<IntervalValue>(n);
      if (a.type.id === 'Timestamp') {
        // timestamp - timestamp: the difference as days and nanoseconds
        const unit = unitNanos(a.type.unit);
        const x = a.values as BigInt64Array;
        const y = b.values as BigInt64Array;
        for (let i = 0; i < n; i++) {
          const d = valid(i) ? (x[i]! - y[i]!) * unit : 0n;
          const days = d / 86_400_000_000_000n;
          out[i] = { months: 0, days: Number(days), nanos: d - days * 86_400_000_000_000n };
        }
        return { type: INTERVAL, length: n, values: out, validity };
      }
      const x = a.values as IntervalValue[];
      if (b.type.id === 'Interval') {
        const y = b.values as IntervalValue[];
        const s = op === '-' ? -1 : 1;
        for (let i = 0; i < n; i++) {
          out[i] = valid(i)
            ? {
                months: x[i]!.months + s * y[i]!.months,
                days: x[i]!.days + s * y[i]!.days,
                nanos: x[i]!.nanos + BigInt(s) * y[i]!.nanos,
              }
            : { months: 0, days: 0, nanos: 0n };
        }
        return { type: INTERVAL, length: n, values: out, validity };
      }
      const y = b.values as BigInt64Array;
      for (let i = 0; i < n; i++) {
        if (!valid(i)) {
          out[i] = { months: 0, days: 0, nanos: 0n };
          continue;
        }
        const k = y[i]!;
        if (op === '/' && k === 0n) throw divideByZero();
        const f = (v: number): number => (op === '*' ? v * Number(k) : Math.trunc(v / Number(k)));
        out[i] = {
          months: f(x[i]!.months),
          days: f(x[i]!.days),
          nanos: op === '*' ? x[i]!.nanos * k : x[i]!.nanos / k,
        };
      }
      return { type: INTERVAL, length: n, values: out, validity };
    }
    default:
      throw bug(`arithmetic ${op} on ${typeName(type)}`);
  }
}

function emptyValues(type: DataType, n: number): Vector['values'] {
  switch (type.id) {
    case 'Float64':
    case 'Float32':
      return new Float64Array(n);
    case 'Int64':
    case 'Timestamp':
      return new BigInt64Array(n);
    case 'UInt64':
      return new BigUint64Array(n);
    case 'Boolean':
      return new Uint8Array(n);
    case 'Interval':
      return Array.from({ length: n }, () => ({ months: 0, days: 0, nanos: 0n }));
    default:
      return new Array<string>(n).fill('');
  }
}

/** `a || b` on strings; NULL where either is NULL. */
export function concat(a: Vector, b: Vector, memory?: MemoryBudget): Vector {
  const n = a.length;
  const validity = andValidity(validityOf(a), validityOf(b), n);
  const out = new Array<string>(n);
  const x = a.values as string[] | null;
  const y = b.values as string[] | null;
  const skip = (i: number): boolean => validity !== undefined && validity[i] === 0;
  // Sized before built (functions/result-size.ts): `s || s` nested doubles a string per level.
  // The batch's total is summed first; only when it does not fit are the rows checked one by
  // one, for an error that names the string that did not.
  let units = 0;
  let longest = 0;
  for (let i = 0; i < n; i++) {
    if (skip(i)) continue;
    const u = x![i]!.length + y![i]!.length;
    units += u;
    if (u > longest) longest = u;
  }
  const fits =
    longest <= MAX_STRING_UNITS &&
    (memory === undefined || memory.usedBytes + stringUnitsBytes(0) * n + 2 * units <= memory.limitBytes);
  const budget = fits ? undefined : new ResultBudget('||', memory);
  for (let i = 0; i < n; i++) {
    if (skip(i)) {
      out[i] = '';
      continue;
    }
    budget?.string(x![i]!.length + y![i]!.length);
    out[i] = x![i]! + y![i]!;
    budget?.add(out[i]!);
  }
  return { type: a.type.id === 'Null' ? b.type : a.type, length: n, values: out, validity };
}

/** `-x`; the smallest BIGINT negates to itself (arrow's wrapping negate). */
export function negate(v: Vector): Vector {
  const n = v.length;
  switch (v.type.id) {
    case 'Float64':
    case 'Float32': {
      const x = v.values as Float64Array;
      const out = new Float64Array(n);
      for (let i = 0; i < n; i++) out[i] = -x[i]!;
      return { type: v.type, length: n, values: out, validity: v.validity };
    }
    case 'Int64': {
      const x = v.values as BigInt64Array;
      const out = new BigInt64Array(n);
      // A BigInt64Array stores -(-2^63) as -2^63: the wraparound arrow's negate gives.
      for (let i = 0; i < n; i++) out[i] = -x[i]!;
      return { type: v.type, length: n, values: out, validity: v.validity };
    }
    case 'Interval': {
      const x = v.values as IntervalValue[];
      return {
        type: v.type,
        length: n,
        values: x.map((iv) => ({ months: -iv.months, days: -iv.days, nanos: -iv.nanos })),
        validity: v.validity,
      };
    }
    case 'Null':
      return v;
    default:
      throw executionError(`Negation only supports numeric, interval and timestamp types, got ${typeName(v.type)}`);
  }
}

/** Dispatches a binary operator to its kernel; `memory` bounds the strings `||` builds. */
export function binaryKernel(op: BinaryOperator, a: Vector, b: Vector, type: DataType, memory?: MemoryBudget): Vector {
  switch (op) {
    case '=':
    case '!=':
    case '<':
    case '<=':
    case '>':
    case '>=':
      return compare(op, a, b);
    case 'IS DISTINCT FROM':
      return distinctFrom(false, a, b);
    case 'IS NOT DISTINCT FROM':
      return distinctFrom(true, a, b);
    case 'AND':
    case 'OR':
      return logical(op, a, b);
    case '+':
    case '-':
    case '*':
    case '/':
    case '%':
      return arithmetic(op, a, b, type);
    case '||':
      return concat(a, b, memory);
    case '~':
    case '~*':
    case '!~':
    case '!~*':
      return regexMatch(op, a, b);
    case '&':
    case '|':
    case '^':
    case '<<':
    case '>>':
      return bitwise(op, a, b, type);
  }
}

/**
 * `~`, `~*`, `!~`, `!~*`: arrow's regexp_is_match_utf8, the `*` forms with flag `i`, on the
 * linear-time engine of functions/rust-regex.ts (a backtracking RegExp could hold the thread
 * for minutes on one row).
 */
function regexMatch(op: '~' | '~*' | '!~' | '!~*', a: Vector, b: Vector): Vector {
  const n = a.length;
  const validity = andValidity(validityOf(a), validityOf(b), n);
  const out = new Uint8Array(n);
  const flags = op === '~*' || op === '!~*' ? 'i' : undefined;
  const negated = op.startsWith('!');
  const values = a.values as string[];
  const patterns = b.values as string[];
  let lastPattern: string | undefined;
  let test: (s: string) => boolean = () => false;
  for (let i = 0; i < n; i++) {
    if (validity !== undefined && validity[i] === 0) continue;
    const p = patterns[i]!;
    if (p !== lastPattern) {
      test = regexTest(p, flags);
      lastPattern = p;
    }
    out[i] = test(values[i]!) !== negated ? 1 : 0;
  }
  return { type: BOOLEAN, length: n, values: out, validity };
}

/**
 * Compiled `~` tests by flags and pattern, kept across batches: a scan hands over a batch per
 * series, and compiling RE2JS for each cost more than matching (bench:patterns, 1M rows in
 * 1,000 series).
 */
const regexTests = new Map<string, (s: string) => boolean>();

function regexTest(pattern: string, flags: string | undefined): (s: string) => boolean {
  const key = `${flags ?? ''}/${pattern}`;
  let t = regexTests.get(key);
  if (t !== undefined) return t;
  try {
    t = compileRustTest(pattern, flags);
  } catch (e) {
    if (e instanceof RegexError)
      throw executionError(`Arrow error: Compute error: Regular expression did not compile: ${e.debug}`);
    throw e;
  }
  if (regexTests.size >= 256) regexTests.clear();
  regexTests.set(key, t);
  return t;
}

/** A scalar's text for messages. */
export function describeValue(v: Vector, i: number): string {
  const x = getValue(v, i);
  return x === null ? 'NULL' : scalarToString(x, v.type);
}
