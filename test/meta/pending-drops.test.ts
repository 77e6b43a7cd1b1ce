// DROP ... AFTER through the storage API: the object leaves the name lookups at once, keeps its
// rows (through flushes, restarts and crashes) until RECOVER brings it back or the drop is due,
// when maintain() deletes it; resource_status records each step.

import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_DATABASE_OPTIONS } from '../../host/core/schema.js';
import { ValueType } from '../../host/core/write-batch.js';
import type { Storage } from '../../host/storage/storage.js';
import { batch, dbl, dump, openStore, type TestStore } from '../storage/support.js';

let store: TestStore | undefined;
const extra: string[] = [];
afterEach(async () => {
  await store?.cleanup();
  store = undefined;
  for (const d of extra.splice(0)) rmSync(d, { recursive: true, force: true });
});

const MIN = 60_000;
const status = (s: Storage, name: string) => {
  const r = s.catalog.resources.get(name);
  return r === undefined ? undefined : `${r.action} ${r.tryCount} ${r.status}`;
};

async function withTable(s: TestStore, db = 'public'): Promise<void> {
  const def = s.storage.catalog.requireDatabase('cnosdb', db);
  await s.storage.createTable(def, {
    name: 'air',
    tags: [{ name: 'station' }],
    fields: [{ name: 'v', type: ValueType.Double }],
  });
  await s.storage.write(def, [
    batch([
      ['air', [['station', 'a']], 1n, [dbl('v', 1.5)]],
      ['air', [['station', 'b']], 2n, [dbl('v', 2.5)]],
    ]),
  ]);
}

describe('pending drops', () => {
  it('hides a table, keeps its rows through a flush and a restart, and RECOVER TABLE brings it back', async () => {
    store = await openStore();
    await withTable(store);
    const rows = await dump(store.storage, 'air');
    const pub = () => store!.storage.catalog.requireDatabase('cnosdb', 'public');
    await store.storage.dropTable(pub(), 'air', 3 * MIN);
    expect(pub().tables.has('air')).toBe(false);
    expect(status(store.storage, 'cnosdb-public-air')).toBe('DropTable 0 Schedule');
    await store.storage.flushAll();
    await store.reopen();
    expect(pub().tables.has('air')).toBe(false);
    await store.storage.recoverDropped('table', ['cnosdb', 'public', 'air']);
    expect(status(store.storage, 'cnosdb-public-air')).toBe('DropTable 0 Cancel');
    expect(await dump(store.storage, 'air')).toEqual(rows);
  });

  it('carries out a due drop of a database: files deleted, name free, grants gone', async () => {
    store = await openStore();
    const def = await store.storage.createDatabase('cnosdb', 'd1', { ...DEFAULT_DATABASE_OPTIONS });
    await withTable(store, 'd1');
    const dir = join(store.dir, 'db', String(def.id));
    await store.storage.dropDatabase('cnosdb', 'd1', 3 * MIN);
    expect(store.storage.catalog.database('cnosdb', 'd1')).toBeUndefined();
    store.clock.now += 2 * MIN;
    await store.storage.maintain();
    expect(existsSync(dir)).toBe(true);
    expect(status(store.storage, 'cnosdb-d1')).toBe('DropDatabase 0 Schedule');
    store.clock.now += 2 * MIN;
    await store.storage.maintain();
    expect(existsSync(dir)).toBe(false);
    expect(status(store.storage, 'cnosdb-d1')).toBe('DropDatabase 1 Successed');
    await expect(store.storage.recoverDropped('database', ['cnosdb', 'd1'])).rejects.toThrow(
      'Database not found: "d1"',
    );
    await store.storage.createDatabase('cnosdb', 'd1', { ...DEFAULT_DATABASE_OPTIONS });
  });

  it('lets a plain DROP carry out a pending drop at once, and a second AFTER reschedule it', async () => {
    store = await openStore();
    await store.storage.createDatabase('cnosdb', 'd2', { ...DEFAULT_DATABASE_OPTIONS });
    await store.storage.dropDatabase('cnosdb', 'd2', 3 * MIN);
    await store.storage.dropDatabase('cnosdb', 'd2', 1 * MIN);
    expect(store.storage.catalog.pendingDrops.map((p) => p.dueMs - store!.clock.now)).toEqual([MIN]);
    await store.storage.dropDatabase('cnosdb', 'd2');
    expect(store.storage.catalog.pendingDrops).toEqual([]);
    expect(status(store.storage, 'cnosdb-d2')).toBe('DropDatabase 1 Successed');
  });

  it("schedules a plain DROP TENANT by the tenant's drop_after, hiding its databases with it", async () => {
    store = await openStore();
    await store.storage.changeCatalog((c) =>
      c.addTenant({
        id: c.nextId(),
        name: 't1',
        comment: null,
        dropAfter: '1m',
        limiter: null,
        members: new Map(),
        roles: new Map(),
      }),
    );
    await store.storage.createDatabase('t1', 'db', { ...DEFAULT_DATABASE_OPTIONS });
    await store.storage.dropTenant('t1');
    expect(store.storage.catalog.tenants.has('t1')).toBe(false);
    expect(store.storage.catalog.database('t1', 'db')).toBeUndefined();
    expect(status(store.storage, 't1')).toBe('DropTenant 0 Schedule');
    await store.reopen();
    await store.storage.recoverDropped('tenant', ['t1']);
    expect(store.storage.catalog.database('t1', 'db')?.name).toBe('db');
    expect(status(store.storage, 't1')).toBe('DropTenant 0 Cancel');
  });

  it('refuses RECOVER when a new object took the name, and changes nothing', async () => {
    store = await openStore();
    await withTable(store);
    const pub = () => store!.storage.catalog.requireDatabase('cnosdb', 'public');
    await store.storage.dropTable(pub(), 'air', 3 * MIN);
    await store.storage.write(pub(), [batch([['air', [['station', 'c']], 9n, [dbl('v', 9)]]])]);
    await expect(store.storage.recoverDropped('table', ['cnosdb', 'public', 'air'])).rejects.toThrow(
      'Table air already exists',
    );
    expect(await dump(store.storage, 'air')).toHaveLength(1);
    expect(store.storage.catalog.pendingDrops).toHaveLength(1);
  });

  it('keeps a pending drop and its rows across a crash (the directory as kill -9 leaves it)', async () => {
    store = await openStore();
    await withTable(store);
    const rows = await dump(store.storage, 'air');
    await store.storage.dropTable(store.storage.catalog.requireDatabase('cnosdb', 'public'), 'air', 3 * MIN);
    const copy = mkdtempSync(join(tmpdir(), 'sundial-crash-'));
    extra.push(copy);
    cpSync(store.dir, copy, { recursive: true });
    const crashed = await openStore({}, copy);
    try {
      expect(crashed.storage.catalog.requireDatabase('cnosdb', 'public').tables.has('air')).toBe(false);
      await crashed.storage.recoverDropped('table', ['cnosdb', 'public', 'air']);
      expect(await dump(crashed.storage, 'air')).toEqual(rows);
    } finally {
      await crashed.close();
    }
  });
});
