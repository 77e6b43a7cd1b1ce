// Grouped accumulators (function-types.ts GroupsAccumulator) for the everyday aggregates. State
// lives in typed arrays indexed by group id and grown by doubling; 64-bit integers are read
// through an Int32Array alias of their buffer (low word first), so sums and min/max of BIGINT
// columns allocate no BigInt per row: sums keep the high and low halves in two doubles and carry
// between them, exact up to 2^21 rows between carries.

import {
  compareStrings,
  type DataType,
  FLOAT64,
  getValue,
  INT64,
  isValid,
  type Scalar,
  type Vector,
  vectorFrom,
} from '../types/index.js';
import { executionError } from '../errors.js';
import { HASH_ENTRY_BYTES, MAP_BYTES, scalarBytes, SET_BYTES, ShardedMap, ShardedSet } from '../memory/index.js';
import type { GroupsAccumulator } from './function-types.js';

const TWO32 = 4294967296;

function grow<T extends Float64Array | Uint8Array | Int32Array | BigInt64Array>(a: T, n: number): T {
  if (a.length >= n) return a;
  const ctor = a.constructor as new (n: number) => T;
  const b = new ctor(Math.max(n, a.length * 2, 16));
  b.set(a as never);
  return b;
}

/** An Int32Array over the 64-bit values of a BigInt64Array / BigUint64Array (2 words per value). */
export function words(v: BigInt64Array | BigUint64Array): Int32Array {
  return new Int32Array(v.buffer, v.byteOffset, v.length * 2);
}

/** Which rows of a batch count: all arguments valid. Undefined = every row. */
function rowMask(args: readonly Vector[], n: number): Uint8Array | undefined {
  let mask: Uint8Array | undefined;
  for (const a of args) {
    if (a.type.id === 'Null') return new Uint8Array(n);
    if (a.validity === undefined) continue;
    if (mask === undefined) mask = a.validity.slice(0, n);
    else for (let i = 0; i < n; i++) mask[i]! &= a.validity[i]!;
  }
  return mask;
}

export class CountAccumulator implements GroupsAccumulator {
  #counts = new Float64Array(16);

