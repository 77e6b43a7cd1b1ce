// The in-memory store (StorageOptions.memory, library mode's open() without a directory): the
// whole write, flush, compaction and DROP DATABASE cycle with nothing on disk, not even dataDir.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { DEFAULT_DATABASE_OPTIONS } from '../../host/core/schema.js';
import { batch, dump, int, openStore } from './support.js';

const root = mkdtempSync(join(tmpdir(), 'sundial-memory-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

it('writes, flushes, compacts, drops and recreates a database in memory, leaving no file', async () => {
  const dataDir = join(root, 'never-made');
  const store = await openStore({ memory: true }, dataDir);
  try {
    const s = store.storage;
    const db = await s.createDatabase('cnosdb', 'mem', DEFAULT_DATABASE_OPTIONS);
    for (let round = 0; round < 5; round++) {
      await s.write(db, [batch([['t', [['host', 'a']], BigInt(round + 1), [int('v', BigInt(round))]]])]);
      await s.flushAll(db);
    }
    await s.compactAll();
    expect(await dump(s, 't', {}, 'mem')).toEqual([
      'host=a | 1 | v=0',
      'host=a | 2 | v=1',
      'host=a | 3 | v=2',
      'host=a | 4 | v=3',
      'host=a | 5 | v=4',
    ]);
    await s.dropDatabase('cnosdb', 'mem', 0);
    const again = await s.createDatabase('cnosdb', 'mem', DEFAULT_DATABASE_OPTIONS);
    expect(again.id).not.toBe(db.id);
    expect(await dump(s, 't', {}, 'mem')).toEqual([]);
    await s.write(again, [batch([['t', [['host', 'b']], 9n, [int('v', 9n)]]])]);
    expect(await dump(s, 't', {}, 'mem')).toEqual(['host=b | 9 | v=9']);
  } finally {
    await store.close();
  }
  expect(existsSync(dataDir)).toBe(false);
  expect(existsSync('memory')).toBe(false);
});
