// Tag queries resolved through the postings of v4 segment files (series-postings.ts) against the
// unindexed path (the table's whole series list, tested series by series: seriesIndex 'scan',
// kept for this) and a model, over 120,000 series through seeded writes, flushes, compactions,
// deletes and restarts: every answer (rows, statistics, last points) must be the same.

import { afterEach, describe, expect, it } from 'vitest';
import type { ScanRequest, TagTest, TagValues } from '../../../host/core/scan.js';
import { mulberry32 as rng } from '../../support/rng.js';
import { TableModel } from '../model.js';
import { batch, dbl, dump, openStore, type Row, type TestStore } from '../support.js';

let store: TestStore | undefined;
afterEach(async () => {
  await store?.cleanup();
  store = undefined;
});

const ROUNDS = 5;
const PER_ROUND = 24_000;

type Filter = (tags: ReadonlyMap<string, string>) => boolean;

/** A query: its series filter and the hints a planner would give with it. */
interface Query {
  name: string;
  filter: Filter;
  tags?: TagValues[];
  tests?: TagTest[];
  /** Selects most series: checked at the last round only. */
  broad?: boolean;
}

const hosts = (...n: number[]): string[] => n.map((i) => `h${i}`);
const inSet = (tag: string, values: readonly string[]): Filter => {
  const set = new Set(values);
  return (t) => set.has(t.get(tag) ?? '\u0000');
};
const both =
  (a: Filter, b: Filter): Filter =>
  (t) =>
    a(t) && b(t);
const notEqual = (tag: string, value: string): TagTest => ({ tag, test: (v) => v !== value });
const some = hosts(3, 17, 500, 999, 1001);

const QUERIES: Query[] = [
  { name: "host = 'h17'", filter: inSet('host', ['h17']), tags: [{ tag: 'host', values: ['h17'] }] },
  { name: 'host IN (...)', filter: inSet('host', some), tags: [{ tag: 'host', values: some }] },
  {
    name: "host = 'h42' AND region = 'r2'",
    filter: both(inSet('host', ['h42']), inSet('region', ['r2'])),
    tags: [
      { tag: 'host', values: ['h42'] },
      { tag: 'region', values: ['r2'] },
    ],
  },
  {
    name: "host = 'h43' AND region = 'r2' (none)",
    filter: both(inSet('host', ['h43']), inSet('region', ['r2'])),
    tags: [
      { tag: 'host', values: ['h43'] },
      { tag: 'region', values: ['r2'] },
    ],
  },
  {
    name: "zone = 'z1' AND host IN (...): a tag some series lack",
    filter: both(inSet('zone', ['z1']), inSet('host', hosts(1, 3, 6, 9, 12))),
    tags: [
      { tag: 'zone', values: ['z1'] },
      { tag: 'host', values: hosts(1, 3, 6, 9, 12) },
    ],
  },
  {
    name: "region != 'r1' AND host IN (...)",
    filter: both((t) => t.has('region') && t.get('region') !== 'r1', inSet('host', some)),
    tags: [{ tag: 'host', values: some }],
    tests: [notEqual('region', 'r1')],
  },
  {
    name: "pod ~ '3$' AND host = 'h7' (a regex on a unique tag)",
    filter: (t) => /3$/.test(t.get('pod') ?? '') && t.get('host') === 'h7',
    tags: [{ tag: 'host', values: ['h7'] }],
    tests: [{ tag: 'pod', test: (v) => /3$/.test(v) }],
  },
  {
    name: "zone != 'z0' (most series lack the tag)",
    filter: (t) => t.has('zone') && t.get('zone') !== 'z0',
    tests: [notEqual('zone', 'z0')],
    broad: true,
  },
  {
    name: 'a tag the table does not have',
    filter: (t) => t.get('nosuch') === 'x',
    tags: [{ tag: 'nosuch', values: ['x'] }],
  },
];

function tagsOf(i: number): Array<[string, string]> {
  const tags: Array<[string, string]> = [
    ['host', `h${i % 1000}`],
    ['pod', `pod-${i.toString(36)}`],
    ['region', `r${i % 8}`],
  ];
  if (i % 3 === 0) tags.push(['zone', `z${i % 5}`]);
  return tags;
}

