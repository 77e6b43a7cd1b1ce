// The storage read path over one consistent view of a database: segments (oldest first), frozen
// memtables being flushed, the active memtable. Per series it lists "pieces" (a segment row
// group, or a memtable's rows) pruned by time range, groups pieces whose time ranges overlap
// into clusters, and turns each cluster into sorted rows: a lone piece as it is, overlapping
// pieces merged with the newer source winning field by field. Tombstones hide rows of pieces
// older than the delete (FORMAT.md §6). Series are pruned by the tag filter before any block is
// read, segments and blocks by their time bounds.

import type { ChunkColumn, FieldStats, ScanRequest, SeriesChunk, StatsOrChunk, StatsRequest } from '../../core/scan.js';
import { seriesWithTags } from './series-list.js';
import { floorDiv } from '../../core/precision.js';
import { seriesKey, type SeriesTags } from '../../core/series-key.js';
import type { TableDef } from '../../meta/index.js';
import { bounds, type Bounds, type ReadView, type SeriesInfo } from './read-view.js';
import type { RowGroup, SegmentReader, SegmentSeries } from '../segment/index.js';
import { applicable, applyTombstones, mergeRows, tableTombstones, type TableTombstones } from './series-merge.js';
import { sliceByTime, sliceRows, type SeriesRows } from '../series/index.js';

/**
 * Both kinds of piece are built with every key in the same order (the absent one undefined), so
 * that they share one hidden class: with two, V8 compiled the per-series loops for the kinds the
 * warm-up saw and threw that code away on a server's first queries (more segments, frozen
 * memtables), which then ran unoptimized.
 */
interface Piece {
  /** Age of the source: a higher rank wins a duplicate timestamp. */
  rank: number;
  cleanLsn: number;
  minTs: bigint;
  maxTs: bigint;
  rows: SeriesRows | undefined;
  segment: { reader: SegmentReader; entry: SegmentSeries; group: RowGroup } | undefined;
}

const overlaps = (minTs: bigint, maxTs: bigint, b: Bounds): boolean =>
  (b.lo === undefined || maxTs >= b.lo) && (b.hi === undefined || minTs <= b.hi);

/**
 * The series of a table with data in the bounds (by the sources' time bounds), sorted by their
 * canonical key (table name and tags by name), and passing `filter`.
 */
export async function listSeries(
  view: ReadView,
  table: TableDef,
  b: Bounds,
  filter?: (tags: ReadonlyMap<string, string>) => boolean,
): Promise<SeriesInfo[]> {
  const found = new Map<string, SeriesTags>();
  for (const seg of view.segments) {
    if (!overlaps(seg.meta.minTs, seg.meta.maxTs, b)) continue;
    for (const e of await seg.tableSeries(table.id))
      if (overlaps(e.minTs, e.maxTs, b) && !found.has(e.key)) found.set(e.key, e.tags);
  }
  for (const { memtable } of view.memtables) {
    for (const s of memtable.tables.get(table.id)?.series.values() ?? []) {
      if (s.length > 0 && overlaps(s.minTs, s.maxTs, b) && !found.has(s.key)) found.set(s.key, s.tags);
    }
  }
  const tagNames = new Map(table.tags.map((c) => [c.id, c.name]));
  const out: Array<SeriesInfo & { sort: string }> = [];
  for (const [key, tags] of found) {
    const names = new Map<string, string>();
    for (const [id, v] of tags) {
      const n = tagNames.get(id);
      if (n !== undefined) names.set(n, v);
    }
    if (filter !== undefined && !filter(names)) continue;
    out.push({ key, names, sort: seriesKey(table.name, [...names]) });
  }
  out.sort((x, y) => (x.sort < y.sort ? -1 : x.sort > y.sort ? 1 : 0));
  return out;
}

/** Per segment of a view, its series of one table by key (undefined: look them up one by one). */
type SegmentEntries = ReadonlyArray<ReadonlyMap<string, SegmentSeries> | undefined>;

