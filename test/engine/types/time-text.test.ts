import { describe, expect, it } from 'vitest';
import { dateText, timestampText } from '../../../host/engine/types/display-text.js';
import { timestamp, type DataType, type TimeUnit } from '../../../host/engine/types/data-types.js';
import { prng } from '../format/support.js';

const NS = timestamp('Nanosecond');
const I64_MAX = 2n ** 63n - 1n;
const I64_MIN = -(2n ** 63n);

// [name, type, value, CSV text, display text (JSON, text/table, .slt)]
const CASES: ReadonlyArray<readonly [string, DataType, bigint, string, string]> = [
  ['the epoch', NS, 0n, '1970-01-01T00:00:00.000000000', '1970-01-01T00:00:00'],
  ['a whole second', NS, 1690510331000000000n, '2023-07-28T02:12:11.000000000', '2023-07-28T02:12:11'],
  ['milliseconds as 3 digits', NS, 1690510331001000000n, '2023-07-28T02:12:11.001000000', '2023-07-28T02:12:11.001'],
  ['microseconds as 6 digits', NS, 1690510331000010000n, '2023-07-28T02:12:11.000010000', '2023-07-28T02:12:11.000010'],
  [
    'nanoseconds as 9 digits',
    NS,
    1690510331000000001n,
    '2023-07-28T02:12:11.000000001',
    '2023-07-28T02:12:11.000000001',
  ],
  ['one nanosecond before the epoch', NS, -1n, '1969-12-31T23:59:59.999999999', '1969-12-31T23:59:59.999999999'],
  ['the largest int64', NS, I64_MAX, '2262-04-11T23:47:16.854775807', '2262-04-11T23:47:16.854775807'],
  ['the smallest int64', NS, I64_MIN, '1677-09-21T00:12:43.145224192', '1677-09-21T00:12:43.145224192'],
  ['a leap day', NS, 951782400000000000n, '2000-02-29T00:00:00.000000000', '2000-02-29T00:00:00'],
  ['2^53 ns (the exact-double edge)', NS, 2n ** 53n, '1970-04-15T05:59:59.254740992', '1970-04-15T05:59:59.254740992'],
  [
    'milliseconds (a ms database)',
    timestamp('Millisecond'),
    1667456411001n,
    '2022-11-03T06:20:11.001000000',
    '2022-11-03T06:20:11.001',
  ],
  [
    'microseconds (a us database)',
    timestamp('Microsecond'),
    10n,
    '1970-01-01T00:00:00.000010000',
    '1970-01-01T00:00:00.000010',
  ],
  ['seconds', timestamp('Second'), 86399n, '1970-01-01T23:59:59.000000000', '1970-01-01T23:59:59'],
  [
    'year 10000 with a sign',
    timestamp('Second'),
    253402300800n,
    '+10000-01-01T00:00:00.000000000',
    '+10000-01-01T00:00:00',
  ],
  ['year 0', timestamp('Second'), -62167219200n, '0000-01-01T00:00:00.000000000', '0000-01-01T00:00:00'],
  ['year -1 with a sign', timestamp('Second'), -62167219201n, '-0001-12-31T23:59:59.000000000', '-0001-12-31T23:59:59'],
  // CSV writes a zoned value as its UTC instant without a zone; the display as RFC 3339.
  [
    'UTC (now())',
    timestamp('Nanosecond', 'UTC'),
    1690510331001000000n,
    '2023-07-28T02:12:11.001000000',
    '2023-07-28T02:12:11.001Z',
  ],
  [
    '+00:00 (DataFusion now())',
    timestamp('Nanosecond', '+00:00'),
    0n,
    '1970-01-01T00:00:00.000000000',
    '1970-01-01T00:00:00Z',
  ],
  [
    'a fixed offset',
    timestamp('Millisecond', '+08:00'),
    0n,
    '1970-01-01T00:00:00.000000000',
    '1970-01-01T08:00:00+08:00',
  ],
  [
    'a negative offset',
    timestamp('Second', '-05:30'),
    0n,
    '1970-01-01T00:00:00.000000000',
    '1969-12-31T18:30:00-05:30',
  ],
  [
    'an IANA zone in winter',
    timestamp('Second', 'America/New_York'),
    0n,
    '1970-01-01T00:00:00.000000000',
    '1969-12-31T19:00:00-05:00',
  ],
  [
    'an IANA zone in summer',
    timestamp('Second', 'Europe/Berlin'),
    1690510331n,
    '2023-07-28T02:12:11.000000000',
    '2023-07-28T04:12:11+02:00',
  ],
];