describe('tag queries through the series index', () => {
  it('agree with the unindexed scan and the model over 120,000 series through writes, flushes, compactions, deletes and restarts', async () => {
    const r = rng(7);
    // An index cache smaller than the index: blocks are evicted and read again between and
    // within queries.
    store = await openStore({
      memtableBytes: 1 << 30,
      flushBytes: 1 << 30,
      compactionFanIn: 2,
      indexCacheBytes: 4 << 20,
    });
    const t = store;
    const db = () => t.storage.catalog.requireDatabase('cnosdb', 'public');
    const model = new TableModel('m');
    let next = 0;
    const ops: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // New series, and new rows of some old ones.
      const rows: Row[] = [];
      for (let k = 0; k < PER_ROUND; k++, next++)
        rows.push(['m', tagsOf(next), BigInt(round * 1000 + (next % 7)), [dbl('v', next)]]);
      for (let k = 0; k < 500 && round > 0; k++) {
        const i = Math.floor(r() * next);
        rows.push(['m', tagsOf(i), BigInt(round * 1000 + 500 + k), [dbl('v', -i)]]);
      }
      await t.storage.write(db(), [batch(rows)]);
      model.write(rows);
      const op = round === 0 ? 'flush' : (['flush', 'compact', 'delete', 'restart'] as const)[Math.floor(r() * 4)]!;
      ops.push(op);
      if (op === 'flush') await t.storage.flushAll();
      if (op === 'compact') {
        await t.storage.flushAll();
        await t.storage.compactAll();
      }
      if (op === 'delete') {
        const host = `h${Math.floor(r() * 1000)}`;
        const filter = inSet('host', [host]);
        await t.storage.delete(db(), 'm', { seriesFilter: filter, minTime: 0n, maxTime: BigInt(round * 1000) });
        model.delete(0n, BigInt(round * 1000), filter);
        // The hosts of the queries lose rows too.
        await t.storage.delete(db(), 'm', {
          seriesFilter: inSet('host', ['h17']),
          minTime: BigInt(round * 1000),
          maxTime: BigInt(round * 1000 + 3),
        });
        model.delete(BigInt(round * 1000), BigInt(round * 1000 + 3), inSet('host', ['h17']));
      }
      if (op === 'restart') await t.reopen();
      for (const q of QUERIES) {
        if (q.broad === true && round < ROUNDS - 1) continue;
        const request: Partial<ScanRequest> = {
          fields: ['v'],
          seriesFilter: q.filter,
          seriesTags: q.tags,
          seriesTagTests: q.tests,
        };
        const want = model.dump(['v'], undefined, undefined, q.filter);
        t.storage.seriesIndex = 'postings';
        const indexed = await dump(t.storage, 'm', request);
        t.storage.seriesIndex = 'scan';
        const scanned = await dump(t.storage, 'm', request);
        expect(indexed, `${q.name}, round ${round} (${ops.join(', ')})`).toEqual(scanned);
        expect(indexed, `${q.name}, round ${round} (${ops.join(', ')})`).toEqual(want);
        if (q.broad !== true) expect(want.length, q.name).toBeLessThan(5000);
        // Statistics (count(*)) and last points go through the same series.
        const counts: number[] = [];
        const lasts: string[][] = [];
        for (const mode of ['postings', 'scan'] as const) {
          t.storage.seriesIndex = mode;
          let n = 0;
          for await (const items of t.storage.scanStats(db(), 'm', {
            fields: [],
            seriesFilter: q.filter,
            seriesTags: q.tags,
            seriesTagTests: q.tests,
          })) {
            for (const item of items) n += item.kind === 'stats' ? item.stats.rows : item.chunk.length;
          }
          counts.push(n);
          const last = await t.storage.lastPoints(db(), 'm', {
            fields: ['v'],
            seriesFilter: q.filter,
            seriesTags: q.tags,
            seriesTagTests: q.tests,
          });
          lasts.push(last.map((s) => `${[...s.tags].join(';')} ${s.fields.get('v')?.time}`));
        }
        expect(counts).toEqual([want.length, want.length]);
        expect(lasts[0]).toEqual(lasts[1]);
      }
    }
    expect(next).toBeGreaterThanOrEqual(100_000);
    // The queries found their series: not every answer was empty.
    expect(model.dump(['v'], undefined, undefined, QUERIES[1]!.filter).length).toBeGreaterThan(100);
  }, 600_000);
});