/**
 * A scan of this many series or more reads each v4 file's series of the table in one pass
 * (index blocks in order, each decoded once) instead of looking each series up: the series list
 * is in canonical key order (tag names), the index blocks in internal key order (tag ids), so
 * consecutive lookups jump between blocks, and once the index cache holds less than the table,
 * each lookup decoded a block again (120,000 series over five files behind a 1 MiB cache: 17 s
 * for 32,000 series). The maps live as long as the scan.
 */
const BULK_SERIES = 512;

async function bulkEntries(
  view: ReadView,
  tableId: number,
  b: Bounds,
  count: number,
): Promise<SegmentEntries | undefined> {
  if (count < BULK_SERIES) return undefined;
  const out: Array<Map<string, SegmentSeries> | undefined> = [];
  for (const reader of view.segments) {
    if (reader.version < 4 || !overlaps(reader.meta.minTs, reader.meta.maxTs, b) || reader.seriesCount(tableId) === 0) {
      out.push(undefined);
      continue;
    }
    const m = new Map<string, SegmentSeries>();
    for (const e of await reader.tableSeries(tableId, false)) m.set(e.key, e);
    out.push(m);
  }
  return out;
}

/**
 * The pieces of one series within the bounds, oldest source first; memtable rows with the
 * columns `columnIds` (at least). A promise only when an index block must be read first (a v4
 * file's block not in the index cache): the common case stays without a turn of the event loop.
 */
function pieces(
  view: ReadView,
  tableId: number,
  key: string,
  b: Bounds,
  columnIds: readonly number[],
  byKey?: SegmentEntries,
): Piece[] | Promise<Piece[]> {
  let entries: Array<SegmentSeries | undefined> | undefined;
  let pending: Array<Promise<void>> | undefined;
  for (let i = 0; i < view.segments.length; i++) {
    const reader = view.segments[i]!;
    if (!overlaps(reader.meta.minTs, reader.meta.maxTs, b)) continue;
    const map = byKey?.[i];
    const e = map !== undefined ? map.get(key) : reader.lookup(tableId, key);
    if (e === undefined) continue;
    entries ??= new Array<SegmentSeries | undefined>(view.segments.length);
    if (e instanceof Promise) {
      (pending ??= []).push(e.then((got) => void (entries![i] = got)));
    } else {
      entries[i] = e;
    }
  }
  if (pending !== undefined)
    return Promise.all(pending).then(() => piecesOf(view, entries, tableId, key, b, columnIds));
  return piecesOf(view, entries, tableId, key, b, columnIds);
}

function piecesOf(
  view: ReadView,
  entries: ReadonlyArray<SegmentSeries | undefined> | undefined,
  tableId: number,
  key: string,
  b: Bounds,
  columnIds: readonly number[],
): Piece[] {
  const out: Piece[] = [];
  let rank = 0;
  for (let i = 0; i < view.segments.length; i++) {
    const reader = view.segments[i]!;
    rank++;
    const entry = entries?.[i];
    if (entry === undefined || !overlaps(entry.minTs, entry.maxTs, b)) continue;
    for (const group of entry.groups) {
      if (!overlaps(group.minTs, group.maxTs, b)) continue;
      out.push({
        rank,
        cleanLsn: reader.meta.cleanLsn,
        minTs: group.minTs,
        maxTs: group.maxTs,
        rows: undefined,
        segment: { reader, entry, group },
      });
    }
  }
  for (const { memtable, cleanLsn } of view.memtables) {
    rank++;
    const s = memtable.tables.get(tableId)?.series.get(key);
    if (s === undefined || s.length === 0 || !overlaps(s.minTs, s.maxTs, b)) continue;
    const rows = s.snapshot(columnIds);
    out.push({ rank, cleanLsn, minTs: rows.ts[0]!, maxTs: rows.ts[rows.length - 1]!, rows, segment: undefined });
  }
  return out;
}

