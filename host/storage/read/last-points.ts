// The per-series "last point" cache: for each series and field column, the newest present value
// and its time (null: the series has no value in that column). An entry is filled the first time
// a query asks (read-path.ts lastValues, reading only the newest blocks) and then kept current by
// writes, so `last()` and lastpoint queries cost a map lookup. A write can only move a known
// column forward; a delete or retention drops the entries it may affect, which are recomputed on
// the next ask. A column not yet in an entry is unknown (a write cannot tell whether older data
// holds a newer time), so writes update only the columns an entry already has.

import { ColumnKind, ValueType, batchString, type WriteBatch } from '../../core/write-batch.js';
import type { TableStamp } from '../memtable/index.js';
import { batchSeriesIdKey } from '../../core/series-key.js';

export type LastEntry = Map<number, [bigint, unknown] | null>;

export class LastPointCache {
  readonly #tables = new Map<number, Map<string, LastEntry>>();
  /** Bumped by every change of the data; a computation that saw another value is not cached. */
  epoch = 0;

  get(tableId: number, key: string): LastEntry | undefined {
    return this.#tables.get(tableId)?.get(key);
  }

  set(tableId: number, key: string, entry: LastEntry): void {
    let t = this.#tables.get(tableId);
    if (t === undefined) this.#tables.set(tableId, (t = new Map()));
    t.set(key, entry);
  }

  /** Moves known columns forward with the rows of a write. */
  onWrite(batch: WriteBatch, stamps: readonly TableStamp[]): void {
    this.epoch++;
    batch.tables.forEach((t, ti) => {
      const stamp = stamps[ti]!;
      const cached = this.#tables.get(stamp.tableId);
      if (cached === undefined || cached.size === 0) return;
      for (const s of t.series) {
        const entry = cached.get(batchSeriesIdKey(s, stamp.columnIds));
        if (entry === undefined) continue;
        t.columns.forEach((col, ci) => {
          const id = stamp.columnIds[ci]!;
          if (col.kind !== ColumnKind.Field || id === 0 || !entry.has(id)) return;
          // The newest present row of the slice; the later row wins a tie (last write wins).
          let best = -1;
          for (let r = s.rowStart; r < s.rowStart + s.rowCount; r++) {
            if (col.validity !== undefined && col.validity[r] === 0) continue;
            if (best < 0 || t.timestamps[r]! >= t.timestamps[best]!) best = r;
          }
          if (best < 0) return;
          const ts = t.timestamps[best]!;
          const have = entry.get(id);
          if (have !== null && have !== undefined && have[0] > ts) return;
          const value =
            col.type === ValueType.String
              ? batchString(col.strings!, best)
              : col.type === ValueType.Boolean
                ? (col.values as Uint8Array)[best]
                : col.values![best];
          entry.set(id, [ts, value]);
        });
      }
    });
  }

  /** Forgets the entries of the given series (all of the table when null). */
  invalidate(tableId: number, keys: readonly string[] | null): void {
    this.epoch++;
    const t = this.#tables.get(tableId);
    if (t === undefined) return;
    if (keys === null) this.#tables.delete(tableId);
    else for (const k of keys) t.delete(k);
  }

  clear(): void {
    this.epoch++;
    this.#tables.clear();
  }
}
