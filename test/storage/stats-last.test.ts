// Aggregates from block statistics and the per-series last point: both must give what a plain
// scan gives, whatever mix of files, memtables, overlaps, deletes and bucket boundaries lies
// underneath; whole blocks inside a range must be answered without decoding anything. Also the
// memory bound: writes past the memtable limit get 429 until flushes catch up.

import { afterEach, describe, expect, it } from 'vitest';
import { UserError } from '../../host/core/errors.js';
import type { SeriesChunk, StatsRequest } from '../../host/core/scan.js';
import type { Storage } from '../../host/storage/storage.js';
import { DEFAULT_DATABASE_OPTIONS } from '../../host/core/schema.js';
import { rng } from '../ingest/ingest-support.js';
import { TableModel } from './model.js';
import { batch, dbl, f64, int, openStore, str, type Row, type TestStore } from './support.js';

let store: TestStore | undefined;
afterEach(async () => {
  await store?.cleanup();
  store = undefined;
});

interface Agg {
  rows: number;
  count: number;
  min?: number | bigint;
  max?: number | bigint;
  sum: number | bigint;
}

type Aggs = Map<string, Agg>; // "series|bucket|field" -> aggregate

function add(
  aggs: Aggs,
  key: string,
  v: number | bigint | undefined,
  rows: number,
  count: number,
  min?: number | bigint,
  max?: number | bigint,
): void {
  let a = aggs.get(key);
  if (a === undefined) aggs.set(key, (a = { rows: 0, count: 0, sum: typeof v === 'bigint' ? 0n : 0 }));
  a.rows += rows;
  a.count += count;
  if (v !== undefined) a.sum = typeof v === 'bigint' ? (a.sum as bigint) + v : (a.sum as number) + v;
  if (min !== undefined && (a.min === undefined || min < a.min)) a.min = min;
  if (max !== undefined && (a.max === undefined || max > a.max)) a.max = max;
}

/** The bucket of t: floor((t - origin) / width), also before the origin. */
const bucketOf = (t: bigint, r: StatsRequest): string => {
  if (r.bucket === undefined) return '*';
  const d = t - r.bucket.origin;
  const q = d / r.bucket.width;
  return String(q * r.bucket.width > d ? q - 1n : q);
};

function addRows(aggs: Aggs, c: SeriesChunk, r: StatsRequest): void {
  const series = c.tags.get('h')!;
  for (let i = 0; i < c.length; i++) {
    const b = bucketOf(c.time[i]!, r);
    for (const f of r.fields) {
      const col = c.fields.get(f);
      const present = col !== undefined && (col.validity === undefined || col.validity[i] === 1);
      const v = present ? (col!.values[i] as number | bigint) : undefined;
      add(aggs, `${series}|${b}|${f}`, v, 1, present ? 1 : 0, v, v);
    }
  }
}

async function viaScan(s: Storage, r: StatsRequest, db = 'public'): Promise<Aggs> {
  const aggs: Aggs = new Map();
  for await (const c of s.scan(s.catalog.requireDatabase('cnosdb', db), 'm', r)) addRows(aggs, c, r);
  return aggs;
}

async function viaStats(
  s: Storage,
  r: StatsRequest,
  db = 'public',
): Promise<{ aggs: Aggs; stats: number; chunks: number }> {
  const aggs: Aggs = new Map();
  let stats = 0;
  let chunks = 0;
  for await (const batch of s.scanStats(s.catalog.requireDatabase('cnosdb', db), 'm', r))
    for (const p of batch) {
      if (p.kind === 'chunk') {
        chunks++;
        addRows(aggs, p.chunk, r);
        continue;
      }
      stats++;
      const b = bucketOf(p.stats.minTime, r);
      expect(bucketOf(p.stats.maxTime, r)).toBe(b);
      for (const f of r.fields) {
        const st = p.stats.fields.get(f)!;
        add(
          aggs,
          `${p.stats.tags.get('h')}|${b}|${f}`,
          st.count > 0 ? (st.sum as number | bigint) : undefined,
          p.stats.rows,
          st.count,
          st.min,
          st.max,
        );
      }
    }
  return { aggs, stats, chunks };
}

/** Aggregates with double sums rounded (summation order differs between blocks and rows). */
const norm = (a: Aggs): Array<[string, Agg]> =>
  [...a]
    .sort(([x], [y]) => (x < y ? -1 : 1))
    .map(([k, v]) => [k, typeof v.sum === 'number' ? { ...v, sum: Math.round(v.sum * 1e6) / 1e6 } : v]);

