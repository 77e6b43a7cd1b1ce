// Tag-value hints (ScanRequest.seriesTags): a kept series list narrowed by an index of a tag's
// values (series-list.ts seriesWithTags), built the second time a query of the same list names
// the tag; and scans and last points that give with hints exactly what the filter alone gives.

import { afterEach, describe, expect, it } from 'vitest';
import type { TagValues } from '../../../host/core/scan.js';
import type { SeriesInfo } from '../../../host/storage/read/read-view.js';
import { seriesWithTags } from '../../../host/storage/read/series-list.js';
import { mulberry32 } from '../../support/rng.js';
import { batch, dbl, dump, openStore, type Row, type TestStore } from '../support.js';

let store: TestStore | undefined;
afterEach(async () => {
  await store?.cleanup();
  store = undefined;
});

/** Series h0.. in list order; rack r(i % 7), absent for every eleventh. */
function fakeList(n: number): SeriesInfo[] {
  const out: SeriesInfo[] = [];
  for (let i = 0; i < n; i++) {
    const names = new Map([['host', `h${i}`]]);
    if (i % 11 !== 0) names.set('rack', `r${i % 7}`);
    out.push({ key: `k${i}`, names } as unknown as SeriesInfo);
  }
  return out;
}

const hosts = (list: readonly SeriesInfo[]): string[] => list.map((s) => s.names.get('host')!);

describe('seriesWithTags', () => {
  it('tests every series at the first query of a list and uses the index from the second, in list order', () => {
    const list = fakeList(300);
    const rack3: TagValues[] = [{ tag: 'rack', values: ['r3'] }];
    expect(seriesWithTags(list, rack3)).toBe(list);
    const want = list.filter((s) => s.names.get('rack') === 'r3');
    expect(seriesWithTags(list, rack3)).toEqual(want);
    expect(hosts(seriesWithTags(list, rack3))).toEqual(hosts(want));
    // Several values: list order, not the order of the values.
    const inList = seriesWithTags(list, [{ tag: 'rack', values: ['r5', 'nope', 'r1'] }]);
    expect(hosts(inList)).toEqual(hosts(list.filter((s) => ['r1', 'r5'].includes(s.names.get('rack') ?? ''))));
    expect(seriesWithTags(list, [{ tag: 'rack', values: ['nope'] }])).toEqual([]);
    expect(seriesWithTags(list, [{ tag: 'rack', values: ['r3', 'r3'] }])).toEqual(want);
  });

  it('takes the hinted tag that leaves the fewest series, once its index is built', () => {
    const list = fakeList(300);
    const both: TagValues[] = [
      { tag: 'rack', values: ['r5'] },
      { tag: 'host', values: ['h12'] },
    ];
    seriesWithTags(list, both);
    expect(hosts(seriesWithTags(list, both))).toEqual(['h12']);
    // h12 is in rack r5; the caller's filter, not the hint, rules out what the other hint would.
    expect(
      hosts(
        seriesWithTags(list, [
          { tag: 'rack', values: ['r0'] },
          { tag: 'host', values: ['h12'] },
        ]),
      ),
    ).toEqual(['h12']);
  });

  it('keeps no index for a short list, and none across lists', () => {
    const short = fakeList(255);
    const hint: TagValues[] = [{ tag: 'rack', values: ['r3'] }];
    for (let i = 0; i < 3; i++) expect(seriesWithTags(short, hint)).toBe(short);
    const list = fakeList(300);
    seriesWithTags(list, hint);
    const next = [...list, ...fakeList(301).slice(300)];
    expect(seriesWithTags(next, hint)).toBe(next);
    expect(seriesWithTags(next, hint)).toHaveLength(list.filter((s) => s.names.get('rack') === 'r3').length);
    expect(seriesWithTags(list, undefined)).toBe(list);
  });
});

describe('scans with tag-value hints', () => {
  const row = (host: string, rack: string | undefined, t: bigint, v: number): Row => [
    'm',
    rack === undefined
      ? [['host', host]]
      : [
          ['host', host],
          ['rack', rack],
        ],
    t,
    [dbl('v', v)],
  ];

  for (const seed of [1, 2, 3]) {
    it(`give what the series filter alone gives, through writes, flushes and deletes (seed ${seed})`, async () => {
      store = await openStore();
      const s = store.storage;
      const db = s.catalog.requireDatabase('cnosdb', 'public');
      const r = mulberry32(seed);
      const rackOf = (i: number): string | undefined => (i % 11 === 0 ? undefined : `r${i % 7}`);
      let next = 0;
      let t = 1n;
      const writeSeries = async (n: number): Promise<void> => {
        const rows: Row[] = [];
        for (let i = 0; i < n; i++, next++) rows.push(row(`h${next}`, rackOf(next), t++, next));
        // Some rows of older series too, so that series have rows in several sources.
        for (let i = 0; i < 20 && next > 0; i++) {
          const h = Math.floor(r() * next);
          rows.push(row(`h${h}`, rackOf(h), t++, h));
        }
        await s.write(db, [batch(rows)]);
      };
      await writeSeries(300);
      let checked = 0;
      for (let step = 0; step < 12; step++) {
        const op = r();
        if (op < 0.4) await writeSeries(1 + Math.floor(r() * 40));
        else if (op < 0.7) await s.flushAll(db);
        else {
          const h = `h${Math.floor(r() * next)}`;
          await s.delete(db, 'm', { seriesFilter: (tags) => tags.get('host') === h });
        }
        const racks = [`r${Math.floor(r() * 7)}`, `r${Math.floor(r() * 7)}`];
        const host = `h${Math.floor(r() * next)}`;
        const cases: Array<{ filter: (tags: ReadonlyMap<string, string>) => boolean; tags: TagValues[] }> = [
          { filter: (tags) => tags.get('rack') === racks[0], tags: [{ tag: 'rack', values: [racks[0]!] }] },
          { filter: (tags) => racks.includes(tags.get('rack') ?? ''), tags: [{ tag: 'rack', values: racks }] },
          {
            filter: (tags) => tags.get('host') === host && tags.get('rack') !== undefined,
            tags: [{ tag: 'host', values: [host] }],
          },
          {
            filter: (tags) => tags.get('host') === host && tags.get('rack') === racks[1],
            tags: [
              { tag: 'rack', values: [racks[1]!] },
              { tag: 'host', values: [host] },
            ],
          },
        ];
        for (const c of cases) {
          const want = await dump(s, 'm', { seriesFilter: c.filter });
          const wantLast = (await s.lastPoints(db, 'm', { fields: ['v'], seriesFilter: c.filter })).map((l) =>
            [...l.tags].join(),
          );
          // The first query of a list tests every series; the second builds the index; the third uses it.
          for (let k = 0; k < 3; k++) {
            expect(await dump(s, 'm', { seriesFilter: c.filter, seriesTags: c.tags })).toEqual(want);
            expect(
              (await s.lastPoints(db, 'm', { fields: ['v'], seriesFilter: c.filter, seriesTags: c.tags })).map((l) =>
                [...l.tags].join(),
              ),
            ).toEqual(wantLast);
          }
          checked += want.length;
        }
      }
      expect(checked).toBeGreaterThan(100);
    });
  }
});
