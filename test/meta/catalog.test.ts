import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { scheduleDrop } from '../../host/meta/pending-drops.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UserError } from '../../host/core/errors.js';
import { WriteBatchBuilder } from '../../host/core/write-batch-builder.js';
import { readWriteBatch, ValueType } from '../../host/core/write-batch.js';
import { CatalogStore } from '../../host/meta/catalog-store.js';
import { catalogFile } from '../../host/storage/catalog-file.js';
import { createTableDef } from '../../host/meta/catalog-ddl.js';
import { createExternalTableDef } from '../../host/meta/external-tables.js';
import { addStreamQueryDef, createStreamTableDef, setStreamProgress } from '../../host/meta/stream-tables.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sundial-catalog-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const bootstrap = { rootPasswordHash: 'scrypt$1$1$1$AA==$AA==' };

function tables(rows: Array<[string, Array<[string, string]>, Array<[string, ValueType]>]>) {
  const b = new WriteBatchBuilder();
  for (const [t, tags, fields] of rows) {
    b.addRow(
      t,
      tags,
      1n,
      fields.map(([name, type]) => ({
        name,
        type: type as 1,
        value: type === ValueType.String ? 's' : type === ValueType.Boolean ? true : type === ValueType.Double ? 1 : 1n,
      })),
    );
  }
  return readWriteBatch(b.finish()).tables;
}

