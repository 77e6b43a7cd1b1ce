// The tables and columns writes create, while their WAL records are in flight (provisional-schema.ts):
// a failed write takes back only what no other write in flight uses, and nothing a write that
// succeeded used. The HTTP-level test of a failed write is test/server/failed-schema.test.ts;
// here the interleavings a real WAL cannot be made to produce on cue.

import { describe, expect, it } from 'vitest';
import { WriteBatchBuilder } from '../../host/core/write-batch-builder.js';
import { type BatchTable, readWriteBatch, ValueType } from '../../host/core/write-batch.js';
import { Catalog, type DatabaseDef } from '../../host/meta/catalog.js';
import { DEFAULT_DATABASE_OPTIONS } from '../../host/meta/index.js';
import { ProvisionalSchema } from '../../host/storage/provisional-schema.js';

/** A write of one row of table `t` with double fields `fields`. */
function tables(t: string, ...fields: string[]): BatchTable[] {
  const b = new WriteBatchBuilder();
  b.addRow(
    t,
    [['h', 'a']],
    1n,
    fields.map((name) => ({ name, type: ValueType.Double, value: 1 })),
  );
  return readWriteBatch(b.finish()).tables;
}

/** The tables and columns of the database, as `table(col,col)`. */
function shown(db: DatabaseDef): string {
  return [...db.tables.values()]
    .map((t) => `${t.name}(${[...t.tags, ...t.fields].map((c) => c.name).join(',')})`)
    .join(' ');
}

/** A write as storage.ts runs it: schema, claim; later `end(ok)` settles it and takes back what it returns. */
function start(catalog: Catalog, p: ProvisionalSchema, db: DatabaseDef, t: BatchTable[]): (ok: boolean) => void {
  const created = catalog.applyBatchSchema(db, t);
  if (created.length > 0) p.add(db, created);
  const claimed = p.claim(db, t);
  return (ok) => {
    for (const f of p.settle(claimed, ok)) catalog.forgetCreated(f.db, f.tableId, f.columnIds);
  };
}

function setup(): { catalog: Catalog; p: ProvisionalSchema; db: DatabaseDef } {
  const db: DatabaseDef = {
    id: 1,
    tenant: 'cnosdb',
    name: 'public',
    options: { ...DEFAULT_DATABASE_OPTIONS },
    tables: new Map(),
  };
  return { catalog: new Catalog(), p: new ProvisionalSchema(), db };
}

describe('ProvisionalSchema', () => {
  it('takes back the table and the columns a lone failed write created', () => {
    const { catalog, p, db } = setup();
    start(catalog, p, db, tables('m', 'v'))(true);
    start(catalog, p, db, tables('m', 'v', 'extra'))(false);
    start(catalog, p, db, tables('fresh', 'x'))(false);
    expect(shown(db)).toBe('m(h,v)');
  });

  it('keeps what a failed write created while a write that uses it is in flight, and that one succeeds', () => {
    const { catalog, p, db } = setup();
    const a = start(catalog, p, db, tables('m', 'v'));
    const b = start(catalog, p, db, tables('m', 'v', 'w'));
    a(false);
    expect(shown(db)).toBe('m(h,v,w)');
    b(true);
    expect(shown(db)).toBe('m(h,v,w)');
    // Permanent now: a failed write that uses it takes nothing back.
    start(catalog, p, db, tables('m', 'v', 'w'))(false);
    expect(shown(db)).toBe('m(h,v,w)');
  });

  it('takes it back when the last write that uses it fails too, in either order', () => {
    for (const order of [
      ['a', 'b'],
      ['b', 'a'],
    ]) {
      const { catalog, p, db } = setup();
      start(catalog, p, db, tables('m', 'v'))(true);
      const ends: Record<string, (ok: boolean) => void> = {
        a: start(catalog, p, db, tables('m', 'v', 'new')),
        b: start(catalog, p, db, tables('m', 'new')),
      };
      ends[order[0]!]!(false);
      expect(shown(db), order.join()).toBe('m(h,v,new)');
      ends[order[1]!]!(false);
      expect(shown(db), order.join()).toBe('m(h,v)');
    }
  });

  it('leaves a table alone that a DDL made again under the name meanwhile', () => {
    const { catalog, p, db } = setup();
    const a = start(catalog, p, db, tables('m', 'v'));
    db.tables.delete('m'); // DROP TABLE m, then a CREATE TABLE m: another id
    start(catalog, p, db, tables('m', 'v'))(true);
    a(false);
    expect(shown(db)).toBe('m(h,v)');
  });
});
