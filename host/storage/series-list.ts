// The sorted series list of each table, kept between queries. Listing the series of a view
// walks every segment's index and every memtable, builds each series' tag names and sort key and
// sorts them (read-path.ts listSeries): 100 series cost 0.07 ms per query optimized, several ms
// on a fresh server, and lastpoint queries paid it on every call. The list changes only when a
// segment comes or goes, a memtable gains a series, or a tag is renamed, so it is rebuilt when
// the view's fingerprint of those changes (built from numbers, not from the series).
//
// A rebuild does not start over: each segment's series are listed and sorted once per reader
// (and tag naming), a memtable's incrementally as it gains series (they are only ever added), and
// the sources' sorted lists are merged. With a span a series, a table gains series with every
// write, so every query during ingest rebuilt the list: 200,000 series took 2.1 s a query to list
// from scratch (a names map and a canonical key each, then a sort).
//
// The cached list is every series of the view, not only those with data in a query's time range:
// scans find no piece for the others and yield nothing for them, so callers that need the exact
// set (SHOW SERIES, DELETE) keep calling listSeries.

import { seriesKey } from '../core/write-batch.js';
import type { TableDef } from './catalog.js';
import type { Memtable, SeriesBuffer, TableMemtable } from './memtable.js';
import type { ReadView, SeriesInfo } from './read-path.js';
import type { SegmentReader } from './segment-reader.js';
import type { SeriesTags } from './series-data.js';

/** A listed series with its sort key (the canonical series key: table name, tags by name). */
interface Listed extends SeriesInfo {
  sort: string;
  /** A memtable's series, whose rows a delete may have emptied since it was listed. */
  buffer: SeriesBuffer | undefined;
}

/** How a table names its tags now: a listing holds names, so it is redone when they change. */
interface Naming {
  key: string;
  names: ReadonlyMap<number, string>;
}

function listed(table: TableDef, naming: Naming, key: string, tags: SeriesTags, buffer: SeriesBuffer | undefined): Listed {
  const names = new Map<string, string>();
  for (const [id, v] of tags) {
    const n = naming.names.get(id);
    if (n !== undefined) names.set(n, v);
  }
  return { key, tags, names, sort: seriesKey(table.name, [...names]), buffer };
}

const bySort = (x: Listed, y: Listed): number => (x.sort < y.sort ? -1 : x.sort > y.sort ? 1 : 0);

/** A segment's series of a table, sorted (stable: index order among equal sort keys). */
const segmentLists = new WeakMap<SegmentReader, Map<number, { naming: string; list: Listed[] }>>();

function segmentList(reader: SegmentReader, table: TableDef, naming: Naming): Listed[] {
  let byTable = segmentLists.get(reader);
  if (byTable === undefined) segmentLists.set(reader, (byTable = new Map()));
  const hit = byTable.get(table.id);
  if (hit !== undefined && hit.naming === naming.key) return hit.list;
  const list = (reader.tables.get(table.id) ?? []).map((e) => listed(table, naming, e.key, e.tags, undefined)).sort(bySort);
  byTable.set(table.id, { naming: naming.key, list });
  return list;
}

/** A memtable table's series listed so far (the first `count` in insertion order), sorted. */
const memtableLists = new WeakMap<TableMemtable, { naming: string; count: number; list: Listed[] }>();

function memtableList(tm: TableMemtable, table: TableDef, naming: Naming): Listed[] {
  let state = memtableLists.get(tm);
  if (state === undefined || state.naming !== naming.key) memtableLists.set(tm, (state = { naming: naming.key, count: 0, list: [] }));
  if (state.count === tm.series.size) return state.list;
  const added: Listed[] = [];
  let i = 0;
  for (const sb of tm.series.values()) {
    if (i++ < state.count) continue;
    added.push(listed(table, naming, sb.key, sb.tags, sb));
  }
  state.count = tm.series.size;
  added.sort(bySort);
  state.list = mergeTwo(state.list, added);
  return state.list;
}

/** Two sorted lists as one; the first's entry comes first among equal sort keys. */
function mergeTwo(a: Listed[], b: Listed[]): Listed[] {
  if (a.length === 0) return b;
  const out = new Array<Listed>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = bySort(b[j]!, a[i]!) < 0 ? b[j++]! : a[i++]!;
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}

/**
 * Every series of the table in the view, sorted by sort key; among equal keys (series that
 * differ only in dropped tags) in source order, as a stable sort of the sources' series would
 * give. A series in several sources is listed once; one a delete emptied in a memtable is left
 * out unless another source has it.
 */
function mergedList(view: ReadView, table: TableDef, naming: Naming): SeriesInfo[] {
  const sources: Listed[][] = [];
  for (const seg of view.segments) sources.push(segmentList(seg, table, naming));
  for (const { memtable } of view.memtables) {
    const tm = memtable.tables.get(table.id);
    if (tm !== undefined) sources.push(memtableList(tm, table, naming));
  }
  const at = new Array<number>(sources.length).fill(0);
  const out: SeriesInfo[] = [];
  // Keys given out among the current run of equal sort keys (a series in several sources).
  let runSort: string | undefined;
  const runKeys = new Set<string>();
  for (;;) {
    let best = -1;
    for (let s = 0; s < sources.length; s++) {
      const e = sources[s]![at[s]!];
      if (e !== undefined && (best < 0 || e.sort < sources[best]![at[best]!]!.sort)) best = s;
    }
    if (best < 0) return out;
    const e = sources[best]![at[best]!++]!;
    if (e.buffer !== undefined && e.buffer.length === 0) continue;
    if (e.sort !== runSort) {
      runSort = e.sort;
      runKeys.clear();
    } else if (runKeys.has(e.key)) continue;
    runKeys.add(e.key);
    out.push(e);
  }
}

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
    const list = mergedList(view, table, namingOf(table));
    this.#tables.set(table.id, { key, list });
    return list;
  }

  /** Forgets a table (dropped: its id is never reused, but its memory is). */
  forget(tableId: number): void {
    this.#tables.delete(tableId);
  }
}

function namingOf(table: TableDef): Naming {
  let key = '';
  for (const t of table.tags) key += `${t.id}=${t.name}\u0000`;
  return { key, names: new Map(table.tags.map((c) => [c.id, c.name])) };
}
