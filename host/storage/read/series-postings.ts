// The series of a table that can meet a read's tag hints (ScanRequest.seriesTags: `tag = 'v'`,
// `tag IN (...)`; seriesTagTests: any test of one tag's value), found through the postings of v4
// segment files (FORMAT.md §5.3): per file, the hinted values' sorted lists of series ordinals are
// united per tag and intersected across tags, and only the series left are read from the index
// blocks. Older files and memtables are walked and tested series by series. The result is what
// the table's whole series list (series-list.ts) narrowed by the hints would be, in the same
// order, without building that list: a trace looked up among ten million spans reads a postings
// block and one index block per file, not every series.

import type { TagTest, TagValues } from '../../core/scan.js';
import type { SeriesTags } from '../../core/series-key.js';
import type { TableDef } from '../../meta/index.js';
import type { ReadView, SeriesInfo } from './read-view.js';
import { bySort, listed, namingOf, type Listed } from './series-list.js';

/** A hint resolved to a tag column id: the values it allows, or a test of a value. */
interface Hint {
  id: number;
  values: ReadonlySet<string> | undefined;
  test: ((value: string) => boolean) | undefined;
}

function hintsOf(
  table: TableDef,
  tags: readonly TagValues[] | undefined,
  tests: readonly TagTest[] | undefined,
): Hint[] | undefined {
  const ids = new Map(table.tags.map((c) => [c.name, c.id]));
  const out: Hint[] = [];
  for (const { tag, values } of tags ?? []) {
    const id = ids.get(tag);
    if (id === undefined) return undefined;
    out.push({ id, values: new Set(values), test: undefined });
  }
  for (const { tag, test } of tests ?? []) {
    const id = ids.get(tag);
    if (id === undefined) return undefined;
    out.push({ id, values: undefined, test });
  }
  return out;
}

const allows = (h: Hint, value: string): boolean => (h.values !== undefined ? h.values.has(value) : h.test!(value));

/** Whether a series' tags (by id) meet every hint (a tag it lacks meets none). */
function meets(hints: readonly Hint[], tags: SeriesTags): boolean {
  for (const h of hints) {
    let ok = false;
    for (const [id, v] of tags) {
      if (id !== h.id) continue;
      ok = allows(h, v);
      break;
    }
    if (!ok) return false;
  }
  return true;
}

/** Sorted lists of ordinals as one sorted list without repeats. */
export function unite(lists: readonly Uint32Array[]): Uint32Array {
  if (lists.length === 0) return new Uint32Array(0);
  if (lists.length === 1) return lists[0]!;
  let n = 0;
  for (const l of lists) n += l.length;
  const all = new Uint32Array(n);
  let p = 0;
  for (const l of lists) {
    all.set(l, p);
    p += l.length;
  }
  all.sort();
  let k = 0;
  for (let i = 0; i < all.length; i++) if (k === 0 || all[i] !== all[k - 1]) all[k++] = all[i]!;
  return all.subarray(0, k);
}

/** The ordinals in both sorted lists. */
export function intersect(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out = new Uint32Array(Math.min(a.length, b.length));
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) {
    if (a[i]! < b[j]!) i++;
    else if (a[i]! > b[j]!) j++;
    else {
      out[k++] = a[i]!;
      i++;
      j++;
    }
  }
  return out.subarray(0, k);
}

/**
 * The series of the view's table that have every hinted tag with an allowed value, sorted as
 * SeriesListCache.list sorts (a superset of what the read's series filter keeps; the caller
 * still applies it). Undefined when a hint names no tag of the table: then no series can meet it.
 */
export async function seriesByPostings(
  view: ReadView,
  table: TableDef,
  tags: readonly TagValues[] | undefined,
  tests: readonly TagTest[] | undefined,
): Promise<SeriesInfo[]> {
  const hints = hintsOf(table, tags, tests);
  if (hints === undefined) return [];
  const naming = namingOf(table);
  const seen = new Set<string>();
  const out: Listed[] = [];
  const add = (key: string, t: SeriesTags): void => {
    if (seen.has(key)) return;
    seen.add(key);
    out.push(listed(naming, key, t));
  };
  for (const seg of view.segments) {
    if (seg.version < 4) {
      for (const e of await seg.tableSeries(table.id)) if (!seen.has(e.key) && meets(hints, e.tags)) add(e.key, e.tags);
      continue;
    }
    let ordinals: Uint32Array | undefined;
    for (const h of hints) {
      const values = await seg.postings(table.id, h.id);
      const lists: Uint32Array[] = [];
      if (values !== undefined) {
        if (h.values !== undefined) {
          for (const v of h.values) {
            const l = values.get(v);
            if (l !== undefined) lists.push(l);
          }
        } else {
          for (let i = 0; i < values.size; i++) if (h.test!(values.values[i]!)) lists.push(values.at(i));
        }
      }
      const united = unite(lists);
      ordinals = ordinals === undefined ? united : intersect(ordinals, united);
      if (ordinals.length === 0) break;
    }
    if (ordinals === undefined || ordinals.length === 0) continue;
    for (const e of await seg.seriesAt(table.id, ordinals)) add(e.key, e.tags);
  }
  for (const { memtable } of view.memtables) {
    const tm = memtable.tables.get(table.id);
    if (tm === undefined) continue;
    for (const sb of tm.series.values())
      if (sb.length > 0 && !seen.has(sb.key) && meets(hints, sb.tags)) add(sb.key, sb.tags);
  }
  // Stable: among equal sort keys (series that differ only in dropped tags) in source order, as
  // the merged list has them.
  return out.sort(bySort);
}
