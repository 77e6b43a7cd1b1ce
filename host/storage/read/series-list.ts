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

import type { TagValues } from '../../core/scan.js';
import { compareBytes, escapeKeyPart, KeyTags, type SeriesTags, type TagNaming } from '../../core/series-key.js';
import type { TableDef } from '../../meta/index.js';
import type { Memtable, TableMemtable } from '../memtable/index.js';
import type { ReadView, SeriesInfo } from './read-view.js';
import type { SegmentReader } from '../segment/index.js';

/**
 * A listed series with its sort key (in the order of the canonical series key, table name and
 * tags by name: namingOf) and its tags by name, read from its key (KeyTags: a list holds one per
 * series of every source). Not its SeriesBuffer: a kept list would then keep a flushed memtable's
 * rows until the next query.
 */
export interface Listed extends SeriesInfo {
  sort: string;
}

/** How a table names its tags now: a listing holds names, so it is redone when they change. */
export interface Naming extends TagNaming {
  key: string;
  /** The tags in name order (compareBytes), each with what a sort key writes before its value (namingOf). */
  byName: ReadonlyArray<{ id: number; prefix: string }>;
}

/**
 * A series as listed: its names, and its sort key, which is seriesKey(table, names) written with
 * the tag order and escaped names worked out once per naming (a sort and five strings per series
 * were most of listing a segment of spans).
 */
export function listed(naming: Naming, key: string, tags: SeriesTags): Listed {
  // Joined, not concatenated: a string built by += is a tree of pieces until compared, and then
  // keeps a node over its flattened copy (32 bytes a series).
  const parts: string[] = [];
  for (const { id, prefix } of naming.byName) {
    for (const [tid, v] of tags) {
      if (tid !== id) continue;
      parts.push(prefix, escapeKeyPart(v));
      break;
    }
  }
  return { key, names: new KeyTags(key, naming), sort: parts.join('') };
}

export const bySort = (x: Listed, y: Listed): number => (x.sort < y.sort ? -1 : x.sort > y.sort ? 1 : 0);

/** A segment's series of a table, sorted (stable: index order among equal sort keys). */
const segmentLists = new WeakMap<SegmentReader, Map<number, { naming: string; list: Listed[] }>>();

async function segmentList(reader: SegmentReader, table: TableDef, naming: Naming): Promise<Listed[]> {
  let byTable = segmentLists.get(reader);
  if (byTable === undefined) segmentLists.set(reader, (byTable = new Map()));
  const hit = byTable.get(table.id);
  if (hit !== undefined && hit.naming === naming.key) return hit.list;
  const list = (await reader.tableSeries(table.id)).map((e) => listed(naming, e.key, e.tags)).sort(bySort);
  byTable.set(table.id, { naming: naming.key, list });
  return list;
}

/**
 * A memtable table's series listed so far (the first `count` in insertion order): `list` sorted,
 * then `tail`, those not merged into it yet (in insertion order). A query during ingest needs only
 * the series new since the last one (memtableAdded); the whole sorted list only a rebuild does.
 */
const memtableLists = new WeakMap<TableMemtable, { naming: string; count: number; list: Listed[]; tail: Listed[] }>();

/** The series a memtable table gained since the last call, sorted (kept in its tail too). */
function memtableAdded(tm: TableMemtable, naming: Naming): Listed[] {
  let state = memtableLists.get(tm);
  if (state === undefined || state.naming !== naming.key)
    memtableLists.set(tm, (state = { naming: naming.key, count: 0, list: [], tail: [] }));
  if (state.count === tm.series.size) return [];
  const added: Listed[] = [];
  let i = 0;
  for (const sb of tm.series.values()) {
    if (i++ < state.count) continue;
    added.push(listed(naming, sb.key, sb.tags));
  }
  state.count = tm.series.size;
  state.tail = state.tail.length === 0 ? added.slice() : state.tail.concat(added);
  return added.sort(bySort);
}

