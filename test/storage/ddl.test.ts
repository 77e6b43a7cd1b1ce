// DDL through the storage API: CnosDB's validation messages (nothing changes on failure),
// durability when the promise resolves, and replay after a crash that never puts old values under
// a dropped, renamed or recreated column or table, nor undeletes rows. A "crash" here is a copy of
// the data directory taken while the storage is still open, which is what a kill -9 leaves on
// disk at that instant (ddl-kill.test.ts does the same with a real SIGKILL).

import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UserError } from '../../host/core/errors.js';
import { DEFAULT_DATABASE_OPTIONS, type TableChange } from '../../host/core/schema.js';
import { ValueType } from '../../host/core/write-batch.js';
import type { Storage } from '../../host/storage/storage.js';
import { batch, dbl, dump, int, openStore, str, type Row, type TestStore } from './support.js';

let store: TestStore | undefined;
const extra: string[] = [];
afterEach(async () => {
  await store?.cleanup();
  store = undefined;
  for (const d of extra.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Opens what a kill -9 at this instant would leave on disk, runs `fn` on it, closes it. */
async function afterCrash<T>(
  s: TestStore,
  fn: (storage: Storage) => Promise<T>,
  tamper?: (dir: string) => void,
): Promise<T> {
  const copy = mkdtempSync(join(tmpdir(), 'sundial-crash-'));
  extra.push(copy);
  cpSync(s.dir, copy, { recursive: true });
  tamper?.(copy);
  const crashed = await openStore({}, copy);
  try {
    return await fn(crashed.storage);
  } finally {
    await crashed.close();
  }
}

const pub = (s: Storage) => s.catalog.requireDatabase('cnosdb', 'public');
const columns = (s: Storage, table: string) => {
  const t = pub(s).tables.get(table);
  return t === undefined
    ? undefined
    : [...t.tags, ...t.fields].sort((a, b) => a.id - b.id).map((c) => `${c.name}:${c.kind}:${c.type}:${c.codec}`);
};

describe('DDL validation', () => {
  const created = {
    name: 'air',
    tags: [{ name: 'station' }],
    fields: [
      { name: 'visibility', type: ValueType.Double },
      { name: 'pressure', type: ValueType.Double, codec: 'gorilla' },
    ],
  };

  const createCases: Array<[string, Parameters<Storage['createTable']>[1], string, string]> = [
    ['an existing table', created, 'tableExists', 'Meta: Table air already exists.'],
    [
      'no field',
      { name: 'x', tags: [{ name: 't' }], fields: [] },
      'sqlParse',
      'Expected field columns when create table',
    ],
    [
      'a repeated name',
      { name: 'x', tags: [{ name: 'c' }], fields: [{ name: 'c', type: ValueType.BigInt }] },
      'sqlPlan',
      'Field or Tag have the same name c',
    ],
    [
      'a column named time',
      { name: 'x', tags: [], fields: [{ name: 'time', type: ValueType.BigInt }] },
      'sqlPlan',
      'column time already exists in table cnosdb.public.x',
    ],
    [
      'an unknown codec',
      { name: 'x', tags: [], fields: [{ name: 'f', type: ValueType.BigInt, codec: 'DEL' }] },
      'sqlParse',
      'DEL is not valid encoding',
    ],
    [
      'a codec of another type',
      { name: 'x', tags: [], fields: [{ name: 'f', type: ValueType.Double, codec: 'snappy' }] },
      'sqlPlan',
      'Unsupported encoding type Snappy for F64',
    ],
    [
      'a name with a slash',
      { name: 'tb/1', tags: [], fields: [{ name: 'f', type: ValueType.Double }] },
      'sqlParse',
      "not supported keyword contains '/': tb/1",
    ],
    [
      'a blank name',
      { name: ' ', tags: [], fields: [{ name: 'f', type: ValueType.Double }] },
      'sqlParse',
      'Name cannot be empty or contain only spaces',
    ],
  ];
  for (const [what, def, kind, message] of createCases) {
    it(`CREATE TABLE rejects ${what} and changes nothing`, async () => {
      store = await openStore();
      await store.storage.createTable(pub(store.storage), created);
      const before = JSON.stringify([...pub(store.storage).tables.values()]);
      const version = store.storage.catalog.version;
      await expect(store.storage.createTable(pub(store.storage), def)).rejects.toThrow(
        new UserError(kind as never, message),
      );
      expect(JSON.stringify([...pub(store.storage).tables.values()])).toBe(before);
      expect(store.storage.catalog.version).toBe(version);
    });
  }

  const alterCases: Array<[string, TableChange, string, string]> = [
    [
      'dropping the last field',
      { kind: 'dropColumn', name: 'f0' },
      'sqlPlan',
      'There must be at least one field column.',
    ],
    ['dropping a tag', { kind: 'dropColumn', name: 't0' }, 'sqlPlan', "Can't drop tag column t0."],
    ['dropping time', { kind: 'dropColumn', name: 'time' }, 'sqlPlan', 'There must be at least one tag column. '],
    [
      'adding a field named time',
      { kind: 'addField', name: 'time', type: ValueType.BigInt },
      'sqlPlan',
      'column time already exists in table test',
    ],
    ['adding an existing tag', { kind: 'addTag', name: 't0' }, 'sqlPlan', 'column t0 already exists in table test'],
    [
      'adding an existing field',
      { kind: 'addField', name: 'f0', type: ValueType.Double, codec: 'DEFAULT' },
      'sqlPlan',
      'column f0 already exists in table test',
    ],
    [
      'a codec on a tag',
      { kind: 'setCodec', column: 't0', codec: 'NULL' },
      'sqlPlan',
      'Tag does not support compression',
    ],
    [
      'a codec on time',
      { kind: 'setCodec', column: 'time', codec: 'NULL' },
      'sqlPlan',
      'Column time does not support modification',
    ],
    [
      'renaming time',
      { kind: 'renameColumn', from: 'time', to: 'time_001' },
      'notImplemented',
      'This feature is not implemented: rename time column',
    ],
    [
      'renaming onto an existing column',
      { kind: 'renameColumn', from: 'f0', to: 't0' },
      'sqlPlan',
      'column t0 already exists in table test',
    ],
    ['an unknown column', { kind: 'dropColumn', name: 'nope' }, 'sqlPlan', 'column nope not found in table test'],
  ];
  for (const [what, change, kind, message] of alterCases) {
    it(`ALTER TABLE rejects ${what} and changes nothing`, async () => {
      store = await openStore();
      await store.storage.createTable(pub(store.storage), {
        name: 'test',
        tags: [{ name: 't0' }],
        fields: [{ name: 'f0', type: ValueType.BigInt, codec: 'NULL' }],
      });
      const before = columns(store.storage, 'test');
      await expect(store.storage.alterTable(pub(store.storage), 'test', change)).rejects.toThrow(
        new UserError(kind as never, message),
      );
      expect(columns(store.storage, 'test')).toEqual(before);
    });
  }

  it('ALTER TABLE on a missing table, DROP TABLE of a missing table: table not found', async () => {
    store = await openStore();
    await expect(store.storage.alterTable(pub(store.storage), 'nope', { kind: 'addTag', name: 'x' })).rejects.toThrow(
      new UserError('tableNotFound', 'Meta: Table not found: "cnosdb.public.nope"'),
    );
    await expect(store.storage.dropTable(pub(store.storage), 'nope')).rejects.toThrow(
      new UserError('tableNotFound', 'Meta: Table not found: "cnosdb.public.nope"'),
    );
  });

  it('databases: exists, public cannot be dropped, precision cannot change, bad options', async () => {
    store = await openStore();
    const o = { ...DEFAULT_DATABASE_OPTIONS };
    await store.storage.createDatabase('cnosdb', 'db1', o);
    await expect(store.storage.createDatabase('cnosdb', 'db1', o)).rejects.toThrow(
      new UserError('databaseExists', 'Meta: Database "db1" already exists'),
    );
    await expect(store.storage.createDatabase('nobody', 'db2', o)).rejects.toThrow(
      new UserError('tenantNotFound', 'The tenant nobody not found'),
    );
    await expect(store.storage.createDatabase('cnosdb', 'db2', { ...o, shard: 0 })).rejects.toThrow(
      /shard must be greater than 0/,
    );
    await expect(store.storage.dropDatabase('cnosdb', 'public')).rejects.toThrow(
      new UserError('forbidDropDatabase', 'Database "public" forbid drop'),
    );
    await expect(store.storage.alterDatabase('cnosdb', 'db1', { ...o, precision: 'MS' })).rejects.toThrow(
      /database config is unmodifiable/,
    );
    await expect(store.storage.dropDatabase('cnosdb', 'nope')).rejects.toThrow(
      new UserError('databaseNotFound', 'Meta: Database not found: "nope"'),
    );
    expect(
      store.storage.catalog
        .databases()
        .map((d) => d.name)
        .sort(),
    ).toEqual(['db1', 'public']);
  });

  it('keeps creation order by id: CREATE TABLE tags then fields, ADD appends, drop and re-add moves to the end', async () => {
    store = await openStore();
    const db = pub(store.storage);
    await store.storage.createTable(db, {
      name: 'test',
      tags: [{ name: 't0' }],
      fields: [{ name: 'f0', type: ValueType.BigInt, codec: 'null' }],
      timeCodec: 'delta',
    });
    await store.storage.alterTable(db, 'test', { kind: 'addTag', name: 't1' });
    await store.storage.alterTable(db, 'test', { kind: 'addField', name: 'f1', type: ValueType.BigInt, codec: 'NULL' });
    await store.storage.alterTable(db, 'test', { kind: 'dropColumn', name: 'f0' });
    await store.storage.alterTable(db, 'test', { kind: 'addField', name: 'f0', type: ValueType.BigInt, codec: 'NULL' });
    await store.storage.alterTable(db, 'test', { kind: 'setCodec', column: 'f1', codec: 'quantile' });
    expect(columns(store.storage, 'test')).toEqual([
      't0:tag:0:DEFAULT',
      't1:tag:0:DEFAULT',
      'f1:field:2:QUANTILE',
      'f0:field:2:NULL',
    ]);
    expect(db.tables.get('test')!.timeCodec).toBe('DELTA');
  });
});

describe('DDL durability and replay', () => {
  it('every DDL is durable when its promise resolves', async () => {
    store = await openStore();
    const s = store.storage;
    await s.createDatabase('cnosdb', 'd1', { ...DEFAULT_DATABASE_OPTIONS, ttlMs: 30 * 86_400_000 });
    await afterCrash(store, async (c) =>
      expect(c.catalog.database('cnosdb', 'd1')?.options.ttlMs).toBe(30 * 86_400_000),
    );
    await s.alterDatabase('cnosdb', 'd1', { ...DEFAULT_DATABASE_OPTIONS, ttlMs: null });
    await afterCrash(store, async (c) => expect(c.catalog.database('cnosdb', 'd1')?.options.ttlMs).toBe(null));
    const d1 = s.catalog.requireDatabase('cnosdb', 'd1');
    await s.createTable(d1, { name: 't', tags: [{ name: 'h' }], fields: [{ name: 'v', type: ValueType.Double }] });
    await afterCrash(store, async (c) => expect(c.catalog.database('cnosdb', 'd1')?.tables.has('t')).toBe(true));
    await s.alterTable(d1, 't', { kind: 'renameColumn', from: 'v', to: 'w' });
    await afterCrash(store, async (c) =>
      expect(
        c.catalog
          .database('cnosdb', 'd1')
          ?.tables.get('t')
          ?.fields.map((f) => f.name),
      ).toEqual(['w']),
    );
    await s.dropTable(d1, 't');
    await afterCrash(store, async (c) => expect(c.catalog.database('cnosdb', 'd1')?.tables.has('t')).toBe(false));
    await s.write(d1, [batch([['x', [], 1n, [dbl('v', 1)]]])]);
    await s.dropDatabase('cnosdb', 'd1');
    await afterCrash(store, async (c) => expect(c.catalog.database('cnosdb', 'd1')).toBe(undefined));
  });

  it('never resurrects a dropped column, nor puts its old values under a new column of that name', async () => {
    store = await openStore();
    const s = store.storage;
    await s.write(pub(s), [batch([['m', [['h', 'a']], 1n, [dbl('x', 1.5), int('y', 7n)]]])]);
    await s.alterTable(pub(s), 'm', { kind: 'dropColumn', name: 'y' });
    await s.alterTable(pub(s), 'm', { kind: 'addField', name: 'y', type: ValueType.String });
    await s.write(pub(s), [batch([['m', [['h', 'a']], 2n, [dbl('x', 2.5), str('y', 'new')]]])]);
    const want = ['h=a | 1 | x=f:3ff8000000000000 y=NULL', 'h=a | 2 | x=f:4004000000000000 y="new"'];
    expect(await dump(s, 'm')).toEqual(want);
    await afterCrash(store, async (c) => {
      expect(columns(c, 'm')).toEqual(['h:tag:0:DEFAULT', 'x:field:1:DEFAULT', 'y:field:5:DEFAULT']);
      expect(await dump(c, 'm')).toEqual(want);
    });
    // The same after the old values went to a segment file.
    await s.flushAll();
    await afterCrash(store, async (c) => expect(await dump(c, 'm')).toEqual(want));
  });

  it('rewrites a lone file that holds a dropped column', async () => {
    store = await openStore();
    const s = store.storage;
    const segDir = join(store.dir, 'db', String(pub(s).id), 'seg');
    // Three one-row series without y (one pack, first in key order), then one of 200 rows with
    // y (blocks of its own): the check must go past the pack's series.
    const rows: Row[] = ['a', 'b', 'c'].map((h): Row => ['m', [['h', h]], 1n, [dbl('x', 1)]]);
    for (let i = 0; i < 200; i++) rows.push(['m', [['h', 'z']], BigInt(10 + i), [dbl('x', i), int('y', BigInt(i))]]);
    await s.write(pub(s), [batch(rows)]);
    await s.flushAll();
    await s.maintain();
    await s.idle();
    const before = readdirSync(segDir);
    expect(before).toHaveLength(1);
    await s.alterTable(pub(s), 'm', { kind: 'dropColumn', name: 'y' });
    await s.maintain();
    await s.idle();
    const after = readdirSync(segDir);
    expect(after).toHaveLength(1);
    expect(after).not.toEqual(before);
    expect((await dump(s, 'm')).slice(0, 4)).toEqual([
      'h=a | 1 | x=f:3ff0000000000000',
      'h=b | 1 | x=f:3ff0000000000000',
      'h=c | 1 | x=f:3ff0000000000000',
      'h=z | 10 | x=f:0',
    ]);
    // Nothing left to clean: the next rounds leave the file alone.
    await s.maintain();
    await s.idle();
    expect(readdirSync(segDir)).toEqual(after);
  });

  it('keeps values under the new name after RENAME COLUMN (field and tag), across replay and files', async () => {
    store = await openStore();
    const s = store.storage;
    await s.write(pub(s), [batch([['m', [['t0', 'a']], 1n, [int('f0', 111n)]]])]);
    await s.flushAll();
    await s.write(pub(s), [batch([['m', [['t0', 'b']], 2n, [int('f0', 222n)]]])]);
    await s.alterTable(pub(s), 'm', { kind: 'renameColumn', from: 'f0', to: 'f9' });
    await s.alterTable(pub(s), 'm', { kind: 'renameColumn', from: 't0', to: 't9' });
    await s.write(pub(s), [batch([['m', [['t9', 'a']], 3n, [int('f9', 333n)]]])]);
    const want = ['t9=a | 1 | f9=111', 't9=a | 3 | f9=333', 't9=b | 2 | f9=222'];
    expect(await dump(s, 'm')).toEqual(want);
    await afterCrash(store, async (c) => {
      expect(columns(c, 'm')).toEqual(['t0:tag:0:DEFAULT'.replace('t0', 't9'), 'f9:field:2:DEFAULT']);
      expect(await dump(c, 'm')).toEqual(want);
    });
    // A later write under the old name is a new column, not the renamed one.
    await s.write(pub(s), [batch([['m', [['t9', 'a']], 4n, [int('f0', 4n)]]])]);
    await afterCrash(store, async (c) =>
      expect(columns(c, 'm')).toEqual(['t9:tag:0:DEFAULT', 'f9:field:2:DEFAULT', 'f0:field:2:DEFAULT']),
    );
  });

  it('never resurrects a dropped table; a table recreated under the name gets only its own rows', async () => {
    store = await openStore();
    const s = store.storage;
    await s.write(pub(s), [batch([['m', [['h', 'a']], 1n, [dbl('x', 1)]]])]);
    await s.flushAll();
    await s.write(pub(s), [batch([['m', [['h', 'a']], 2n, [dbl('x', 2)]]])]);
    await s.dropTable(pub(s), 'm');
    await afterCrash(store, async (c) => {
      expect(pub(c).tables.has('m')).toBe(false);
      expect(await dump(c, 'm')).toEqual([]);
    });
    await s.createTable(pub(s), { name: 'm', tags: [{ name: 'h' }], fields: [{ name: 'x', type: ValueType.BigInt }] });
    await s.write(pub(s), [batch([['m', [['h', 'a']], 3n, [int('x', 3n)]]])]);
    await afterCrash(store, async (c) => expect(await dump(c, 'm')).toEqual(['h=a | 3 | x=3']));
    await s.compactAll();
    await afterCrash(store, async (c) => expect(await dump(c, 'm')).toEqual(['h=a | 3 | x=3']));
    // The background reclaims a dropped table's files without waiting for merges.
    await s.flushAll();
    await s.dropTable(pub(s), 'm');
    await s.maintain();
    await s.idle();
    expect(readdirSync(join(store.dir, 'db', String(pub(s).id), 'seg'))).toEqual([]);
  });

  it('recreates tables and columns whose catalog save a crash lost, with their ids', async () => {
    store = await openStore();
    const s = store.storage;
    await s.write(pub(s), [batch([['old', [], 1n, [dbl('x', 1)]]])]);
    await s.createTable(pub(s), { name: 'sync', tags: [], fields: [{ name: 'v', type: ValueType.Double }] }); // saves the catalog
    const savedCatalog = readFileSync(join(store.dir, 'catalog.json'));
    await s.write(pub(s), [
      batch([
        ['fresh', [['h', 'a']], 5n, [int('n', 5n)]],
        ['old', [], 2n, [dbl('x', 2), str('added', 'z')]],
      ]),
    ]);
    const ids = JSON.stringify([pub(s).tables.get('fresh'), pub(s).tables.get('old')]);
    await afterCrash(
      store,
      async (c) => {
        expect(JSON.stringify([pub(c).tables.get('fresh'), pub(c).tables.get('old')])).toBe(ids);
        expect(await dump(c, 'fresh')).toEqual(['h=a | 5 | n=5']);
        expect(await dump(c, 'old')).toEqual(
          ['| 1 | x=f:3ff0000000000000 added=NULL', '| 2 | x=f:4000000000000000 added="z"'].map((l) => ' ' + l),
        );
      },
      (dir) => writeFileSync(join(dir, 'catalog.json'), savedCatalog),
    );
  });

  it('never undeletes: a DELETE survives replay; rows written after it stay', async () => {
    store = await openStore();
    const s = store.storage;
    const rows = (v: number) =>
      batch(
        [1n, 2n, 3n]
          .flatMap(
            (ts) =>
              [
                ['m', [['h', 'a']], ts, [dbl('x', v)]],
                ['m', [['h', 'b']], ts, [dbl('x', v)]],
              ] as const,
          )
          .map((r) => [...r] as never),
      );
    await s.write(pub(s), [rows(1)]);
    await s.flushAll();
    await s.write(pub(s), [batch([['m', [['h', 'a']], 4n, [dbl('x', 1)]]])]);
    await s.delete(pub(s), 'm', { minTime: 2n, maxTime: 4n, seriesFilter: (t) => t.get('h') === 'a' });
    await s.write(pub(s), [batch([['m', [['h', 'a']], 3n, [dbl('x', 9)]]])]);
    const want = [
      'h=a | 1 | x=f:3ff0000000000000',
      'h=a | 3 | x=f:4022000000000000',
      'h=b | 1 | x=f:3ff0000000000000',
      'h=b | 2 | x=f:3ff0000000000000',
      'h=b | 3 | x=f:3ff0000000000000',
    ];
    expect(await dump(s, 'm')).toEqual(want);
    await afterCrash(store, async (c) => expect(await dump(c, 'm')).toEqual(want));
    await s.flushAll();
    await afterCrash(store, async (c) => expect(await dump(c, 'm')).toEqual(want));
    await s.compactAll();
    expect(await dump(s, 'm')).toEqual(want);
    await afterCrash(store, async (c) => expect(await dump(c, 'm')).toEqual(want));
  });
});