function rows(from: number, n: number, seed: number): Row[] {
  const out: Row[] = [];
  for (let i = 0; i < n; i++) {
    for (const h of ['a', 'b']) {
      const t = from + i;
      const fields = [int('n', BigInt(((t * 7919 + seed) % 1000) - 500))];
      if ((t + seed) % 3 !== 0) fields.push(dbl('x', ((t * 31 + seed) % 997) / 8));
      out.push(['m', [['h', h]], BigInt(t * 10), fields]);
    }
  }
  return out;
}

describe('block statistics', () => {
  it('give the same count/min/max/sum as a scan, without decoding whole blocks', async () => {
    store = await openStore();
    const s = store.storage;
    const db = s.catalog.requireDatabase('cnosdb', 'public');
    await s.write(db, [batch(rows(0, 10_000, 1))]);
    await s.flushAll();
    await s.compactAll();
    const all: StatsRequest = { fields: ['n', 'x'] };
    const before = s.blockCache;
    const whole = await viaStats(s, all);
    expect(whole.chunks).toBe(0);
    expect(whole.stats).toBe(4); // 2 series x 2 blocks of 5000 rows
    expect(s.blockCache.misses).toBe(before.misses); // nothing was read or decoded
    expect(norm(whole.aggs)).toEqual(norm(await viaScan(s, all)));

    // Overlapping rewrites in memory, a delete, then ranges and buckets that cut blocks.
    await s.write(db, [batch(rows(1000, 300, 2))]); // over the first block of each series
    await s.delete(db, 'm', { minTime: 20_000n, maxTime: 20_500n, seriesFilter: (t) => t.get('h') === 'b' });
    const requests: StatsRequest[] = [
      all,
      { fields: ['n', 'x'], minTime: 12_345n, maxTime: 100_000n },
      { fields: ['x'], bucket: { origin: 0n, width: 100_000n } },
      { fields: ['n'], minTime: 1n, bucket: { origin: -5n, width: 50_000n } },
      { fields: ['n', 'x', 'missing'], seriesFilter: (t) => t.get('h') === 'a' },
    ];
    for (const r of requests) {
      const got = await viaStats(s, r);
      expect(
        got.stats,
        JSON.stringify(r, (_, v) => (typeof v === 'bigint' ? String(v) : v)),
      ).toBeGreaterThan(0);
      expect(norm(got.aggs)).toEqual(norm(await viaScan(s, r)));
    }
  });
});

