// Corrupt segment files: a flipped byte in a block fails the reads that need that block with a
// CorruptionError naming the file, the offset and the check, while every other read goes on; a
// corrupt footer makes the file unreadable at open (logged), reads over its time range fail with
// the file's name, other partitions and writes keep working, also in a real server.

import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { segmentDisplayName as rel } from '../../../host/storage/segment/segment-reader.js';
import { CorruptionError } from '../../../host/core/errors.js';
import { DAY_MS } from '../../../host/core/schema.js';
import { BlockCache } from '../../../host/storage/segment/block-cache.js';
import { storageCodecs } from '../../../host/storage/segment/codecs.js';
import { loadCore } from '../../support/core.js';
import { SegmentReader } from '../../../host/storage/segment/segment-reader.js';
import { nodeSegmentStore } from '../../../host/storage/segment/node-segment-store.js';
import { writeLp } from '../../support/http.js';
import { startServer } from '../../support/server.js';
import { batch, dbl, dump, flip, openStore, type TestStore } from '../support.js';

let store: TestStore | undefined;
afterEach(async () => {
  await store?.cleanup();
  store = undefined;
});

const WEEK = 7n * BigInt(DAY_MS) * 1_000_000n;

/** Two series in week 0 and one in week 1 (two partitions), flushed to files. */
async function setup(s: TestStore): Promise<string[]> {
  const db = s.storage.catalog.requireDatabase('cnosdb', 'public');
  const rows: Parameters<typeof batch>[0][number][] = [];
  for (let i = 0; i < 100; i++) {
    rows.push(['m', [['h', 'a']], BigInt(i), [dbl('v', i), dbl('w', -i)]]);
    rows.push(['m', [['h', 'b']], BigInt(i), [dbl('v', i), dbl('w', -i)]]);
    rows.push(['m', [['h', 'a']], WEEK + BigInt(i), [dbl('v', i), dbl('w', -i)]]);
  }
  await s.storage.write(db, [batch(rows)]);
  await s.storage.flushAll();
  const dir = join(s.dir, 'db', String(db.id), 'seg');
  return readdirSync(dir)
    .sort()
    .map((n) => join(dir, n));
}