/** Groups pieces with overlapping time ranges; clusters in time order, pieces oldest first. */
function clusters(list: Piece[]): Piece[][] {
  const sorted = [...list].sort((a, b) => (a.minTs < b.minTs ? -1 : a.minTs > b.minTs ? 1 : a.rank - b.rank));
  const out: Piece[][] = [];
  let cur: Piece[] = [];
  let curMax = 0n;
  for (const p of sorted) {
    if (cur.length > 0 && p.minTs > curMax) {
      out.push(cur);
      cur = [];
    }
    if (cur.length === 0 || p.maxTs > curMax) curMax = p.maxTs;
    cur.push(p);
  }
  if (cur.length > 0) out.push(cur);
  for (const c of out) c.sort((a, b) => a.rank - b.rank);
  return out;
}

async function load(p: Piece, columnIds: readonly number[]): Promise<SeriesRows> {
  if (p.rows !== undefined) return p.rows;
  const { reader, entry, group } = p.segment!;
  return reader.readRows(entry, group, columnIds);
}

/** Sorted, deduplicated rows of one cluster within the bounds, tombstones applied. */
async function materialize(
  cluster: readonly Piece[],
  key: string,
  columnIds: readonly number[],
  b: Bounds,
  tombs: readonly TableTombstones[],
): Promise<SeriesRows> {
  const parts: SeriesRows[] = [];
  for (const p of cluster) {
    let rows = sliceByTime(await load(p, columnIds), b.lo, b.hi);
    rows = applyTombstones(rows, applicable(tombs, key, p.cleanLsn, p.minTs, p.maxTs));
    parts.push(rows);
  }
  return parts.length === 1 ? parts[0]! : mergeRows(parts, columnIds);
}

/** A chunk whose arrays hold exactly its rows (memtable arrays are longer than their rows). */
function toChunk(
  rows: SeriesRows,
  tags: ReadonlyMap<string, string>,
  fields: ReadonlyArray<readonly [number, string]>,
): SeriesChunk {
  const n = rows.length;
  const out = new Map<string, ChunkColumn>();
  for (const [id, name] of fields) {
    const c = rows.columns.get(id);
    if (c === undefined) continue;
    const values =
      c.values.length === n ? c.values : Array.isArray(c.values) ? c.values.slice(0, n) : c.values.subarray(0, n);
    out.set(name, {
      values,
      validity: c.validity === undefined || c.validity.length === n ? c.validity : c.validity.subarray(0, n),
    });
  }
  return { tags, length: n, time: rows.ts.length === n ? rows.ts : rows.ts.subarray(0, n), fields: out };
}

/** [column id, name] of the requested fields that exist (unknown names are NULL throughout). */
function requestedFields(table: TableDef, names: readonly string[]): Array<[number, string]> {
  const out: Array<[number, string]> = [];
  for (const n of names) {
    const c = table.fields.find((f) => f.name === n);
    if (c !== undefined) out.push([c.id, n]);
  }
  return out;
}

/** [column id, min, max] of the value bounds; undefined when some bound names no column (no row can match). */
function valueBounds(
  table: TableDef,
  request: ScanRequest,
): Array<[number, number | bigint | undefined, number | bigint | undefined]> | undefined {
  const out: Array<[number, number | bigint | undefined, number | bigint | undefined]> = [];
  for (const v of request.valueBounds ?? []) {
    const c = table.fields.find((f) => f.name === v.field);
    if (c === undefined) return undefined;
    out.push([c.id, v.min, v.max]);
  }
  return out;
}

/**
 * A lone stored block none of whose rows can meet the value bounds, by its statistics (for a
 * share of a pack, the pack's: bounds of the series' values, so the test stays sound).
 */
