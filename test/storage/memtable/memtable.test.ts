import { beforeEach, describe, expect, it } from 'vitest';
import { WriteBatchBuilder, type FieldInput } from '../../../host/core/write-batch-builder.js';
import { readWriteBatch, ValueType, type WriteBatch } from '../../../host/core/write-batch.js';
import { Catalog, stampsOf, type DatabaseDef } from '../../../host/meta/catalog.js';
import { DEFAULT_DATABASE_OPTIONS } from '../../../host/core/schema.js';
import { alterTableDef } from '../../../host/meta/catalog-ddl.js';
import { Memtable, SMALL_SERIES_ROWS } from '../../../host/storage/memtable/memtable.js';
import type { SeriesRows } from '../../../host/storage/series/series-data.js';

type Row = [tags: Array<[string, string]>, ts: bigint, fields: FieldInput[]];

function batch(table: string, rows: Row[]) {
  const b = new WriteBatchBuilder();
  for (const [tags, ts, fields] of rows) b.addRow(table, tags, ts, fields);
  return readWriteBatch(b.finish());
}

const f = (name: string, value: number): FieldInput => ({ name, type: ValueType.Double, value });

// The memtable keys tables, series and columns by catalog id: a catalog resolves them here.
const catalog = new Catalog();
const db: DatabaseDef = {
  id: catalog.nextId(),
  tenant: 't',
  name: 'd',
  options: { ...DEFAULT_DATABASE_OPTIONS },
  tables: new Map(),
};
let lsn = 0;
beforeEach(() => db.tables.clear());

function apply(m: Memtable, b: WriteBatch): void {
  catalog.applyBatchSchema(db, b.tables);
  m.apply(b, stampsOf(db, b.tables), ++lsn, 0);
}

const tableId = (name: string): number => db.tables.get(name)!.id;

function columnName(id: number): string {
  for (const t of db.tables.values()) for (const c of [...t.tags, ...t.fields]) if (c.id === id) return c.name;
  throw new Error(`no column ${id}`);
}

/** Rows of a snapshot as plain objects (null for absent values). */
function rows(s: SeriesRows): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (let i = 0; i < s.length; i++) {
    const r: Record<string, unknown> = { ts: s.ts[i] };
    for (const [id, c] of s.columns) r[columnName(id)] = c.validity && c.validity[i] === 0 ? null : c.values[i];
    out.push(r);
  }
  return out;
}

function only(m: Memtable, table = 'm'): SeriesRows {
  const t = m.tables.get(tableId(table))!;
  expect(t.series.size).toBe(1);
  return [...t.series.values()][0]!.snapshot();
}

