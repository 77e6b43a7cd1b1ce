// Retention and deletes with a clock the test controls: whole partitions past the TTL are dropped
// (files deleted, rows hidden, memtable rows never flushed), writes older than the TTL get
// `pointExpired`; tombstones hide rows written before the delete only, survive restarts, and are
// removed with the rows by compaction.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UserError } from '../../host/core/errors.js';
import { DAY_MS, DEFAULT_DATABASE_OPTIONS } from '../../host/core/schema.js';
import { TableModel } from './model.js';
import { batch, dbl, dump, openStore, type Row, type TestStore } from './support.js';

let store: TestStore | undefined;
afterEach(async () => {
  await store?.cleanup();
  store = undefined;
});

const day = (d: number): bigint => BigInt(Math.round(d * DAY_MS)); // ms precision

describe('retention', () => {
  it('drops whole partitions past the TTL, rejects writes older than it, and keeps the bound across restarts', async () => {
    store = await openStore();
    const s = store.storage;
    await s.createDatabase('cnosdb', 'r', {
      ...DEFAULT_DATABASE_OPTIONS,
      precision: 'MS',
      ttlMs: 2 * DAY_MS,
      vnodeDurationMs: DAY_MS,
    });
    const db = () => s.catalog.requireDatabase('cnosdb', 'r');
    store.clock.now = DAY_MS * 10;
    const write = (d: number, v: number) => s.write(db(), [batch([['m', [['h', 'a']], day(d), [dbl('v', v)]]])]);
    await write(8.5, 1);
    await write(9.5, 2);
    await s.flushAll();
    await write(8.7, 3); // still within the TTL: stays in the memtable
    await write(10, 4);
    const segDir = join(store.dir, 'db', String(db().id), 'seg');
    expect(readdirSync(segDir)).toHaveLength(2); // partitions of day 8 and day 9

    // Day 11.2: the cutoff (9.2) lies in the partition of day 9, so the partition of day 8 goes.
    store.clock.now = DAY_MS * 11.2;
    await s.maintain(); // also flushes the memtable: its oldest row waited longer than flush_age
    await s.flushAll();
    const files = () => readdirSync(segDir).length;
    expect(files()).toBe(2); // day 9 and day 10
    expect(await dump(s, 'm', {}, 'r')).toEqual([
      `h=a | ${day(9.5)} | v=f:4000000000000000`,
      `h=a | ${day(10)} | v=f:4010000000000000`,
    ]);
    await expect(write(9.1, 5)).rejects.toThrow(
      new UserError(
        'pointExpired',
        "Coordinator: Meta: Operation not support: create expired bucket (a point of table 'm' is older than the TTL of database r)",
      ),
    );
    await expect(write(8.9, 5)).rejects.toThrow(UserError);
    // The expired memtable row (day 8.7) is never written to a file.
    await s.flushAll();
    await store.reopen();
    expect(files()).toBe(2);
    expect(await dump(store.storage, 'm', {}, 'r')).toEqual([
      `h=a | ${day(9.5)} | v=f:4000000000000000`,
      `h=a | ${day(10)} | v=f:4010000000000000`,
    ]);
    const manifest = JSON.parse(
      readFileSync(
        join(store.dir, 'db', String(store.storage.catalog.requireDatabase('cnosdb', 'r').id), 'manifest.json'),
        'utf8',
      ),
    );
    expect(manifest.expiredBefore).toBe(String(day(9)));
    expect(manifest.segments.every((x: { minTs: string }) => BigInt(x.minTs) >= day(9))).toBe(true);
  });

  it('cuts partitions of at most a week under the default VNODE_DURATION (a year), so retention still drops data weekly', async () => {
    store = await openStore();
    const s = store.storage;
    await s.createDatabase('cnosdb', 'y', { ...DEFAULT_DATABASE_OPTIONS, precision: 'MS', ttlMs: 3 * DAY_MS });
    expect(s.catalog.requireDatabase('cnosdb', 'y').options.vnodeDurationMs).toBe(31_557_600_000);
    const db = () => s.catalog.requireDatabase('cnosdb', 'y');
    store.clock.now = DAY_MS * 20;
    for (const d of [17.5, 18, 19.5]) await s.write(db(), [batch([['m', [['h', 'a']], day(d), [dbl('v', d)]]])]);
    await s.flushAll();
    const manifest = () =>
      JSON.parse(readFileSync(join(store!.dir, 'db', String(db().id), 'manifest.json'), 'utf8')) as {
        segments: Array<{ partitionStart: string; partitionEnd: string }>;
      };
    // Weeks from the epoch: day 14 to 21 holds all three rows.
    expect(
      manifest().segments.map((x) => [Number(x.partitionStart) / DAY_MS, Number(x.partitionEnd) / DAY_MS]),
    ).toEqual([[14, 21]]);
    // Day 25: the cutoff (22) lies past the week of day 14, which is dropped whole.
    store.clock.now = DAY_MS * 25;
    await s.maintain();
    expect(manifest().segments).toEqual([]);
    expect(await dump(s, 'm', {}, 'y')).toEqual([]);
  });

  it('a longer TTL set later does not bring dropped data back, nor accept writes below the dropped bound', async () => {
    store = await openStore();
    const s = store.storage;
    await s.createDatabase('cnosdb', 'r', {
      ...DEFAULT_DATABASE_OPTIONS,
      precision: 'MS',
      ttlMs: DAY_MS,
      vnodeDurationMs: DAY_MS,
    });
    const db = () => s.catalog.requireDatabase('cnosdb', 'r');
    store.clock.now = DAY_MS * 5;
    await s.write(db(), [batch([['m', [], day(4.5), [dbl('v', 1)]]])]);
    store.clock.now = DAY_MS * 7;
    await s.maintain();
    await s.alterDatabase('cnosdb', 'r', { ...db().options, ttlMs: 30 * DAY_MS });
    expect(await dump(s, 'm', {}, 'r')).toEqual([]);
    await expect(s.write(db(), [batch([['m', [], day(4.6), [dbl('v', 1)]]])])).rejects.toThrow(UserError);
  });
});

