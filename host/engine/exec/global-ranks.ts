// ORDER BY keys as one number per row across every batch of a sort (sorted-runs.ts): each key's
// values become dense ranks among all its distinct values (numbers sorted natively a batch at a
// time, the sorted lists merged two by two; strings through one Map when they are few), direction
// and NULLs folded in as sort-keys.ts does for one batch, and the keys' ranks one mixed-radix
// number. Runs then sort natively and merge by comparing numbers: merging by comparators over
// three keys made a 10-million-row ORDER BY 8 times slower than one native sort of the whole.

import { compareStrings, type Vector } from '../types/index.js';
import type { SortExpr } from '../plan/expr.js';
import type { ExecContext } from './exec-plan.js';

const TWO32 = 4294967296;
const EXACT = 2 ** 53;
/** Distinct strings ranked through one Map and one comparator sort (tags); more: no global ranks. */
const MAX_STRING_RANKS = 65_536;

/** Bytes a global ranking may hold at once, per row: packed keys, one key's numbers, ranks and distinct values. */
export const GLOBAL_RANK_BYTES_PER_ROW = 28;

interface KeyRanks {
  /** Per batch, each row's rank. */
  ranks: Int32Array[];
  card: number;
}

/** Values merged between two looks at the clock (the last merge of 10 million took 100 ms). */
const MERGE_SLICE = 1 << 16;

/** Merges two sorted lists of numbers, keeping each value once. */
async function mergeUnique(a: Float64Array, b: Float64Array, ctx: ExecContext): Promise<Float64Array> {
  const out = new Float64Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length || j < b.length) {
    const stop = Math.min(a.length + b.length, i + j + MERGE_SLICE);
    while (i + j < stop) {
      const x = i < a.length && (j >= b.length || a[i]! <= b[j]!) ? a[i++]! : b[j++]!;
      if (n === 0 || out[n - 1] !== x) out[n++] = x;
    }
    await ctx.maybeYield();
  }
  return out.subarray(0, n);
}

