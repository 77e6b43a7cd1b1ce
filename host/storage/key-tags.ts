// The tags of a listed series by name, read from its internal key (`<id>:<length>:<value>` per
// tag, series-data.ts seriesIdKey) when asked, rather than kept as a Map. The series list of a
// table (series-list.ts) holds one per series of every source, for as long as the sources
// stand: with a span a series, a Map of names and the parsed tag list each held 1.2 KB of heap
// per span after the first query (393,216 spans: 176 -> 630 MB live). This holds the key, which
// the segment index or memtable keeps anyway, and the table's naming, shared by all.

/** A table's tag names by column id, and the reverse. */
export interface TagNaming {
  readonly names: ReadonlyMap<number, string>;
  readonly ids: ReadonlyMap<string, number>;
}

export class KeyTags implements ReadonlyMap<string, string> {
  readonly #key: string;
  readonly #naming: TagNaming;

  constructor(key: string, naming: TagNaming) {
    this.#key = key;
    this.#naming = naming;
  }

  get(name: string): string | undefined {
    const id = this.#naming.ids.get(name);
    if (id === undefined) return undefined;
    const key = this.#key;
    for (let i = 0; i < key.length; ) {
      const a = key.indexOf(':', i);
      const b = key.indexOf(':', a + 1);
      const len = Number(key.slice(a + 1, b));
      if (Number(key.slice(i, a)) === id) return key.slice(b + 1, b + 1 + len);
      i = b + 1 + len;
    }
    return undefined;
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  get size(): number {
    let n = 0;
    for (const _ of this.entries()) n++;
    return n;
  }

  /** [name, value] in the key's order (tag column ids ascending); tags without a name are left out. */
  *entries(): MapIterator<[string, string]> {
    const key = this.#key;
    for (let i = 0; i < key.length; ) {
      const a = key.indexOf(':', i);
      const b = key.indexOf(':', a + 1);
      const len = Number(key.slice(a + 1, b));
      const name = this.#naming.names.get(Number(key.slice(i, a)));
      if (name !== undefined) yield [name, key.slice(b + 1, b + 1 + len)];
      i = b + 1 + len;
    }
  }

  *keys(): MapIterator<string> {
    for (const [k] of this.entries()) yield k;
  }

  *values(): MapIterator<string> {
    for (const [, v] of this.entries()) yield v;
  }

  [Symbol.iterator](): MapIterator<[string, string]> {
    return this.entries();
  }

  forEach(fn: (value: string, key: string, map: ReadonlyMap<string, string>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
  }
}