describe('CatalogStore', () => {
  it('creates tenant cnosdb, database public and user root on first open', async () => {
    const store = await CatalogStore.open(catalogFile(dir), bootstrap);
    expect([...store.catalog.tenants.keys()]).toEqual(['cnosdb']);
    expect(store.catalog.databases().map((d) => `${d.tenant}.${d.name}`)).toEqual(['cnosdb.public']);
    expect(store.catalog.users.get('root')).toMatchObject({ admin: true, passwordHash: bootstrap.rootPasswordHash });
    expect(store.dirty).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, 'catalog.json'), 'utf8'))).toMatchObject({
      format: 'sundial-catalog',
      version: 6,
    });
  });

  it('saves tables and columns and reloads them identically', async () => {
    const store = await CatalogStore.open(catalogFile(dir), bootstrap);
    const db = store.catalog.requireDatabase('cnosdb', 'public');
    store.catalog.applyBatchSchema(
      db,
      tables([
        [
          'cpu',
          [['host', 'a']],
          [
            ['usage', ValueType.Double],
            ['count', ValueType.BigInt],
          ],
        ],
      ]),
    );
    expect(store.dirty).toBe(true);
    await store.save();
    const again = await CatalogStore.open(catalogFile(dir), bootstrap);
    const t = again.catalog.requireDatabase('cnosdb', 'public').tables.get('cpu')!;
    expect(t.tags.map((c) => c.name)).toEqual(['host']);
    expect(t.fields.map((c) => [c.name, c.type])).toEqual([
      ['count', ValueType.BigInt],
      ['usage', ValueType.Double],
    ]);
    expect(again.catalog.nextId()).toBeGreaterThan(Math.max(...t.fields.map((c) => c.id)));
  });

  it('never leaves a half-written catalog: a stale temporary file is ignored', async () => {
    await CatalogStore.open(catalogFile(dir), bootstrap);
    writeFileSync(join(dir, 'catalog.json.tmp'), '{"format":"sundial-catal');
    await catalogFile(dir).cleanup();
    expect(existsSync(join(dir, 'catalog.json.tmp'))).toBe(false);
    const store = await CatalogStore.open(catalogFile(dir), bootstrap);
    expect(store.catalog.databases().length).toBe(1);
  });

  it("keeps a GEOMETRY field's declaration and refuses one it does not know", async () => {
    const store = await CatalogStore.open(catalogFile(dir), bootstrap);
    const db = store.catalog.requireDatabase('cnosdb', 'public');
    createTableDef(store.catalog, db, {
      name: 'g',
      tags: [],
      fields: [{ name: 'loc', type: ValueType.String, geometry: { subType: 'POINT', srid: 0 } }],
    });
    await store.save();
    const doc = JSON.parse(readFileSync(join(dir, 'catalog.json'), 'utf8'));
    expect(doc.version).toBe(6);
    const again = await CatalogStore.open(catalogFile(dir), bootstrap);
    expect(again.catalog.requireDatabase('cnosdb', 'public').tables.get('g')!.fields[0]).toMatchObject({
      name: 'loc',
      type: ValueType.String,
      geometry: { subType: 'POINT', srid: 0 },
    });
    const column = doc.databases[0].tables.find((t: { name: string }) => t.name === 'g').fields[0];
    column.geometry = { subType: 'CIRCLE', srid: 0 };
    writeFileSync(join(dir, 'catalog.json'), JSON.stringify(doc));
    await expect(CatalogStore.open(catalogFile(dir), bootstrap)).rejects.toThrow(
      /catalog\.json at offset 0: table "g" column "loc": geometry \{"subType":"CIRCLE","srid":0\}/,
    );
  });

  it('keeps external tables (version 6), reads a version 5 document without them, refuses a bad one', async () => {
    const store = await CatalogStore.open(catalogFile(dir), bootstrap);
    const db = store.catalog.requireDatabase('cnosdb', 'public');
    createExternalTableDef(store.catalog, db, {
      name: 'ext',
      location: 's3://b/a.csv',
      fileType: 'CSV',
      hasHeader: true,
      delimiter: ';',
      columns: [
        { name: 'x', type: 'Int64' },
        { name: 't', type: 'Timestamp(Millisecond, None)' },
      ],
      connection: { kind: 's3', region: 'r', secretKey: 'k', virtualHostedStyle: false },
    });
    expect(() =>
      createExternalTableDef(store.catalog, db, {
        name: 'ext',
        location: 'x',
        fileType: 'JSON',
        hasHeader: false,
        delimiter: ',',
        columns: [{ name: 'x', type: 'Utf8' }],
      }),
    ).toThrow(/Meta: Table ext already exists/);
    expect(() => store.catalog.applyBatchSchema(db, tables([['ext', [], [['v', ValueType.Double]]]]))).toThrow(
      /table 'ext' of database 'public' is an external or stream table/,
    );
    createStreamTableDef(store.catalog, db, {
      name: 'st',
      sourceDatabase: 'public',
      sourceTable: 'cpu',
      eventTimeColumn: 'time',
      watermarkDelayMs: 5,
      columns: [],
    });
    addStreamQueryDef(store.catalog, db, 'st', { sql: 'INSERT INTO x SELECT 1', database: 'public', user: 'root' });
    expect(setStreamProgress(store.catalog, db, 'st', db.streamTables!.get('st')!.queries[0]!.id, 120n)).toBe(true);
    expect(() =>
      createStreamTableDef(store.catalog, db, {
        name: 'ext',
        sourceDatabase: 'public',
        sourceTable: 'cpu',
        eventTimeColumn: 'time',
        watermarkDelayMs: 0,
        columns: [],
      }),
    ).toThrow(/Meta: Table ext already exists/);
    await store.save();
    const doc = JSON.parse(readFileSync(join(dir, 'catalog.json'), 'utf8'));
    expect(doc.version).toBe(6);
    const again = await CatalogStore.open(catalogFile(dir), bootstrap);
    expect(again.catalog.requireDatabase('cnosdb', 'public').streamTables!.get('st')).toMatchObject({
      watermarkDelayMs: 5,
      queries: [{ sql: 'INSERT INTO x SELECT 1', doneBeforeNs: '120' }],
    });
    expect([...again.catalog.requireDatabase('cnosdb', 'public').externalTables!.values()]).toEqual([
      {
        id: expect.any(Number),
        name: 'ext',
        location: 's3://b/a.csv',
        fileType: 'CSV',
        hasHeader: true,
        delimiter: ';',
        columns: [
          { name: 'x', type: 'Int64' },
          { name: 't', type: 'Timestamp(Millisecond, None)' },
        ],
        connection: { kind: 's3', region: 'r', secretKey: 'k', virtualHostedStyle: false },
      },
    ]);
    const v5 = {
      ...doc,
      version: 5,
      databases: doc.databases.map(({ externalTables: _, streamTables: __, ...d }: Record<string, unknown>) => d),
    };
    writeFileSync(join(dir, 'catalog.json'), JSON.stringify(v5));
    expect(
      (await CatalogStore.open(catalogFile(dir), bootstrap)).catalog.requireDatabase('cnosdb', 'public').externalTables,
    ).toBeUndefined();
    doc.databases[0].externalTables[0].columns[0].type = 'Decimal128(10, 2)';
    writeFileSync(join(dir, 'catalog.json'), JSON.stringify(doc));
    await expect(CatalogStore.open(catalogFile(dir), bootstrap)).rejects.toThrow(
      /catalog\.json at offset 0: external table "ext" of database "public": column "x" of type "Decimal128\(10, 2\)"/,
    );
  });

  it('refuses to create a GEOMETRY field on a non-string type', async () => {
    const store = await CatalogStore.open(catalogFile(dir), bootstrap);
    const db = store.catalog.requireDatabase('cnosdb', 'public');
    expect(() =>
      createTableDef(store.catalog, db, {
        name: 'g',
        tags: [],
        fields: [{ name: 'loc', type: ValueType.Double, geometry: { subType: 'POINT', srid: 0 } }],
      }),
    ).toThrow(/Unexpected data type Geometry\(POINT, 0\) of loc/);
    expect(db.tables.has('g')).toBe(false);
  });

  it('keeps a pending table drop across a save and refuses one whose table is missing', async () => {
    const store = await CatalogStore.open(catalogFile(dir), bootstrap);
    const db = store.catalog.requireDatabase('cnosdb', 'public');
    createTableDef(store.catalog, db, { name: 'gone', tags: [], fields: [{ name: 'v', type: ValueType.Double }] });
    scheduleDrop(store.catalog, 'table', ['cnosdb', 'public', 'gone'], 5000, 0);
    await store.save();
    const again = await CatalogStore.open(catalogFile(dir), bootstrap);
    const [drop] = again.catalog.pendingDrops;
    expect(drop?.table?.name).toBe('gone');
    expect(drop?.database).toBe(again.catalog.requireDatabase('cnosdb', 'public'));
    const doc = JSON.parse(readFileSync(join(dir, 'catalog.json'), 'utf8'));
    delete doc.databases[0].pendingTables;
    writeFileSync(join(dir, 'catalog.json'), JSON.stringify(doc));
    await expect(CatalogStore.open(catalogFile(dir), bootstrap)).rejects.toThrow(
      /catalog\.json at offset 0: pending drop of table cnosdb\.public\.gone: database \d+ or table \d+ is missing/,
    );
  });

  it('refuses a corrupt catalog with an error naming the file', async () => {
    writeFileSync(join(dir, 'catalog.json'), '{"format":"sundial-catalog","version":1,');
    await expect(CatalogStore.open(catalogFile(dir), bootstrap)).rejects.toThrow(
      /corrupt .*catalog\.json at offset 0: not valid JSON/,
    );
    writeFileSync(join(dir, 'catalog.json'), '{"format":"sundial-catalog","version":99}');
    await expect(CatalogStore.open(catalogFile(dir), bootstrap)).rejects.toThrow(/unsupported catalog version 99/);
  });
});