describe('deletes', () => {
  it('hide only rows written before them, across memtable, files, compaction and restart', async () => {
    store = await openStore({ flushBytes: 64 << 10 });
    const t = store;
    const db = () => t.storage.catalog.requireDatabase('cnosdb', 'public');
    const model = new TableModel('m');
    const write = async (rows: Row[]) => {
      await t.storage.write(db(), [batch(rows)]);
      model.write(rows);
    };
    const series = (v: number, from: number, n: number): Row[] =>
      ['a', 'b', 'c'].flatMap((h) =>
        Array.from({ length: n }, (_, i) => ['m', [['h', h]], BigInt(from + i), [dbl('v', v + i)]] as Row),
      );
    await write(series(0, 0, 3000));
    await t.storage.flushAll();
    await write(series(10000, 2500, 1000)); // overlaps the file, stays in memory
    const del = async (minTime: bigint, maxTime: bigint, hosts: string[]) => {
      await t.storage.delete(db(), 'm', { minTime, maxTime, seriesFilter: (tags) => hosts.includes(tags.get('h')!) });
      model.delete(minTime, maxTime, (tags) => hosts.includes(tags.get('h')!));
    };
    await del(1000n, 2999n, ['a', 'b']);
    await write(series(50000, 2000, 100)); // after the delete, inside its range: visible
    expect(await dump(t.storage, 'm')).toEqual(model.dump(['v']));
    await t.storage.flushAll();
    expect(await dump(t.storage, 'm')).toEqual(model.dump(['v']));
    await store.reopen();
    expect(await dump(store.storage, 'm')).toEqual(model.dump(['v']));
    await del(0n, 10n, ['c']);
    await store.storage.compactAll();
    expect(await dump(store.storage, 'm')).toEqual(model.dump(['v']));
    // Compaction applied every tombstone, so the manifest keeps none.
    const dbDir = join(store.dir, 'db', String(store.storage.catalog.requireDatabase('cnosdb', 'public').id));
    expect(JSON.parse(readFileSync(join(dbDir, 'manifest.json'), 'utf8')).tombstones).toEqual([]);
    await store.reopen();
    expect(await dump(store.storage, 'm')).toEqual(model.dump(['v']));
  });

  it('a delete of a whole table range without a filter, and a filter matching nothing', async () => {
    store = await openStore();
    const s = store.storage;
    const db = () => s.catalog.requireDatabase('cnosdb', 'public');
    await s.write(db(), [
      batch([
        ['m', [['h', 'a']], 1n, [dbl('v', 1)]],
        ['m', [['h', 'b']], 2n, [dbl('v', 2)]],
      ]),
    ]);
    await s.flushAll();
    await s.delete(db(), 'm', { seriesFilter: () => false });
    expect(await dump(s, 'm')).toHaveLength(2);
    await s.delete(db(), 'm', {});
    expect(await dump(s, 'm')).toEqual([]);
    await expect(s.delete(db(), 'nope', {})).rejects.toThrow(
      new UserError('tableNotFound', 'Meta: Table not found: "cnosdb.public.nope"'),
    );
    await s.compactAll();
    const dbDir = join(store.dir, 'db', String(db().id));
    expect(readdirSync(join(dbDir, 'seg'))).toEqual([]); // everything deleted: the file is gone
    expect(existsSync(join(dbDir, 'manifest.json'))).toBe(true);
  });
});