  update(args: readonly Vector[], groups: Int32Array, n: number, numGroups: number): void {
    const counts = (this.#counts = grow(this.#counts, numGroups));
    const mask = rowMask(args, n);
    if (mask === undefined) for (let i = 0; i < n; i++) counts[groups[i]!]!++;
    else for (let i = 0; i < n; i++) counts[groups[i]!]! += mask[i]!;
  }

  /** Adds `count` rows to a group directly (statistics, fused aggregation). */
  add(group: number, count: number): void {
    this.#counts = grow(this.#counts, group + 1);
    this.#counts[group]! += count;
  }

  merge(other: GroupsAccumulator, src: number, dst: number): void {
    this.#counts = grow(this.#counts, dst + 1);
    this.#counts[dst]! += (other as CountAccumulator).#counts[src] ?? 0;
  }

  finish(numGroups: number): Vector {
    const out = new BigInt64Array(numGroups);
    for (let g = 0; g < numGroups; g++) out[g] = BigInt(this.#counts[g] ?? 0);
    return { type: INT64, length: numGroups, values: out };
  }

  sizeBytes(): number {
    return this.#counts.byteLength;
  }
}

/** SUM and AVG of DOUBLE (AVG casts its input to DOUBLE first, as DataFusion does). */
export class FloatSumAccumulator implements GroupsAccumulator {
  #sums = new Float64Array(16);
  #counts = new Float64Array(16);
  readonly #avg: boolean;

  constructor(avg: boolean) {
    this.#avg = avg;
  }

  update(args: readonly Vector[], groups: Int32Array, n: number, numGroups: number): void {
    const sums = (this.#sums = grow(this.#sums, numGroups));
    const counts = (this.#counts = grow(this.#counts, numGroups));
    const a = args[0]!;
    if (a.type.id === 'Null') return;
    const x = a.values as Float64Array;
    const m = a.validity;
    if (m === undefined) {
      for (let i = 0; i < n; i++) {
        const g = groups[i]!;
        sums[g]! += x[i]!;
        counts[g]!++;
      }
    } else {
      for (let i = 0; i < n; i++) {
        if (m[i] === 0) continue;
        const g = groups[i]!;
        sums[g]! += x[i]!;
        counts[g]!++;
      }
    }
  }

  /** Folds a precomputed (sum, count) into a group. */
  add(group: number, sum: number, count: number): void {
    this.#sums = grow(this.#sums, group + 1);
    this.#counts = grow(this.#counts, group + 1);
    this.#sums[group]! += sum;
    this.#counts[group]! += count;
  }

  merge(other: GroupsAccumulator, src: number, dst: number): void {
    const o = other as FloatSumAccumulator;
    this.add(dst, o.#sums[src] ?? 0, o.#counts[src] ?? 0);
  }

  finish(numGroups: number): Vector {
    const out = new Float64Array(numGroups);
    const validity = new Uint8Array(numGroups);
    for (let g = 0; g < numGroups; g++) {
      const c = this.#counts[g] ?? 0;
      if (c === 0) continue;
      validity[g] = 1;
      out[g] = this.#avg ? this.#sums[g]! / c : this.#sums[g]!;
    }
    return { type: FLOAT64, length: numGroups, values: out, validity };
  }

  sizeBytes(): number {
    return this.#sums.byteLength * 2;
  }
}

/**
 * SUM of BIGINT / BIGINT UNSIGNED: summed exactly, then wrapped into the result type, as DataFusion
 * 27's SUM does (arrow's `sum` adds without overflow checks; CnosDB answers SUM of 9223372036854775807
 * and 1 with -9223372036854775808), and as this engine's + does.
 */
export class IntSumAccumulator implements GroupsAccumulator {
  #hi = new Float64Array(16);
  #lo = new Float64Array(16);
  #seen = new Uint8Array(16);
  readonly #type: DataType;

  constructor(type: DataType) {
    this.#type = type;
  }

  update(args: readonly Vector[], groups: Int32Array, n: number, numGroups: number): void {
    const hi = (this.#hi = grow(this.#hi, numGroups));
    const lo = (this.#lo = grow(this.#lo, numGroups));
    const seen = (this.#seen = grow(this.#seen, numGroups));
    const a = args[0]!;
    if (a.type.id === 'Null') return;
    const w = words(a.values as BigInt64Array);
    const signed = this.#type.id === 'Int64';
    const m = a.validity;
    let sinceCarry = 0;
    for (let i = 0; i < n; i++) {
      if (m !== undefined && m[i] === 0) continue;
      const g = groups[i]!;
      lo[g]! += w[2 * i]! >>> 0;
      hi[g]! += signed ? w[2 * i + 1]! : w[2 * i + 1]! >>> 0;
      seen[g] = 1;
      if (++sinceCarry === 1 << 20) {
        this.#carry(numGroups);
        sinceCarry = 0;
      }
    }
    this.#carry(numGroups);
  }

  #carry(numGroups: number): void {
    const hi = this.#hi;
    const lo = this.#lo;
    for (let g = 0; g < numGroups; g++) {
      const l = lo[g]!;
      if (l >= TWO32) {
        const c = Math.floor(l / TWO32);
        hi[g]! += c;
        lo[g] = l - c * TWO32;
      }
    }
  }

  add(group: number, sum: bigint): void {
    this.#hi = grow(this.#hi, group + 1);
    this.#lo = grow(this.#lo, group + 1);
    this.#seen = grow(this.#seen, group + 1);
    const hiPart = sum >> 32n;
    this.#hi[group]! += Number(hiPart);
    this.#lo[group]! += Number(sum - (hiPart << 32n));
    this.#seen[group] = 1;
    this.#carry(group + 1);
  }

  merge(other: GroupsAccumulator, src: number, dst: number): void {
    const o = other as IntSumAccumulator;
    if ((o.#seen[src] ?? 0) === 0) return;
    this.add(dst, BigInt(o.#hi[src]!) * 4294967296n + BigInt(o.#lo[src]!));
  }

  finish(numGroups: number): Vector {
    const signed = this.#type.id === 'Int64';
    const out = signed ? new BigInt64Array(numGroups) : new BigUint64Array(numGroups);
    const validity = new Uint8Array(numGroups);
    for (let g = 0; g < numGroups; g++) {
      if ((this.#seen[g] ?? 0) === 0) continue;
      // A typed array stores a BigInt modulo 2^64: the wrap.
      out[g] = BigInt(this.#hi[g]!) * 4294967296n + BigInt(this.#lo[g]!);
      validity[g] = 1;
    }
    return { type: this.#type, length: numGroups, values: out, validity };
  }

  sizeBytes(): number {
    return this.#hi.byteLength * 2 + this.#seen.byteLength;
  }
}

/** MIN / MAX of DOUBLE. NaN compares greater than every number (arrow's total order). */
export class FloatMinMaxAccumulator implements GroupsAccumulator {
  #best = new Float64Array(16);
  #seen = new Uint8Array(16);
  readonly #max: boolean;

  constructor(max: boolean) {
    this.#max = max;
  }

  update(args: readonly Vector[], groups: Int32Array, n: number, numGroups: number): void {
    const best = (this.#best = grow(this.#best, numGroups));
    const seen = (this.#seen = grow(this.#seen, numGroups));
    const a = args[0]!;
    if (a.type.id === 'Null') return;
    const x = a.values as Float64Array;
    const m = a.validity;
    const max = this.#max;
    for (let i = 0; i < n; i++) {
      if (m !== undefined && m[i] === 0) continue;
      const g = groups[i]!;
      const v = x[i]!;
      if (seen[g] === 0) {
        seen[g] = 1;
        best[g] = v;
      } else if (
        max ? v > best[g]! || (v !== v && best[g] === best[g]) : v < best[g]! || (best[g] !== best[g] && v === v)
      )
        best[g] = v;
    }
  }

  add(group: number, v: number): void {
    this.#best = grow(this.#best, group + 1);
    this.#seen = grow(this.#seen, group + 1);
    const b = this.#best[group]!;
    if (this.#seen[group] === 0 || (this.#max ? v > b || (v !== v && b === b) : v < b || (b !== b && v === v)))
      this.#best[group] = v;
    this.#seen[group] = 1;
  }

  merge(other: GroupsAccumulator, src: number, dst: number): void {
    const o = other as FloatMinMaxAccumulator;
    if ((o.#seen[src] ?? 0) === 1) this.add(dst, o.#best[src]!);
  }

  finish(numGroups: number): Vector {
    this.#best = grow(this.#best, numGroups);
    this.#seen = grow(this.#seen, numGroups);
    return {
      type: FLOAT64,
      length: numGroups,
      values: this.#best.slice(0, numGroups),
      validity: this.#seen.slice(0, numGroups),
    };
  }

  sizeBytes(): number {
    return this.#best.byteLength + this.#seen.byteLength;
  }
}

/** MIN / MAX of BIGINT, BIGINT UNSIGNED and TIMESTAMP, compared word-wise without BigInts. */
export class IntMinMaxAccumulator implements GroupsAccumulator {
  #best = new BigInt64Array(16);
  #bw = words(this.#best);
  #seen = new Uint8Array(16);
  readonly #max: boolean;
  readonly #type: DataType;

  constructor(type: DataType, max: boolean) {
    this.#type = type;
    this.#max = max;
  }

  #ensure(n: number): void {
    if (this.#best.length < n) {
      this.#best = grow(this.#best, n);
      this.#bw = words(this.#best);
    }
    this.#seen = grow(this.#seen, n);
  }

  update(args: readonly Vector[], groups: Int32Array, n: number, numGroups: number): void {
    this.#ensure(numGroups);
    const a = args[0]!;
    if (a.type.id === 'Null') return;
    const w = words(a.values as BigInt64Array);
    const bw = this.#bw;
    const seen = this.#seen;
    const m = a.validity;
    const sign = this.#max ? 1 : -1;
    const unsigned = this.#type.id === 'UInt64';
    for (let i = 0; i < n; i++) {
      if (m !== undefined && m[i] === 0) continue;
      const g = groups[i]!;
      const h = w[2 * i + 1]!;
      const l = w[2 * i]! >>> 0;
      if (seen[g] === 0) {
        seen[g] = 1;
        bw[2 * g] = l;
        bw[2 * g + 1] = h;
        continue;
      }
      const bh = bw[2 * g + 1]!;
      let c: number;
      if (h !== bh) c = unsigned ? (h >>> 0 > bh >>> 0 ? 1 : -1) : h > bh ? 1 : -1;
      else {
        const bl = bw[2 * g]! >>> 0;
        c = l > bl ? 1 : l < bl ? -1 : 0;
      }
      if (c * sign > 0) {
        bw[2 * g] = l;
        bw[2 * g + 1] = h;
      }
    }
  }

  add(group: number, v: bigint): void {
    this.#ensure(group + 1);
    const cur = this.#best[group]!;
    if (this.#seen[group] === 0 || (this.#max ? v > cur : v < cur)) this.#best[group] = v;
    this.#seen[group] = 1;
  }

  merge(other: GroupsAccumulator, src: number, dst: number): void {
    const o = other as IntMinMaxAccumulator;
    if ((o.#seen[src] ?? 0) === 1) this.add(dst, o.#best[src]!);
  }

  finish(numGroups: number): Vector {
    this.#ensure(numGroups);
    const raw = this.#best.slice(0, numGroups);
    const values = this.#type.id === 'UInt64' ? new BigUint64Array(raw.buffer) : raw;
    return { type: this.#type, length: numGroups, values, validity: this.#seen.slice(0, numGroups) };
  }

  sizeBytes(): number {
    return this.#best.byteLength + this.#seen.byteLength;
  }
}

/** MIN / MAX of any other type (strings, booleans, dates), value by value. */
export class GenericMinMaxAccumulator implements GroupsAccumulator {
  #best: Scalar[] = [];
  readonly #max: boolean;
  readonly #type: DataType;

  constructor(type: DataType, max: boolean) {
    this.#type = type;
    this.#max = max;
  }

  #better(v: Scalar, cur: Scalar): boolean {
    let c: number;
    if (typeof v === 'string') c = compareStrings(v, cur as string);
    else if (typeof v === 'boolean') c = Number(v) - Number(cur);
    else c = (v as number) < (cur as number) ? -1 : (v as number) > (cur as number) ? 1 : 0;
    return this.#max ? c > 0 : c < 0;
  }

  update(args: readonly Vector[], groups: Int32Array, n: number, numGroups: number): void {
    const a = args[0]!;
    if (a.type.id === 'Null')
      throw executionError(
        "Datafusion: Internal error: Min/Max accumulator not implemented for type Null. This was likely caused by a bug in DataFusion's code and we would welcome that you file an bug report in our issue tracker",
      );
    while (this.#best.length < numGroups) this.#best.push(null);
    for (let i = 0; i < n; i++) {
      if (!isValid(a, i)) continue;
      const v = getValue(a, i);
      const g = groups[i]!;
      const cur = this.#best[g]!;
      if (cur === null || this.#better(v, cur)) this.#best[g] = v;
    }
  }

  merge(other: GroupsAccumulator, src: number, dst: number): void {
    const v = (other as GenericMinMaxAccumulator).#best[src] ?? null;
    while (this.#best.length <= dst) this.#best.push(null);
    if (v !== null && (this.#best[dst] === null || this.#better(v, this.#best[dst]!))) this.#best[dst] = v;
  }

  finish(numGroups: number): Vector {
    const values = Array.from({ length: numGroups }, (_, g) => this.#best[g] ?? null);
    return vectorFrom(
      this.#type,
      values,
      Uint8Array.from(values, (v) => (v === null ? 0 : 1)),
    );
  }

  sizeBytes(): number {
    return this.#best.length * 32;
  }
}

/** CnosDB's first(time, v) / last(time, v): the non-NULL value at the smallest / largest time. */
export class FirstLastAccumulator implements GroupsAccumulator {
  #times = new BigInt64Array(16);
  #seen = new Uint8Array(16);
  #values: Scalar[] = [];
  readonly #last: boolean;
  readonly #type: DataType;

  constructor(type: DataType, last: boolean) {
    this.#type = type;
    this.#last = last;
  }

  update(args: readonly Vector[], groups: Int32Array, n: number, numGroups: number): void {
    this.#times = grow(this.#times, numGroups);
    this.#seen = grow(this.#seen, numGroups);
    while (this.#values.length < numGroups) this.#values.push(null);
    const t = args[0]!;
    const v = args[1]!;
    if (t.type.id === 'Null') return;
    const ts = t.values as BigInt64Array;
    // NULL values are skipped: first/last give the first/last value the field has.
    for (let i = 0; i < n; i++) {
      if (!isValid(t, i) || !isValid(v, i)) continue;
      this.#offer(groups[i]!, ts[i]!, getValue(v, i));
    }
  }

  #offer(g: number, time: bigint, value: Scalar): void {
    if (this.#seen[g] === 0 || (this.#last ? time >= this.#times[g]! : time < this.#times[g]!)) {
      this.#seen[g] = 1;
      this.#times[g] = time;
      this.#values[g] = value;
    }
  }

  /** Offers one candidate row to a group (fused aggregation over sorted chunks). */
  offer(group: number, time: bigint, value: Scalar): void {
    this.#times = grow(this.#times, group + 1);
    this.#seen = grow(this.#seen, group + 1);
    while (this.#values.length <= group) this.#values.push(null);
    this.#offer(group, time, value);
  }

  merge(other: GroupsAccumulator, src: number, dst: number): void {
    const o = other as FirstLastAccumulator;
    if ((o.#seen[src] ?? 0) === 1) this.offer(dst, o.#times[src]!, o.#values[src] ?? null);
  }

  finish(numGroups: number): Vector {
    const values = Array.from({ length: numGroups }, (_, g) => this.#values[g] ?? null);
    return vectorFrom(
      this.#type,
      values,
      Uint8Array.from(values, (v) => (v === null ? 0 : 1)),
    );
  }

  sizeBytes(): number {
    return this.#times.byteLength + this.#values.length * 32;
  }
}

/** Any aggregate with DISTINCT: a set of seen values per group feeding `inner` once per value. */
export class CountDistinctAccumulator implements GroupsAccumulator {
  #sets: ShardedSet<unknown>[] = [];
  /** The sets and the values they keep (memory/memory-size.ts: count(DISTINCT concat(...)) of 10 million rows held 2 GB). */
  #bytes = 0;

  update(args: readonly Vector[], groups: Int32Array, n: number, numGroups: number): void {
    while (this.#sets.length < numGroups) {
      this.#sets.push(new ShardedSet());
      this.#bytes += SET_BYTES;
    }
    const mask = rowMask(args, n);
    for (let i = 0; i < n; i++) {
      if (mask !== undefined && mask[i] === 0) continue;
      const key =
        args.length === 1
          ? keyOf(getValue(args[0]!, i))
          : args.map((a) => String(keyOf(getValue(a, i)))).join('\u0000');
      if (this.#sets[groups[i]!]!.add(key)) this.#bytes += HASH_ENTRY_BYTES + scalarBytes(key as Scalar);
    }
  }

  merge(other: GroupsAccumulator, src: number, dst: number): void {
    while (this.#sets.length <= dst) this.#sets.push(new ShardedSet());
    for (const k of (other as CountDistinctAccumulator).#sets[src] ?? []) this.#sets[dst]!.add(k);
  }

  finish(numGroups: number): Vector {
    const out = new BigInt64Array(numGroups);
    for (let g = 0; g < numGroups; g++) out[g] = BigInt(this.#sets[g]?.size ?? 0);
    return { type: INT64, length: numGroups, values: out };
  }

  sizeBytes(): number {
    return this.#bytes;
  }
}

function keyOf(v: Scalar): unknown {
  if (v === null || typeof v !== 'object') return v;
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x));
}

/** SUM / AVG / MIN / MAX with DISTINCT: distinct values per group, folded at the end. */
export class DistinctAccumulator implements GroupsAccumulator {
  #values: ShardedMap<unknown, Scalar>[] = [];
  #bytes = 0;
  readonly #make: () => GroupsAccumulator;
  readonly #type: DataType;

  constructor(type: DataType, make: () => GroupsAccumulator) {
    this.#type = type;
    this.#make = make;
  }

  update(args: readonly Vector[], groups: Int32Array, n: number, numGroups: number): void {
    while (this.#values.length < numGroups) {
      this.#values.push(new ShardedMap());
      this.#bytes += MAP_BYTES;
    }
    const a = args[0]!;
    for (let i = 0; i < n; i++) {
      if (!isValid(a, i)) continue;
      const v = getValue(a, i);
      const m = this.#values[groups[i]!]!;
      const before = m.size;
      const key = keyOf(v);
      m.getOrSet(key, v);
      if (m.size > before)
        this.#bytes += HASH_ENTRY_BYTES + scalarBytes(v) + (key === v ? 0 : scalarBytes(key as Scalar));
    }
  }

  finish(numGroups: number): Vector {
    const inner = this.#make();
    const values: Scalar[] = [];
    const gs: number[] = [];
    for (let g = 0; g < numGroups; g++) for (const v of this.#values[g]?.values() ?? []) values.push(v), gs.push(g);
    inner.update([vectorFrom(this.#type, values)], Int32Array.from(gs), values.length, numGroups);
    return inner.finish(numGroups);
  }

  sizeBytes(): number {
    return this.#bytes;
  }
}
