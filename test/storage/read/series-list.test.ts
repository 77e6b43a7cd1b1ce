// The series list kept between queries (series-list.ts): reused while the sources do not
// change, rebuilt when a memtable gains a series, a segment comes or goes or a tag is renamed,
// and scans and last points give what they gave without it across those changes.

import { afterEach, describe, expect, it } from 'vitest';
import type { TableDef } from '../../../host/meta/catalog.js';
import type { Memtable } from '../../../host/storage/memtable/memtable.js';
import { listSeries } from '../../../host/storage/read/read-path.js';
import type { ReadView } from '../../../host/storage/read/read-view.js';
import type { SegmentReader } from '../../../host/storage/segment/segment-reader.js';
import { SeriesListCache } from '../../../host/storage/read/series-list.js';
import { mulberry32 } from '../../support/rng.js';
import { batch, dbl, dump, f64, openStore, type TestStore } from '../support.js';

let store: TestStore | undefined;
afterEach(async () => {
  await store?.cleanup();
  store = undefined;
});

/** A view over one fake memtable with the given series (id key -> tag value of tag id 7). */
function fakeView(series: Array<[string, string]>, segments: number[] = []): ReadView {
  const table = {
    series: new Map(series.map(([key, host]) => [key, { key, tags: [[7, host]], length: 1, minTs: 0n, maxTs: 0n }])),
  };
  const memtable = { tables: new Map([[1, table]]) } as unknown as Memtable;
  return {
    segments: segments.map((fileId) => fakeReader(fileId, [])),
    memtables: [{ memtable, cleanLsn: Infinity }],
    tombstones: [],
    expiredBefore: null,
  };
}

/** A segment reader holding `entries` of table 1 (what the series lists read of one). */
function fakeReader(fileId: number, entries: readonly unknown[]): SegmentReader {
  return {
    fileId,
    meta: { minTs: 0n, maxTs: 0n },
    tableSeries: async (id: number) => (id === 1 ? entries : []),
  } as unknown as SegmentReader;
}

describe('SeriesListCache', () => {
  const table = { id: 1, name: 'm', tags: [{ id: 7, name: 'host' }], fields: [] } as unknown as TableDef;

  it('keeps the list while nothing changes and rebuilds it when a series, a segment or a tag name does', async () => {
    const cache = new SeriesListCache();
    const view = fakeView([
      ['7:1:b', 'b'],
      ['7:1:a', 'a'],
    ]);
    const first = await cache.list(view, table);
    expect(first.map((s) => s.names.get('host'))).toEqual(['a', 'b']);
    expect(await cache.list(view, table)).toBe(first);
    (view.memtables[0]!.memtable.tables.get(1)!.series as Map<string, unknown>).set('7:1:c', {
      key: '7:1:c',
      tags: [[7, 'c']],
      length: 1,
      minTs: 0n,
      maxTs: 0n,
    });
    expect((await cache.list(view, table)).map((s) => s.names.get('host'))).toEqual(['a', 'b', 'c']);
    const withSegment = { ...view, segments: fakeView([], [5]).segments };
    expect(await cache.list(withSegment, table)).not.toBe(await cache.list(view, table));
    const renamed = { ...table, tags: [{ id: 7, name: 'hostname' }] } as unknown as TableDef;
    expect((await cache.list(view, renamed)).map((s) => s.names.get('hostname'))).toEqual(['a', 'b', 'c']);
  });
});

