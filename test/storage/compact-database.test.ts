// COMPACT DATABASE through the storage API: the database's memtables are flushed and each of its
// partitions ends as one file with every row; other databases are left as they are.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { DEFAULT_DATABASE_OPTIONS } from '../../host/core/schema.js';
import type { DatabaseDef } from '../../host/meta/catalog.js';
import { batch, dump, int, openStore, type TestStore } from './support.js';

let store: TestStore | undefined;
afterEach(async () => {
  await store?.cleanup();
  store = undefined;
});

const files = (s: TestStore, db: DatabaseDef): string[] => readdirSync(join(s.dir, 'db', String(db.id), 'seg'));

it('flushes and merges one database down to a file per partition, leaving the others alone', async () => {
  store = await openStore();
  const s = store.storage;
  const one = await s.createDatabase('cnosdb', 'one', DEFAULT_DATABASE_OPTIONS);
  const two = await s.createDatabase('cnosdb', 'two', DEFAULT_DATABASE_OPTIONS);
  for (let i = 1; i <= 3; i++) {
    for (const db of [one, two]) {
      await s.write(db, [batch([['m', [['h', `h${i}`]], BigInt(i), [int('x', BigInt(i))]]])]);
      await s.flushAll(db);
    }
  }
  // Still in the memtable: the compaction must flush it first.
  await s.write(one, [batch([['m', [['h', 'h4']], 4n, [int('x', 4n)]]])]);
  expect(files(store, one)).toHaveLength(3);

  await s.compactDatabase(one);

  expect(files(store, one)).toHaveLength(1);
  expect(files(store, two)).toHaveLength(3);
  expect(await dump(s, 'm', {}, 'one')).toEqual([
    'h=h1 | 1 | x=1',
    'h=h2 | 2 | x=2',
    'h=h3 | 3 | x=3',
    'h=h4 | 4 | x=4',
  ]);
  expect(await dump(s, 'm', {}, 'two')).toEqual(['h=h1 | 1 | x=1', 'h=h2 | 2 | x=2', 'h=h3 | 3 | x=3']);

  // Nothing left to merge: a second run changes nothing.
  await s.compactDatabase(one);
  expect(files(store, one)).toHaveLength(1);
});
