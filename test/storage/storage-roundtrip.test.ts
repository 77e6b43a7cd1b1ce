// Write, flush, compact, restart, read back: every value type, NULLs, NaN, -0, infinities,
// integer extremes, huge u64, empty and unicode strings, values bit for bit at every stage,
// against a reference model; overlapping writes merge field by field, the newer winning.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TableModel } from './model.js';
import { batch, bool, dbl, dump, int, openStore, str, uns, type Row, type TestStore } from './support.js';
import { mulberry32 as rng } from '../support/rng.js';

let store: TestStore | undefined;
afterEach(async () => {
  await store?.cleanup();
  store = undefined;
});

const SPECIAL_DOUBLES = [
  NaN,
  -0,
  0,
  Infinity,
  -Infinity,
  Number.MIN_VALUE,
  -Number.MAX_VALUE,
  Number.MAX_VALUE,
  1e-300,
  58.27,
];
const SPECIAL_INTS = [-(2n ** 63n), 2n ** 63n - 1n, 0n, -1n, 1n];
const SPECIAL_UINTS = [2n ** 64n - 1n, 0n, 2n ** 63n, 1n];
const SPECIAL_STRINGS = ['', 'héllo wörld', '🌍 emoji', 'line\nbreak "quoted" \\ back', '\u0000nul', 'x'.repeat(3000)];

/** Rows of table `t`: a few series, sparse fields, special values, `n` rows per series from `t0`. */
function rows(seed: number, n: number, t0: bigint, step: bigint): Row[] {
  const r = rng(seed);
  const out: Row[] = [];
  for (let i = 0; i < n; i++) {
    for (const host of ['a', 'b', 'ü']) {
      const fields = [];
      if (r() < 0.8)
        fields.push(
          dbl(
            'd',
            r() < 0.1 ? SPECIAL_DOUBLES[Math.floor(r() * SPECIAL_DOUBLES.length)]! : Math.round(r() * 10000) / 100,
          ),
        );
      if (r() < 0.7)
        fields.push(
          int(
            'i',
            r() < 0.1 ? SPECIAL_INTS[Math.floor(r() * SPECIAL_INTS.length)]! : BigInt(Math.floor(r() * 200 - 100)),
          ),
        );
      if (r() < 0.6)
        fields.push(
          uns('u', r() < 0.2 ? SPECIAL_UINTS[Math.floor(r() * SPECIAL_UINTS.length)]! : BigInt(Math.floor(r() * 1e6))),
        );
      if (r() < 0.5) fields.push(bool('b', r() < 0.5));
      if (r() < 0.4)
        fields.push(
          str('s', r() < 0.3 ? SPECIAL_STRINGS[Math.floor(r() * SPECIAL_STRINGS.length)]! : `v${Math.floor(r() * 5)}`),
        );
      if (fields.length === 0) fields.push(dbl('d', i));
      out.push([
        'types',
        host === 'b'
          ? [
              ['host', host],
              ['dc', 'x'],
            ]
          : [['host', host]],
        t0 + BigInt(i) * step,
        fields,
      ]);
    }
  }
  return out;
}

const FIELDS = ['d', 'i', 'u', 'b', 's'];

describe('storage round trip', () => {
  it('reads back every value bit for bit after flush, compaction and restart', async () => {
    store = await openStore({ flushBytes: 256 << 10 });
    const model = new TableModel('types');
    const db = () => store!.storage.catalog.requireDatabase('cnosdb', 'public');
    const write = async (rs: Row[]) => {
      for (let i = 0; i < rs.length; i += 2000) await store!.storage.write(db(), [batch(rs.slice(i, i + 2000))]);
      model.write(rs);
    };
    // Over a block (4096 rows) per series, so series span several blocks.
    await write(rows(1, 5000, 1_000_000n, 10n));
    expect(await dump(store.storage, 'types', { fields: FIELDS })).toEqual(model.dump(FIELDS));
    await store.storage.flushAll();
    // Overlapping rewrites: the same timestamps again (some fields only), and new ones between.
    await write(rows(2, 700, 1_000_000n, 70n));
    await write(rows(3, 300, 1_000_005n, 10n));
    expect(await dump(store.storage, 'types', { fields: FIELDS })).toEqual(model.dump(FIELDS));
    await store.storage.flushAll();
    await write(rows(4, 50, 900_000n, 4000n));
    await store.storage.flushAll();
    expect(await dump(store.storage, 'types', { fields: FIELDS })).toEqual(model.dump(FIELDS));
    await store.storage.compactAll();
    expect(await dump(store.storage, 'types', { fields: FIELDS })).toEqual(model.dump(FIELDS));
    await store.reopen();
    expect(await dump(store.storage, 'types', { fields: FIELDS })).toEqual(model.dump(FIELDS));
    // Time ranges and a projection, from segment files.
    expect(
      await dump(store.storage, 'types', { fields: ['s', 'd'], minTime: 1_010_000n, maxTime: 1_020_000n }),
    ).toEqual(model.dump(['s', 'd'], 1_010_000n, 1_020_000n));
    // The WAL is trimmed once its data is in files: only the newest (empty or small) segment stays.
    expect(store.logs.some((l) => l.msg === 'WAL replayed')).toBe(false);
  });

  it('reads the same from the WAL alone as from files (restart without flush)', async () => {
    store = await openStore();
    const model = new TableModel('types');
    const rs = rows(7, 200, -5000n, 37n);
    await store.storage.write(store.storage.catalog.requireDatabase('cnosdb', 'public'), [batch(rs)]);
    model.write(rs);
    await store.reopen();
    expect(store.logs.some((l) => l.msg === 'WAL replayed')).toBe(true);
    expect(await dump(store.storage, 'types', { fields: FIELDS })).toEqual(model.dump(FIELDS));
    await store.storage.flushAll();
    await store.reopen();
    expect(await dump(store.storage, 'types', { fields: FIELDS })).toEqual(model.dump(FIELDS));
  });
});

