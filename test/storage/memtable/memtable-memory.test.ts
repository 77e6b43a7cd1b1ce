// The memtable's byte accounting against the heap it really takes, with 100 k one-row series
// shaped like spans (ids as tags, a dozen fields of every type): the memtable limit only bounds
// the server's memory if `bytes` follows what the arrays, strings and series objects cost.
// Measured with a forced garbage collection before and after, so the figure is what stays.

import v8 from 'node:v8';
import vm from 'node:vm';
import { expect, it } from 'vitest';
import { WriteBatchBuilder, type FieldInput } from '../../../host/core/write-batch-builder.js';
import { readWriteBatch, ValueType } from '../../../host/core/write-batch.js';
import { DEFAULT_DATABASE_OPTIONS } from '../../../host/core/schema.js';
import { Catalog, stampsOf, type DatabaseDef } from '../../../host/meta/catalog.js';
import { Memtable } from '../../../host/storage/memtable/memtable.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

function retained(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

const SERIES = 100_000;
const PER_BATCH = 1000;

function spanBatch(first: number): Uint8Array {
  const b = new WriteBatchBuilder();
  for (let i = first; i < first + PER_BATCH; i++) {
    const hex = (i * 2654435761).toString(16).padStart(16, '0');
    const tags: Array<[string, string]> = [
      ['name', i % 2 ? 'GET /api/items' : 'SELECT items'],
      ['parent_span_id', i % 8 ? hex.slice(0, 12) + '0000' : ''],
      ['service', `shop-${i % 3}`],
      ['span_id', hex],
      ['status', 'STATUS_CODE_UNSET'],
      ['trace_id', hex + hex.split('').reverse().join('')],
    ];
    const fields: FieldInput[] = [
      { name: 'attr.http.method', type: ValueType.String, value: 'GET' },
      { name: 'attr.http.target', type: ValueType.String, value: `/api/items/${i}` },
      { name: 'attr.http.status_code', type: ValueType.String, value: '200' },
      { name: 'duration', type: ValueType.Double, value: i * 1000 },
      { name: 'end', type: ValueType.Double, value: 1.7e18 + i },
      { name: 'dropped', type: ValueType.BigInt, value: 0n },
      { name: 'flags', type: ValueType.Unsigned, value: 1n },
      { name: 'sampled', type: ValueType.Boolean, value: i % 2 === 0 },
      { name: 'kind', type: ValueType.String, value: 'SPAN_KIND_SERVER' },
      { name: 'status_message', type: ValueType.String, value: '' },
    ];
    if (i % 16 === 0) fields.push({ name: 'event.0.name', type: ValueType.String, value: 'cache miss' });
    b.addRow('spans', tags, 1_700_000_000_000_000_000n + BigInt(i) * 1000n, fields);
  }
  return b.finish();
}

it('accounts for the heap that 100 k one-row series take', () => {
  const catalog = new Catalog();
  const db: DatabaseDef = {
    id: catalog.nextId(),
    tenant: 't',
    name: 'd',
    options: { ...DEFAULT_DATABASE_OPTIONS },
    tables: new Map(),
  };
  const encoded: Uint8Array[] = [];
  for (let i = 0; i < SERIES; i += PER_BATCH) encoded.push(spanBatch(i));
  const before = retained();
  const m = new Memtable();
  encoded.forEach((e, i) => {
    const b = readWriteBatch(e);
    catalog.applyBatchSchema(db, b.tables);
    m.apply(b, stampsOf(db, b.tables), i + 1, 0);
  });
  const used = retained() - before;
  expect(m.rows).toBe(SERIES);
  expect([...m.tables.values()][0]!.series.size).toBe(SERIES);
  // What the limit counts follows the heap: never much less (the limit would not bound memory),
  // not much more (the memtable would flush for nothing).
  const ratio = m.bytes / used;
  expect(ratio, `accounted ${m.bytes} bytes, heap grew ${used} bytes`).toBeGreaterThan(0.9);
  expect(ratio, `accounted ${m.bytes} bytes, heap grew ${used} bytes`).toBeLessThan(1.6);
  // About 1 KB a span; a series with arrays of its own cost about 13 KB.
  expect(used / SERIES).toBeLessThan(1500);
  // Keep the memtable alive until after the measurement.
  expect(m.bytes).toBeGreaterThan(0);
});
