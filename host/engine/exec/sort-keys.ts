// ORDER BY through one numeric key per row: each key column becomes dense ranks (NULLs, NaN and
// direction folded in), the ranks of all keys one number, and that number times the row count
// plus the row index one double, so that Float64Array.prototype.sort, which sorts numbers
// natively without calling back into JavaScript, orders the rows, stably. A comparator sort
// calls its comparator n log n times; on a fresh server those calls run interpreted (TSBS "mean
// per host per hour", 2,400 rows by host and hour: 3 ms of a 20 ms query, against 0.3 ms here).
// Keys that cannot be ranked cheaply (many distinct strings, nested values), or whose ranks
// would not fit 53 bits, are left to the comparator (sort-exec.ts).

import { compareStrings, type Vector } from '../types/index.js';
import type { SortExpr } from '../plan/expr.js';

/** Ranks of one key: equal values equal ranks, in the key's order; `card` ranks in all. */
export interface KeyRanks {
  ranks: Int32Array;
  card: number;
}

const TWO32 = 4294967296;
const EXACT = 2 ** 53;

/** Dense ranks of the distinct sorted numbers in `sorted[0, m)` for each of `x` (binary search). */
function rankNumbers(x: Float64Array, n: number, sorted: Float64Array, m: number, out: Int32Array): void {
  for (let i = 0; i < n; i++) {
    const v = x[i]!;
    let lo = 0;
    let hi = m - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid]! < v) lo = mid + 1;
      else hi = mid;
    }
    out[i] = lo;
  }
}

/** Numbers (no NaN) to dense ranks: sort a copy natively, drop repeats, look each up. */
function denseRanks(x: Float64Array, n: number): KeyRanks {
  const sorted = x.slice(0, n).sort();
  let m = 0;
  for (let i = 0; i < n; i++) if (i === 0 || sorted[i]! !== sorted[m - 1]!) sorted[m++] = sorted[i]!;
  const ranks = new Int32Array(n);
  rankNumbers(x, n, sorted, m, ranks);
  return { ranks, card: m };
}

/** 64-bit integers as exact offsets from their minimum; undefined when the range passes 2^53. */
function intOffsets(v: Vector, n: number, unsigned: boolean): Float64Array | undefined {
  const b = v.values as BigInt64Array;
  const w = new Int32Array(b.buffer, b.byteOffset, n * 2);
  const valid = v.validity;
  let minHi = Infinity;
  let minLo = 0;
  let maxHi = -Infinity;
  let maxLo = 0;
  for (let i = 0; i < n; i++) {
    if (valid !== undefined && valid[i] === 0) continue;
    const hi = unsigned ? w[2 * i + 1]! >>> 0 : w[2 * i + 1]!;
    const lo = w[2 * i]! >>> 0;
    if (hi < minHi || (hi === minHi && lo < minLo)) (minHi = hi), (minLo = lo);
    if (hi > maxHi || (hi === maxHi && lo > maxLo)) (maxHi = hi), (maxLo = lo);
  }
  const out = new Float64Array(n);
  if (minHi === Infinity) return out;
  if ((maxHi - minHi) * TWO32 + (maxLo - minLo) >= EXACT) return undefined;
  for (let i = 0; i < n; i++) {
    const hi = unsigned ? w[2 * i + 1]! >>> 0 : w[2 * i + 1]!;
    out[i] = (hi - minHi) * TWO32 + ((w[2 * i]! >>> 0) - minLo);
  }
  return out;
}

/** Ranks of a string column when at most half of its values are distinct (tags). */
function stringRanks(x: readonly string[], n: number): KeyRanks | undefined {
  return denseStringRanks(x, n, Math.max(64, n >>> 1));
}

/**
 * Each of the first `n` strings replaced by its rank among the distinct values (in
 * compareStrings order), and how many there are; undefined once more than `limit` are distinct.
 */