describe('page statistics', () => {
  const S = 1_000_000_000n;
  const HOUR = 3600n * S;

  /** Rows every 10 s from 00:00:07 (so groups and ranges never start on a page by chance). */
  function tenSecondRows(from: number, n: number, seed: number): Row[] {
    const out: Row[] = [];
    for (let i = from; i < from + n; i++) {
      for (const h of ['a', 'b']) {
        const fields = [int('n', BigInt(((i * 7919 + seed) % 1000) - 500))];
        if ((i + seed) % 3 !== 0) fields.push(dbl('x', ((i * 31 + seed) % 997) / 8));
        out.push(['m', [['h', h]], 7n * S + BigInt(i) * 10n * S, fields]);
      }
    }
    return out;
  }

  it('answer buckets on their grid from pages, reading rows only where a range cuts a page', async () => {
    store = await openStore();
    const s = store.storage;
    const db = s.catalog.requireDatabase('cnosdb', 'public');
    await s.write(db, [batch(tenSecondRows(0, 20_000, 1))]); // 55.6 hours: 3 groups of hour pages a series
    await s.flushAll();
    await s.compactAll();
    const check = async (r: StatsRequest, want: { chunks?: number; stats?: number }): Promise<void> => {
      const s = store!.storage; // a new one after reopen
      const got = await viaStats(s, r);
      const what = JSON.stringify(r, (_, v) => (typeof v === 'bigint' ? String(v) : v));
      if (want.chunks !== undefined) expect(got.chunks, what).toBe(want.chunks);
      if (want.stats !== undefined) expect(got.stats, what).toBe(want.stats);
      expect(norm(got.aggs), what).toEqual(norm(await viaScan(s, r)));
    };
    const hourly = { origin: 0n, width: HOUR };
    // Every page of both series, no row decoded.
    const misses = s.blockCache.misses;
    await viaStats(s, { fields: ['n', 'x'], bucket: hourly });
    expect(s.blockCache.misses - misses).toBe(7); // the file's one window and its 6 page blocks: no time or column block
    await check({ fields: ['n', 'x'], bucket: hourly }, { chunks: 0, stats: 2 * 56 });
    await check({ fields: ['n', 'x'], bucket: { origin: 0n, width: 24n * HOUR } }, { chunks: 0 });
    await check({ fields: ['n', 'x'], bucket: { origin: -2n * HOUR, width: 2n * HOUR } }, { chunks: 0 });
    await check({ fields: ['n'] }, { chunks: 0, stats: 2 * 3 }); // no buckets: whole groups
    // Ranges on hour boundaries: pages only; ranges inside hours: the cut pages' rows as well.
    await check(
      { fields: ['n', 'x'], minTime: 10n * HOUR, maxTime: 30n * HOUR - 1n, bucket: hourly },
      { chunks: 0, stats: 2 * 20 },
    );
    await check(
      { fields: ['n', 'x'], minTime: 10n * HOUR + 17n * S, maxTime: 30n * HOUR + 5n * S, bucket: hourly },
      { stats: 2 * 19 },
    );
    await check({ fields: ['x'], minTime: 10n * HOUR + 17n * S, maxTime: 30n * HOUR + 5n * S }, {});
    // Buckets off the page grid: rows.
    await check({ fields: ['n', 'x'], bucket: { origin: 0n, width: 90n * 60n * S } }, { stats: 0 });
    await check({ fields: ['n', 'x'], bucket: { origin: 30n * 60n * S, width: HOUR } }, { stats: 0 });
    await check({ fields: ['n', 'x'], bucket: { origin: 0n, width: 60n * S } }, { stats: 0 });
    // A delete in one series and rewrites over another's hours in memory: those groups as rows.
    await s.delete(db, 'm', { minTime: 20n * HOUR, maxTime: 21n * HOUR, seriesFilter: (t) => t.get('h') === 'a' });
    await s.write(db, [batch(tenSecondRows(3000, 50, 2).filter((r) => r[1][0]![1] === 'b'))]);
    await check({ fields: ['n', 'x'], bucket: hourly }, {});
    await check({ fields: ['n', 'x', 'missing'], minTime: 5n * HOUR, bucket: hourly }, {});
    // And again from the files after a restart (pages read from disk, not the writer's memory).
    await s.flushAll();
    await store.reopen();
    await check({ fields: ['n', 'x'], bucket: hourly, seriesFilter: (t) => t.get('h') === 'a' }, {});
  });
});

describe('page statistics on random data', () => {
  it('give what the rows give, whatever the precision, spacing, range, bucket and origin', async () => {
    store = await openStore();
    const s = store.storage;
    const random = rng(20261126);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
    let pageRuns = 0;
    for (const [db, precision, perSecond] of [
      ['ns', 'NS', 1_000_000_000n],
      ['us', 'US', 1_000_000n],
      ['ms', 'MS', 1000n],
    ] as const) {
      await s.createDatabase('cnosdb', db, { ...DEFAULT_DATABASE_OPTIONS, precision });
      const def = s.catalog.requireDatabase('cnosdb', db);
      // Two series of random spacing (0.5 s to 2 min, jittered), from before 1970 or after.
      const start = BigInt(Math.floor((random() - 0.3) * 1e6)) * perSecond;
      const rows: Row[] = [];
      for (const h of ['a', 'b']) {
        const step = BigInt(Math.floor(pick([0.5, 1, 7, 10, 60, 120]) * 1000)) * (perSecond / 1000n);
        let t = start + BigInt(Math.floor(random() * 1000)) * perSecond;
        for (let i = 0, n = 300 + Math.floor(random() * 12_000); i < n; i++) {
          t += step + BigInt(Math.floor(random() * 3));
          const fields = [int('n', BigInt(Math.floor(random() * 2000) - 1000))];
          if (random() < 0.9) fields.push(dbl('x', Math.round(random() * 1e4) / 16));
          rows.push(['m', [['h', h]], t, fields]);
        }
      }
      await s.write(def, [batch(rows)]);
      await s.flushAll();
      const span = rows.reduce((m, r) => (r[2] > m ? r[2] : m), start) - start;
      for (let q = 0; q < 25; q++) {
        const width = BigInt(pick([60, 300, 900, 3600, 7200, 86_400, 420, 45])) * perSecond;
        const origin = pick([0n, width * 3n, -width, 1234n * perSecond, 7n]);
        const r: StatsRequest = {
          fields: pick([['n'], ['x'], ['n', 'x']]),
          bucket: random() < 0.9 ? { origin, width } : undefined,
        };
        if (random() < 0.6)
          r.minTime =
            start +
            BigInt(Math.floor(random() * Number(span / perSecond))) * perSecond +
            BigInt(Math.floor(random() * 2)) * 7n;
        if (random() < 0.6)
          r.maxTime = (r.minTime ?? start) + BigInt(Math.floor(random() * Number(span / perSecond))) * perSecond;
        const got = await viaStats(s, r, db);
        expect(
          norm(got.aggs),
          JSON.stringify(r, (_, v) => (typeof v === 'bigint' ? String(v) : v)),
        ).toEqual(norm(await viaScan(s, r, db)));
        pageRuns += got.stats;
      }
    }
    expect(pageRuns).toBeGreaterThan(100); // statistics were used, not only rows
  });
});

