// The series index of a v4 segment file (FORMAT.md §5.3): series entries in index blocks,
// postings per table and a directory in the footer. Opening a file reads only its trailer and
// directory; entries and postings are read on demand through the bounded index cache; a damaged
// index block or postings block fails the reads that need it with the file's name, the offset
// and the check, while other tables are served and CHECK DATABASE lists it.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decompress } from 'zstd-napi';
import { CorruptionError } from '../../../host/core/errors.js';
import { parseSeriesIdKey } from '../../../host/core/series-key.js';
import { BlockCache } from '../../../host/storage/segment/block-cache.js';
import { storageCodecs } from '../../../host/storage/segment/codecs.js';
import { decodeDirectory, type Directory, type Postings } from '../../../host/storage/segment/index-blocks.js';
import { nodeSegmentStore } from '../../../host/storage/segment/node-segment-store.js';
import {
  decodeTrailer,
  SEGMENT_VERSION,
  TRAILER_BYTES,
  type Trailer,
} from '../../../host/storage/segment/segment-format.js';
import { segmentDisplayName as rel, SegmentReader } from '../../../host/storage/segment/segment-reader.js';
import type { SegmentStore } from '../../../host/storage/segment/segment-store.js';
import { loadCore } from '../../support/core.js';
import { batch, dbl, dump, flip, openStore, type TestStore } from '../support.js';

let store: TestStore | undefined;
afterEach(async () => {
  await store?.cleanup();
  store = undefined;
});

const SERIES = 3000;

/** Table m: SERIES series (h, and a long tag so that they take several index blocks), 2 rows each; table n: 3 series. One file. */
async function setup(s: TestStore): Promise<string> {
  const db = s.storage.catalog.requireDatabase('cnosdb', 'public');
  const rows: Parameters<typeof batch>[0][number][] = [];
  for (let i = 0; i < SERIES; i++) {
    for (let r = 0; r < 2; r++)
      rows.push([
        'm',
        [
          ['h', `h${i % 7}`],
          ['pod', `pod-${String(i).padStart(5, '0')}-${'x'.repeat(40)}`],
        ],
        BigInt(r * 1000 + i),
        [dbl('v', i + r)],
      ]);
  }
  for (let i = 0; i < 3; i++) rows.push(['n', [['h', `n${i}`]], BigInt(i), [dbl('v', i)]]);
  await s.storage.write(db, [batch(rows)]);
  await s.storage.flushAll();
  const dir = join(s.dir, 'db', String(db.id), 'seg');
  const files = readdirSync(dir);
  expect(files).toHaveLength(1);
  return join(dir, files[0]!);
}

/** The trailer and directory of a file, decoded from its bytes. */
function directoryOf(file: string): { trailer: Trailer; dir: Directory } {
  const b = readFileSync(file);
  const trailer = decodeTrailer(b.subarray(b.length - TRAILER_BYTES), b.length) as Trailer;
  const raw = decompress(b.subarray(trailer.indexOffset, trailer.indexOffset + trailer.indexLength));
  return { trailer, dir: decodeDirectory(raw, trailer.indexOffset, trailer.seriesCount) };
}

