// Hash tables of millions of keys (GROUP BY groups, DISTINCT values) that never hold the thread to
// grow: a V8 Map or Set rehashes all of its entries at once when it doubles, 90-190 ms of one
// step at a few million (bench/isolation.ts, count(DISTINCT ...) and GROUP BY over 10 million
// rows), so past SHARD_AFTER entries the keys are spread over SHARDS tables by a hash of their
// own, each doubling alone. Below that it is one plain Map or Set: small tables pay nothing.
// Iteration is by shard, not in insertion order, once split.

/** Entries one table holds before the keys are spread (its last doubling: a few ms). */
const SHARD_AFTER = 1 << 16;
const SHARDS = 256;

const f64 = new Float64Array(1);
const i32 = new Int32Array(f64.buffer);

/** Chars of a long string hashed: at most 128, spread over it (keys that differ only between them share a shard). */
const STRING_SAMPLE = 128;

/**
 * The shard of a key, consistent with SameValueZero (0 and -0 are one key, so are all NaNs).
 * Only numbers, bigints and strings are spread: other keys (NULL markers, booleans) are few.
 */
export function shardOf(k: unknown): number {
  let h = 0;
  if (typeof k === 'string') {
    const n = k.length;
    const step = n <= STRING_SAMPLE ? 1 : Math.floor(n / STRING_SAMPLE);
    h = n;
    for (let i = 0; i < n; i += step) h = Math.imul(h ^ k.charCodeAt(i), 0x01000193);
  } else if (typeof k === 'number' || typeof k === 'bigint') {
    const x = Number(k);
    if ((x | 0) === x) h = x;
    else if (x === x) {
      f64[0] = x;
      h = i32[0]! ^ i32[1]!;
    }
  }
  return Math.imul(h ^ (h >>> 16), 0x9e3779b1) >>> 24;
}

/** A Map that splits into shards when big; its values are never undefined. */
export class ShardedMap<K, V> {
  #one: Map<K, V> | undefined = new Map();
  #shards: Map<K, V>[] = [];
  #size = 0;

  get size(): number {
    return this.#one !== undefined ? this.#one.size : this.#size;
  }

  get(k: K): V | undefined {
    return this.#one !== undefined ? this.#one.get(k) : this.#shards[shardOf(k)]!.get(k);
  }

  /** The value of `k`, or `v` once set as its value when it had none. */
  getOrSet(k: K, v: V): V {
    const one = this.#one;
    const m = one ?? this.#shards[shardOf(k)]!;
    const had = m.get(k);
    if (had !== undefined) return had;
    m.set(k, v);
    if (one === undefined) this.#size++;
    else if (one.size > SHARD_AFTER) this.#split(one);
    return v;
  }

  #split(one: Map<K, V>): void {
    this.#shards = Array.from({ length: SHARDS }, () => new Map<K, V>());
    for (const [k, v] of one) this.#shards[shardOf(k)]!.set(k, v);
    this.#size = one.size;
    this.#one = undefined;
  }

  *values(): IterableIterator<V> {
    if (this.#one !== undefined) yield* this.#one.values();
    else for (const m of this.#shards) yield* m.values();
  }

  clear(): void {
    this.#one = new Map();
    this.#shards = [];
    this.#size = 0;
  }
}

/** A Set that splits into shards when big. */
export class ShardedSet<K> {
  #one: Set<K> | undefined = new Set();
  #shards: Set<K>[] = [];
  #size = 0;

  get size(): number {
    return this.#one !== undefined ? this.#one.size : this.#size;
  }

  /** Adds `k`: true when it was not there. */
  add(k: K): boolean {
    const one = this.#one;
    const s = one ?? this.#shards[shardOf(k)]!;
    const before = s.size;
    s.add(k);
    if (s.size === before) return false;
    if (one === undefined) this.#size++;
    else if (one.size > SHARD_AFTER) this.#split(one);
    return true;
  }

  #split(one: Set<K>): void {
    this.#shards = Array.from({ length: SHARDS }, () => new Set<K>());
    for (const k of one) this.#shards[shardOf(k)]!.add(k);
    this.#size = one.size;
    this.#one = undefined;
  }

  *[Symbol.iterator](): IterableIterator<K> {
    if (this.#one !== undefined) yield* this.#one;
    else for (const s of this.#shards) yield* s;
  }
}
