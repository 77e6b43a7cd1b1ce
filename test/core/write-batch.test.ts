// readWriteBatch's checks of series keys and tags (FORMAT.md §1): ASCII is checked eight bytes a
// step, anything else is decoded as UTF-8 and refused with the offset of the broken text, the
// key before its tags, whatever the position of the first byte above 0x7f.

import { describe, expect, it } from 'vitest';
import { CorruptionError } from '../../host/core/errors.js';
import { WriteBatchBuilder } from '../../host/core/write-batch-builder.js';
import { readWriteBatch, ValueType } from '../../host/core/write-batch.js';

function batchOf(tags: Array<[string, string]>): Uint8Array {
  const b = new WriteBatchBuilder();
  b.addRow('m', tags, 1n, [{ name: 'f', type: ValueType.Double, value: 1 }]);
  return b.finish();
}

/** Offsets of every occurrence of `text` (ASCII) in `bytes`. */
function find(bytes: Uint8Array, text: string): number[] {
  const want = Buffer.from(text);
  const out: number[] = [];
  for (let i = 0; i + want.length <= bytes.length; i++)
    if (Buffer.from(bytes.subarray(i, i + want.length)).equals(want)) out.push(i);
  return out;
}

function refusal(bytes: Uint8Array): CorruptionError {
  try {
    readWriteBatch(bytes);
  } catch (e) {
    expect(e).toBeInstanceOf(CorruptionError);
    return e as CorruptionError;
  }
  throw new Error('the batch was read');
}

describe('readWriteBatch series tags', () => {
  const value = 'abcdefghijklmnopqrstuvwxyz0123456789';

  it('reads ASCII tags without decoding them, and others as UTF-8', () => {
    const ascii = readWriteBatch(batchOf([['host', value]])).tables[0]!.series[0]!;
    expect(ascii.rawTags).toBeDefined();
    expect(ascii.tags).toEqual([[0, value]]);
    expect(ascii.key).toBe(`m,host=${value}`);
    const utf = readWriteBatch(batchOf([['host', `${value}é`]])).tables[0]!.series[0]!;
    expect(utf.rawTags).toBeUndefined();
    expect(utf.tags).toEqual([[0, `${value}é`]]);
  });

  // A byte above 0x7f at each place of a 36-byte value (in the eight-byte steps and the tail):
  // in the key (which comes first) it is reported there; in the tag value, there.
  for (let at = 0; at < value.length; at += 5) {
    it(`refuses invalid UTF-8 at byte ${at} of a tag value, in the key first`, () => {
      const bytes = batchOf([['host', value]]);
      const [inKey, inTag] = find(bytes, value);
      const tagOnly = bytes.slice();
      tagOnly[inTag! + at] = 0xff;
      const e = refusal(tagOnly);
      expect(e.check).toBe('tag value: invalid UTF-8');
      expect(e.offset).toBe(inTag);
      const both = tagOnly.slice();
      both[inKey! + at] = 0xff;
      const k = refusal(both);
      expect(k.check).toBe('series key: invalid UTF-8');
      expect(k.offset).toBe(inKey! - 'm,host='.length);
    });
  }
});

// Version 2: series may leave their keys out (OTLP spans, whose series never repeat).
describe('readWriteBatch version 2 (series without keys)', () => {
  type Row = [string, Array<[string, string]>, bigint, number | string];
  const rows: Row[] = [
    [
      'spans',
      [
        ['span_id', '94125f87d669767f'],
        ['name', 'GET /api/items'],
        ['service', 'shop-0'],
      ],
      5n,
      1.5,
    ],
    [
      'spans',
      [
        ['span_id', 'b900027adc9aaec9'],
        ['name', 'a,b=c\\d e'],
        ['service', 'shop-1'],
      ],
      3n,
      'x',
    ],
    [
      'spans',
      [
        ['span_id', '52b049ac86d48a02'],
        ['name', 'région ✓'],
        ['service', 'shop-0'],
      ],
      4n,
      2,
    ],
    [
      'spans',
      [
        ['span_id', '94125f87d669767f'],
        ['name', 'GET /api/items'],
        ['service', 'shop-0'],
      ],
      6n,
      3,
    ],
    ['other', [], 1n, 7],
  ];
  const build = (seriesKeys: boolean): Uint8Array => {
    const b = new WriteBatchBuilder({ seriesKeys });
    for (const [table, tags, ts, v] of rows) {
      b.addRow(table, tags, ts, [
        typeof v === 'string'
          ? { name: 's', type: ValueType.String, value: v }
          : { name: 'f', type: ValueType.Double, value: v },
      ]);
    }
    return b.finish();
  };
  const decoded = (bytes: Uint8Array) =>
    readWriteBatch(bytes).tables.map((t) => ({
      name: t.name,
      columns: t.columns.map((c) => [c.name, c.kind, c.type]),
      timestamps: [...t.timestamps],
      series: t.series.map((s) => ({
        rows: [s.rowStart, s.rowCount, s.minTs, s.maxTs, s.sorted],
        tags: s.tags,
        key: s.key,
      })),
    }));

  it('reads the same tables, series, tags and keys as version 1, the keys made from the tags', () => {
    const v1 = build(true);
    const v2 = build(false);
    expect(new DataView(v1.buffer, v1.byteOffset).getUint32(0, true)).toBe(0x31425753);
    expect(new DataView(v2.buffer, v2.byteOffset).getUint32(0, true)).toBe(0x32425753);
    // Smaller by the keys (and the padding after them).
    const keyBytes = decoded(v1).flatMap((t) => t.series.map((s) => Buffer.byteLength(s.key)));
    const saved = v1.length - v2.length;
    expect(saved).toBeGreaterThanOrEqual(keyBytes.reduce((a, b) => a + b, 0) - 8 * keyBytes.length);
    expect(saved).toBeLessThanOrEqual(keyBytes.reduce((a, b) => a + b, 0) + 8 * keyBytes.length);
    expect(decoded(v2)).toEqual(decoded(v1));
    expect(decoded(v2)[0]!.series.map((s) => s.key)).toEqual([
      'spans,name=GET\\ /api/items,service=shop-0,span_id=94125f87d669767f',
      'spans,name=a\\,b\\=c\\\\d\\ e,service=shop-1,span_id=b900027adc9aaec9',
      'spans,name=région\\ ✓,service=shop-0,span_id=52b049ac86d48a02',
    ]);
  });

  it('refuses a series without a key in a version 1 batch', () => {
    const v2 = build(false);
    const v1Magic = v2.slice();
    new DataView(v1Magic.buffer).setUint32(0, 0x31425753, true);
    expect(refusal(v1Magic).check).toBe('series without a key in a version 1 batch');
  });

  it('refuses an unknown magic, naming both versions', () => {
    const bad = build(false).slice();
    new DataView(bad.buffer).setUint32(0, 0x33425753, true);
    expect(refusal(bad).check).toBe('bad magic 0x33425753, want 0x31425753 or 0x32425753');
  });
});