/** A memtable table's series, sorted (among equal sort keys in insertion order). */
function memtableList(tm: TableMemtable, naming: Naming): Listed[] {
  memtableAdded(tm, naming);
  const state = memtableLists.get(tm)!;
  if (state.tail.length > 0) {
    state.list = mergeTwo(state.list, state.tail.sort(bySort));
    state.tail = [];
  }
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
async function mergedList(view: ReadView, table: TableDef, naming: Naming): Promise<Listed[]> {
  const sources: Listed[][] = [];
  /** Per source, its memtable (whose series a delete may have emptied since they were listed). */
  const memtables: Array<TableMemtable | undefined> = [];
  for (const seg of view.segments) {
    sources.push(await segmentList(seg, table, naming));
    memtables.push(undefined);
  }
  for (const { memtable } of view.memtables) {
    const tm = memtable.tables.get(table.id);
    if (tm === undefined) continue;
    sources.push(memtableList(tm, naming));
    memtables.push(tm);
  }
  const at = new Array<number>(sources.length).fill(0);
  const out: Listed[] = [];
  // The current run of equal sort keys (a series in several sources, or series that differ only
  // in dropped tags): its first key, and any others given out.
  let runSort: string | undefined;
  let runKey = '';
  let runMore: Set<string> | undefined;
  for (;;) {
    let best = -1;
    for (let s = 0; s < sources.length; s++) {
      const e = sources[s]![at[s]!];
      if (e !== undefined && (best < 0 || e.sort < sources[best]![at[best]!]!.sort)) best = s;
    }
    if (best < 0) return out;
    const e = sources[best]![at[best]!++]!;
    if (memtables[best]?.series.get(e.key)?.length === 0) continue;
    if (e.sort !== runSort) {
      runSort = e.sort;
      runKey = e.key;
      runMore = undefined;
    } else {
      if (e.key === runKey || runMore?.has(e.key) === true) continue;
      (runMore ??= new Set()).add(e.key);
    }
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

/**
 * What the table's series list depends on besides the memtables' series counts: segment files,
 * memtables, tag names.
 */
function fingerprint(view: ReadView, table: TableDef): string {
  let key = '';
  for (const s of view.segments) key += `${s.fileId},`;
  key += '|';
  for (const { memtable } of view.memtables) key += `${memtableId(memtable)},`;
  key += '|' + table.name + '\u0001';
  for (const t of table.tags) key += `${t.id}=${t.name}\u0000`;
  return key;
}

/** The memtables' series counts of the table, in view order. */
function seriesCounts(view: ReadView, table: TableDef): number[] {
  return view.memtables.map(({ memtable }) => memtable.tables.get(table.id)?.series.size ?? 0);
}

/**
 * `list` with the series the view's last memtable gained inserted (`added`, sorted): each after
 * every series of an equal sort key (the last source comes last), none already listed. Binary
 * searches and copies, no merge: with a span a series, that was most of a query during ingest.
 */
function insertAdded(list: readonly Listed[], added: readonly Listed[], tm: TableMemtable): Listed[] {
  const out: Listed[] = [];
  let from = 0;
  for (const e of added) {
    if (tm.series.get(e.key)!.length === 0) continue;
    let lo = from;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (list[mid]!.sort <= e.sort) lo = mid + 1;
      else hi = mid;
    }
    let listedAlready = false;
    for (let i = lo - 1; i >= 0 && list[i]!.sort === e.sort; i--) if (list[i]!.key === e.key) listedAlready = true;
    for (; from < lo; from++) out.push(list[from]!);
    if (!listedAlready) out.push(e);
  }
  for (; from < list.length; from++) out.push(list[from]!);
  return out;
}

export class SeriesListCache {
  readonly #tables = new Map<number, { key: string; counts: number[]; list: Listed[] }>();

  /**
   * Every series of the table in the view, sorted by series key (read-only: shared between
   * queries). At once when the list is kept (a promise only when it is rebuilt: a rebuild may
   * read index blocks).
   */
  list(view: ReadView, table: TableDef): readonly SeriesInfo[] | Promise<readonly SeriesInfo[]> {
    const key = fingerprint(view, table);
    const counts = seriesCounts(view, table);
    const hit = this.#tables.get(table.id);
    if (hit !== undefined && hit.key === key) {
      if (counts.every((n, i) => n === hit.counts[i])) return hit.list;
      // The same sources, and only the last memtable (the active one) gained series.
      const last = counts.length - 1;
      if (counts.every((n, i) => n === hit.counts[i] || i === last)) {
        const tm = view.memtables[last]!.memtable.tables.get(table.id);
        if (tm !== undefined && counts[last]! > hit.counts[last]!) {
          hit.list = insertAdded(hit.list, memtableAdded(tm, namingOf(table)), tm);
          hit.counts = counts;
          return hit.list;
        }
      }
    }
    return mergedList(view, table, namingOf(table)).then((list) => {
      this.#tables.set(table.id, { key, counts, list });
      return list;
    });
  }

  /** Forgets a table (dropped: its id is never reused, but its memory is). */
  forget(tableId: number): void {
    this.#tables.delete(tableId);
  }
}

/**
 * Rank `i` as `width` characters in U+0001..U+00FF (base 255, most significant first): a string
 * with any character above U+00FF takes V8 two bytes a character, and a span's sort key, ranks
 * once written from U+0100 up, took 320 bytes for 160 characters.
 */
function rankCode(i: number, width: number): string {
  let code = '';
  for (let k = width - 1; k >= 0; k--) code += String.fromCharCode(1 + (Math.floor(i / 255 ** k) % 255));
  return code;
}

/**
 * The naming of a table now. Its sort keys are the canonical series keys made shorter, in the
 * same order: without the table name (every series of a list has it), and with each tag's
 * `,<name>=` written as ',' and the name's rank (rankCode, as wide for every tag of the table)
 * in the order `<name>=` (escaped) compares. At equal prefixes both kinds of key have a
 * separator (or an escaped comma) at the same place, so a rank is only ever compared with a rank,
 * and two names compare where their `<name>=` differ: comparisons come out the same. A sort key
 * lives as long as the list: a span's canonical key, with long OTLP tag names, was 500
 * characters, 200 MB of heap for 393,216 spans after the first query.
 */
export function namingOf(table: TableDef): Naming {
  let key = table.name + '\u0001';
  for (const t of table.tags) key += `${t.id}=${t.name}\u0000`;
  const written = (name: string): string => escapeKeyPart(name) + '=';
  const ranked = [...table.tags].sort((x, y) =>
    written(x.name) < written(y.name) ? -1 : written(x.name) > written(y.name) ? 1 : 0,
  );
  const width = ranked.length <= 255 ? 1 : ranked.length <= 255 * 255 ? 2 : 3;
  const code = new Map(ranked.map((t, i) => [t.id, rankCode(i, width)]));
  const byName = [...table.tags]
    .sort((x, y) => compareBytes(x.name, y.name))
    .map((t) => ({ id: t.id, prefix: ',' + code.get(t.id)! }));
  return {
    key,
    names: new Map(table.tags.map((c) => [c.id, c.name])),
    ids: new Map(table.tags.map((c) => [c.name, c.id])),
    byName,
  };
}

/**
 * Where each value of one tag occurs in a list the cache gave out (positions, ascending), built
 * the second time a query of that list names the tag (`uses`): a table of a span a series gains
 * series with every write during ingest, and so a new list every query, and an index built for
 * a single query costs as much as the test of every series it spares.
 */
interface TagIndex {
  uses: number;
  positions: Map<string, number[]> | undefined;
}

const tagIndexes = new WeakMap<readonly SeriesInfo[], Map<string, TagIndex>>();

/** Lists shorter than this are tested series by series: an index would not pay for itself. */
const INDEX_MIN_SERIES = 256;

function indexTag(list: readonly SeriesInfo[], tag: string): Map<string, number[]> {
  const positions = new Map<string, number[]>();
  for (let i = 0; i < list.length; i++) {
    const v = list[i]!.names.get(tag);
    if (v === undefined) continue;
    const at = positions.get(v);
    if (at === undefined) positions.set(v, [i]);
    else at.push(i);
  }
  return positions;
}

/**
 * The series of `list` (as SeriesListCache.list gave it) that can meet every hint of `tags`
 * (ScanRequest.seriesTags), in list order: from the index of the hinted tag that leaves the
 * fewest, once there is one (TagIndex); else all of `list`. The caller still applies its series
 * filter. A trace looked up by id among 393,216 spans tested every series: 270 ms a query.
 */
export function seriesWithTags(
  list: readonly SeriesInfo[],
  tags: readonly TagValues[] | undefined,
): readonly SeriesInfo[] {
  if (tags === undefined || tags.length === 0 || list.length < INDEX_MIN_SERIES) return list;
  let byTag = tagIndexes.get(list);
  if (byTag === undefined) tagIndexes.set(list, (byTag = new Map()));
  let best: number[][] | undefined;
  let bestCount = Infinity;
  for (const { tag, values } of tags) {
    let index = byTag.get(tag);
    if (index === undefined) byTag.set(tag, (index = { uses: 0, positions: undefined }));
    if (index.positions === undefined && ++index.uses >= 2) index.positions = indexTag(list, tag);
    if (index.positions === undefined) continue;
    const runs: number[][] = [];
    let count = 0;
    for (const v of values.length === 1 ? values : new Set(values)) {
      const at = index.positions.get(v);
      if (at === undefined) continue;
      runs.push(at);
      count += at.length;
    }
    if (count < bestCount) {
      best = runs;
      bestCount = count;
    }
  }
  if (best === undefined) return list;
  const at = best.length === 1 ? best[0]! : best.flat().sort((x, y) => x - y);
  const out: SeriesInfo[] = [];
  for (const i of at) out.push(list[i]!);
  return out;
}
