// Page statistics of a row group (FORMAT.md §5.1, page-stats.ts): the width the writer picks for
// a series, the cuts between groups moved onto page starts, the statistics of each page equal to
// those of its rows, and a malformed page block refused with the check that failed.

import { describe, expect, it } from 'vitest';
import { ValueType } from '../../../host/core/write-batch.js';
import { computeStats } from '../../../host/storage/segment/block-stats.js';
import { floorDiv } from '../../../host/core/precision.js';
import {
  decodePages,
  encodePages,
  MIN_PAGE_ROWS,
  pageAlignedBounds,
  pageWidth,
} from '../../../host/storage/segment/page-stats.js';
import { BLOCK_ROWS, groupBounds } from '../../../host/storage/segment/segment-format.js';
import type { SeriesRows } from '../../../host/storage/series/series-data.js';

const S = 1_000_000_000n; // a second in nanoseconds
const HOUR = 3600n * S;

/** n times `step` apart from `start`. */
const times = (start: bigint, step: bigint, n: number): BigInt64Array =>
  BigInt64Array.from({ length: n }, (_, i) => start + BigInt(i) * step);

describe('pageWidth', () => {
  const cases: Array<[string, BigInt64Array, bigint, bigint | undefined]> = [
    ['a day at 10 s: an hour (360 rows a page)', times(0n, 10n * S, 8640), S, HOUR],
    ['a day at 10 s in milliseconds', times(0n, 10_000n, 8640), 1000n, 3_600_000n],
    ['two hours at 1 s: 5 minutes (300 rows)', times(7n * S, S, 7200), S, 300n * S],
    ['a week at 1 minute: a day (1440 rows)', times(0n, 60n * S, 7 * 1440), S, 24n * HOUR],
    ['before 1970 at 10 s: an hour', times(-86_400n * S, 10n * S, 8640), S, HOUR],
    ['too few rows for two pages', times(0n, S, 2 * MIN_PAGE_ROWS - 1), S, undefined],
    ['within one page of the first width its pages would fill', times(0n, 50_000_000n, 1000), S, undefined],
    ['too sparse for any width: a row a day', times(0n, 86_400n * S, 1000), S, undefined],
  ];
  for (const [name, ts, unitsPerSecond, want] of cases) {
    it(name, () => expect(pageWidth(ts, ts.length, unitsPerSecond)).toBe(want));
  }
});

describe('pageAlignedBounds', () => {
  it('moves each cut back to the start of its page', () => {
    // 10 s rows from 00:00:07: equal cuts of 8640 rows fall mid-hour; aligned ones on the hour.
    const ts = times(7n * S, 10n * S, 20_000);
    const got = pageAlignedBounds(groupBounds(ts.length), ts, HOUR, BLOCK_ROWS);
    expect(got).toHaveLength(3);
    expect(got[0]![0]).toBe(0);
    expect(got.at(-1)![1]).toBe(ts.length);
    for (let g = 1; g < got.length; g++) {
      expect(got[g]![0]).toBe(got[g - 1]![1]);
      expect(ts[got[g]![0]]! % HOUR).toBe(7n * S); // the first row of an hour
      expect(floorDiv(ts[got[g]![0] - 1]!, HOUR)).toBeLessThan(floorDiv(ts[got[g]![0]]!, HOUR));
    }
  });

  it('keeps the equal cuts when a moved one would empty a group or overfill one', () => {
    const sparse = times(0n, HOUR, 3);
    expect(
      pageAlignedBounds(
        [
          [0, 1],
          [1, 2],
          [2, 3],
        ],
        sparse,
        24n * HOUR,
        10,
      ),
    ).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
    ]);
    const ts = times(0n, 10n * S, 2000);
    const equal: Array<[number, number]> = [
      [0, 1000],
      [1000, 2000],
    ];
    expect(pageAlignedBounds(equal, ts, HOUR, 1000)).toEqual(equal); // the second group would hold 1280 rows
    expect(pageAlignedBounds(equal, ts, HOUR, 2000)).toEqual([
      [0, 720],
      [720, 2000],
    ]);
  });
});

