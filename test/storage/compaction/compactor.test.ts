// Compaction on its own thread (host/storage/compaction/compactor.ts, the server's default): the file it
// writes holds exactly what a compaction on the storage's thread writes, a corrupt input fails it
// naming the file as there, and closing the storage mid-compaction loses nothing. The thread
// runs the built module (dist/), as in the server; `npm test` builds first.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { segmentDisplayName as rel } from '../../../host/storage/segment/segment-reader.js';
import { BlockCache } from '../../../host/storage/segment/block-cache.js';
import { storageCodecs } from '../../../host/storage/segment/codecs.js';
import { SegmentReader } from '../../../host/storage/segment/segment-reader.js';
import { nodeSegmentStore } from '../../../host/storage/segment/node-segment-store.js';
import { loadCore } from '../../support/core.js';
import { mulberry32 } from '../../support/rng.js';
import { batch, dbl, dump, flip, int, openStore, str, type Row, type TestStore } from '../support.js';

const THREAD = new URL('../../../dist/host/storage/compaction/compaction-worker.js', import.meta.url);
const FIELDS = ['x', 'n', 's', 'note'];

let stores: TestStore[] = [];
afterEach(async () => {
  for (const s of stores) await s.cleanup();
  stores = [];
});

/** Spans of 3 flushes (more than a pack each), sparse fields, strings not all ASCII, and rewrites of earlier series. */
function batches(): Row[][] {
  const r = mulberry32(20261126);
  const out: Row[][] = [];
  for (let b = 0; b < 3; b++) {
    const rows: Row[] = [];
    for (let i = 0; i < 5000; i++) {
      const id = r() < 0.9 ? b * 5000 + i : Math.floor(r() * 5000);
      const fields = [dbl('x', Math.floor(r() * 1e6) / 16)];
      if (r() < 0.5) fields.push(int('n', BigInt(Math.floor(r() * 1000) - 500)));
      if (r() < 0.7) fields.push(str('s', r() < 0.1 ? '' : `GET /items/${Math.floor(r() * 100)}`));
      if (r() < 0.1) fields.push(str('note', r() < 0.5 ? 'café ☕' : '日本語のテキスト'));
      rows.push([
        'spans',
        [
          ['trace', `t${id >> 3}`],
          ['span', `s${id}`],
        ],
        BigInt(1000 + (id % 97)),
        fields,
      ]);
    }
    out.push(rows);
  }
  return out;
}

async function load(s: TestStore, all: Row[][]): Promise<void> {
  const db = s.storage.catalog.requireDatabase('cnosdb', 'public');
  for (const rows of all) {
    await s.storage.write(db, [batch(rows)]);
    await s.storage.flushAll();
  }
}

