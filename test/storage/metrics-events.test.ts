// The events storage reports through core/metrics.ts (the server turns them into /metrics): one
// per WAL group commit with its size and fsync time, one per flush and per compaction with its
// result, told as they happen, through the real storage on a temporary directory.

import { afterEach, expect, it } from 'vitest';
import type { Metrics } from '../../host/core/metrics.js';
import { DEFAULT_DATABASE_OPTIONS } from '../../host/core/schema.js';
import { batch, int, openStore, type TestStore } from './support.js';

/** Every event as a line of text, durations as `s` (their values are the clock's). */
function recorder(): { metrics: Metrics; events: string[] } {
  const events: string[] = [];
  const seconds = (s: number | undefined): string => (s === undefined ? 'none' : s >= 0 ? 's' : `negative ${s}`);
  return {
    events,
    metrics: {
      walGroupCommitted: (records, fsyncSeconds) =>
        void events.push(`wal group ${records} fsync ${seconds(fsyncSeconds)}`),
      flushed: (s, ok) => void events.push(`flush ${ok ? 'ok' : 'failed'} ${seconds(s)}`),
      compacted: (s, ok) => void events.push(`compaction ${ok ? 'ok' : 'failed'} ${seconds(s)}`),
      damagedSegmentsSkipped: (files) => void events.push(`skipped ${files}`),
      objectUploaded: (bytes, s) => void events.push(`uploaded ${bytes} ${seconds(s)}`),
      objectDownloaded: (bytes) => void events.push(`downloaded ${bytes}`),
      objectCacheRead: (hit) => void events.push(`cache ${hit ? 'hit' : 'miss'}`),
      objectStoreRetried: (op) => void events.push(`retried ${op}`),
    },
  };
}

let store: TestStore | undefined;
afterEach(async () => {
  await store?.cleanup();
  store = undefined;
});

const row = (i: number) => batch([['m', [['h', `h${i}`]], BigInt(i), [int('x', BigInt(i))]]]);

it('tells each group commit, flush and compaction', async () => {
  const r = recorder();
  store = await openStore({ metrics: r.metrics, compactionFanIn: 2 });
  const s = store.storage;
  const db = await s.createDatabase('cnosdb', 'one', DEFAULT_DATABASE_OPTIONS);
  r.events.length = 0;
  // Three writes in one tick share the group commit after the first (which starts alone).
  await s.write(db, [row(1)]);
  await Promise.all([s.write(db, [row(2)]), s.write(db, [row(3)]), s.write(db, [row(4)])]);
  await s.flushAll(db);
  await s.write(db, [row(5)]);
  await s.flushAll(db);
  await s.compactAll();
  expect(r.events).toEqual([
    'wal group 1 fsync s',
    'wal group 3 fsync s',
    'flush ok s',
    'wal group 1 fsync s',
    'flush ok s',
    'compaction ok s',
  ]);
});

it('tells a group commit without an fsync when storage.wal_sync is off', async () => {
  const r = recorder();
  store = await openStore({ metrics: r.metrics, walSync: false });
  const db = await store.storage.createDatabase('cnosdb', 'one', DEFAULT_DATABASE_OPTIONS);
  r.events.length = 0;
  await store.storage.write(db, [row(1)]);
  expect(r.events).toEqual(['wal group 1 fsync none']);
});
