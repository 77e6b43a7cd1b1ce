import { describe, expect, it } from 'vitest';
import type { Scalar } from '../../../host/engine/types/batch.js';
import { createResultWriter, streamErrorTrailer } from '../../../host/engine/format/index.js';
import {
  BOOLEAN,
  DATE32,
  FLOAT64,
  INT64,
  INTERVAL,
  NULL,
  TIME64,
  UINT64,
  UTF8,
  timestamp,
  type DataType,
} from '../../../host/engine/types/data-types.js';
import { batchOf, render, renderColumn, schemaOf } from './support.js';

const WINDOW: DataType = {
  id: 'Struct',
  fields: [
    { name: 'start', type: timestamp('Millisecond'), nullable: false },
    { name: 'end', type: timestamp('Millisecond'), nullable: true },
  ],
};

// [name, type, values, the JSON text of each value]
const COLUMNS: ReadonlyArray<readonly [string, DataType, Scalar[], string[]]> = [
  ['NULL', NULL, [null], ['null']],
  ['BOOLEAN', BOOLEAN, [true, false, null], ['true', 'false', 'null']],
  [
    'BIGINT exactly beyond 2^53',
    INT64,
    [0n, -1n, 2n ** 53n + 1n, -(2n ** 63n), 2n ** 63n - 1n, null],
    ['0', '-1', '9007199254740993', '-9223372036854775808', '9223372036854775807', 'null'],
  ],
  ['BIGINT UNSIGNED', UINT64, [2n ** 64n - 1n, 7n], ['18446744073709551615', '7']],
  [
    'DOUBLE as serde_json',
    FLOAT64,
    [1, 2.5, 1e-6, 1e15, 1e16, 1e300, -0, NaN, Infinity, -Infinity, null],
    ['1.0', '2.5', '1e-6', '1000000000000000.0', '1e16', '1e300', '-0.0', 'null', 'null', 'null', 'null'],
  ],
  [
    'STRING escaped as serde_json',
    UTF8,
    ['plain', 'q"b\\', 'nl\ncr\rtab\tbs\bff\f', '\u0000\u001f\u007f', 'héllo 日本 😀', '\u2028', '\ud800', ''],
    [
      '"plain"',
      '"q\\"b\\\\"',
      '"nl\\ncr\\rtab\\tbs\\bff\\f"',
      '"\\u0000\\u001f\u007f"',
      '"héllo 日本 😀"',
      '"\u2028"',
      '"\ufffd"',
      '""',
    ],
  ],
  [
    'TIMESTAMP(NANOSECOND) as CnosDB writes it',
    timestamp('Nanosecond'),
    [1690510331000000000n, 1690510331001000000n, 1690510331000010000n, 1690510331000000001n],
    [
      '"2023-07-28T02:12:11"',
      '"2023-07-28T02:12:11.001"',
      '"2023-07-28T02:12:11.000010"',
      '"2023-07-28T02:12:11.000000001"',
    ],
  ],
  ['TIMESTAMP(MILLISECOND)', timestamp('Millisecond'), [1667456411001n], ['"2022-11-03T06:20:11.001"']],
  ['TIMESTAMP(MICROSECOND)', timestamp('Microsecond'), [10n], ['"1970-01-01T00:00:00.000010"']],
  ['TIMESTAMP(SECOND)', timestamp('Second'), [0n], ['"1970-01-01T00:00:00"']],
  [
    'TIMESTAMP with a time zone as RFC 3339',
    timestamp('Nanosecond', 'UTC'),
    [1690510331001000000n],
    ['"2023-07-28T02:12:11.001Z"'],
  ],
  ['DATE', DATE32, [19000], ['"2022-01-08"']],
  ['TIME as a string', TIME64, [36_672_000_010_000n], ['"10:11:12.000010"']],
  [
    'INTERVAL as Arrow displays it',
    INTERVAL,
    [{ months: 0, days: 1, nanos: 60_000_000_000n }],
    ['"0 years 0 mons 1 days 0 hours 1 mins 0.000000000 secs"'],
  ],
  [
    'a time_window struct as an object',
    WINDOW,
    [{ start: 946598400000n, end: null }],
    ['{"start":"1999-12-31T00:00:00","end":null}'],
  ],
  ['a list as an array', { id: 'List', item: FLOAT64 }, [[1, null, 2.5], []], ['[1.0,null,2.5]', '[]']],
];

