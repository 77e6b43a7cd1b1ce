// A backup's checkpoint (storage/checkpoint.ts) holds its files: a flush that trims the WAL and a
// compaction that unlinks its inputs after the checkpoint was taken delete nothing it still
// copies, and its copy, opened as a data directory, holds exactly what was written before it.

import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Checkpoint } from '../../host/storage/index.js';
import { batch, dbl, dump, f64, openStore, type TestStore } from './support.js';

const stores: TestStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.cleanup();
});

/** The checkpoint's files written out as a data directory. */
async function copyOut(cp: Checkpoint, to: string): Promise<void> {
  for (const f of cp.files) {
    const { size, chunks } = await f.open();
    const parts: Uint8Array[] = [];
    for await (const c of chunks) parts.push(c);
    const bytes = Buffer.concat(parts);
    expect(bytes.length).toBe(size);
    mkdirSync(dirname(join(to, f.path)), { recursive: true });
    writeFileSync(join(to, f.path), bytes);
  }
}

describe('checkpoint', () => {
  it('keeps its WAL segments and segment files through a flush and a compaction, and copies exactly the writes before it', async () => {
    const s = await openStore({ compactionFanIn: 2 });
    stores.push(s);
    const db = s.storage.catalog.requireDatabase('cnosdb', 'public');
    const write = (v: number): Promise<void> =>
      s.storage.write(db, [batch([['m', [['h', 'a']], BigInt(v), [dbl('v', v)]]])]);
    await write(1);
    await s.storage.flushAll(); // a segment file
    await write(2); // the WAL tail
    const cp = await s.storage.checkpoint();
    try {
      expect(cp.databases.find((d) => d.name === 'public')).toMatchObject({ lsn: 2, flushedLsn: 1 });
      expect(cp.files.map((f) => f.kind).sort()).toEqual(
        [
          'catalog',
          ...cp.databases.map(() => 'manifest'),
          'segment',
          ...cp.files.filter((f) => f.kind === 'wal').map(() => 'wal'),
        ].sort(),
      );
      await write(3);
      await s.storage.flushAll(); // trims the WAL segment holding record 2...
      await s.storage.compactAll(); // ...and merges the first file away
      const wal = join(s.dir, 'db', String(db.id), 'wal');
      const walBefore = readdirSync(wal);
      const to = mkdtempSync(join(tmpdir(), 'sundial-checkpoint-'));
      try {
        await copyOut(cp, to);
        cp.release();
        // The trim put off by the hold runs once it is released.
        await new Promise((r) => setTimeout(r, 50));
        expect(readdirSync(wal).length).toBeLessThan(walBefore.length);
        const copy = await openStore({}, to);
        try {
          expect(await dump(copy.storage, 'm')).toEqual([1, 2].map((v) => `h=a | ${v} | v=${f64(v)}`));
        } finally {
          await copy.cleanup();
        }
      } finally {
        rmSync(to, { recursive: true, force: true });
      }
    } finally {
      cp.release();
    }
    expect(await dump(s.storage, 'm')).toEqual([1, 2, 3].map((v) => `h=a | ${v} | v=${f64(v)}`));
  });
});