/** The index of `v` in the sorted distinct `u` (present). */
function find(u: Float64Array, v: number): number {
  let lo = 0;
  let hi = u.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (u[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Dense ranks of numbers given per batch (NaN already replaced; `nan` marks those rows). */
async function numberRanks(xs: Float64Array[], nan: (Uint8Array | undefined)[], ctx: ExecContext): Promise<KeyRanks> {
  let lists: Float64Array[] = [];
  for (const x of xs) {
    const sorted = x.slice().sort();
    let m = 0;
    for (let i = 0; i < sorted.length; i++) if (m === 0 || sorted[i] !== sorted[m - 1]) sorted[m++] = sorted[i]!;
    lists.push(sorted.subarray(0, m));
    await ctx.maybeYield();
  }
  while (lists.length > 1) {
    const next: Float64Array[] = [];
    for (let i = 0; i < lists.length; i += 2) {
      next.push(i + 1 < lists.length ? await mergeUnique(lists[i]!, lists[i + 1]!, ctx) : lists[i]!);
      await ctx.maybeYield();
    }
    lists = next;
  }
  const u = lists[0] ?? new Float64Array(0);
  const anyNan = nan.some((m) => m !== undefined);
  const ranks: Int32Array[] = [];
  for (let b = 0; b < xs.length; b++) {
    const x = xs[b]!;
    const r = new Int32Array(x.length);
    for (let i = 0; i < x.length; i++) r[i] = find(u, x[i]!);
    const m = nan[b];
    // NaN is above every number, Infinity included.
    if (m !== undefined) for (let i = 0; i < x.length; i++) if (m[i] === 1) r[i] = u.length;
    ranks.push(r);
    await ctx.maybeYield();
  }
  return { ranks, card: u.length + (anyNan ? 1 : 0) };
}

/** Ascending ranks of one key's vectors (one per batch), or undefined when it does not rank. */
async function valueRanks(vs: readonly Vector[], ctx: ExecContext): Promise<KeyRanks | undefined> {
  const type = vs.find((v) => v.values !== null)?.type;
  if (type === undefined || type.id === 'Null') return { ranks: vs.map((v) => new Int32Array(v.length)), card: 1 };
  switch (type.id) {
    case 'Float64':
    case 'Float32': {
      const nan: (Uint8Array | undefined)[] = [];
      const xs: Float64Array[] = [];
      for (const v of vs) {
        const src = v.values as Float64Array | null;
        const x = new Float64Array(v.length);
        let m: Uint8Array | undefined;
        if (src !== null) {
          for (let i = 0; i < v.length; i++) {
            const a = src[i]!;
            if (a !== a) {
              m ??= new Uint8Array(v.length);
              m[i] = 1;
              x[i] = Infinity;
            } else x[i] = a === 0 ? 0 : a;
          }
        }
        nan.push(m);
        xs.push(x);
        await ctx.maybeYield();
      }
      return numberRanks(xs, nan, ctx);
    }
    case 'Int64':
    case 'UInt64':
    case 'Timestamp':
    case 'Time64': {
      // Exact offsets from the least value, when the values span less than 2^53.
      const unsigned = type.id === 'UInt64';
      let minHi = Infinity;
      let minLo = 0;
      let maxHi = -Infinity;
      let maxLo = 0;
      const words = vs.map((v) =>
        v.values === null
          ? undefined
          : new Int32Array((v.values as BigInt64Array).buffer, (v.values as BigInt64Array).byteOffset, v.length * 2),
      );
      for (let b = 0; b < vs.length; b++) {
        const w = words[b];
        if (w === undefined) continue;
        const v = vs[b]!;
        const valid = v.validity;
        for (let i = 0; i < v.length; i++) {
          if (valid !== undefined && valid[i] === 0) continue;
          const hi = unsigned ? w[2 * i + 1]! >>> 0 : w[2 * i + 1]!;
          const lo = w[2 * i]! >>> 0;
          if (hi < minHi || (hi === minHi && lo < minLo)) (minHi = hi), (minLo = lo);
          if (hi > maxHi || (hi === maxHi && lo > maxLo)) (maxHi = hi), (maxLo = lo);
        }
        await ctx.maybeYield();
      }
      if (minHi !== Infinity && (maxHi - minHi) * TWO32 + (maxLo - minLo) >= EXACT) return undefined;
      const xs: Float64Array[] = [];
      for (let b = 0; b < vs.length; b++) {
        const x = new Float64Array(vs[b]!.length);
        const w = words[b];
        if (w !== undefined && minHi !== Infinity) {
          for (let i = 0; i < x.length; i++) {
            const hi = unsigned ? w[2 * i + 1]! >>> 0 : w[2 * i + 1]!;
            x[i] = (hi - minHi) * TWO32 + ((w[2 * i]! >>> 0) - minLo);
          }
        }
        xs.push(x);
        await ctx.maybeYield();
      }
      return numberRanks(
        xs,
        xs.map(() => undefined),
        ctx,
      );
    }
    case 'Boolean':
    case 'Date32': {
      const xs: Float64Array[] = [];
      for (const v of vs) {
        xs.push(
          v.values === null ? new Float64Array(v.length) : Float64Array.from(v.values as Uint8Array | Int32Array),
        );
        await ctx.maybeYield();
      }
      return numberRanks(
        xs,
        xs.map(() => undefined),
        ctx,
      );
    }
    case 'Utf8':
    case 'Binary': {
      const ids = new Map<string, number>();
      const ranks: Int32Array[] = [];
      for (const v of vs) {
        const x = (v.values ?? []) as string[];
        const r = new Int32Array(v.length);
        for (let i = 0; i < v.length; i++) {
          const s = x[i] ?? '';
          let k = ids.get(s);
          if (k === undefined) {
            if (ids.size >= MAX_STRING_RANKS) return undefined;
            ids.set(s, (k = ids.size));
          }
          r[i] = k;
        }
        ranks.push(r);
        await ctx.maybeYield();
      }
      const distinct = [...ids.keys()].sort(compareStrings);
      const rankOf = new Int32Array(distinct.length);
      for (let k = 0; k < distinct.length; k++) rankOf[ids.get(distinct[k]!)!] = k;
      for (const r of ranks) for (let i = 0; i < r.length; i++) r[i] = rankOf[r[i]!]!;
      return { ranks, card: distinct.length };
    }
    default:
      return undefined;
  }
}

/**
 * One number per row of each batch (`keys[b][k]`: key k of batch b, `lengths[b]` rows) that
 * orders the rows as `order` does, equal numbers for equal keys; undefined when a key does not
 * rank or the keys' ranks together reach `limit` (the caller packs a row index below them).
 */
export async function globalSortKeys(
  keys: readonly (readonly Vector[])[],
  lengths: readonly number[],
  order: readonly SortExpr[],
  limit: number,
  ctx: ExecContext,
): Promise<Float64Array[] | undefined> {
  // Made a batch at a time with the first key (10 million rows: 80 MB zeroed at once took 50 ms).
  const packed: Float64Array[] = [];
  let span = 1;
  for (let c = 0; c < order.length; c++) {
    const vs = keys.map((k) => k[c]!);
    const r = await valueRanks(vs, ctx);
    if (r === undefined) return undefined;
    const o = order[c]!;
    let card = r.card;
    const nulls = vs.some((v) => v.values === null || v.validity !== undefined);
    if (nulls) card++;
    span *= card;
    if (span >= limit) return undefined;
    for (let b = 0; b < vs.length; b++) {
      const v = vs[b]!;
      const rank = r.ranks[b]!;
      const p = (packed[b] ??= new Float64Array(lengths[b]!));
      const valid = v.values === null ? new Uint8Array(v.length) : v.validity;
      for (let i = 0; i < rank.length; i++) {
        let x = o.asc ? rank[i]! : r.card - 1 - rank[i]!;
        if (nulls) {
          if (valid !== undefined && valid[i] === 0) x = o.nullsFirst ? 0 : r.card;
          else if (o.nullsFirst) x++;
        }
        p[i] = p[i]! * card + x;
      }
      await ctx.maybeYield();
    }
  }
  for (let b = packed.length; b < lengths.length; b++) packed.push(new Float64Array(lengths[b]!));
  return packed;
}