describe('Catalog.applyBatchSchema', () => {
  const conflicts: Array<[string, Parameters<typeof tables>[0], Parameters<typeof tables>[0], RegExp]> = [
    [
      'field type against the stored schema',
      [['m', [], [['x', ValueType.BigInt]]]],
      [['m', [], [['x', ValueType.Double]]]],
      /column 'x' of table 'm' is a BIGINT field, written as a DOUBLE field/,
    ],
    [
      'tag stored, field written',
      [['m', [['x', 'a']], [['f', ValueType.Double]]]],
      [['m', [], [['x', ValueType.Double]]]],
      /column 'x' of table 'm' is a TAG, written as a DOUBLE field/,
    ],
    [
      'field stored, tag written',
      [['m', [], [['x', ValueType.String]]]],
      [['m', [['x', 'a']], [['f', ValueType.Double]]]],
      /column 'x' of table 'm' is a STRING field, written as a TAG/,
    ],
  ];
  for (const [name, first, second, message] of conflicts) {
    it(`rejects a conflict (${name}) and creates nothing`, async () => {
      const store = await CatalogStore.open(catalogFile(dir), bootstrap);
      const db = store.catalog.requireDatabase('cnosdb', 'public');
      store.catalog.applyBatchSchema(db, tables(first));
      const before = JSON.stringify([...db.tables.values()]);
      const version = store.catalog.version;
      const attempt = tables([...second, ['other', [], [['y', ValueType.Double]]]]);
      expect(() => store.catalog.applyBatchSchema(db, attempt)).toThrow(message);
      expect(() => store.catalog.applyBatchSchema(db, attempt)).toThrow(UserError);
      expect(JSON.stringify([...db.tables.values()])).toBe(before);
      expect(db.tables.has('other')).toBe(false);
      expect(store.catalog.version).toBe(version);
    });
  }

  it('rejects conflicting types across batches of one request', async () => {
    const store = await CatalogStore.open(catalogFile(dir), bootstrap);
    const db = store.catalog.requireDatabase('cnosdb', 'public');
    const both = [
      ...tables([['m', [], [['x', ValueType.BigInt]]]]),
      ...tables([['m', [], [['x', ValueType.Boolean]]]]),
    ];
    expect(() => store.catalog.applyBatchSchema(db, both)).toThrow(
      /column 'x' of table 'm' is a BIGINT field, written as a BOOLEAN field/,
    );
    expect(db.tables.size).toBe(0);
  });

  it('creates new columns sorted by name, tags before fields, and appends later ones', async () => {
    const store = await CatalogStore.open(catalogFile(dir), bootstrap);
    const db = store.catalog.requireDatabase('cnosdb', 'public');
    store.catalog.applyBatchSchema(
      db,
      tables([
        [
          'm',
          [
            ['b', '1'],
            ['a', '1'],
          ],
          [
            ['z', ValueType.Double],
            ['c', ValueType.Double],
          ],
        ],
      ]),
    );
    store.catalog.applyBatchSchema(db, tables([['m', [['aa', '1']], [['b2', ValueType.Double]]]]));
    const t = db.tables.get('m')!;
    expect(t.tags.map((c) => c.name)).toEqual(['a', 'b', 'aa']);
    expect(t.fields.map((c) => c.name)).toEqual(['c', 'z', 'b2']);
  });
});
