// A byte-bounded cache of decoded blocks shared by every segment reader (one per process).
// Keys are "<reader uid>:<block offset>", so blocks of a deleted file are simply never asked for
// again and age out. A Map iterates in insertion order, so re-inserting on a hit makes the first
// key the least recently used one.
//
// Eviction is least-recently-used with one exception: a scan never evicts a block it has used
// itself (each storage read begins a scan: beginScan). A query whose blocks exceed the cache would
// otherwise evict each block before its next run asks for it again (TSBS double-groupby-all over
// 12 hours: 76 MB of decoded blocks against 64 MiB, no hit at all); instead the cache keeps what
// it holds, the scan's other blocks are decoded and not kept, and the same query hits the kept
// ones on every run. Blocks last used by earlier scans are evicted as before.

export class BlockCache<V> {
  readonly #limitBytes: number;
  readonly #map = new Map<string, { value: V; bytes: number; scan: number }>();
  #bytes = 0;
  #scan = 0;
  hits = 0;
  misses = 0;

  constructor(limitBytes: number) {
    this.#limitBytes = limitBytes;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** Starts a scan: the blocks it gets or sets from now on are not evicted for its own later ones. */
  beginScan(): void {
    this.#scan++;
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
    e.scan = this.#scan;
    return e.value;
  }

  /**
   * Adds a value of (estimated) `bytes`; values larger than the whole limit are not kept, nor
   * values that would only fit by evicting blocks of the current scan.
   */
  set(key: string, value: V, bytes: number): void {
    const old = this.#map.get(key);
    if (old !== undefined) {
      this.#bytes -= old.bytes;
      this.#map.delete(key);
    }
    if (bytes > this.#limitBytes) return;
    while (this.#bytes + bytes > this.#limitBytes) {
      const first = this.#map.entries().next();
      if (first.done) break;
      const [k, e] = first.value;
      if (e.scan === this.#scan) return;
      this.#bytes -= e.bytes;
      this.#map.delete(k);
    }
    this.#map.set(key, { value, bytes, scan: this.#scan });
    this.#bytes += bytes;
  }

  /**
   * Whether `set` would keep a value of `bytes` now: it fits in the free room, or evicting blocks
   * of earlier scans (least recently used first) makes room before a block of the current scan
   * is reached. A reader asks before reading a whole window for one block (segment-reader.ts).
   */
  fits(bytes: number): boolean {
    if (bytes > this.#limitBytes) return false;
    let free = this.#limitBytes - this.#bytes;
    if (free >= bytes) return true;
    for (const e of this.#map.values()) {
      if (e.scan === this.#scan) return false;
      free += e.bytes;
      if (free >= bytes) return true;
    }
    return false;
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