describe('SeriesListCache against listing from scratch', () => {
  // Tags 7 (host), 8 (rack), 10 and 11 are the table's; 9 was dropped: series that differ only
  // in it have the same sort key. Keys are the storage's id keys, so a key always has the same
  // tags. Names and values that the canonical key escapes, or that sort below its separators,
  // check that the list's shorter sort keys order series as the canonical key does.
  const table = {
    id: 1,
    name: 'm',
    tags: [
      { id: 7, name: 'host' },
      { id: 8, name: 'rack' },
      { id: 10, name: 'ho st' },
      { id: 11, name: 'h=' },
    ],
    fields: [],
  } as unknown as TableDef;
  type Entry = { key: string; tags: Array<[number, string]>; length: number; minTs: bigint; maxTs: bigint };
  const tricky = ['', 'h', 'h!', 'h,', 'h=', 'h\\', 'h ', 'h1', 'é', 'h,x'];
  const entry = (r: () => number): Entry => {
    const pick = (): string => (r() < 0.5 ? `h${Math.floor(r() * 30)}` : tricky[Math.floor(r() * tricky.length)]!);
    const tags: Array<[number, string]> = [];
    if (r() < 0.9) tags.push([7, pick()]);
    if (r() < 0.5) tags.push([8, `r${Math.floor(r() * 3)}`]);
    if (r() < 0.2) tags.push([9, `x${Math.floor(r() * 2)}`]);
    if (r() < 0.3) tags.push([10, pick()]);
    if (r() < 0.3) tags.push([11, pick()]);
    return {
      key: tags.map(([id, v]) => `${id}:${v.length}:${v}`).join(''),
      tags,
      length: r() < 0.1 ? 0 : 1,
      minTs: 0n,
      maxTs: 0n,
    };
  };

  for (const seed of [1, 2, 3, 4, 5]) {
    it(`gives the same series in the same order through additions, deletes and new sources (seed ${seed})`, async () => {
      const r = mulberry32(seed);
      const cache = new SeriesListCache();
      const segments: SegmentReader[] = [];
      const memtables: Array<Map<string, Entry>> = [new Map()];
      const view = (): ReadView => ({
        segments,
        memtables: memtables.map((series) => ({
          memtable: { tables: new Map([[1, { series }]]) } as unknown as Memtable,
          cleanLsn: Infinity,
        })),
        tombstones: [],
        expiredBefore: null,
      });
      // The memtable objects must stay the same between calls, as the storage's do.
      let v = view();
      let previous: unknown;
      let rebuilt = 0;
      for (let step = 0; step < 60; step++) {
        const op = r();
        if (op < 0.6) {
          const series = memtables.at(-1)!;
          const tm = v.memtables.at(-1)!.memtable.tables.get(1) as unknown as { series: Map<string, Entry> };
          for (let i = Math.floor(r() * 8); i >= 0; i--) {
            const e = entry(r);
            if (!series.has(e.key)) series.set(e.key, e);
          }
          expect(tm.series).toBe(series);
        } else if (op < 0.7) {
          const all = [...memtables.at(-1)!.values()];
          if (all.length > 0) all[Math.floor(r() * all.length)]!.length = 0; // a delete emptied it
        } else if (op < 0.85) {
          // A flush: the memtable becomes a segment; a new memtable starts.
          const entries = [...memtables.pop()!.values()]
            .filter((e) => e.length > 0)
            .sort((a, b) => (a.key < b.key ? -1 : 1));
          segments.push(
            fakeReader(
              step,
              entries.map((e) => ({ ...e })),
            ),
          );
          memtables.push(new Map());
          v = view();
        } else {
          // A frozen memtable next to a new active one.
          memtables.push(new Map());
          v = view();
        }
        // The list changes when a source or a series count does, and is then what listing from
        // scratch gives, except that it may keep series a delete emptied since (scans find no
        // rows for them).
        const got = await cache.list(v, table);
        if (got === previous) continue;
        previous = got;
        rebuilt++;
        const inSegment = new Set(
          (await Promise.all(segments.map((seg) => seg.tableSeries(1)))).flat().map((e) => e.key),
        );
        const live = (key: string): boolean =>
          inSegment.has(key) || memtables.some((m) => (m.get(key)?.length ?? 0) > 0);
        const want = await listSeries(v, table, { lo: undefined, hi: undefined });
        const kept = got.filter((x) => live(x.key));
        expect(kept.map((x) => x.key)).toEqual(want.map((x) => x.key));
        expect(kept.map((x) => [...x.names])).toEqual(want.map((x) => [...x.names]));
      }
      expect(rebuilt).toBeGreaterThan(30);
    });
  }
});

