// Comparators of ORDER BY keys: rows of one key vector (keyComparator, rowComparator), and rows of
// two different vectors of one key (crossComparator: the runs of a merge sort, sorted-runs.ts).
// None allocates: 64-bit integers compare word by word through an Int32Array alias, strings in
// UTF-8 byte order, NaN above every number, NULLs first or last as asked.

import { compareStrings, type Vector } from '../types/index.js';
import type { SortExpr } from '../plan/expr.js';
import { words } from '../functions/accumulators.js';
import { denseStringRanks } from './sort-keys.js';

export type RowComparator = (i: number, j: number) => number;

/**
 * Each string's rank among the distinct values, when there are few of them (tag columns): the
 * distinct values are sorted once and rows then compare as integers. Undefined when more than a
 * quarter of the rows are distinct, or for short vectors.
 */
function stringRanks(x: readonly string[], n: number): Int32Array | undefined {
  return n < 64 ? undefined : denseStringRanks(x, n, n >>> 2)?.ranks;
}

/** A comparator of rows i and j of one key vector (ascending, NULLs as asked). */
export function keyComparator(v: Vector, asc: boolean, nullsFirst: boolean): RowComparator {
  const dir = asc ? 1 : -1;
  const valid = v.validity;
  const nullCmp = nullsFirst ? -1 : 1;
  let cmp: RowComparator;
  switch (v.type.id) {
    case 'Null':
      return () => 0;
    case 'Float64':
    case 'Float32': {
      const x = v.values as Float64Array;
      cmp = (i, j) => {
        const a = x[i]!;
        const b = x[j]!;
        if (a < b) return -1;
        if (a > b) return 1;
        if (a === b) return 0;
        return a !== a ? (b !== b ? 0 : 1) : -1; // NaN is the largest
      };
      break;
    }
    case 'Int64':
    case 'Timestamp':
    case 'Time64':
    case 'UInt64': {
      const w = words(v.values as BigInt64Array);
      const unsigned = v.type.id === 'UInt64';
      cmp = (i, j) => {
        const ha = w[2 * i + 1]!;
        const hb = w[2 * j + 1]!;
        if (ha !== hb) return unsigned ? (ha >>> 0 < hb >>> 0 ? -1 : 1) : ha < hb ? -1 : 1;
        const la = w[2 * i]! >>> 0;
        const lb = w[2 * j]! >>> 0;
        return la < lb ? -1 : la > lb ? 1 : 0;
      };
      break;
    }
    case 'Boolean':
    case 'Date32': {
      const x = v.values as Uint8Array | Int32Array;
      cmp = (i, j) => x[i]! - x[j]!;
      break;
    }
    case 'Utf8':
    case 'Binary': {
      const x = v.values as string[];
      const ranks = stringRanks(x, v.length);
      cmp = ranks === undefined ? (i, j) => compareStrings(x[i]!, x[j]!) : (i, j) => ranks[i]! - ranks[j]!;
      break;
    }
    default: {
      const x = v.values as unknown[];
      const key = (o: unknown): string =>
        JSON.stringify(o, (_k, y: unknown) => (typeof y === 'bigint' ? String(y).padStart(24, '0') : y));
      cmp = (i, j) => {
        const a = key(x[i]);
        const b = key(x[j]);
        return a < b ? -1 : a > b ? 1 : 0;
      };
    }
  }
  if (valid === undefined) return asc ? cmp : (i, j) => -cmp(i, j);
  return (i, j) => {
    const vi = valid[i] === 1;
    const vj = valid[j] === 1;
    if (!vi || !vj) return vi === vj ? 0 : vi ? -nullCmp : nullCmp;
    return dir * cmp(i, j);
  };
}