describe('Memtable', () => {
  it('appends in-order batches without normalising', () => {
    const m = new Memtable();
    apply(
      m,
      batch('m', [
        [[['h', 'a']], 1n, [f('x', 1)]],
        [[['h', 'a']], 2n, [f('x', 2)]],
      ]),
    );
    apply(m, batch('m', [[[['h', 'a']], 3n, [f('x', 3)]]]));
    const s = [...m.tables.get(tableId('m'))!.series.values()][0]!;
    expect(s.normalized).toBe(true);
    expect(rows(s.snapshot())).toEqual([
      { ts: 1n, x: 1 },
      { ts: 2n, x: 2 },
      { ts: 3n, x: 3 },
    ]);
    expect(m.rows).toBe(3);
    expect(m.bytes).toBeGreaterThan(0);
  });

  it('sorts out-of-order rows and merges equal timestamps field by field, last write wins', () => {
    const m = new Memtable();
    apply(
      m,
      batch('m', [
        [[], 5n, [f('x', 1), f('y', 10)]],
        [[], 3n, [f('x', 2)]],
      ]),
    );
    apply(
      m,
      batch('m', [
        [[], 5n, [f('x', 7)]],
        [[], 4n, [f('y', 40)]],
        [[], 3n, [f('y', 30)]],
      ]),
    );
    expect(rows(only(m))).toEqual([
      { ts: 3n, x: 2, y: 30 },
      { ts: 4n, x: null, y: 40 },
      { ts: 5n, x: 7, y: 10 },
    ]);
  });

  it('detects a duplicate timestamp at the boundary of two appends', () => {
    const m = new Memtable();
    apply(
      m,
      batch('m', [
        [[], 1n, [f('x', 1)]],
        [[], 2n, [f('x', 2)]],
      ]),
    );
    apply(m, batch('m', [[[], 2n, [f('x', 20)]]]));
    expect(rows(only(m))).toEqual([
      { ts: 1n, x: 1 },
      { ts: 2n, x: 20 },
    ]);
  });

  it('orders negative and huge timestamps correctly', () => {
    const m = new Memtable();
    const big = 9_000_000_000_000_000_000n;
    apply(
      m,
      batch('m', [
        [[], big, [f('x', 1)]],
        [[], -5n, [f('x', 2)]],
        [[], 0n, [f('x', 3)]],
        [[], -(2n ** 40n), [f('x', 4)]],
      ]),
    );
    expect(rows(only(m)).map((r) => r.ts)).toEqual([-(2n ** 40n), -5n, 0n, big]);
  });

  it('keeps every value type and marks columns missing from a batch as absent', () => {
    const m = new Memtable();
    apply(
      m,
      batch('m', [
        [
          [],
          1n,
          [
            { name: 'd', type: ValueType.Double, value: -0 },
            { name: 'i', type: ValueType.BigInt, value: -(2n ** 63n) },
            { name: 'u', type: ValueType.Unsigned, value: 2n ** 64n - 1n },
            { name: 'b', type: ValueType.Boolean, value: true },
            { name: 's', type: ValueType.String, value: 'héllo' },
          ],
        ],
      ]),
    );
    apply(m, batch('m', [[[], 2n, [{ name: 's', type: ValueType.String, value: '' }]]]));
    const r = rows(only(m));
    expect(Object.is(r[0]!.d, -0)).toBe(true);
    expect(r).toEqual([
      { ts: 1n, d: -0, i: -(2n ** 63n), u: 2n ** 64n - 1n, b: 1, s: 'héllo' },
      { ts: 2n, d: null, i: null, u: null, b: null, s: '' },
    ]);
  });

  it('gives earlier snapshots stable rows while writes continue', () => {
    const m = new Memtable();
    apply(m, batch('m', [[[], 2n, [f('x', 2)]]]));
    const before = only(m);
    for (let i = 0; i < 200; i++) apply(m, batch('m', [[[], BigInt(1000 - i), [f('x', i)]]]));
    expect(rows(before)).toEqual([{ ts: 2n, x: 2 }]);
    expect(only(m).length).toBe(201);
  });

  it('keeps one series per distinct tag set', () => {
    const m = new Memtable();
    apply(
      m,
      batch('m', [
        [[['a', '1']], 1n, [f('x', 1)]],
        [[['a', '2']], 1n, [f('x', 2)]],
        [
          [
            ['a', '1'],
            ['b', '1'],
          ],
          1n,
          [f('x', 3)],
        ],
      ]),
    );
    const tags = [...m.tables.get(tableId('m'))!.series.values()]
      .map((s) => s.tags.map(([id, v]) => `${columnName(id)}=${v}`).join(','))
      .sort();
    expect(tags).toEqual(['a=1', 'a=1,b=1', 'a=2']);
    m.dropTable(tableId('m'));
    expect(m.tables.size).toBe(0);
    expect(m.bytes).toBe(0);
  });

  it('moves a series from the shared area to arrays of its own as it grows, rows intact', () => {
    const m = new Memtable();
    const want: Array<Record<string, unknown>> = [];
    // Each batch: the growing series (20 rows: enough for arrays of its own) among one-row
    // series, in and out of order.
    for (let b = 0; b < 8; b++) {
      const rs: Row[] = [];
      for (let i = 0; i < 20; i++) rs.push([[['h', 'grow']], BigInt(b * 100 + ((i * 7) % 20)), [f('x', b * 20 + i)]]);
      for (let i = 0; i < 5; i++) rs.push([[['h', `one${b}-${i}`]], 1n, [f('y', i)]]);
      apply(m, batch('m', rs));
    }
    const grow = m.tables.get(tableId('m'))!.series.get(`${db.tables.get('m')!.tags[0]!.id}:4:grow`)!;
    expect(grow.small).toBe(false);
    expect(grow.length).toBe(160);
    for (let b = 0; b < 8; b++)
      for (let i = 0; i < 20; i++) want.push({ ts: BigInt(b * 100 + i), x: b * 20 + ((i * 3) % 20) });
    want.sort((p, q) => (p.ts! < q.ts! ? -1 : 1));
    expect(rows(grow.snapshot())).toEqual(want);
    const one = [...m.tables.get(tableId('m'))!.series.values()].filter((s) => s !== grow);
    expect(one).toHaveLength(40);
    expect(one.every((s) => s.small && s.length === 1)).toBe(true);
    expect(rows(one[7]!.snapshot())).toEqual([{ ts: 1n, y: 2 }]);
    expect(SMALL_SERIES_ROWS).toBeLessThan(160);
  });

  it('keeps series that come a few rows a batch in the shared area however long, rows intact', () => {
    // 1,000 hosts in a 5,000-line body come 5 rows each: here 3 series of 5 rows a batch over
    // 60 batches (300 rows each, far past SMALL_SERIES_ROWS), a field that comes and goes, a
    // BIGINT, a STRING, one series out of order with a duplicate of each batch's first time.
    const m = new Memtable();
    const model = new Map<string, Map<bigint, Record<string, unknown>>>();
    const big = (name: string, value: bigint): FieldInput => ({ name, type: ValueType.BigInt, value });
    const str = (name: string, value: string): FieldInput => ({ name, type: ValueType.String, value });
    for (let b = 0; b < 60; b++) {
      const rs: Row[] = [];
      for (const h of ['a', 'b', 'c']) {
        for (let i = 0; i < 5; i++) {
          const k = h === 'c' ? [3, 0, 4, 0, 1][i]! : i; // c: out of order, ts 0 twice
          const ts = BigInt(b * 10 + k);
          const fields = [
            f('x', b * 5 + i),
            big('n', BigInt(b) * 1_000_000_007n + BigInt(i)),
            str('s', `${h}${b}.${i}`),
          ];
          if ((b + i) % 3 !== 0) fields.push(f('rare', i));
          rs.push([[['h', h]], ts, fields]);
          const byTs = model.get(h) ?? new Map<bigint, Record<string, unknown>>();
          model.set(h, byTs);
          const prev = byTs.get(ts) ?? { ts, rare: null };
          const row: Record<string, unknown> = {
            ...prev,
            x: b * 5 + i,
            n: BigInt(b) * 1_000_000_007n + BigInt(i),
            s: `${h}${b}.${i}`,
          };
          if ((b + i) % 3 !== 0) row.rare = i;
          byTs.set(ts, row);
        }
      }
      apply(m, batch('m', rs));
    }
    const t = m.tables.get(tableId('m'))!;
    expect(t.series.size).toBe(3);
    for (const s of t.series.values()) {
      expect(s.small).toBe(true);
      expect(s.length).toBe(300);
      const h = s.tags[0]![1];
      const want = [...model.get(h)!.values()].sort((p, q) => (p.ts! < q.ts! ? -1 : 1));
      const cols = ['x', 'n', 's', 'rare'];
      expect(
        rows(s.snapshot()).map((r) => Object.fromEntries([['ts', r.ts], ...cols.map((c) => [c, r[c] ?? null])])),
      ).toEqual(want.map((r) => Object.fromEntries([['ts', r.ts], ...cols.map((c) => [c, r[c] ?? null])])));
      // Only the columns asked for.
      const xId = db.tables.get('m')!.fields.find((c) => c.name === 'x')!.id;
      const x = s.snapshot([xId]);
      expect([...x.columns.keys()]).toEqual([xId]);
      expect(Array.from(x.columns.get(xId)!.values as Float64Array)).toEqual(want.map((r) => r.x));
    }
    // A delete in the middle of one of them.
    m.deleteRows(t.tableId, new Set([`${db.tables.get('m')!.tags[0]!.id}:1:a`]), 100n, 199n, ++lsn);
    const a = t.series.get(`${db.tables.get('m')!.tags[0]!.id}:1:a`)!;
    expect(rows(a.snapshot()).map((r) => r.ts)).toEqual(
      [...model.get('a')!.keys()].filter((ts) => ts < 100n || ts > 199n).sort((p, q) => (p < q ? -1 : 1)),
    );
  });

  for (const [n, how] of [
    [40, 'with arrays of its own'],
    [2, 'in the shared area, seen twice'],
  ] as const) {
    it(`finds a known series ${how} by its batch key only while tag names keep their ids (RENAME)`, () => {
      const m = new Memtable();
      const many = (tag: string, from: number, k: number): Row[] =>
        Array.from({ length: k }, (_, i) => [[[tag, '1']], BigInt(from + i), [f('x', from + i)]]);
      apply(m, batch('m', many('a', 0, n)));
      apply(m, batch('m', many('a', 50, n))); // seen twice: in the batch-key cache
      alterTableDef(catalog, db, 'm', { kind: 'renameColumn', from: 'a', to: 'b' });
      apply(m, batch('m', many('a', 100, n))); // a new tag column named a: a new series
      apply(m, batch('m', many('b', 200, 1))); // the renamed one
      const t = m.tables.get(tableId('m'))!;
      const sizes = [...t.series.values()]
        .map((s) => `${s.tags.map(([id, v]) => `${columnName(id)}=${v}`).join(',')}:${s.length}`)
        .sort();
      expect(sizes).toEqual([`a=1:${n}`, `b=1:${2 * n + 1}`]);
    });
  }
});