function excluded(
  p: Piece,
  vb: ReadonlyArray<[number, number | bigint | undefined, number | bigint | undefined]>,
): boolean {
  if (p.segment === undefined || vb.length === 0) return false;
  const { entry, group } = p.segment;
  for (const [id, min, max] of vb) {
    const i = entry.columns.findIndex((c) => c.id === id);
    const st = i < 0 ? undefined : group.columns[i]!.stats;
    if (st === undefined || st.count === 0) return true; // NULL throughout
    if (st.min === undefined || st.max === undefined) continue;
    if ((min !== undefined && st.max < min) || (max !== undefined && st.min > max)) return true;
  }
  return false;
}

/** The series to scan: from `listed` (every series of the view, series-list.ts) when given. */
async function seriesOf(
  view: ReadView,
  table: TableDef,
  b: Bounds,
  request: ScanRequest,
  listed: readonly SeriesInfo[] | undefined,
): Promise<readonly SeriesInfo[]> {
  const filter = request.seriesFilter;
  if (listed === undefined) return listSeries(view, table, b, filter);
  return filter === undefined ? listed : seriesWithTags(listed, request.seriesTags).filter((s) => filter(s.names));
}

export async function* scanTable(
  view: ReadView,
  table: TableDef,
  request: ScanRequest,
  listed?: readonly SeriesInfo[],
): AsyncGenerator<SeriesChunk> {
  const b = bounds(view, request.minTime, request.maxTime);
  if (b.lo !== undefined && b.hi !== undefined && b.lo > b.hi) return;
  const vb = valueBounds(table, request);
  if (vb === undefined) return;
  const fields = requestedFields(table, request.fields);
  const ids = fields.map(([id]) => id);
  const tombs = tableTombstones(view.tombstones, table.id);
  const series = await seriesOf(view, table, b, request, listed);
  const byKey = await bulkEntries(view, table.id, b, series.length);
  for (const s of series) {
    let ps = pieces(view, table.id, s.key, b, ids, byKey);
    if (ps instanceof Promise) ps = await ps;
    for (const c of clusters(ps)) {
      // Only a lone block's statistics describe the rows a merge would produce.
      if (c.length === 1 && excluded(c[0]!, vb)) continue;
      const rows = await materialize(c, s.key, ids, b, tombs);
      if (rows.length > 0) yield toChunk(rows, s.names, fields);
    }
  }
}

/**
 * Every stored row of a table within the bounds, merged and with tombstones applied, as runs of
 * one series each: series in internal key order (the order a segment file lists them in), a
 * series' runs (its clusters) in time order. Every field column is read. The export route
 * (storage/export.ts) writes these into segment files, a run at a time, in bounded memory.
 */
export async function* tableRuns(
  view: ReadView,
  table: TableDef,
  minTime: bigint | undefined,
  maxTime: bigint | undefined,
): AsyncGenerator<{ key: string; rows: SeriesRows }> {
  const b = bounds(view, minTime, maxTime);
  if (b.lo !== undefined && b.hi !== undefined && b.lo > b.hi) return;
  const ids = table.fields.map((f) => f.id);
  const tombs = tableTombstones(view.tombstones, table.id);
  const keys = (await listSeries(view, table, b)).map((s) => s.key);
  keys.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  for (const key of keys) {
    for (const c of clusters(await pieces(view, table.id, key, b, ids))) {
      const rows = await materialize(c, key, ids, b, tombs);
      if (rows.length > 0) yield { key, rows };
    }
  }
}

/** The statistics of a field a run of rows lacks (shared: consumers only read statistics). */
const NO_VALUES: FieldStats = { count: 0, min: undefined, max: undefined, sum: undefined };

/** Items of a stats scan handed out at once: a yield through the async generators costs more than folding a run's statistics. */
const STATS_BATCH = 256;

/**
 * Statistics for whole blocks (or pages of them) that need no merge, no tombstone and lie within
 * the range (and one bucket); rows otherwise. Items come in batches, in time order per series.
 */
