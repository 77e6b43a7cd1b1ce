// What operators hold, in bytes, for the query's memory pool (memory-pool.ts), and the
// reservation an operator keeps in it. The sizes are V8's on 64-bit Node without pointer
// compression, measured as heapUsed deltas (after gc()) over a million entries: a Map<number,
// number> entry 38 bytes, a Set of 14-character concatenated strings 85 bytes an entry, an array
// slot 8 bytes, a distinct 10-character string 34 bytes, a BigInt 26 bytes, a boxed double 10,
// an array of three scalars 82 bytes, an empty Set 162. Strings count two bytes a character (V8 keeps Latin-1 text
// in one, so text is overcounted, never under).

import type { RecordBatch, Scalar, Vector } from '../types/index.js';
import type { MemoryPool } from './memory-pool.js';

/** A reference in an array or object slot. */
export const SLOT_BYTES = 8;
/** One entry of a Map or Set: its share of the hash table, the chain link, key and value slots. */
export const HASH_ENTRY_BYTES = 40;
/** A JS object or array of no fields: map, properties and elements pointers, length (an empty array measured 42 with its slot). */
export const OBJECT_BYTES = 32;
/** An empty Set with its first hash table (measured 162 with its slot); a Map, 194. */
export const SET_BYTES = 160;
export const MAP_BYTES = 192;

/** A string's bytes: header and characters (concatenations hold a 32-byte cons node too). */
export function stringBytes(s: string): number {
  return stringUnitsBytes(s.length);
}

/** The bytes of a string of `units` UTF-16 units, before it is built (functions' size checks). */
export function stringUnitsBytes(units: number): number {
  return 24 + 2 * units;
}

/** The bytes of a list's own slots; its elements are counted where they were built. */
export function listBytes(elements: number): number {
  return OBJECT_BYTES + SLOT_BYTES * elements;
}

/** A JS value's bytes beyond the slot that holds it (numbers boxed, bigints, strings, rows). */
export function scalarBytes(v: Scalar): number {
  switch (typeof v) {
    case 'string':
      return stringBytes(v);
    case 'bigint':
      return 32;
    case 'number':
      return 16;
    case 'object': {
      if (v === null) return 0;
      if (Array.isArray(v)) {
        let n = OBJECT_BYTES;
        for (const x of v) n += SLOT_BYTES + scalarBytes(x);
        return n;
      }
      let n = OBJECT_BYTES;
      for (const x of Object.values(v)) n += SLOT_BYTES + scalarBytes(x as Scalar);
      return n;
    }
    default:
      return 0;
  }
}

/** A vector's bytes: typed arrays by their length; JS arrays by slot and element (a constant string once). */
export function vectorBytes(v: Vector): number {
  const vals = v.values;
  let n = v.validity?.byteLength ?? 0;
  if (vals === null) return n;
  if (ArrayBuffer.isView(vals)) return n + vals.byteLength;
  if (v.type.id === 'Struct') {
    for (const c of vals as Vector[]) n += vectorBytes(c);
    return n;
  }
  const items = vals as readonly Scalar[];
  n += SLOT_BYTES * items.length;
  if (items.length === 0) return n;
  if (v.constant === true) return n + scalarBytes(items[0]!);
  for (let i = 0; i < items.length; i++) n += scalarBytes(items[i]!);
  return n;
}

export function batchBytes(b: RecordBatch): number {
  let n = 0;
  for (const c of b.columns) n += vectorBytes(c);
  return n;
}

/**
 * The bytes one operator holds in the query's pool, under its name (the 422's "needs" names it).
 * Grow it as state is added, set it when the state is re-measured, and release it once at the
 * end (a `finally`): the pool then forgets the operator.
 */
export class Reservation {
  readonly #pool: MemoryPool;
  readonly #what: string;
  #bytes = 0;

  constructor(pool: MemoryPool, what: string) {
    this.#pool = pool;
    this.#what = what;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** Takes `bytes` more, or throws 422 010011 naming the operator (holding what it had). */
  grow(bytes: number): void {
    if (bytes <= 0) return;
    this.#pool.reserve(bytes, this.#what);
    this.#bytes += bytes;
  }

  /** Takes `bytes` more if they fit in the pool; false (and nothing taken) if not. */
  tryGrow(bytes: number): boolean {
    if (bytes <= 0) return true;
    if (!this.#pool.tryReserve(bytes)) return false;
    this.#bytes += bytes;
    return true;
  }

  /** Holds exactly `bytes` from now on (more: reserved, or 422; fewer: given back). */
  set(bytes: number): void {
    if (bytes > this.#bytes) this.grow(bytes - this.#bytes);
    else this.shrink(this.#bytes - bytes);
  }

  shrink(bytes: number): void {
    const n = Math.min(bytes, this.#bytes);
    this.#pool.release(n);
    this.#bytes -= n;
  }

  release(): void {
    this.#pool.release(this.#bytes);
    this.#bytes = 0;
  }
}
