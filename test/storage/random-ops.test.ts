// Seeded random sequences of writes (overlapping, out of order, sparse fields), deletes,
// flushes, compactions and restarts, checked against the reference model after every step:
// whatever mix of memtables, files and tombstones holds the data, a scan reads what the model says.
// The sequences run over each segment store (segment-store.ts): the file system, and memory.

import { readdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { MemorySegmentStore } from '../../host/storage/segment/memory-segment-store.js';
import type { StorageOptions } from '../../host/storage/storage.js';
import { TableModel } from './model.js';
import { batch, dbl, dump, int, openStore, str, type Row, type TestStore } from './support.js';
import { mulberry32 as rng } from '../support/rng.js';

let store: TestStore | undefined;
afterEach(async () => {
  await store?.cleanup();
  store = undefined;
});

const FIELDS = ['x', 'n', 's'];
const HOSTS = ['a', 'b', 'c', 'd'];

/** The segment stores, each with what its sequences are called and the options that select it. */
const STORES: ReadonlyArray<{ name: string; title: string; options: () => Partial<StorageOptions> }> = [
  { name: 'files', title: '', options: () => ({}) },
  // One store for the whole sequence, so that a restart finds the files it left.
  { name: 'memory', title: ', segments in memory', options: () => ({ segmentStore: new MemorySegmentStore() }) },
];

/** Segment files (and manifests) anywhere under `dir`. */
function filesOnDisk(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter(
    (p) => p.endsWith('.seg') || p.endsWith('manifest.json'),
  );
}

describe('random operation sequences', () => {
  for (const segments of STORES)
    for (const seed of [1, 2, 3]) {
      it(`agree with the model (seed ${seed}${segments.title})`, async () => {
        const r = rng(seed);
        store = await openStore({ flushBytes: 32 << 10, compactionFanIn: 2, ...segments.options() });
        const t = store;
        const db = () => t.storage.catalog.requireDatabase('cnosdb', 'public');
        const model = new TableModel('m');
        for (let step = 0; step < 60; step++) {
          const op = r();
          if (op < 0.6) {
            const rows: Row[] = [];
            const base = Math.floor(r() * 5000);
            for (let i = Math.floor(r() * 300); i >= 0; i--) {
              const fields = [];
              if (r() < 0.7) fields.push(dbl('x', Math.floor(r() * 1000) / 10));
              if (r() < 0.5) fields.push(int('n', BigInt(Math.floor(r() * 100) - 50)));
              if (r() < 0.3) fields.push(str('s', `s${Math.floor(r() * 4)}`));
              if (fields.length === 0) fields.push(dbl('x', step));
              rows.push([
                'm',
                [['h', HOSTS[Math.floor(r() * HOSTS.length)]!]],
                BigInt(base + Math.floor(r() * 400)),
                fields,
              ]);
            }
            await t.storage.write(db(), [batch(rows)]);
            model.write(rows);
          } else if (op < 0.7 && db().tables.has('m')) {
            const lo = BigInt(Math.floor(r() * 5000));
            const hi = lo + BigInt(Math.floor(r() * 500));
            const hosts = HOSTS.filter(() => r() < 0.5);
            await t.storage.delete(db(), 'm', {
              minTime: lo,
              maxTime: hi,
              seriesFilter: (tags) => hosts.includes(tags.get('h')!),
            });
            model.delete(lo, hi, (tags) => hosts.includes(tags.get('h')!));
          } else if (op < 0.82) {
            await t.storage.flushAll();
          } else if (op < 0.9) {
            await t.storage.maintain();
            await t.storage.idle();
          } else if (op < 0.95) {
            await t.storage.compactAll();
          } else {
            await t.reopen();
          }
          expect(await dump(t.storage, 'm', { fields: FIELDS }), `after step ${step}`).toEqual(model.dump(FIELDS));
        }
        if (segments.name === 'memory') expect(filesOnDisk(t.dir)).toEqual([]);
        else expect(filesOnDisk(t.dir).length).toBeGreaterThan(0);
      });
    }
});