describe('compaction on its own thread', () => {
  it('writes what a compaction on the storage thread writes', async () => {
    const here = await openStore({ compactionFanIn: 3 });
    const there = await openStore({
      compactionFanIn: 3,
      compactionThread: { wasm: (await loadCore()).module, script: THREAD },
    });
    stores.push(here, there);
    const data = batches();
    await load(here, data);
    await load(there, data);
    const before = await dump(there.storage, 'spans', { fields: FIELDS });
    await here.storage.compactAll();
    await there.storage.compactAll();
    expect(there.logs.filter((l) => l.msg === 'compacted').map((l) => l.thread)).toEqual([true]);
    expect(here.logs.filter((l) => l.msg === 'compacted').map((l) => l.thread)).toEqual([false]);
    const after = await dump(there.storage, 'spans', { fields: FIELDS });
    expect(after).toEqual(before);
    expect(after).toEqual(await dump(here.storage, 'spans', { fields: FIELDS }));
    await there.reopen();
    expect(await dump(there.storage, 'spans', { fields: FIELDS })).toEqual(before);
  });

  it('fails on a corrupt input, naming the file, and is not retried', async () => {
    const s = await openStore({ compactionThread: { wasm: (await loadCore()).module, script: THREAD } });
    stores.push(s);
    const db = s.storage.catalog.requireDatabase('cnosdb', 'public');
    const rows: Row[] = [];
    for (let i = 0; i < 100; i++) rows.push(['m', [['h', 'a']], BigInt(i), [dbl('v', i), str('s', `r${i}`)]]);
    await s.storage.write(db, [batch(rows)]);
    await s.storage.flushAll();
    const dir = join(s.dir, 'db', String(db.id), 'seg');
    const file = join(dir, readdirSync(dir)[0]!);
    const table = s.storage.catalog.requireDatabase('cnosdb', 'public').tables.get('m')!;
    const reader = await SegmentReader.open(
      nodeSegmentStore,
      file,
      1,
      storageCodecs(await loadCore()),
      new BlockCache(1 << 20),
    );
    const entry = (await reader.tableSeries(table.id))[0]!;
    const sAt =
      entry.groups[0]!.columns[entry.columns.findIndex((c) => c.id === table.fields.find((f) => f.name === 's')!.id)]!
        .offset;
    reader.retire();
    await s.reopen();
    flip(file, sAt + 1);
    await s.storage.write(s.storage.catalog.requireDatabase('cnosdb', 'public'), [
      batch([['m', [['h', 'b']], 5n, [dbl('v', 5)]]]),
    ]);
    await s.storage.flushAll();
    await s.storage.compactAll();
    await s.storage.compactAll();
    const failures = s.logs.filter((l) => l.msg === 'compaction failed');
    expect(failures).toHaveLength(1);
    expect((failures[0]!.err as { message: string }).message).toMatch(
      new RegExp(`^corrupt ${rel(file)} at offset ${sAt}: column block checksum mismatch`),
    );
    // The other column is still read from both files.
    expect(await dump(s.storage, 'm', { fields: ['v'] })).toHaveLength(101);
  });

  it('falls back to the storage thread when the thread cannot start', async () => {
    const s = await openStore({
      compactionFanIn: 3,
      compactionThread: { wasm: (await loadCore()).module, script: new URL('./no-such-compaction-worker.js', THREAD) },
    });
    stores.push(s);
    const data = batches();
    await load(s, data);
    const before = await dump(s.storage, 'spans', { fields: FIELDS });
    await s.storage.compactAll();
    expect(s.logs.filter((l) => l.msg === 'compaction failed')).toHaveLength(1);
    expect(s.logs.filter((l) => l.msg === 'compacted').map((l) => l.thread)).toEqual([false]);
    expect(await dump(s.storage, 'spans', { fields: FIELDS })).toEqual(before);
  });

  it('fails only the job when the thread dies during it, losing nothing, and starts a new thread for the next', async () => {
    const s = await openStore({
      compactionFanIn: 3,
      compactionThread: {
        wasm: (await loadCore()).module,
        script: new URL('./dying-compaction-worker.mjs', import.meta.url),
      },
    });
    stores.push(s);
    await load(s, batches());
    const before = await dump(s.storage, 'spans', { fields: FIELDS });
    const db = s.storage.catalog.requireDatabase('cnosdb', 'public');
    const dir = join(s.dir, 'db', String(db.id), 'seg');
    const files = readdirSync(dir).sort();
    // The third flush started a compaction; COMPACT DATABASE tries as many rounds as there are
    // files. Each job gets a new thread (the one before died), and each dies.
    await s.storage.compactDatabase(db);
    const failures = s.logs.filter((l) => l.msg === 'compaction failed');
    expect(failures.length).toBeGreaterThanOrEqual(files.length);
    for (const f of failures)
      expect((f.err as { message: string }).message).toBe('compaction thread exited with code 3');
    expect(s.logs.filter((l) => l.msg === 'compacted')).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual(files);
    expect(await dump(s.storage, 'spans', { fields: FIELDS })).toEqual(before);
  });

  it('is abandoned when the storage closes, losing nothing and leaving no file behind', async () => {
    const s = await openStore({
      compactionFanIn: 3,
      compactionThread: { wasm: (await loadCore()).module, script: THREAD },
    });
    stores.push(s);
    await load(s, batches());
    const before = await dump(s.storage, 'spans', { fields: FIELDS });
    const db = s.storage.catalog.requireDatabase('cnosdb', 'public');
    const dir = join(s.dir, 'db', String(db.id), 'seg');
    const compacting = s.storage.compactAll();
    await s.storage.close();
    await compacting;
    const again = await openStore({ compactionThread: { wasm: (await loadCore()).module, script: THREAD } }, s.dir);
    stores.unshift(again);
    expect(await dump(again.storage, 'spans', { fields: FIELDS })).toEqual(before);
    // Either the three flushed files or the merged one, and nothing unlisted.
    expect(readdirSync(dir).filter((n) => !n.endsWith('.seg'))).toEqual([]);
    expect([1, 3]).toContain(readdirSync(dir).length);
  });
});
