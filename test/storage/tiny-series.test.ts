// High-cardinality data through the whole storage engine: thousands of series of one or a few
// rows (every span a series), next to a few that grow long, written, deleted, flushed,
// compacted, restarted and altered in seeded random order, and checked against the reference
// model after every step. This drives the memtable's shared row area (small series), the move
// of a growing series to arrays of its own, and segment files full of tiny series.

import { afterEach, describe, expect, it } from 'vitest';
import { SMALL_SERIES_ROWS } from '../../host/storage/memtable/memtable.js';
import { TableModel } from './model.js';
import type { StatsRequest } from '../../host/core/scan.js';
import type { Storage } from '../../host/storage/storage.js';
import { batch, bool, dbl, dump, int, openStore, str, type Row, type TestStore } from './support.js';
import { mulberry32 as rng } from '../support/rng.js';

let store: TestStore | undefined;
afterEach(async () => {
  await store?.cleanup();
  store = undefined;
});

const FIELDS = ['x', 'n', 's', 'b', 'late'];

/** A row of series `id` (two tags, like a trace and span id) at `ts` with a random subset of fields. */
function row(r: () => number, id: number, ts: bigint, step: number): Row {
  const fields = [];
  if (r() < 0.8) fields.push(dbl('x', Math.floor(r() * 1000) / 8));
  if (r() < 0.5) fields.push(int('n', BigInt(Math.floor(r() * 200) - 100)));
  if (r() < 0.4) fields.push(str('s', r() < 0.2 ? '' : `v${Math.floor(r() * 50)}`));
  if (r() < 0.2) fields.push(bool('b', r() < 0.5));
  // A column that appears only late and rarely: it must not widen the rows before it.
  if (step > 20 && r() < 0.05) fields.push(str('late', `l${step}`));
  if (fields.length === 0) fields.push(dbl('x', step));
  return [
    'spans',
    [
      ['trace', `t${id >> 3}`],
      ['span', `s${id}`],
    ],
    ts,
    fields,
  ];
}

/**
 * Rows per series and bucket of `width` within [lo, hi], as a count(*) reads them: by a stats scan
 * without fields (a packed series answers with its row count and time bounds, unread), and by a
 * plain scan. Also how many series the stats scan answered without rows.
 */
async function counts(
  s: Storage,
  via: 'stats' | 'scan',
  lo: bigint,
  hi: bigint,
  width: bigint,
): Promise<{ counts: Array<[string, number]>; unread: number }> {
  const db = s.catalog.requireDatabase('cnosdb', 'public');
  const out = new Map<string, number>();
  const add = (span: string, t: bigint, n: number): void => {
    const k = `${span}@${t / width}`;
    out.set(k, (out.get(k) ?? 0) + n);
  };
  let unread = 0;
  const request: StatsRequest = { fields: [], minTime: lo, maxTime: hi, bucket: { origin: 0n, width } };
  if (via === 'stats') {
    for await (const items of s.scanStats(db, 'spans', request)) {
      for (const it of items) {
        if (it.kind === 'stats') {
          unread++;
          expect(it.stats.minTime / width).toBe(it.stats.maxTime / width);
          add(it.stats.tags.get('span')!, it.stats.minTime, it.stats.rows);
        } else for (const t of it.chunk.time) add(it.chunk.tags.get('span')!, t, 1);
      }
    }
  } else {
    for await (const c of s.scan(db, 'spans', request)) for (const t of c.time) add(c.tags.get('span')!, t, 1);
  }
  return { counts: [...out].sort(([a], [b]) => (a < b ? -1 : 1)), unread };
}