describe('flush by partition', () => {
  it('writes each series into the file of its time partition, whatever the order of their keys', async () => {
    store = await openStore();
    const db = store.storage.catalog.requireDatabase('cnosdb', 'public');
    const DAY = 86_400_000_000_000n; // ns; partitions are 7 days wide (VNODE_DURATION capped)
    // In key order: a (week 0), b (week 1), c (week 0 again), d (the first instant of week 1),
    // e (weeks 0 and 1), f (week 1).
    await store.storage.write(db, [
      batch([
        ['m', [['h', 'a']], 1n * DAY, [dbl('x', 1)]],
        ['m', [['h', 'b']], 8n * DAY, [dbl('x', 2)]],
        ['m', [['h', 'c']], 2n * DAY, [dbl('x', 3)]],
        ['m', [['h', 'd']], 7n * DAY, [dbl('x', 7)]],
        ['m', [['h', 'e']], 3n * DAY, [dbl('x', 4)]],
        ['m', [['h', 'e']], 9n * DAY, [dbl('x', 5)]],
        ['m', [['h', 'f']], 10n * DAY, [dbl('x', 6)]],
      ]),
    ]);
    await store.storage.flushAll();
    const manifest = JSON.parse(readFileSync(join(store.dir, 'db', String(db.id), 'manifest.json'), 'utf8')) as {
      segments: Array<{ partitionStart: string; partitionEnd: string; minTs: string; maxTs: string; rows: number }>;
    };
    const files = manifest.segments.map((s) => [
      BigInt(s.partitionStart) / DAY,
      BigInt(s.partitionEnd) / DAY,
      BigInt(s.minTs) / DAY,
      BigInt(s.maxTs) / DAY,
      s.rows,
    ]);
    expect(files.sort((x, y) => Number(x[0]) - Number(y[0]))).toEqual([
      [0n, 7n, 1n, 3n, 3],
      [7n, 14n, 7n, 10n, 4],
    ]);
    expect(await dump(store.storage, 'm')).toEqual([
      'h=a | 86400000000000 | x=f:3ff0000000000000',
      'h=b | 691200000000000 | x=f:4000000000000000',
      'h=c | 172800000000000 | x=f:4008000000000000',
      'h=d | 604800000000000 | x=f:401c000000000000',
      'h=e | 259200000000000 | x=f:4010000000000000',
      'h=e | 777600000000000 | x=f:4014000000000000',
      'h=f | 864000000000000 | x=f:4018000000000000',
    ]);
  });
});

describe('flush by age', () => {
  it('writes a memtable whose oldest row waited flush_age to files and trims the WAL', async () => {
    store = await openStore({ flushAgeMs: 60_000 });
    const db = store.storage.catalog.requireDatabase('cnosdb', 'public');
    const walDir = join(store.dir, 'db', String(db.id), 'wal');
    await store.storage.write(db, [batch([['m', [], 1n, [dbl('x', 1)]]])]);
    store.clock.now += 59_000;
    await store.storage.maintain();
    await store.storage.idle();
    expect(store.logs.filter((l) => l.msg === 'flushed')).toHaveLength(0);
    store.clock.now += 1_000;
    await store.storage.maintain();
    await store.storage.flushAll();
    expect(store.logs.filter((l) => l.msg === 'flushed')).toHaveLength(1);
    // The WAL segment that held the row is gone; the new one is empty (header only).
    expect(readdirSync(walDir).map((f) => statSync(join(walDir, f)).size)).toEqual([16]);
    await store.reopen();
    expect(await dump(store.storage, 'm')).toEqual([' | 1 | x=f:3ff0000000000000']);
  });
});

describe('scan chunks', () => {
  it('hold exactly their rows, in time order, one series after another', async () => {
    store = await openStore();
    const db = store.storage.catalog.requireDatabase('cnosdb', 'public');
    await store.storage.write(db, [
      batch([3n, 1n, 2n].map((ts) => ['m', [['h', 'a']], ts, [dbl('x', Number(ts)), str('s', `v${ts}`)]] as Row)),
    ]);
    for await (const c of store.storage.scan(db, 'm', { fields: ['x', 's', 'nope'] })) {
      expect([c.length, c.time.length, c.fields.get('x')!.values.length, c.fields.get('s')!.values.length]).toEqual([
        3, 3, 3, 3,
      ]);
      expect([...c.time]).toEqual([1n, 2n, 3n]);
      expect(c.fields.has('nope')).toBe(false);
    }
  });
});