// Version 2 batches (OTLP spans) give no series keys; the memtable must find their series by
// id key alone and never make the key from the tags, not even once a series has grown.
describe('Memtable with series without keys', () => {
  function keylessBatch(rows: Row[]): WriteBatch {
    const b = new WriteBatchBuilder({ seriesKeys: false });
    for (const [tags, ts, fields] of rows) b.addRow('spans', tags, ts, fields);
    const read = readWriteBatch(b.finish());
    // Any read of `key` fails the test.
    for (const t of read.tables) {
      t.series = t.series.map((s) => {
        expect(s.keyed).toBe(false);
        return new Proxy(s, {
          get: (o, p) =>
            p === 'key' ? expect.fail('the memtable read the key of a series without one') : Reflect.get(o, p, o),
        });
      });
    }
    return read;
  }

  it('keeps one series for a span sent again and again, past the small-series limit', () => {
    const m = new Memtable();
    const span: Array<[string, string]> = [
      ['span_id', 'ab12'],
      ['name', 'GET /x'],
    ];
    // A keyed batch first fills the memtable's key cache, so that it is in use.
    apply(
      m,
      batch(
        'spans',
        Array.from(
          { length: SMALL_SERIES_ROWS + 2 },
          (_, i): Row => [
            [
              ['span_id', 'keyed'],
              ['name', 'a'],
            ],
            BigInt(i),
            [f('d', i)],
          ],
        ),
      ),
    );
    for (let i = 0; i < SMALL_SERIES_ROWS + 8; i++)
      apply(
        m,
        keylessBatch([
          [span, BigInt(i), [f('d', i)]],
          [
            [
              ['span_id', `other-${i}`],
              ['name', 'y'],
            ],
            1n,
            [f('d', -1)],
          ],
        ]),
      );
    const t = m.tables.get(tableId('spans'))!;
    expect(t.series.size).toBe(2 + SMALL_SERIES_ROWS + 8);
    const grown = [...t.series.values()].filter((s) => s.length === SMALL_SERIES_ROWS + 8);
    expect(grown).toHaveLength(1);
    expect(rows(grown[0]!.snapshot()).map((r) => r.d)).toEqual(
      Array.from({ length: SMALL_SERIES_ROWS + 8 }, (_, i) => i),
    );
  });
});
