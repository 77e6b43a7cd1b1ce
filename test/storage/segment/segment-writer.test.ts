// The segment writer's packs of small series (segment-writer.ts, #settle): series whose rows
// lie in row areas are copied in runs, one run per row source. A flush has one source per pack;
// here a pack mixes the series of two memtables, in key order, so that runs change source at
// every series, and every series must read back its own rows.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DATABASE_OPTIONS } from '../../../host/core/schema.js';
import { WriteBatchBuilder } from '../../../host/core/write-batch-builder.js';
import { readWriteBatch } from '../../../host/core/write-batch.js';
import { BlockCache } from '../../../host/storage/segment/block-cache.js';
import { Catalog, stampsOf, type DatabaseDef } from '../../../host/meta/catalog.js';
import { storageCodecs } from '../../../host/storage/segment/codecs.js';
import { writeColumns } from '../../../host/storage/compaction/flush.js';
import { Memtable } from '../../../host/storage/memtable/memtable.js';
import { SegmentReader, type CachedBlock } from '../../../host/storage/segment/segment-reader.js';
import { nodeSegmentStore } from '../../../host/storage/segment/node-segment-store.js';
import { SegmentWriter } from '../../../host/storage/segment/segment-writer.js';
import type { SeriesRows } from '../../../host/storage/series/series-data.js';
import { loadCore } from '../../support/core.js';
import { dbl, int, str, type Row } from '../support.js';

/** Rows as plain values per column id (null: absent), for comparing; a column absent throughout is left out (a pack's columns are its series'). */
function plain(r: SeriesRows): unknown {
  const columns = [...r.columns]
    .sort(([a], [b]) => a - b)
    .map(
      ([id, c]) =>
        [
          id,
          [...c.values].slice(0, r.length).map((v, i) => (c.validity === undefined || c.validity[i] === 1 ? v : null)),
        ] as const,
    );
  return { ts: [...r.ts].slice(0, r.length), columns: columns.filter(([, values]) => values.some((v) => v !== null)) };
}

describe('segment writer', () => {
  it('packs small series of two row sources, interleaved, each with its own rows', async () => {
    const catalog = new Catalog();
    const db: DatabaseDef = {
      id: catalog.nextId(),
      tenant: 't',
      name: 'd',
      options: { ...DEFAULT_DATABASE_OPTIONS },
      tables: new Map(),
    };
    const memtables = [new Memtable(), new Memtable()];
    let lsn = 0;
    const rows: Row[] = [];
    for (let i = 0; i < 40; i++) {
      const fields = [dbl('x', i / 4)];
      if (i % 3 === 0) fields.push(int('n', BigInt(-i) * 3_000_000_000n));
      if (i % 2 === 0) fields.push(str('s', i % 4 === 0 ? `é${i}` : ''));
      rows.push(['spans', [['span', `s${String(i).padStart(2, '0')}`]], BigInt(1000 + (i % 7)), fields]);
      // A second row for some series: rows of a series that are not one area range.
      if (i % 5 === 0)
        rows.push(['spans', [['span', `s${String(i).padStart(2, '0')}`]], BigInt(2000 + i), [dbl('x', -i)]]);
    }
    // Series of even number to the first memtable, odd to the second, a batch per row.
    for (const row of rows) {
      const b = new WriteBatchBuilder();
      b.addRow(row[0], row[1], row[2], row[3]);
      const batch = readWriteBatch(b.finish());
      catalog.applyBatchSchema(db, batch.tables);
      memtables[Number(row[1][0]![1].slice(1)) % 2]!.apply(batch, stampsOf(db, batch.tables), ++lsn, 0);
    }
    const table = db.tables.get('spans')!;
    const series = memtables
      .flatMap((m) => [...m.tables.get(table.id)!.series.values()])
      .sort((a, b) => (a.key < b.key ? -1 : 1));
    expect(series.every((sb) => sb.packable)).toBe(true);

    const codecs = storageCodecs(await loadCore());
    const dir = mkdtempSync(join(tmpdir(), 'sundial-test-writer-'));
    try {
      const path = join(dir, '1.seg');
      const w = await SegmentWriter.create(nodeSegmentStore, path, 1, codecs);
      const columns = writeColumns(table);
      for (const sb of series) await w.addSeries(table.id, sb.key, sb, columns, table.timeCodec);
      const { keys } = await w.finish(
        { partitionStart: 0n, partitionEnd: 1n << 60n, minLsn: 1, maxLsn: lsn, cleanLsn: lsn },
        { written: 'flush:segment-written', renamed: 'flush:segment-renamed' },
      );
      const reader = await SegmentReader.open(
        nodeSegmentStore,
        path,
        1,
        codecs,
        new BlockCache<CachedBlock>(1 << 20),
        keys,
      );
      const entries = await reader.tableSeries(table.id);
      expect(entries.length).toBe(series.length);
      expect(new Set(entries.map((e) => e.groups[0]!.pack)).size).toBe(1);
      const ids = columns.map((c) => c.id);
      for (let i = 0; i < series.length; i++) {
        expect(entries[i]!.key).toBe(series[i]!.key);
        const got = await reader.readRows(entries[i]!, entries[i]!.groups[0]!, ids);
        expect(plain(got), series[i]!.key).toEqual(plain(series[i]!.snapshot()));
      }
      reader.retire();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
