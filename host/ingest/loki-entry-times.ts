// Where each Loki entry is stored in time. Storage keeps one row per (series, time), but Loki keeps
// every distinct line of a stream at one timestamp (a winston-loki client stamping milliseconds
// sent 300 lines and 124 were kept; issue 25). So an entry whose slot (series, time in the database
// precision) already holds a different row goes to the next free unit of that precision; an entry
// identical to the row in a slot it meets (same fields: line, labels stored as fields, metadata) is
// dropped, as Loki drops repeated [timestamp, line] pairs. The slots a request knows are its own
// and the occupied slots it is seeded with: the server seeds it with the rows already stored
// where the request's entries land, and parses again until nothing new is found there
// (server/loki-placement.ts), so that a millisecond split between two pushes, or a push sent
// twice, loses nothing and adds nothing. Runtime-agnostic.

/** An occupied slot: series (LogRowWriter's key of its tags), time in the database precision, content hash. */
export type Slot = [series: string, time: bigint, hash: number];

/** The slots a request's rows took in one series: its tags, and the first and last time. */
export interface SeriesRange {
  series: string;
  tags: Array<[string, string]>;
  min: bigint;
  max: bigint;
}

const TWO_32 = 2 ** 32;
const TWO_21 = 2 ** 21;

/** A 53-bit hash of a string (cyrb53, public domain, bryc/code jshash). */
export function hash53(s: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/**
 * A row's content hash from its fields, whatever their order (labels come in any order): the sum
 * of each `name=value` hash modulo 2^53, added in two exact halves (a double sum near 2^53
 * rounds). Two distinct rows share one with odds of about 2^-53.
 */
export function contentHash(
  fields: ReadonlyArray<{ readonly name: string; readonly value: unknown }>,
  count: number,
): number {
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < count; i++) {
    const f = fields[i]!;
    const h = hash53(String(f.value), hash53(f.name));
    lo = (lo + (h % TWO_32)) % TWO_32;
    hi = (hi + Math.floor(h / TWO_32)) % TWO_21;
  }
  return hi * TWO_32 + lo;
}

/**
 * The slots of one request, seeded with occupied ones; not re-entrant. With `keepRepeats`
 * (Elasticsearch and NDJSON documents, log-documents.ts), a row identical to the one in its slot
 * is kept too, at the next free unit: two equal documents are two documents in Elasticsearch.
 */
export class EntryTimes {
  readonly #taken = new Map<string, Map<bigint, number>>();
  readonly #ranges = new Map<string, SeriesRange>();
  readonly #keepRepeats: boolean;

  constructor(seed: readonly Slot[] = [], keepRepeats = false) {
    this.#keepRepeats = keepRepeats;
    for (const [series, time, hash] of seed) this.#series(series).set(time, hash);
  }

  /**
   * The time to store a row of `series` (with `tags`) at `time` with content `hash`: `time`
   * itself, or the first later unit that is free; undefined when a slot on the way holds the same
   * content (the row is a repeat and adds nothing).
   */
  place(
    series: string,
    tags: ReadonlyArray<readonly [string, string]>,
    time: bigint,
    hash: number,
  ): bigint | undefined {
    const taken = this.#series(series);
    let slot = time;
    for (;;) {
      const there = taken.get(slot);
      if (there === hash && !this.#keepRepeats) return undefined;
      if (there === undefined) break;
      slot++;
    }
    taken.set(slot, hash);
    const r = this.#ranges.get(series);
    if (r === undefined) this.#ranges.set(series, { series, tags: tags.map(([k, v]) => [k, v]), min: slot, max: slot });
    else {
      if (slot < r.min) r.min = slot;
      if (slot > r.max) r.max = slot;
    }
    return slot;
  }

  /** The series the request's rows went to, with the times they took. */
  ranges(): SeriesRange[] {
    return [...this.#ranges.values()];
  }

  #series(series: string): Map<bigint, number> {
    let m = this.#taken.get(series);
    if (m === undefined) this.#taken.set(series, (m = new Map()));
    return m;
  }
}

/** A series' tags as one string, in name order (labels come in any order); '' without tags. */
export function entrySeriesKey(tags: Iterable<readonly [string, string]>): string {
  const pairs: string[] = [];
  for (const [k, v] of tags) pairs.push(`${k}\u0000${v}`);
  return pairs.sort().join('\u0001');
}