describe('tiny series', () => {
  it('are written, flushed, compacted and read back', async () => {
    store = await openStore({ compactionFanIn: 2 });
    const t = store;
    const db = () => t.storage.catalog.requireDatabase('cnosdb', 'public');
    const model = new TableModel('spans');
    const r = rng(7);
    // 5000 a flush: more than a pack holds (4096), so packs reuse the arrays of the one before,
    // where absent rows keep stale values that must never be read.
    for (let b = 0; b < 3; b++) {
      const rows: Row[] = [];
      for (let i = 0; i < 5000; i++) rows.push(row(r, b * 5000 + i, BigInt(1000 + i), b));
      await t.storage.write(db(), [batch(rows)]);
      model.write(rows);
      await t.storage.flushAll();
    }
    expect(await dump(t.storage, 'spans', { fields: FIELDS })).toEqual(model.dump(FIELDS));
    await t.storage.compactAll();
    await t.reopen();
    const got = await dump(t.storage, 'spans', { fields: FIELDS });
    expect(got.length).toBe(15000);
    expect(got).toEqual(model.dump(FIELDS));
  });

  for (const seed of [1, 2, 3]) {
    it(`agree with the model through random operations (seed ${seed})`, async () => {
      const r = rng(seed);
      store = await openStore({ flushBytes: 256 << 10, compactionFanIn: 2 });
      const t = store;
      const db = () => t.storage.catalog.requireDatabase('cnosdb', 'public');
      const model = new TableModel('spans');
      /** The count checks' own choices, so that the operations stay what the seed gives. */
      const q = rng(seed + 100);
      let unread = 0;
      let next = 0;
      for (let step = 0; step < 50; step++) {
        const op = r();
        if (op < 0.6) {
          const rows: Row[] = [];
          // New one-row series, rewrites of recent ones (duplicate and out-of-order times), and
          // a few hot series that outgrow the shared area over several batches.
          for (let i = Math.floor(r() * 400); i >= 0; i--) {
            const kind = r();
            const id =
              kind < 0.6
                ? next++
                : kind < 0.85
                  ? Math.max(0, next - 1 - Math.floor(r() * 50))
                  : Math.floor(r() * 3) + 1_000_000;
            const ts = BigInt(kind < 0.6 ? 5000 + step : Math.floor(r() * (SMALL_SERIES_ROWS * 4)));
            rows.push(row(r, id, ts, step));
          }
          await t.storage.write(db(), [batch(rows)]);
          model.write(rows);
        } else if (op < 0.68 && db().tables.has('spans')) {
          const lo = BigInt(Math.floor(r() * 100));
          const hi = lo + BigInt(Math.floor(r() * 60));
          const pick = Math.floor(r() * 8);
          const filter = (tags: ReadonlyMap<string, string>) => Number(tags.get('span')!.slice(1)) % 8 === pick;
          await t.storage.delete(db(), 'spans', { minTime: lo, maxTime: hi, seriesFilter: filter });
          model.delete(lo, hi, filter);
        } else if (
          op < 0.7 &&
          db()
            .tables.get('spans')
            ?.fields.some((c) => c.name === 'b')
        ) {
          await t.storage.alterTable(db(), 'spans', { kind: 'dropColumn', name: 'b' });
          model.rename('b', undefined);
        } else if (op < 0.8) {
          await t.storage.flushAll();
        } else if (op < 0.88) {
          await t.storage.maintain();
          await t.storage.idle();
        } else if (op < 0.94) {
          await t.storage.compactAll();
        } else {
          await t.reopen();
        }
        expect(await dump(t.storage, 'spans', { fields: FIELDS }), `after step ${step}`).toEqual(model.dump(FIELDS));
        const [lo, hi, width] = [
          BigInt(Math.floor(q() * 40)),
          BigInt(5000 + Math.floor(q() * 400)),
          BigInt(1 + Math.floor(q() * 64)),
        ];
        const stats = await counts(t.storage, 'stats', lo, hi, width);
        expect(stats.counts, `counts after step ${step}`).toEqual(
          (await counts(t.storage, 'scan', lo, hi, width)).counts,
        );
        unread += stats.unread;
      }
      // Packed series in files were counted from the index alone.
      expect(unread).toBeGreaterThan(0);
    });
  }
});
