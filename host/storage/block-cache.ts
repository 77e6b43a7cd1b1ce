// A byte-bounded LRU cache of decoded blocks shared by every segment reader (one per process).
// Keys are "<reader uid>:<block offset>", so blocks of a deleted file are simply never asked for
// again and age out. A Map iterates in insertion order, so re-inserting on a hit makes the first
// key the least recently used one.

export class BlockCache<V> {
  readonly #limitBytes: number;
  readonly #map = new Map<string, { value: V; bytes: number }>();
  #bytes = 0;
  hits = 0;
  misses = 0;

  constructor(limitBytes: number) {
    this.#limitBytes = limitBytes;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get(key: string): V | undefined {
    const e = this.#map.get(key);
    if (e === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.#map.delete(key);
    this.#map.set(key, e);
    return e.value;
  }

  /** Adds a value of (estimated) `bytes`; values larger than the whole limit are not kept. */
  set(key: string, value: V, bytes: number): void {
    const old = this.#map.get(key);
    if (old !== undefined) {
      this.#bytes -= old.bytes;
      this.#map.delete(key);
    }
    if (bytes > this.#limitBytes) return;
    this.#map.set(key, { value, bytes });
    this.#bytes += bytes;
    while (this.#bytes > this.#limitBytes) {
      const first = this.#map.keys().next();
      if (first.done) break;
      this.#bytes -= this.#map.get(first.value)!.bytes;
      this.#map.delete(first.value);
    }
  }

  /** Drops every entry whose key starts with `prefix` (a closed reader's blocks). */
  dropPrefix(prefix: string): void {
    for (const [k, e] of this.#map) {
      if (!k.startsWith(prefix)) continue;
      this.#bytes -= e.bytes;
      this.#map.delete(k);
    }
  }
}