export async function* scanTableStats(
  view: ReadView,
  table: TableDef,
  request: StatsRequest,
  listed?: readonly SeriesInfo[],
): AsyncGenerator<StatsOrChunk[]> {
  const b = bounds(view, request.minTime, request.maxTime);
  if (b.lo !== undefined && b.hi !== undefined && b.lo > b.hi) return;
  const fields = requestedFields(table, request.fields);
  const ids = fields.map(([id]) => id);
  const tombs = tableTombstones(view.tombstones, table.id);
  const bucketOf = (t: bigint): bigint | undefined =>
    request.bucket === undefined ? undefined : floorDiv(t - request.bucket.origin, request.bucket.width);
  let out: StatsOrChunk[] = [];
  const series = await seriesOf(view, table, b, request, listed);
  const byKey = await bulkEntries(view, table.id, b, series.length);
  for (const s of series) {
    let ps = pieces(view, table.id, s.key, b, ids, byKey);
    if (ps instanceof Promise) ps = await ps;
    for (const c of clusters(ps)) {
      const p = c[0]!;
      const alone =
        c.length === 1 &&
        p.segment !== undefined &&
        applicable(tombs, s.key, p.cleanLsn, p.minTs, p.maxTs).length === 0;
      // A share of a pack: the block statistics are the pack's, not the series'. Its row count
      // and time bounds are its own, which is all a request without fields (count(*)) reads: a
      // span table's series are nearly all such shares, and reading each one's rows to count them
      // was most of a count(*) of spans.
      const lone = alone && p.segment!.group.pack === undefined;
      const counted = lone || (alone && request.fields.length === 0);
      if (
        counted &&
        (b.lo === undefined || p.minTs >= b.lo) &&
        (b.hi === undefined || p.maxTs <= b.hi) &&
        bucketOf(p.minTs) === bucketOf(p.maxTs)
      ) {
        const { entry, group } = p.segment!;
        const stats = new Map<string, FieldStats>();
        for (const name of request.fields) stats.set(name, NO_VALUES);
        for (const [id, name] of fields) {
          const i = entry.columns.findIndex((col) => col.id === id);
          if (i >= 0) stats.set(name, { ...group.columns[i]!.stats });
        }
        out.push({
          kind: 'stats',
          stats: { tags: s.names, rows: group.rows, minTime: group.minTs, maxTime: group.maxTs, fields: stats },
        });
      } else if (
        !(
          lone &&
          p.segment!.group.pages !== undefined &&
          (await pageItems(p.segment!, s, request, fields, ids, b, out))
        )
      ) {
        const rows = await materialize(c, s.key, ids, b, tombs);
        if (rows.length > 0) out.push({ kind: 'chunk', chunk: toChunk(rows, s.names, fields) });
      }
      // Rows go out at once (a chunk holds up to a group of decoded rows); statistics in batches.
      if (out.length >= STATS_BATCH || (out.length > 0 && out[out.length - 1]!.kind === 'chunk')) {
        yield out;
        out = [];
      }
    }
  }
  if (out.length > 0) yield out;
}

/**
 * A lone stored group cut by its pages (page-stats.ts): statistics for each page inside the
 * bounds (and so inside one bucket, when the bucket width is a multiple of the page width on the
 * same grid), rows for the rest of the group within the bounds, pushed to `out`. False (and
 * nothing pushed) when the pages do not fit the buckets or none lies inside the bounds.
 */