describe('v4 series index', () => {
  it('is read on demand: opening reads the trailer and directory only; entries, lookups and postings agree', async () => {
    store = await openStore();
    const file = await setup(store);
    const { trailer, dir } = directoryOf(file);
    expect(trailer.version).toBe(SEGMENT_VERSION);
    expect(SEGMENT_VERSION).toBe(4);
    const m = store.storage.catalog.requireDatabase('cnosdb', 'public').tables.get('m')!;
    const t = dir.tables.get(m.id)!;
    expect(t.seriesCount).toBe(SERIES);
    expect(t.blockCount).toBeGreaterThan(3);
    // Every read of the open lies in the directory or the trailer.
    const reads: Array<[number, number]> = [];
    const counting: SegmentStore = {
      ...nodeSegmentStore,
      openRead: async (path) => {
        const f = await nodeSegmentStore.openRead(path);
        return { size: f.size, read: (at, n) => (reads.push([at, n]), f.read(at, n)), close: () => f.close() };
      },
    };
    const indexCache = new BlockCache<never>(1 << 30);
    const reader = await SegmentReader.open(
      counting,
      file,
      1,
      storageCodecs(await loadCore()),
      new BlockCache(1 << 20),
      undefined,
      indexCache,
    );
    try {
      expect(reads.length).toBeGreaterThan(0);
      for (const [at] of reads) expect(at).toBeGreaterThanOrEqual(trailer.indexOffset);
      expect(indexCache.bytes).toBe(0);
      expect(reader.seriesCount(m.id)).toBe(SERIES);
      // A lookup reads one index block.
      reads.length = 0;
      const key = (await reader.seriesAt(m.id, [1234]))[0]!.key;
      expect(reads).toHaveLength(1);
      const found = await reader.lookup(m.id, key);
      expect(found?.key).toBe(key);
      expect(await reader.lookup(m.id, key + 'z')).toBeUndefined();
      expect(await reader.lookup(m.id + 1000, key)).toBeUndefined();
      // The whole table: sorted, and each found by lookup and at its ordinal.
      const all = await reader.tableSeries(m.id);
      expect(all).toHaveLength(SERIES);
      for (let i = 1; i < all.length; i++) expect(all[i - 1]!.key < all[i]!.key).toBe(true);
      for (const [i, e] of all.entries()) {
        if (i % 97 !== 0) continue;
        expect((await reader.lookup(m.id, e.key))?.rows).toBe(2);
        expect((await reader.seriesAt(m.id, [i]))[0]!.key).toBe(e.key);
      }
      // Postings: every series under each of its tag values, nothing else.
      const postings = new Map<number, Postings>();
      for (const c of m.tags) postings.set(c.id, (await reader.postings(m.id, c.id))!);
      const want = new Map<number, Map<string, number[]>>();
      all.forEach((e, i) => {
        for (const [id, v] of parseSeriesIdKey(e.key)) {
          if (!want.has(id)) want.set(id, new Map());
          const list = want.get(id)!.get(v) ?? [];
          list.push(i);
          want.get(id)!.set(v, list);
        }
      });
      expect(new Map([...postings].map(([id, p]) => [id, new Map(p.values.map((v, i) => [v, [...p.at(i)]]))]))).toEqual(
        want,
      );
      const hosts = postings.get(m.tags.find((c) => c.name === 'h')!.id)!;
      expect(hosts.values).toEqual(['h0', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
      expect([...hosts.get('h3')!]).toEqual(want.get(m.tags.find((c) => c.name === 'h')!.id)!.get('h3'));
      expect(hosts.get('h7')).toBeUndefined();
    } finally {
      reader.retire();
    }
  });

  it('keeps the index cache within storage.index_cache_bytes and answers as with room to spare', async () => {
    store = await openStore();
    await setup(store);
    const want = await dump(store.storage, 'm');
    expect(want).toHaveLength(2 * SERIES);
    await store.reopen({ indexCacheBytes: 64 * 1024 });
    expect(store.storage.indexCache.bytes).toBe(0); // nothing read at open
    expect(await dump(store.storage, 'm')).toEqual(want);
    expect(store.storage.indexCache.bytes).toBeLessThanOrEqual(64 * 1024);
    expect(await dump(store.storage, 'm', { seriesFilter: (t) => t.get('h') === 'h3' })).toEqual(
      want.filter((l) => l.startsWith('h=h3,')),
    );
    expect(store.storage.indexCache.bytes).toBeLessThanOrEqual(64 * 1024);
    const db = store.storage.catalog.requireDatabase('cnosdb', 'public');
    expect([...(await store.storage.series(db, 'm'))]).toHaveLength(SERIES);
  });

  for (const part of ['index block', 'postings block'] as const) {
    it(`a flipped byte in ${part === 'index block' ? 'an' : 'a'} ${part} fails the reads that need it, naming the file; other tables are served; CHECK DATABASE lists it`, async () => {
      store = await openStore();
      const file = await setup(store);
      const db = store.storage.catalog.requireDatabase('cnosdb', 'public');
      const m = db.tables.get('m')!;
      const { dir } = directoryOf(file);
      const t = dir.tables.get(m.id)!;
      const at =
        part === 'index block'
          ? dir.blocks.offset[t.firstBlock + 1]!
          : t.postings.get(m.tags.find((c) => c.name === 'pod')!.id)!.offset;
      const wantN = await dump(store.storage, 'n');
      await store.close();
      flip(file, at + 5);
      await store.reopen();
      // The file opens (its directory is sound): nothing is reported until a read needs the part.
      expect(store.storage.health().status).toBe('healthy');
      expect(await dump(store.storage, 'n')).toEqual(wantN);
      if (part === 'index block') {
        const err = await dump(store.storage, 'm').catch((e: unknown) => e);
        expect(err).toBeInstanceOf(CorruptionError);
        expect((err as Error).message).toMatch(
          new RegExp(
            `^corrupt ${rel(file)} at offset ${at}: index block checksum mismatch: stored 0x[0-9a-f]+, computed 0x[0-9a-f]+$`,
          ),
        );
        expect(store.storage.health().status).toBe('degraded');
        expect(await dump(store.storage, 'n')).toEqual(wantN);
      }
      const problems = await store.storage.checkDatabase(
        store.storage.catalog.requireDatabase('cnosdb', 'public'),
        false,
      );
      expect(problems.map((p) => [p.offset, p.problem.replace(/: stored .*/, '')])).toEqual([
        [at, `${part} checksum mismatch`],
      ]);
    });
  }
});