describe('corrupt segment files', () => {
  it('a flipped byte in a block fails only the reads that need it, naming the file', async () => {
    store = await openStore();
    const [week0] = await setup(store);
    const table = store.storage.catalog.requireDatabase('cnosdb', 'public').tables.get('m')!;
    const vId = table.fields.find((f) => f.name === 'v')!.id;
    const reader = await SegmentReader.open(
      nodeSegmentStore,
      week0!,
      1,
      storageCodecs(await loadCore()),
      new BlockCache(1 << 20),
    );
    const a = (await reader.tableSeries(table.id)).find((e) => e.tags[0]![1] === 'a')!;
    const vAt = a.groups[0]!.columns[a.columns.findIndex((c) => c.id === vId)]!.offset;
    reader.retire();
    await store.reopen(); // a fresh block cache
    flip(week0!, vAt + 3);
    const [v, other] = ['v', 'w'];
    expect(rel(week0!)).toMatch(/^db\/\d+\/seg\/\d{12}\.seg$/);
    // Compaction of that partition fails once, names the file, and is not retried (the file is
    // known damaged from then on: ping reports it).
    await store.storage.write(store.storage.catalog.requireDatabase('cnosdb', 'public'), [
      batch([['m', [['h', 'b']], 500n, [dbl('v', 5)]]]),
    ]);
    await store.storage.flushAll();
    await store.storage.compactAll();
    await store.storage.compactAll();
    const failures = store.logs.filter((l) => l.msg === 'compaction failed');
    expect(failures).toHaveLength(1);
    expect((failures[0]!.err as { message: string }).message).toContain(`corrupt ${rel(week0!)} at offset ${vAt}`);
    expect(store.storage.health()).toEqual({
      status: 'degraded',
      reasons: ['1 damaged segment file in database cnosdb.public (CHECK DATABASE public lists them)'],
    });
    const err = await dump(store.storage, 'm', { fields: [v] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CorruptionError);
    expect((err as Error).message).toBe(
      `corrupt ${rel(week0!)} at offset ${vAt}: column block checksum mismatch: ${(err as Error).message.split('mismatch: ')[1]}`,
    );
    expect((err as Error).message).toMatch(/stored 0x[0-9a-f]+, computed 0x[0-9a-f]+$/);
    // The other field of the same series, the other series, the other partition: all readable.
    expect(await dump(store.storage, 'm', { fields: [other] })).toHaveLength(301);
    expect(await dump(store.storage, 'm', { fields: [v], seriesFilter: (t) => t.get('h') === 'b' })).toHaveLength(101);
    expect(await dump(store.storage, 'm', { fields: [v], minTime: WEEK })).toHaveLength(100);
  });

  it('a flipped byte in a pack block fails the reads of the small series sharing it, naming the file', async () => {
    store = await openStore();
    const db = store.storage.catalog.requireDatabase('cnosdb', 'public');
    const rows: Parameters<typeof batch>[0][number][] = [];
    for (let h = 0; h < 50; h++) rows.push(['m', [['h', `h${h}`]], BigInt(h), [dbl('v', h), dbl('w', -h)]]);
    await store.storage.write(db, [batch(rows)]);
    await store.storage.flushAll();
    const dir = join(store.dir, 'db', String(db.id), 'seg');
    const file = join(dir, readdirSync(dir)[0]!);
    const table = store.storage.catalog.requireDatabase('cnosdb', 'public').tables.get('m')!;
    const reader = await SegmentReader.open(
      nodeSegmentStore,
      file,
      1,
      storageCodecs(await loadCore()),
      new BlockCache(1 << 20),
    );
    const series = await reader.tableSeries(table.id);
    const vId = table.fields.find((f) => f.name === 'v')!.id;
    const group = series[0]!.groups[0]!;
    expect(group.pack?.rows).toBe(50); // every series shares one pack
    const vAt = group.columns[series[0]!.columns.findIndex((c) => c.id === vId)]!.offset;
    reader.retire();
    await store.reopen();
    flip(file, vAt + 2);
    const err = await dump(store.storage, 'm', { fields: ['v'], seriesFilter: (t) => t.get('h') === 'h7' }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CorruptionError);
    expect((err as Error).message).toMatch(
      new RegExp(
        `^corrupt ${rel(file)} at offset ${vAt}: column block checksum mismatch: stored 0x[0-9a-f]+, computed 0x[0-9a-f]+$`,
      ),
    );
    expect(await dump(store.storage, 'm', { fields: ['w'] })).toHaveLength(50);
  });

  it('a flipped byte in a page block fails the aggregates that read it, naming the file; rows stay readable', async () => {
    store = await openStore();
    const db = store.storage.catalog.requireDatabase('cnosdb', 'public');
    const HOUR = 3_600_000_000_000n;
    const rows: Parameters<typeof batch>[0][number][] = [];
    for (let i = 0; i < 1000; i++) rows.push(['m', [['h', 'a']], BigInt(i) * 10_000_000_000n, [dbl('v', i)]]); // 10 s rows: hour pages
    await store.storage.write(db, [batch(rows)]);
    await store.storage.flushAll();
    const dir = join(store.dir, 'db', String(db.id), 'seg');
    const file = join(dir, readdirSync(dir)[0]!);
    const reader = await SegmentReader.open(
      nodeSegmentStore,
      file,
      1,
      storageCodecs(await loadCore()),
      new BlockCache(1 << 20),
    );
    const pages = (await reader.tableSeries(reader.tableIds()[0]!))[0]!.groups[0]!.pages!;
    reader.retire();
    await store.reopen();
    flip(file, pages.offset + 30);
    const hourly = { fields: ['v'], bucket: { origin: 0n, width: HOUR } };
    const err = await (async () => {
      for await (const _ of store!.storage.scanStats(
        store!.storage.catalog.requireDatabase('cnosdb', 'public'),
        'm',
        hourly,
      ));
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CorruptionError);
    expect((err as Error).message).toMatch(
      new RegExp(
        `^corrupt ${rel(file)} at offset ${pages.offset}: page block checksum mismatch: stored 0x[0-9a-f]+, computed 0x[0-9a-f]+$`,
      ),
    );
    expect(await dump(store.storage, 'm', { fields: ['v'] })).toHaveLength(1000);
  });

  it('a read of a file already closed is a bug, not a corruption', async () => {
    store = await openStore();
    await setup(store);
    const closed = store.storage;
    await store.reopen(); // closes the first storage and its files
    const err = await dump(closed, 'm').catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(CorruptionError);
    expect((err as Error).message).toMatch(/^BUG: segment .*\.seg read after it was closed$/);
    expect(await dump(store.storage, 'm')).toHaveLength(300);
  });

  it('a corrupt footer: the file is reported at start, its time range fails, the rest is served and written', async () => {
    store = await openStore();
    const [week0] = await setup(store);
    await store.close();
    flip(week0!, statSync(week0!).size - 40); // inside the index, just before the trailer
    await store.reopen();
    expect(
      store.logs.some(
        (l) => l.msg === 'segment file unreadable; queries over its time range fail until it is repaired',
      ),
    ).toBe(true);
    await expect(dump(store.storage, 'm')).rejects.toThrow(
      new RegExp(`^corrupt ${rel(week0!)}: ?|^corrupt ${rel(week0!)} at offset \\d+: index checksum mismatch`),
    );
    expect(await dump(store.storage, 'm', { minTime: WEEK })).toHaveLength(100);
    const db = store.storage.catalog.requireDatabase('cnosdb', 'public');
    await store.storage.write(db, [batch([['m', [['h', 'c']], 2n * WEEK, [dbl('v', 1)]]])]);
    expect(await dump(store.storage, 'm', { minTime: WEEK })).toHaveLength(101);
  });

  it('a real server starts and takes writes with a corrupt file in its data directory', async () => {
    const first = await startServer();
    expect((await writeLp(first.url, 'm,h=a v=1 1\nm,h=a v=2 2')).status).toBe(200);
    expect(await first.stop()).toBe(0);
    store = await openStore({}, first.dataDir);
    const db = store.storage.catalog.requireDatabase('cnosdb', 'public');
    await store.storage.flushAll();
    await store.close();
    const dir = join(first.dataDir, 'db', String(db.id), 'seg');
    const file = join(dir, readdirSync(dir)[0]!);
    flip(file, statSync(file).size - 40);
    const server = await startServer({ dataDir: first.dataDir });
    try {
      expect(
        server.logs.some(
          (l) => l.msg === 'segment file unreadable; queries over its time range fail until it is repaired',
        ),
      ).toBe(true);
      expect((await writeLp(server.url, 'm,h=z v=1 1')).status).toBe(200);
    } finally {
      expect(await server.stop()).toBe(0);
      first.cleanup();
    }
  });
});