describe('timestamp text', () => {
  for (const [name, type, value, csv, display] of CASES) {
    it(`writes ${name}`, () => {
      expect(timestampText(type, value, 'csv')).toBe(csv);
      expect(timestampText(type, value, 'display')).toBe(display);
    });
  }

  it('agrees with a BigInt and Date reference on 20000 seeded instants in every unit', () => {
    const rand = prng(7);
    const units: Array<[TimeUnit, bigint, bigint]> = [
      // unit, units per second, a magnitude within chrono's years (±262143; Date's reach further)
      ['Nanosecond', 1_000_000_000n, I64_MAX],
      ['Microsecond', 1_000_000n, 8_200_000_000_000_000_000n],
      ['Millisecond', 1000n, 8_200_000_000_000_000n],
      ['Second', 1n, 8_200_000_000_000n],
    ];
    const wrong: string[] = [];
    for (let i = 0; i < 5000; i++) {
      for (const [unit, perSecond, max] of units) {
        const r =
          BigInt(Math.floor(rand() * 2 ** 31)) *
          BigInt(Math.floor(rand() * 2 ** 31)) *
          BigInt(Math.floor(rand() * 2 ** 2) + 1);
        const value = (r % max) * (rand() < 0.3 ? -1n : 1n);
        const got = timestampText(timestamp(unit), value, 'csv');
        const want = referenceCsv(value, perSecond);
        if (got !== want) wrong.push(`${unit} ${value}: ${got} != ${want}`);
      }
    }
    expect(wrong.slice(0, 5)).toEqual([]);
  });

  it("refuses a time beyond chrono's years as CnosDB's writers do (Fetch result)", () => {
    expect(timestampText(timestamp('Millisecond'), 8_210_298_412_799_999n, 'csv')).toBe(
      '+262143-12-31T23:59:59.999000000',
    );
    expect(() => timestampText(timestamp('Millisecond'), 8_210_298_412_800_000n, 'csv')).toThrow(
      'Fetch result: Cast error: Failed to convert 8210298412800000 to datetime for Timestamp(Millisecond, None)',
    );
    expect(() => timestampText(timestamp('Second', 'UTC'), -8_334_632_851_201n, 'display')).toThrow(
      'Failed to convert -8334632851201 to datetime for Timestamp(Second, Some("UTC"))',
    );
  });
});

describe('date text', () => {
  const cases: ReadonlyArray<readonly [number, string]> = [
    [0, '1970-01-01'],
    [-1, '1969-12-31'],
    [19000, '2022-01-08'],
    [2932896, '9999-12-31'],
    [2932897, '+10000-01-01'],
    [-719528, '0000-01-01'],
    [-719529, '-0001-12-31'],
  ];
  for (const [days, text] of cases) {
    it(`writes day ${days} as ${text}`, () => expect(dateText(days)).toBe(text));
  }
});

function referenceCsv(value: bigint, perSecond: bigint): string {
  let secs = value / perSecond;
  let rem = value % perSecond;
  if (rem < 0n) {
    secs -= 1n;
    rem += perSecond;
  }
  const d = new Date(Number(secs) * 1000);
  const y = d.getUTCFullYear();
  const year =
    y >= 0 && y <= 9999 ? String(y).padStart(4, '0') : (y < 0 ? '-' : '+') + String(Math.abs(y)).padStart(4, '0');
  const p2 = (n: number): string => String(n).padStart(2, '0');
  const nanos = (rem * (1_000_000_000n / perSecond)).toString().padStart(9, '0');
  return `${year}-${p2(d.getUTCMonth() + 1)}-${p2(d.getUTCDate())}T${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}.${nanos}`;
}
