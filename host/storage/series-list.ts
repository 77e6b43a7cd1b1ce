// The sorted series list of each table, kept between queries. Listing the series of a view
// walks every segment's index and every memtable, builds each series' tag names and sort key and
// sorts them (read-path.ts listSeries): 100 series cost 0.07 ms per query optimized, several ms
// on a fresh server, and lastpoint queries paid it on every call. The list changes only when a
// segment comes or goes, a memtable gains a series, or a tag is renamed, so it is rebuilt when
// the view's fingerprint of those changes (built from numbers, not from the series).
//
// The cached list is every series of the view, not only those with data in a query's time range:
// scans find no piece for the others and yield nothing for them, so callers that need the exact
// set (SHOW SERIES, DELETE) keep calling listSeries.

import type { TableDef } from './catalog.js';
import type { Memtable } from './memtable.js';
import { listSeries, type ReadView, type SeriesInfo } from './read-path.js';

const memtableIds = new WeakMap<Memtable, number>();
let nextMemtableId = 1;

function memtableId(m: Memtable): number {
  let id = memtableIds.get(m);
  if (id === undefined) memtableIds.set(m, (id = nextMemtableId++));
  return id;
}

/** What the table's series list depends on: segment files, memtables and their series counts, tag names. */
function fingerprint(view: ReadView, table: TableDef): string {
  let key = '';
  for (const s of view.segments) key += `${s.fileId},`;
  key += '|';
  for (const { memtable } of view.memtables) key += `${memtableId(memtable)}:${memtable.tables.get(table.id)?.series.size ?? 0},`;
  key += '|';
  for (const t of table.tags) key += `${t.id}=${t.name}\u0000`;
  return key;
}

export class SeriesListCache {
  readonly #tables = new Map<number, { key: string; list: SeriesInfo[] }>();

  /** Every series of the table in the view, sorted by series key (read-only: shared between queries). */
  list(view: ReadView, table: TableDef): readonly SeriesInfo[] {
    const key = fingerprint(view, table);
    const hit = this.#tables.get(table.id);
    if (hit !== undefined && hit.key === key) return hit.list;
    const list = listSeries(view, table, { lo: undefined, hi: undefined });
    this.#tables.set(table.id, { key, list });
    return list;
  }

  /** Forgets a table (dropped: its id is never reused, but its memory is). */
  forget(tableId: number): void {
    this.#tables.delete(tableId);
  }
}