export function denseStringRanks(x: readonly string[], n: number, limit: number): KeyRanks | undefined {
  const ids = new Map<string, number>();
  const ranks = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const s = x[i]!;
    let k = ids.get(s);
    if (k === undefined) {
      if (ids.size >= limit) return undefined;
      ids.set(s, (k = ids.size));
    }
    ranks[i] = k;
  }
  const distinct = [...ids.keys()].sort(compareStrings);
  const rankOf = new Int32Array(distinct.length);
  for (let r = 0; r < distinct.length; r++) rankOf[ids.get(distinct[r]!)!] = r;
  for (let i = 0; i < n; i++) ranks[i] = rankOf[ranks[i]!]!;
  return { ranks, card: distinct.length };
}

/** Ascending ranks of a key's values (NULL rows get any rank; orderKey places them). */
function valueRanks(v: Vector, n: number): KeyRanks | undefined {
  switch (v.type.id) {
    case 'Null':
      return { ranks: new Int32Array(n), card: 1 };
    case 'Boolean':
      return { ranks: Int32Array.from((v.values as Uint8Array).subarray(0, n)), card: 2 };
    case 'Date32':
      return denseRanks(Float64Array.from((v.values as Int32Array).subarray(0, n)), n);
    case 'Int64':
    case 'UInt64':
    case 'Timestamp': {
      const off = intOffsets(v, n, v.type.id === 'UInt64');
      return off === undefined ? undefined : denseRanks(off, n);
    }
    case 'Float64':
    case 'Float32': {
      // NaN is above every number and equal to itself; -0 equals 0.
      const x = v.values as Float64Array;
      const y = new Float64Array(n);
      let nan = false;
      for (let i = 0; i < n; i++) {
        const a = x[i]!;
        if (a !== a) nan = true;
        y[i] = a === 0 ? 0 : a;
      }
      if (!nan) return denseRanks(y, n);
      for (let i = 0; i < n; i++) if (y[i] !== y[i]) y[i] = Infinity;
      const r = denseRanks(y, n);
      // NaN shares Infinity's rank so far; give it one above.
      for (let i = 0; i < n; i++) if (x[i] !== x[i]) r.ranks[i] = r.card;
      return { ranks: r.ranks, card: r.card + 1 };
    }
    case 'Utf8':
    case 'Binary':
      return stringRanks(v.values as string[], n);
    default:
      return undefined;
  }
}

/** Ranks in the key's order: direction applied, NULLs first or last. */
function orderKey(v: Vector, n: number, o: SortExpr): KeyRanks | undefined {
  const r = valueRanks(v, n);
  if (r === undefined) return undefined;
  const { ranks, card } = r;
  const valid = v.validity;
  if (!o.asc) for (let i = 0; i < n; i++) ranks[i] = card - 1 - ranks[i]!;
  if (valid === undefined) return r;
  const nullRank = o.nullsFirst ? 0 : card;
  const shift = o.nullsFirst ? 1 : 0;
  for (let i = 0; i < n; i++) ranks[i] = valid[i] === 0 ? nullRank : ranks[i]! + shift;
  return { ranks, card: card + 1 };
}

/**
 * The sorted order of rows [0, n) by `keys` as a permutation, or undefined when a key cannot be
 * ranked or the ranks do not fit: then the caller sorts with a comparator. Ties keep input order.
 */
export function rankedPermutation(
  keys: readonly Vector[],
  order: readonly SortExpr[],
  n: number,
): Int32Array | undefined {
  const ranked: KeyRanks[] = [];
  let span = n;
  for (let k = 0; k < keys.length; k++) {
    const r = orderKey(keys[k]!, n, order[k]!);
    if (r === undefined) return undefined;
    span *= r.card;
    if (span >= EXACT) return undefined;
    ranked.push(r);
  }
  const packed = new Float64Array(n);
  let sorted = true;
  for (let i = 0; i < n; i++) {
    let key = 0;
    for (const r of ranked) key = key * r.card + r.ranks[i]!;
    const p = key * n + i;
    packed[i] = p;
    if (i > 0 && p < packed[i - 1]!) sorted = false;
  }
  const perm = new Int32Array(n);
  if (sorted) {
    for (let i = 0; i < n; i++) perm[i] = i;
    return perm;
  }
  packed.sort();
  for (let i = 0; i < n; i++) perm[i] = packed[i]! % n;
  return perm;
}