describe('last points', () => {
  const FIELDS = ['n', 'x', 's'];

  async function last(s: Storage, fields = FIELDS): Promise<string[]> {
    const out: string[] = [];
    for (const p of await s.lastPoints(s.catalog.requireDatabase('cnosdb', 'public'), 'm', { fields })) {
      const cells: string[] = [];
      for (const f of fields) {
        const v = p.fields.get(f);
        if (v === undefined) continue;
        const value =
          typeof v.value === 'number'
            ? f64(v.value)
            : typeof v.value === 'string'
              ? JSON.stringify(v.value)
              : String(v.value);
        cells.push(`${f}@${v.time}=${value}`);
      }
      out.push(`${[...p.tags].map(([k, t]) => `${k}=${t}`).join(',')} | ${cells.join(' ')}`);
    }
    return out;
  }

  it('follow writes, flushes, restarts, out-of-order writes and deletes', async () => {
    store = await openStore();
    const t = store;
    const db = () => t.storage.catalog.requireDatabase('cnosdb', 'public');
    const model = new TableModel('m');
    const write = async (rs: Row[]) => {
      await t.storage.write(db(), [batch(rs)]);
      model.write(rs);
    };
    await write(rows(0, 5000, 3));
    await write([['m', [['h', 'a']], 100n, [str('s', 'old string')]]]);
    expect(await last(t.storage)).toEqual(model.last(FIELDS));
    await t.storage.flushAll();
    expect(await last(t.storage)).toEqual(model.last(FIELDS)); // cached
    await t.reopen();
    expect(await last(t.storage)).toEqual(model.last(FIELDS)); // from files
    await write([['m', [['h', 'a']], 10n, [int('n', 1n)]]]); // older: no change
    await write([['m', [['h', 'b']], 60_000n, [dbl('x', 1.25)]]]); // newer, x only
    await write([['m', [['h', 'b']], 60_000n, [dbl('x', 2.5)]]]); // same time: the later write wins
    expect(await last(t.storage)).toEqual(model.last(FIELDS));
    await t.storage.delete(db(), 'm', { minTime: 49_000n, seriesFilter: (tags) => tags.get('h') === 'b' });
    model.delete(49_000n, 2n ** 62n, (tags) => tags.get('h') === 'b');
    expect(await last(t.storage)).toEqual(model.last(FIELDS));
    await t.storage.compactAll();
    await t.reopen();
    expect(await last(t.storage)).toEqual(model.last(FIELDS));
    expect(await last(t.storage, ['s'])).toEqual(model.last(['s']));
  });
});

describe('memory bound', () => {
  it('answers 429 past the memtable limit and accepts writes again once flushed', async () => {
    store = await openStore({ memtableBytes: 1 << 20 });
    const s = store.storage;
    const db = s.catalog.requireDatabase('cnosdb', 'public');
    // Writes started in one tick: the flushes they trigger cannot run in between.
    const attempts = Array.from({ length: 200 }, (_, i) =>
      s.write(db, [batch(rows(i * 200, 200, 0))]).then(
        () => 'ok',
        (e: unknown) => e,
      ),
    );
    const results = await Promise.all(attempts);
    const refused = results.filter((r) => r instanceof UserError && r.kind === 'limitReached');
    expect(refused.length).toBeGreaterThan(0);
    expect(results.filter((r) => r !== 'ok' && !refused.includes(r))).toEqual([]);
    await s.flushAll();
    expect(s.memtableBytes).toBeLessThan(1 << 20);
    await s.write(db, [batch(rows(100_000, 10, 0))]);
  });
});

