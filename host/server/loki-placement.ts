// Loki pushes beside what is stored (ingest/loki-entry-times.ts has the rule): a push's entries
// are parsed, the rows already stored where they landed are read back, and the push is parsed
// again with those rows as occupied slots, until a parse lands nowhere unread. The common push,
// later than anything stored, costs one parse and one scan of an empty time range; a millisecond
// split between two pushes, or a push sent again, costs a few parses. A push on its way to the
// WAL is not readable yet, so the pushes into one table are placed one at a time (LokiTables),
// and a placement that reads where a placed push still being stored landed waits for it: two
// pushes never take one slot, and pushes that land apart (other series, later times) are
// stored side by side.

import { scanRequest } from '../core/scan.js';
import { contentHash, entrySeriesKey, type SeriesRange, type Slot } from '../ingest/loki-entry-times.js';
import type { ParseResult } from '../ingest/parse-jobs.js';
import type { DatabaseDef } from '../meta/index.js';
import type { Storage } from '../storage/index.js';

/** The LokiTables key of a table. */
export function lokiPlacementKey(tenant: string, database: string, table: string): string {
  return `${tenant}\u0000${database}\u0000${table}`;
}

/** Waits until the placed pushes that hold rows of `series` between `from` and `to` are stored. */
export type Settle = (series: ReadonlySet<string>, from: bigint, to: bigint) => Promise<void>;

interface Placed {
  ranges: ReadonlyMap<string, SeriesRange>;
  stored: Promise<void>;
}

/** The Loki pushes of each table: one placing at a time, and those placed but not yet stored. */
export class LokiTables {
  readonly #turns = new Map<string, Promise<void>>();
  readonly #placed = new Map<string, Set<Placed>>();

  /**
   * Runs `place` for a push into table `key` once no other push of the table is placing; the push
   * then counts as placed until `stored` (call it once, whether the store succeeded or not).
   */
  async place(
    key: string,
    place: (settle: Settle) => Promise<ParseResult>,
  ): Promise<{ out: ParseResult; stored: () => void }> {
    const before = this.#turns.get(key) ?? Promise.resolve();
    let endTurn!: () => void;
    const turn = new Promise<void>((resolve) => (endTurn = resolve));
    this.#turns.set(key, turn);
    await before;
    try {
      const out = await place((series, from, to) => this.#settle(key, series, from, to));
      let done!: () => void;
      const placed: Placed = {
        ranges: new Map((out.ranges ?? []).map((r) => [r.series, r])),
        stored: new Promise<void>((resolve) => (done = resolve)),
      };
      let set = this.#placed.get(key);
      if (set === undefined) this.#placed.set(key, (set = new Set()));
      set.add(placed);
      return {
        out,
        stored: () => {
          set.delete(placed);
          if (set.size === 0 && this.#placed.get(key) === set) this.#placed.delete(key);
          done();
        },
      };
    } finally {
      if (this.#turns.get(key) === turn) this.#turns.delete(key);
      endTurn();
    }
  }

  async #settle(key: string, series: ReadonlySet<string>, from: bigint, to: bigint): Promise<void> {
    for (const p of [...(this.#placed.get(key) ?? [])]) {
      for (const name of series) {
        const r = p.ranges.get(name);
        if (r !== undefined && r.min <= to && r.max >= from) {
          await p.stored;
          break;
        }
      }
    }
  }
}

/**
 * Parses a Loki push with `parse` (given a body it may consume and the occupied slots) until its
 * rows land beside every stored row of `table` in `db`; see the file header.
 */
export async function parseLokiBeside(
  storage: Storage,
  db: DatabaseDef,
  table: string,
  body: Uint8Array,
  settle: Settle,
  parse: (body: Uint8Array, seed: Slot[]) => ParseResult | Promise<ParseResult>,
): Promise<ParseResult> {
  // The parse may hand its body to a worker: every parse after the first gets a copy.
  const kept = copy(body);
  const seed: Slot[] = [];
  const seen = new Set<string>();
  let out = await parse(body, seed);
  let covered: { from: bigint; to: bigint } | undefined;
  for (;;) {
    const ranges = out.ranges ?? [];
    if (ranges.length === 0) return out;
    let lo = ranges[0]!.min;
    let hi = ranges[0]!.max;
    for (const r of ranges) {
      if (r.min < lo) lo = r.min;
      if (r.max > hi) hi = r.max;
    }
    let from = lo;
    let to = hi;
    if (covered !== undefined) {
      if (hi <= covered.to) return out;
      // Read further than the rows went, twice as far each time: a long run of stored rows
      // costs a few rounds, not one per row.
      from = covered.to + 1n;
      const twice = covered.to + (covered.to - covered.from + 1n);
      to = hi > twice ? hi : twice;
    }
    covered = { from: covered?.from ?? lo, to };
    const series = new Set(ranges.map((r) => r.series));
    await settle(series, from, to);
    const found = await storedSlots(storage, db, table, series, from, to, seen);
    if (found.length === 0) return out;
    seed.push(...found);
    out = await parse(copy(kept), seed);
  }
}

/** The stored rows of `series` between `from` and `to`, as slots not in `seen` (added to it). */
async function storedSlots(
  storage: Storage,
  db: DatabaseDef,
  table: string,
  series: ReadonlySet<string>,
  from: bigint,
  to: bigint,
  seen: Set<string>,
): Promise<Slot[]> {
  const def = db.tables.get(table);
  if (def === undefined) return [];
  const filter = (tags: ReadonlyMap<string, string>): boolean => series.has(entrySeriesKey(tags));
  const fields = def.fields.map((c) => c.name);
  const out: Slot[] = [];
  const row: Array<{ name: string; value: unknown }> = [];
  for await (const chunk of storage.scan(db, table, scanRequest(fields, from, to, filter))) {
    const key = entrySeriesKey(chunk.tags);
    for (let i = 0; i < chunk.length; i++) {
      const time = chunk.time[i]!;
      const id = `${key}\u0002${time}`;
      if (seen.has(id)) continue;
      seen.add(id);
      row.length = 0;
      for (const [name, c] of chunk.fields)
        if (c.validity === undefined || c.validity[i] === 1) row.push({ name, value: c.values[i] });
      out.push([key, time, contentHash(row, row.length)]);
    }
  }
  return out;
}

/** A copy in a buffer of its own (Buffer's slice would share the memory a worker detaches). */
function copy(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length);
  out.set(bytes);
  return out;
}