describe('JSON writer', () => {
  for (const [name, type, values, texts] of COLUMNS) {
    it(`writes ${name}`, () => {
      const objects = texts.map((t) => `{"v":${t}}`);
      expect(renderColumn('json', type, values)).toBe(`[${objects.join(',')}]`);
      expect(renderColumn('ndjson', type, values)).toBe(objects.map((o) => o + '\n').join(''));
    });
  }

  it('keeps keys in column order, duplicates included, and escapes key names', () => {
    const schema = schemaOf([
      ['Int64(1)', INT64],
      ['b', UTF8],
      ['Int64(1)', INT64],
      ['a"\n', BOOLEAN],
    ]);
    const body = render('json', schema, [batchOf(schema, [[1n, 'x', 1n, true]])]);
    expect(body).toBe('[{"Int64(1)":1,"b":"x","Int64(1)":1,"a\\"\\n":true}]');
  });

  it('writes [] for zero rows (and NDJSON nothing), with or without an empty batch', () => {
    const schema = schemaOf([['a', INT64]]);
    expect(render('json', schema, [])).toBe('[]');
    expect(render('json', schema, [batchOf(schema, [])])).toBe('[]');
    expect(render('ndjson', schema, [])).toBe('');
    expect(render('ndjson', schema, [batchOf(schema, [])])).toBe('');
  });

  it('stays one array across many batches: `[` with the first, commas between rows, `]` at the end', () => {
    const schema = schemaOf([['n', INT64]]);
    const w = createResultWriter('json', schema);
    const decode = (b: Uint8Array): string => new TextDecoder().decode(b);
    const parts = [
      w.write(batchOf(schema, [[1n], [2n]])),
      w.write(batchOf(schema, [])),
      w.write(batchOf(schema, [[3n]])),
      w.end(),
    ].map(decode);
    expect(parts).toEqual(['[{"n":1},{"n":2}', '', ',{"n":3}', ']']);
    expect(JSON.parse(parts.join(''))).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  });

  it('produces text that JSON.parse reads back to the same values', () => {
    const schema = schemaOf([
      ['t', timestamp()],
      ['s', UTF8],
      ['f', FLOAT64],
      ['i', INT64],
      ['b', BOOLEAN],
    ]);
    const strings = ['', 'a', '"', '\\', '\u0001', 'é', '𝄞', 'x\ny'];
    const rows = strings.map((s, k) => [BigInt(k) * 1_000_000_123n, s, k / 3, BigInt(k - 4), k % 2 === 0]);
    const parsed = JSON.parse(render('json', schema, [batchOf(schema, rows)])) as Array<Record<string, unknown>>;
    expect(parsed.map((o) => o.s)).toEqual(strings);
    expect(parsed.map((o) => o.f)).toEqual(strings.map((_, k) => k / 3));
    expect(parsed.map((o) => o.i)).toEqual(strings.map((_, k) => k - 4));
  });
});

describe('streamErrorTrailer', () => {
  const error = '{"error_code":"010001","error_message":"division by zero: \\"x\\""}';
  it('closes a JSON array and puts the error object on its own line', () => {
    const body = '[{"n":1}' + new TextDecoder().decode(streamErrorTrailer('json', '010001', 'division by zero: "x"'));
    expect(body).toBe(`[{"n":1}]\n${error}\n`);
  });
  for (const format of ['csv', 'tsv', 'ndjson'] as const) {
    it(`appends the error object as a line after ${format} rows`, () => {
      expect(new TextDecoder().decode(streamErrorTrailer(format, '010001', 'division by zero: "x"'))).toBe(
        `${error}\n`,
      );
    });
  }
  it('starts a new line after a table', () => {
    expect(new TextDecoder().decode(streamErrorTrailer('table', '010001', 'division by zero: "x"'))).toBe(
      `\n${error}\n`,
    );
  });
});