async function pageItems(
  seg: NonNullable<Piece['segment']>,
  s: SeriesInfo,
  request: StatsRequest,
  fields: ReadonlyArray<readonly [number, string]>,
  ids: readonly number[],
  b: Bounds,
  out: StatsOrChunk[],
): Promise<boolean> {
  const { reader, entry, group } = seg;
  const pages = await reader.readPages(group, entry.columns.length);
  if (pages === undefined) return false;
  const w = pages.width;
  if (request.bucket !== undefined && (request.bucket.width % w !== 0n || request.bucket.origin % w !== 0n))
    return false;
  // The listed pages wholly inside the bounds: page numbers (relative to the first) in
  // [loPage, hiPage], compared as numbers (a group holds at most BLOCK_ROWS / MIN_PAGE_ROWS pages).
  const loPage = b.lo === undefined ? -Infinity : Number(-floorDiv(-b.lo, w) - pages.first);
  const hiPage = b.hi === undefined ? Infinity : Number(floorDiv(b.hi + 1n, w) - 1n - pages.first);
  let firstUsed = -1;
  let lastUsed = -1;
  for (let i = 0; i < pages.count; i++) {
    const k = pages.page[i]!;
    if (k >= loPage && k <= hiPage) {
      if (firstUsed < 0) firstUsed = i;
      lastUsed = i;
    }
  }
  if (firstUsed < 0) return false;
  const from = firstUsed === 0 ? 0 : pages.rowEnd[firstUsed - 1]!;
  const to = pages.rowEnd[lastUsed]!;
  // The group's rows outside the pages used are read only when some may lie within the bounds:
  // the page before the first used (after the last used) reaches into them. Bounds on page
  // boundaries (a dashboard's whole hours) need none. No tombstone applies: a lone piece.
  const before = firstUsed > 0 && (pages.first + BigInt(pages.page[firstUsed - 1]!) + 1n) * w - 1n >= b.lo!;
  const after = lastUsed < pages.count - 1 && (pages.first + BigInt(pages.page[lastUsed + 1]!)) * w <= b.hi!;
  const rest = before || after ? await reader.readRows(entry, group, ids) : undefined;
  const restChunk = (lo: number, hi: number): void => {
    const rows = sliceByTime(sliceRows(rest!, lo, hi), b.lo, b.hi);
    if (rows.length > 0) out.push({ kind: 'chunk', chunk: toChunk(rows, s.names, fields) });
  };
  if (before) restChunk(0, from);
  const columns = fields.map(([id, name]) => [entry.columns.findIndex((col) => col.id === id), name] as const);
  for (let i = firstUsed, lo = from; i <= lastUsed; lo = pages.rowEnd[i]!, i++) {
    const start = (pages.first + BigInt(pages.page[i]!)) * w;
    const stats = new Map<string, FieldStats>();
    for (const name of request.fields) stats.set(name, NO_VALUES);
    for (const [ci, name] of columns) if (ci >= 0) stats.set(name, pages.stats(ci, i, entry.columns[ci]!.type));
    const minTime = start > group.minTs ? start : group.minTs;
    const maxTime = start + w - 1n < group.maxTs ? start + w - 1n : group.maxTs;
    out.push({ kind: 'stats', stats: { tags: s.names, rows: pages.rowEnd[i]! - lo, minTime, maxTime, fields: stats } });
  }
  if (after) restChunk(to, group.rows);
  return true;
}

/**
 * The newest present value of each of `columnIds` in one series, reading clusters from the
 * newest back until every column is found (or the data ends). Values are [time, value].
 */
export async function lastValues(
  view: ReadView,
  table: TableDef,
  series: SeriesInfo,
  columnIds: readonly number[],
): Promise<Map<number, [bigint, unknown] | null>> {
  const b = bounds(view);
  const tombs = tableTombstones(view.tombstones, table.id);
  const out = new Map<number, [bigint, unknown] | null>();
  const missing = new Set(columnIds);
  const list = clusters(await pieces(view, table.id, series.key, b, columnIds));
  for (let ci = list.length - 1; ci >= 0 && missing.size > 0; ci--) {
    const rows = await materialize(list[ci]!, series.key, [...missing], b, tombs);
    for (const id of [...missing]) {
      const c = rows.columns.get(id);
      if (c === undefined) continue;
      for (let i = rows.length - 1; i >= 0; i--) {
        if (c.validity !== undefined && c.validity[i] === 0) continue;
        out.set(id, [rows.ts[i]!, c.values[i]]);
        missing.delete(id);
        break;
      }
    }
  }
  for (const id of missing) out.set(id, null);
  return out;
}
