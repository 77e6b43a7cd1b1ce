// Issue 24: flushes and compactions that find the file system full fail, leave nothing behind, are
// retried later, and lose or corrupt nothing: the data stays readable (memtable, WAL, the input
// files), and once space returns the same work succeeds. On a real tmpfs, mounted here.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mountTmpfs, type Tmpfs } from '../support/tmpfs.js';
import { batch, dump, int, openStore, type TestStore } from './support.js';

const NO_SPACE =
  "no space left on the data directory's file system; writes are refused until space is freed (reads go on)";

let fs: Tmpfs;
let store: TestStore | undefined;
beforeAll(() => {
  const mounted = mountTmpfs('16m');
  if (typeof mounted === 'string') throw new Error(`this test needs a tmpfs it can fill: ${mounted}`);
  fs = mounted;
});
afterEach(async () => {
  fs.free();
  await store?.cleanup();
  store = undefined;
});
afterAll(() => fs.unmount());

/** `n` rows of 8 series from time `from` (one request). */
function rows(from: number, n: number): Uint8Array {
  const r: Parameters<typeof batch>[0][number][] = [];
  for (let i = 0; i < n; i++)
    r.push(['m', [['h', `h${i % 8}`]], BigInt(from + i), [int('x', BigInt((from + i) * 7919))]]);
  return batch(r);
}

/** Waits (a few seconds at most) until the storage reports healthy: a failed WAL is probed by the maintenance. */
async function healthy(s: TestStore['storage']): Promise<void> {
  for (let i = 0; i < 50 && s.health().status !== 'healthy'; i++) {
    await s.maintain();
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(s.health()).toEqual({ status: 'healthy', reasons: [] });
}

const segDir = (s: TestStore): string =>
  join(s.dir, 'db', String(s.storage.catalog.requireDatabase('cnosdb', 'public').id), 'seg');

describe('a full file system', () => {
  it('fails a flush, keeps its data readable and in the WAL, and flushes once space returns', async () => {
    store = await openStore({}, join(fs.dir, 'flush'));
    const s = store.storage;
    const db = s.catalog.requireDatabase('cnosdb', 'public');
    await s.write(db, [rows(0, 20_000)]);
    const before = await dump(s, 'm');
    fs.fill();
    await expect(s.flushAll()).rejects.toThrow('flush of database public did not complete');
    expect(
      store.logs.some((l) => l.msg === 'flush failed; the data stays in memory and in the WAL, retrying later'),
    ).toBe(true);
    expect(s.health()).toEqual({ status: 'degraded', reasons: [NO_SPACE] });
    expect(await dump(s, 'm')).toEqual(before);
    expect(readdirSync(segDir(store))).toEqual([]); // no half-written file left
    fs.free();
    await s.flushAll();
    await healthy(s);
    expect(readdirSync(segDir(store))).toHaveLength(1);
    await store.reopen();
    expect(await dump(store.storage, 'm')).toEqual(before);
  });

  it('fails a compaction, keeps its inputs listed and readable, and compacts once space returns', async () => {
    // No background merges (fan-in 10): compactAll merges the partition's four files in one.
    store = await openStore({ compactionFanIn: 10 }, join(fs.dir, 'compact'));
    const s = store.storage;
    const db = s.catalog.requireDatabase('cnosdb', 'public');
    for (let k = 0; k < 4; k++) {
      await s.write(db, [rows(k * 5000, 5000)]);
      await s.flushAll();
    }
    const before = await dump(s, 'm');
    const inputs = readdirSync(segDir(store)).sort();
    expect(inputs).toHaveLength(4);
    fs.fill();
    await s.compactAll();
    expect(store.logs.some((l) => l.msg === 'compaction failed')).toBe(true);
    expect(s.health()).toEqual({ status: 'degraded', reasons: [NO_SPACE] });
    expect(readdirSync(segDir(store)).sort()).toEqual(inputs); // the inputs, and no half-written output
    expect(await dump(s, 'm')).toEqual(before);
    fs.free();
    await s.compactAll();
    await healthy(s);
    expect(readdirSync(segDir(store))).toHaveLength(1);
    expect(await dump(s, 'm')).toEqual(before);
    await store.reopen();
    expect(await dump(store.storage, 'm')).toEqual(before);
  });
});
