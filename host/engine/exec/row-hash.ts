// Hashes and equality of rows' key values, read from the vectors in place: the join's hash table
// (hash-join-exec.ts) keeps a 32-bit hash and a chain link per row instead of a string key per row
// in a Map (a string key and its Map entry measured 130-220 bytes a row; this, 12). Equality is
// what the join's old string keys meant: -0 equals 0, NaN equals NaN, and values of two different
// types compare by their text (the planner casts the sides of `=` to one type, so that is rare).

import { getValue, isValid, type Vector } from '../types/index.js';

/** A value's text, as the join keys were built before (bigints marked, structures as JSON). */
function valueText(v: Vector, i: number): string {
  const x = getValue(v, i);
  return typeof x === 'object' && x !== null
    ? JSON.stringify(x, (_k, y: unknown) => (typeof y === 'bigint' ? `${y}n` : y))
    : String(x);
}

/** FNV-1a over the UTF-16 units. */
function hashString(s: string): number {
  let h = 0x811c9dc5 | 0;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h;
}

/** Murmur3's finalizer: spreads the bits of a 32-bit integer. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

const NAN_HASH = 0x7ff80000;

/** How one key is compared: in place by its type, or by text when the two sides' types differ. */
export type KeyMode = 'typed' | 'text';

/** The mode of a key whose build side has type `a` and probe side type `b`. */
export function keyMode(a: Vector['type'], b: Vector['type']): KeyMode {
  if (a.id !== b.id) return 'text';
  switch (a.id) {
    case 'Int64':
    case 'UInt64':
    case 'Timestamp':
    case 'Time64':
    case 'Float64':
    case 'Float32':
    case 'Boolean':
    case 'Date32':
    case 'Utf8':
    case 'Binary':
      return 'typed';
    default:
      return 'text';
  }
}

/**
 * Folds the hashes of rows [0, n) of one key into `out` (the first key sets it, `first`).
 * NULL rows get any value: the caller skips them.
 */
export function hashKey(v: Vector, mode: KeyMode, n: number, out: Int32Array, first: boolean): void {
  const put = (i: number, h: number): void => {
    out[i] = first ? h : mix(Math.imul(out[i]!, 31) + h);
  };
  if (v.values === null) {
    for (let i = 0; i < n; i++) put(i, 0);
    return;
  }
  if (mode === 'text') {
    for (let i = 0; i < n; i++) put(i, isValid(v, i) ? hashString(valueText(v, i)) : 0);
    return;
  }
  switch (v.type.id) {
    case 'Int64':
    case 'UInt64':
    case 'Timestamp':
    case 'Time64': {
      const b = v.values as BigInt64Array;
      const w = new Int32Array(b.buffer, b.byteOffset, n * 2);
      for (let i = 0; i < n; i++) put(i, mix(w[2 * i]! ^ mix(w[2 * i + 1]!)));
      return;
    }
    case 'Float64':
    case 'Float32': {
      const x = v.values as Float64Array;
      const w = new Int32Array(x.buffer, x.byteOffset, n * 2);
      for (let i = 0; i < n; i++) {
        const a = x[i]!;
        put(i, a === 0 ? 0 : a !== a ? NAN_HASH : mix(w[2 * i]! ^ mix(w[2 * i + 1]!)));
      }
      return;
    }
    case 'Boolean':
    case 'Date32': {
      const x = v.values as Uint8Array | Int32Array;
      for (let i = 0; i < n; i++) put(i, mix(x[i]!));
      return;
    }
    default: {
      const x = v.values as string[];
      if (v.constant === true && n > 0) {
        const h = hashString(x[0]!);
        for (let i = 0; i < n; i++) put(i, h);
        return;
      }
      for (let i = 0; i < n; i++) put(i, hashString(x[i]!));
    }
  }
}

/** A key vector ready for comparisons: 64-bit integers as pairs of 32-bit words (reading a BigInt64Array allocates). */
export interface KeyView {
  readonly v: Vector;
  readonly mode: KeyMode;
  readonly words: Int32Array | undefined;
}

export function keyView(v: Vector, mode: KeyMode): KeyView {
  const id = v.type.id;
  const wide =
    mode === 'typed' &&
    v.values !== null &&
    (id === 'Int64' || id === 'UInt64' || id === 'Timestamp' || id === 'Time64');
  const b = v.values as BigInt64Array;
  return { v, mode, words: wide ? new Int32Array(b.buffer, b.byteOffset, v.length * 2) : undefined };
}

/** Whether row i of `a` and row j of `b` hold equal values (both valid). */
export function keyEquals(a: KeyView, i: number, b: KeyView, j: number): boolean {
  const x = a.v;
  const y = b.v;
  if (x.values === null || y.values === null) return x.values === y.values;
  if (a.mode === 'text') return valueText(x, i) === valueText(y, j);
  const aw = a.words;
  if (aw !== undefined) {
    const bw = b.words!;
    return aw[2 * i] === bw[2 * j] && aw[2 * i + 1] === bw[2 * j + 1];
  }
  if (x.type.id === 'Float64' || x.type.id === 'Float32') {
    const p = (x.values as Float64Array)[i]!;
    const q = (y.values as Float64Array)[j]!;
    return p === q || (p !== p && q !== q);
  }
  return (x.values as ArrayLike<unknown>)[i] === (y.values as ArrayLike<unknown>)[j];
}

/** 1 where every key of the row is valid; undefined when all rows are. */
export function keysValid(keys: readonly Vector[], n: number): Uint8Array | undefined {
  let out: Uint8Array | undefined;
  for (const k of keys) {
    if (k.type.id !== 'Null' && k.validity === undefined && k.values !== null) continue;
    out ??= new Uint8Array(n).fill(1);
    for (let i = 0; i < n; i++) if (!isValid(k, i)) out[i] = 0;
  }
  return out;
}