describe('value bounds', () => {
  it('leave out only blocks that cannot hold a matching row', async () => {
    store = await openStore();
    const s = store.storage;
    const db = s.catalog.requireDatabase('cnosdb', 'public');
    const rs: Row[] = [];
    for (let t = 0; t < 10_000; t++)
      rs.push(['m', [['h', 'a']], BigInt(t), t % 7 === 0 ? [dbl('x', t / 2)] : [dbl('x', t / 2), int('n', BigInt(t))]]);
    await s.write(db, [batch(rs)]);
    await s.flushAll();
    await s.write(db, [batch([['m', [['h', 'a']], 20_000n, [int('n', 1n)]]])]); // in memory: never left out
    const matching = async (r: Parameters<Storage['scan']>[2]) => {
      let rows = 0;
      let chunks = 0;
      for await (const c of s.scan(db, 'm', r)) {
        chunks++;
        const n = c.fields.get('n');
        for (let i = 0; i < c.length; i++) {
          if (n === undefined || n.validity?.[i] === 0) continue;
          const v = n.values[i] as bigint;
          if (v >= 9000n && v <= 9500n) rows++;
        }
      }
      return { rows, chunks };
    };
    const all = await matching({ fields: ['n'] });
    const pruned = await matching({ fields: ['n'], valueBounds: [{ field: 'n', min: 9000n, max: 9500n }] });
    expect(pruned.rows).toBe(all.rows);
    expect(all.rows).toBe(501 - 72); // multiples of 7 have no n
    expect([all.chunks, pruned.chunks]).toEqual([3, 2]); // 2 blocks + the memtable; 1 block left out
    expect(await matching({ fields: ['n'], valueBounds: [{ field: 'nope', min: 1n }] })).toEqual({
      rows: 0,
      chunks: 0,
    });
  });
});

describe('packs of small series', () => {
  it('answer aggregates by their rows, never by the pack statistics, and value bounds soundly', async () => {
    store = await openStore();
    const s = store.storage;
    const db = s.catalog.requireDatabase('cnosdb', 'public');
    // 600 series of one to three rows: one pack of many series per flush.
    const rs: Row[] = [];
    for (let h = 0; h < 600; h++) {
      for (let i = 0; i <= h % 3; i++)
        rs.push(['m', [['h', `h${h}`]], BigInt(h * 10 + i), [int('n', BigInt(h * 3 + i)), dbl('x', h / 4)]]);
    }
    await s.write(db, [batch(rs)]);
    await s.flushAll();
    const requests: StatsRequest[] = [
      { fields: ['n', 'x'] },
      { fields: ['n'], minTime: 1000n, bucket: { origin: 0n, width: 2000n } },
    ];
    for (const r of requests) {
      const got = await viaStats(s, r);
      expect(got.stats).toBe(0);
      expect(norm(got.aggs)).toEqual(norm(await viaScan(s, r)));
    }
    // The pack's n spans [0, 1799]: bounds inside it keep the pack, and find exactly the rows.
    let found = 0;
    for await (const c of s.scan(db, 'm', { fields: ['n'], valueBounds: [{ field: 'n', min: 900n, max: 905n }] })) {
      const n = c.fields.get('n')!;
      for (let i = 0; i < c.length; i++)
        if ((n.values[i] as bigint) >= 900n && (n.values[i] as bigint) <= 905n) found++;
    }
    expect(found).toBe(
      rs.filter(([, , , f]) => (f[0]!.value as bigint) >= 900n && (f[0]!.value as bigint) <= 905n).length,
    );
    expect(found).toBe(3); // 900 (h300), 903 and 904 (h301)
    // Bounds outside it leave every series out without reading a block.
    const before = s.blockCache.misses;
    let chunks = 0;
    for await (const _ of s.scan(db, 'm', { fields: ['n'], valueBounds: [{ field: 'n', min: 5000n }] })) chunks++;
    expect(chunks).toBe(0);
    expect(s.blockCache.misses).toBe(before);
  });
});
