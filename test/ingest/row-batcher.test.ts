// RowBatcher: batches cut by rows and by size, and before a row whose new field columns would
// overfill the batch (a batch gives every row a slot in every field column of its table).

import { describe, expect, it } from 'vitest';
import { ValueType } from '../../host/core/write-batch.js';
import { RowBatcher, type FieldInput } from '../../host/ingest/row-batcher.js';
import { rowsOf } from './ingest-support.js';

const narrow = (i: number): FieldInput[] => [{ name: 'v', type: ValueType.Double, value: i }];
const wide = (n: number): FieldInput[] =>
  Array.from({ length: n }, (_, k) => ({ name: `k${k}`, type: ValueType.Double, value: k }));

describe('RowBatcher', () => {
  it('starts a new batch before a wide row after many narrow ones, and after the size limit', () => {
    const limit = 100_000;
    const b = new RowBatcher({ maxRowsPerBatch: 1_000_000, maxBatchBytes: limit });
    const rows: Array<[bigint, FieldInput[]]> = [];
    for (let i = 0; i < 2000; i++) rows.push([BigInt(i), narrow(i)]);
    rows.push([5000n, wide(500)]);
    for (let i = 0; i < 10; i++) rows.push([BigInt(6000 + i), narrow(i)]);
    for (const [ts, fields] of rows) b.add('t', [['host', 'a']], ts, fields);
    const batches = b.finish();
    // Without the cut the wide row would give 2,000 earlier rows 500 slots each: about 9 MB.
    expect(batches.length).toBeGreaterThan(1);
    for (const batch of batches) expect(batch.length).toBeLessThan(limit * 2);
    expect(rowsOf(batches).length).toBe(2011);
    const single = new RowBatcher();
    for (const [ts, fields] of rows) single.add('t', [['host', 'a']], ts, fields);
    expect(rowsOf(batches)).toEqual(rowsOf(single.finish()));
  });

  it('keeps one batch while the rows fit', () => {
    const b = new RowBatcher();
    for (let i = 0; i < 1000; i++) b.add('t', [['host', `h${i % 7}`]], BigInt(i), i === 500 ? wide(20) : narrow(i));
    expect(b.finish().length).toBe(1);
  });
});