describe('SeriesListCache with more tags than one rank character holds', () => {
  it('orders series as listing from scratch does (ranks two characters wide)', async () => {
    // 300 tags whose names sort in another order than their ids; series of one to three of them.
    const tags = Array.from({ length: 300 }, (_, i) => ({ id: 100 + i, name: `t${(i * 7919) % 300}` }));
    const table = { id: 1, name: 'm', tags, fields: [] } as unknown as TableDef;
    const r = mulberry32(9);
    const values = ['a', 'b', '', 'é', 'h,x', 'h\\'];
    const series = new Map<
      string,
      { key: string; tags: Array<[number, string]>; length: number; minTs: bigint; maxTs: bigint }
    >();
    for (let n = 0; n < 600; n++) {
      const ids = [...new Set(Array.from({ length: 1 + Math.floor(r() * 3) }, () => 100 + Math.floor(r() * 300)))].sort(
        (x, y) => x - y,
      );
      const kv: Array<[number, string]> = ids.map((id) => [id, values[Math.floor(r() * values.length)]!]);
      const key = kv.map(([id, v]) => `${id}:${v.length}:${v}`).join('');
      series.set(key, { key, tags: kv, length: 1, minTs: 0n, maxTs: 0n });
    }
    const view: ReadView = {
      segments: [],
      memtables: [{ memtable: { tables: new Map([[1, { series }]]) } as unknown as Memtable, cleanLsn: Infinity }],
      tombstones: [],
      expiredBefore: null,
    };
    const got = await new SeriesListCache().list(view, table);
    const want = await listSeries(view, table, { lo: undefined, hi: undefined });
    expect(got.map((x) => x.key)).toEqual(want.map((x) => x.key));
    expect(got.length).toBeGreaterThan(500);
  });
});

describe('scans over the kept series list', () => {
  const row = (host: string, t: bigint, v: number): Parameters<typeof batch>[0][number] => [
    'm',
    [['host', host]],
    t,
    [dbl('v', v)],
  ];

  it('see series written after an earlier scan, through flushes and a tag rename', async () => {
    store = await openStore();
    const s = store.storage;
    const db = s.catalog.requireDatabase('cnosdb', 'public');
    await s.write(db, [batch([row('b', 1n, 1), row('a', 2n, 2)])]);
    expect(await dump(s, 'm')).toEqual([`host=a | 2 | v=${f64(2)}`, `host=b | 1 | v=${f64(1)}`]);
    await s.write(db, [batch([row('c', 3n, 3)])]);
    expect((await dump(s, 'm')).map((l) => l.split(' |')[0])).toEqual(['host=a', 'host=b', 'host=c']);
    await s.flushAll(db);
    await s.write(db, [batch([row('0', 4n, 4), row('c', 5n, 5)])]);
    expect((await dump(s, 'm')).map((l) => l.split(' | ').slice(0, 2).join(' '))).toEqual([
      'host=0 4',
      'host=a 2',
      'host=b 1',
      'host=c 3',
      'host=c 5',
    ]);
    await s.alterTable(db, 'm', { kind: 'renameColumn', from: 'host', to: 'node' });
    expect((await dump(s, 'm'))[0]).toBe(`node=0 | 4 | v=${f64(4)}`);
    const last = await s.lastPoints(db, 'm', { fields: ['v'], seriesFilter: (tags) => tags.get('node') !== 'a' });
    expect(last.map((l) => `${l.tags.get('node')}=${l.fields.get('v')!.value}`)).toEqual(['0=4', 'b=1', 'c=5']);
  });

  it('yield nothing for a series whose rows were deleted', async () => {
    store = await openStore();
    const s = store.storage;
    const db = s.catalog.requireDatabase('cnosdb', 'public');
    await s.write(db, [batch([row('a', 1n, 1), row('b', 2n, 2)])]);
    expect(await dump(s, 'm')).toHaveLength(2);
    await s.delete(db, 'm', { seriesFilter: (tags) => tags.get('host') === 'a' });
    expect(await dump(s, 'm')).toEqual([`host=b | 2 | v=${f64(2)}`]);
    expect((await s.lastPoints(db, 'm', { fields: ['v'] })).map((l) => l.tags.get('host'))).toEqual(['b']);
  });
});