/** A lexicographic comparator over several keys. */
export function rowComparator(keys: readonly Vector[], order: readonly SortExpr[]): RowComparator {
  const cmps = keys.map((k, i) => keyComparator(k, order[i]!.asc, order[i]!.nullsFirst));
  if (cmps.length === 1) return cmps[0]!;
  return (i, j) => {
    for (const c of cmps) {
      const r = c(i, j);
      if (r !== 0) return r;
    }
    return 0;
  };
}

/** A comparator of row i of the a-th and row j of the b-th vector of one key. */
export type CrossComparator = (a: number, i: number, b: number, j: number) => number;

/** The text a nested value sorts by (as keyComparator's default case). */
function sortText(o: unknown): string {
  return JSON.stringify(o, (_k, y: unknown) => (typeof y === 'bigint' ? String(y).padStart(24, '0') : y));
}

/**
 * Compares rows of `vectors` (one key, of one type, in different batches) as keyComparator
 * compares rows of one: ascending or not, NULLs first or last.
 */
export function crossComparator(vectors: readonly Vector[], o: Pick<SortExpr, 'asc' | 'nullsFirst'>): CrossComparator {
  const dir = o.asc ? 1 : -1;
  const nullCmp = o.nullsFirst ? -1 : 1;
  const type = vectors.find((v) => v.values !== null)?.type ?? vectors[0]?.type;
  const valid = vectors.map((v) => (v.values === null ? new Uint8Array(v.length) : v.validity));
  let cmp: CrossComparator;
  switch (type?.id) {
    case undefined:
    case 'Null':
      return () => 0;
    case 'Float64':
    case 'Float32': {
      const x = vectors.map((v) => v.values as Float64Array);
      cmp = (a, i, b, j) => {
        const p = x[a]![i]!;
        const q = x[b]![j]!;
        if (p < q) return -1;
        if (p > q) return 1;
        if (p === q) return 0;
        return p !== p ? (q !== q ? 0 : 1) : -1; // NaN is the largest
      };
      break;
    }
    case 'Int64':
    case 'Timestamp':
    case 'Time64':
    case 'UInt64': {
      const w = vectors.map((v) =>
        v.values === null ? new Int32Array(2 * v.length) : words(v.values as BigInt64Array),
      );
      const unsigned = type.id === 'UInt64';
      cmp = (a, i, b, j) => {
        const wa = w[a]!;
        const wb = w[b]!;
        const ha = wa[2 * i + 1]!;
        const hb = wb[2 * j + 1]!;
        if (ha !== hb) return unsigned ? (ha >>> 0 < hb >>> 0 ? -1 : 1) : ha < hb ? -1 : 1;
        const la = wa[2 * i]! >>> 0;
        const lb = wb[2 * j]! >>> 0;
        return la < lb ? -1 : la > lb ? 1 : 0;
      };
      break;
    }
    case 'Boolean':
    case 'Date32': {
      const x = vectors.map((v) => v.values as Uint8Array | Int32Array);
      cmp = (a, i, b, j) => x[a]![i]! - x[b]![j]!;
      break;
    }
    case 'Utf8':
    case 'Binary': {
      const x = vectors.map((v) => v.values as string[]);
      cmp = (a, i, b, j) => compareStrings(x[a]![i]!, x[b]![j]!);
      break;
    }
    default: {
      const x = vectors.map((v) => v.values as unknown[]);
      cmp = (a, i, b, j) => {
        const p = sortText(x[a]![i]);
        const q = sortText(x[b]![j]);
        return p < q ? -1 : p > q ? 1 : 0;
      };
    }
  }
  if (valid.every((v) => v === undefined)) return o.asc ? cmp : (a, i, b, j) => -cmp(a, i, b, j);
  return (a, i, b, j) => {
    const va = valid[a];
    const vb = valid[b];
    const pi = va === undefined || va[i] === 1;
    const pj = vb === undefined || vb[j] === 1;
    if (!pi || !pj) return pi === pj ? 0 : pi ? -nullCmp : nullCmp;
    return dir * cmp(a, i, b, j);
  };
}
