// The footer index (FORMAT.md §5.1): what the v3 writer builds reads back entry for entry
// (series with blocks of their own next to packed series, groups with and without page blocks),
// and a damaged entry fails at open with the offset and the check (v1 and v2 are read by
// golden.test.ts in every run).

import { describe, expect, it } from 'vitest';
import { ValueType } from '../../../host/core/write-batch.js';
import { INDEX_HEADER_BYTES, type ColumnBlock, type PackEntry } from '../../../host/storage/segment/segment-format.js';
import { decodeIndex, IndexBuilder, IndexError } from '../../../host/storage/segment/segment-index.js';
import { seriesIdKey } from '../../../host/core/series-key.js';

const meta = {
  partitionStart: 0n,
  partitionEnd: 100n,
  minTs: 1n,
  maxTs: 90n,
  minLsn: 1,
  maxLsn: 2,
  cleanLsn: 2,
  rows: 7,
};
const block = (offset: number, count: number): ColumnBlock => ({
  offset,
  length: 10,
  crc: 0xabcd,
  stats: { count, min: 1, max: 9, sum: 20 },
});

function build(): Uint8Array {
  const b = new IndexBuilder();
  const pack: PackEntry = {
    tableId: 3,
    rows: 3,
    minTs: 1n,
    maxTs: 5n,
    columns: [{ id: 7, type: ValueType.Double }],
    time: { offset: 16, length: 10, crc: 1 },
    blocks: [block(26, 3)],
  };
  b.addPackedSeries(3, seriesIdKey([[1, 'a']]), 1, 5n, 5n, 0, 0);
  b.addPackedSeries(3, seriesIdKey([[1, 'b,é']]), 2, 1n, 2n, 0, 1);
  expect(b.addPack(pack)).toBe(0);
  b.addSeries(
    3,
    seriesIdKey([
      [1, 'c'],
      [2, 'x'],
    ]),
    [{ id: 7, type: ValueType.Double }],
    [
      { rows: 2, minTs: 10n, maxTs: 20n, time: { offset: 36, length: 10, crc: 2 }, columns: [block(46, 2)] },
      {
        rows: 2,
        minTs: 30n,
        maxTs: 90n,
        time: { offset: 56, length: 10, crc: 3 },
        columns: [block(66, 2)],
        pages: { offset: 76, length: 10, crc: 4 },
      },
    ],
  );
  return b.finish(meta);
}

describe('segment index v3', () => {
  it('reads back packs, packed series and series with their own blocks', () => {
    const { meta: m, series } = decodeIndex(build(), 3, 3, 100);
    expect(m).toEqual(meta);
    expect(series.map((s) => [s.key, s.rows, s.minTs, s.maxTs, s.groups[0]!.packRow, s.groups[0]!.pack?.rows])).toEqual(
      [
        ['1:1:a', 1, 5n, 5n, 0, 3],
        ['1:3:b,é', 2, 1n, 2n, 1, 3],
        ['1:1:c2:1:x', 4, 10n, 90n, undefined, undefined],
      ],
    );
    expect(series[1]!.tags).toEqual([[1, 'b,é']]);
    expect(series[0]!.columns).toBe(series[1]!.columns); // the pack's, shared
    expect(series[0]!.groups[0]!.columns[0]).toEqual(block(26, 3));
    expect(series[2]!.groups.map((g) => [g.rows, g.columns[0], g.pages])).toEqual([
      [2, block(46, 2), undefined],
      [2, block(66, 2), { offset: 76, length: 10, crc: 4 }],
    ]);
  });

  it('reads back the keys of many series, ASCII or not, with ids of any width', () => {
    const b = new IndexBuilder();
    const keys: string[] = [];
    const values = ['', 'a', 'host_0042', 'x'.repeat(70), 'ü', 'a😀b', 'k,=\\ v'];
    for (let s = 0; s < 300; s++) {
      const tags: Array<[number, string]> = [];
      for (let t = 0; t < 1 + (s % 4); t++)
        tags.push([[1, 9, 10, 4096, 70000][(s + t) % 5]! + t * 100001, values[(s * 7 + t * 3) % values.length]!]);
      tags.sort((x, y) => x[0] - y[0]);
      keys.push(seriesIdKey(tags));
    }
    keys.sort();
    for (const k of keys) b.addPackedSeries(3, k, 1, 5n, 5n, 0, 0);
    b.addPack({
      tableId: 3,
      rows: 1,
      minTs: 5n,
      maxTs: 5n,
      columns: [{ id: 7, type: ValueType.Double }],
      time: { offset: 16, length: 10, crc: 1 },
      blocks: [block(26, 1)],
    });
    const index = b.finish({ ...meta, rows: 300 });
    const { series } = decodeIndex(index, 3, 300, 100);
    expect(series.map((s) => s.key)).toEqual(keys);
    // A reader of a file just written takes the writer's keys: the same entries.
    const handed = decodeIndex(index, 3, 300, 100, keys);
    expect(handed.series).toEqual(series);
    expect(() => decodeIndex(index, 3, 300, 100, keys.slice(1))).toThrow(
      'the index holds 300 series, the writer added 299',
    );
  });

  const at = INDEX_HEADER_BYTES + 8; // the first pack entry
  const packBytes = 32 + 5 + 16 + 45;
  const cases: Array<[string, (dv: DataView) => void, string]> = [
    [
      'a series naming a pack that does not exist',
      (dv) => dv.setUint32(at + packBytes + 32, 4, true),
      'series refers to pack 4 of 1',
    ],
    [
      'a packed series running past its pack',
      (dv) => dv.setUint32(at + packBytes + 36, 3, true),
      'rows [3, 4) lie outside pack 0 of 3 rows',
    ],
    [
      'a pack block outside the data region',
      (dv) => dv.setUint32(at + 32 + 5 + 16, 95, true),
      'block at 95 of 10 bytes lies outside the data region',
    ],
    [
      'a pack entry of the wrong size',
      (dv) => dv.setUint32(at, 33, true),
      'pack entry of 33 bytes, 98 expected for 1 columns',
    ],
    [
      'a nonzero reserved word',
      (dv) => dv.setUint32(INDEX_HEADER_BYTES + 4, 1, true),
      'reserved word after the pack count is not 0',
    ],
  ];
  for (const [name, damage, message] of cases) {
    it(`fails on ${name}`, () => {
      const index = build();
      damage(new DataView(index.buffer));
      let err: unknown;
      try {
        decodeIndex(index, 3, 3, 100);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(IndexError);
      expect((err as IndexError).message).toBe(message);
    });
  }

  it('fails on a page block outside the data region', () => {
    const b = new IndexBuilder();
    b.addSeries(
      3,
      seriesIdKey([[1, 'c']]),
      [{ id: 7, type: ValueType.Double }],
      [
        {
          rows: 2,
          minTs: 10n,
          maxTs: 20n,
          time: { offset: 36, length: 10, crc: 2 },
          columns: [block(46, 2)],
          pages: { offset: 95, length: 10, crc: 4 },
        },
      ],
    );
    expect(() => decodeIndex(b.finish({ ...meta, rows: 2 }), 3, 1, 100)).toThrow(
      'block at 95 of 10 bytes lies outside the data region',
    );
  });
});