describe('page blocks', () => {
  /** Rows of a DOUBLE with NULLs and a NaN, a BIGINT past 64 bits of sum, a BOOLEAN and a STRING. */
  function rows(ts: BigInt64Array): SeriesRows {
    const n = ts.length;
    const d = Float64Array.from({ length: n }, (_, i) => (i === 100 ? NaN : Math.sin(i) * 100));
    const dv = Uint8Array.from({ length: n }, (_, i) => (i % 7 === 0 ? 0 : 1));
    const big = BigInt64Array.from({ length: n }, (_, i) => (i < 400 ? 2n ** 62n : BigInt(i - 1000)));
    const bool = Uint8Array.from({ length: n }, (_, i) => (i % 3) & 1);
    const str = Array.from({ length: n }, (_, i) => `s${i}`);
    return {
      length: n,
      ts,
      columns: new Map([
        [1, { type: ValueType.Double, values: d, validity: dv }],
        [2, { type: ValueType.BigInt, values: big, validity: undefined }],
        [3, { type: ValueType.Boolean, values: bool, validity: undefined }],
        [4, { type: ValueType.String, values: str, validity: undefined }],
      ]),
    } as SeriesRows;
  }
  const columns = [
    { id: 1, type: ValueType.Double },
    { id: 2, type: ValueType.BigInt },
    { id: 3, type: ValueType.Boolean },
    { id: 4, type: ValueType.String },
  ];

  it('hold each page statistics equal to those of its rows, listing only pages with rows', () => {
    // 10 s rows over 4 h from 00:59:50, with hour 02 missing.
    const ts = BigInt64Array.from([...times(HOUR - 10n * S, 10n * S, 361), ...times(3n * HOUR, 10n * S, 700)]);
    const r = rows(ts);
    const block = encodePages(r, ts.length, HOUR, columns);
    const pages = decodePages(block, ts.length, ts[0]!, ts.at(-1)!, columns.length);
    if (typeof pages === 'string') throw new Error(pages);
    expect(pages.width).toBe(HOUR);
    expect(pages.first).toBe(0n);
    expect([...pages.page]).toEqual([0, 1, 3, 4]);
    expect([...pages.rowEnd]).toEqual([1, 361, 721, 1061]);
    for (let i = 0; i < pages.count; i++) {
      const from = i === 0 ? 0 : pages.rowEnd[i - 1]!;
      const to = pages.rowEnd[i]!;
      columns.forEach((c, ci) => {
        const col = r.columns.get(c.id)!;
        const values = Array.isArray(col.values) ? col.values.slice(from, to) : col.values.subarray(from, to);
        expect(pages.stats(ci, i, c.type), `page ${i} column ${c.id}`).toEqual(
          computeStats(c.type, values, col.validity?.subarray(from, to), to - from),
        );
      });
    }
    expect(pages.stats(0, 1, ValueType.Double).min).toBeUndefined(); // the NaN's page: no min/max
    expect(pages.stats(1, 1, ValueType.BigInt).sum).toBeUndefined(); // 2^62 x 360 rows: no sum
    expect(pages.stats(0, 1, ValueType.Double)).toBe(pages.stats(0, 1, ValueType.Double)); // decoded once
  });

  it('refuse a malformed block with the check that failed', () => {
    const ts = times(0n, 10n * S, 1000);
    const good = encodePages(rows(ts), ts.length, HOUR, columns);
    const decode = (b: Uint8Array, rowCount = ts.length, minTs = ts[0]!, maxTs = ts.at(-1)!, cols = columns.length) =>
      decodePages(b, rowCount, minTs, maxTs, cols);
    const edit = (f: (dv: DataView) => void): Uint8Array => {
      const b = good.slice();
      f(new DataView(b.buffer));
      return b;
    };
    expect(typeof decode(good)).toBe('object');
    expect(decode(good.subarray(0, 10))).toBe('page block of 10 bytes is shorter than its header');
    expect(decode(edit((dv) => dv.setBigInt64(0, 0n, true)))).toBe('page width 0 is not positive');
    expect(decode(good, ts.length, ts[0]!, ts.at(-1)!, 3)).toBe('page block of 4 columns, the group has 3');
    expect(decode(good.subarray(0, good.length - 1))).toBe(
      `page block of ${good.length - 1} bytes does not hold 3 pages of 4 columns`,
    );
    expect(decode(good, ts.length, ts[0]! - 1n)).toBe(`first page 0 does not hold the group's first time -1`);
    expect(decode(edit((dv) => dv.setUint32(24 + 8, 0, true)))).toBe('page 1 is out of order');
    expect(decode(edit((dv) => dv.setUint32(24 + 4, 0, true)))).toBe('page 0 is out of order');
    expect(decode(good, ts.length + 1)).toBe(`pages hold ${ts.length} rows, the group ${ts.length + 1}`);
    expect(decode(good, ts.length, ts[0]!, ts.at(-1)! + HOUR)).toBe(
      `last page does not hold the group's last time ${ts.at(-1)! + HOUR}`,
    );
  });
});
