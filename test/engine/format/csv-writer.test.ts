import { describe, expect, it } from 'vitest';
import { constantVector, type Scalar } from '../../../host/engine/types/batch.js';
import { createResultWriter } from '../../../host/engine/format/index.js';
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
    { name: 'end', type: timestamp('Millisecond'), nullable: false },
  ],
};

// [name, type, values, the CSV rows after the header `v`]
const COLUMNS: ReadonlyArray<readonly [string, DataType, Scalar[], string]> = [
  ['NULL', NULL, [null, null], '""\n""\n'],
  ['BOOLEAN', BOOLEAN, [true, false, null], 'true\nfalse\n""\n'],
  [
    'BIGINT',
    INT64,
    [0n, -1n, 4294967296n, 2n ** 53n + 1n, -(2n ** 63n), 2n ** 63n - 1n, null],
    '0\n-1\n4294967296\n9007199254740993\n-9223372036854775808\n9223372036854775807\n""\n',
  ],
  [
    'BIGINT UNSIGNED',
    UINT64,
    [0n, 2n ** 32n - 1n, 2n ** 53n + 1n, 2n ** 64n - 1n],
    '0\n4294967295\n9007199254740993\n18446744073709551615\n',
  ],
  [
    'DOUBLE',
    FLOAT64,
    [1, 2.5, -0.5, 1e-6, 1e10, NaN, Infinity, -Infinity, -0, null],
    '1.0\n2.5\n-0.5\n1.0e-6\n1.0e10\nNaN\ninf\n-inf\n-0.0\n""\n',
  ],
  [
    'STRING',
    UTF8,
    ['plain', 'a,b', 'say "hi"', 'two\nlines', 'cr\rhere', 'tab\there', '', null],
    'plain\n"a,b"\n"say ""hi"""\n"two\nlines"\n"cr\rhere"\ntab\there\n""\n""\n',
  ],
  ['non-ASCII STRING', UTF8, ['héllo', '日本語', '😀,x', 'ü"'], 'héllo\n日本語\n"😀,x"\n"ü"""\n'],
  [
    'TIMESTAMP(NANOSECOND)',
    timestamp('Nanosecond'),
    [1690510331000000000n, 1690510331000000001n, -1n],
    '2023-07-28T02:12:11.000000000\n2023-07-28T02:12:11.000000001\n1969-12-31T23:59:59.999999999\n',
  ],
  ['TIMESTAMP(MICROSECOND)', timestamp('Microsecond'), [10n], '1970-01-01T00:00:00.000010000\n'],
  ['TIMESTAMP(MILLISECOND)', timestamp('Millisecond'), [1667456411001n], '2022-11-03T06:20:11.001000000\n'],
  ['TIMESTAMP(SECOND)', timestamp('Second'), [1667456411n], '2022-11-03T06:20:11.000000000\n'],
  [
    'TIMESTAMP with a time zone as its UTC instant',
    timestamp('Nanosecond', '+08:00'),
    [1690510331000000000n],
    '2023-07-28T02:12:11.000000000\n',
  ],
  ['DATE', DATE32, [0, 19000, null], '1970-01-01\n2022-01-08\n""\n'],
  [
    'TIME (chrono: the fraction only when not zero)',
    TIME64,
    [0n, 36_672_500_000_000n, 86_399_000_000_001n],
    '00:00:00\n10:11:12.500\n23:59:59.000000001\n',
  ],
  [
    'INTERVAL',
    INTERVAL,
    [
      { months: 1, days: 2, nanos: 3_723_000_000_001n },
      { months: 0, days: 0, nanos: -1_500_000_000n },
    ],
    '0 years 1 mons 2 days 1 hours 2 mins 3.000000001 secs\n0 years 0 mons 0 days 0 hours 0 mins -1.500000000 secs\n',
  ],
  [
    'a time_window struct',
    WINDOW,
    [{ start: 946598400000n, end: 946598400010n }],
    '"{start: 1999-12-31T00:00:00, end: 1999-12-31T00:00:00.010}"\n',
  ],
  [
    'a struct with a NULL field',
    WINDOW,
    [{ start: 946598400000n, end: null }],
    '"{start: 1999-12-31T00:00:00, end: }"\n',
  ],
  ['a list', { id: 'List', item: INT64 }, [[1n, 2n, null], []], '"[1, 2, ]"\n[]\n'],
];

describe('CSV writer', () => {
  for (const [name, type, values, rows] of COLUMNS) {
    it(`writes ${name}`, () => {
      expect(renderColumn('csv', type, values)).toBe('v\n' + rows);
    });
    // A constant column (a tag in scan output) is formatted once per batch: the same text.
    const value = values.find((v) => v !== null);
    if (value !== undefined) {
      it(`writes a constant ${name} column as the same value row by row`, () => {
        const schema = schemaOf([
          ['v', type],
          ['w', INT64],
        ]);
        const constant = { ...constantVector(type, value, 3) };
        const plain = batchOf(schema, [
          [value, 1n],
          [value, 2n],
          [value, 3n],
        ]);
        expect(render('csv', schema, [{ schema, length: 3, columns: [constant, plain.columns[1]!] }])).toBe(
          render('csv', schema, [plain]),
        );
      });
    }
  }

  it('writes NULL as an empty field between delimiters and quotes only the fields that need it', () => {
    const schema = schemaOf([
      ['time', timestamp()],
      ['host', UTF8],
      ['usage', FLOAT64],
      ['count', INT64],
    ]);
    const body = render('csv', schema, [
      batchOf(schema, [
        [0n, 'a', null, 3n],
        [1n, null, 1.5, null],
        [2n, 'x,y', null, null],
      ]),
    ]);
    expect(body).toBe(
      'time,host,usage,count\n1970-01-01T00:00:00.000000000,a,,3\n1970-01-01T00:00:00.000000001,,1.5,\n1970-01-01T00:00:00.000000002,"x,y",,\n',
    );
  });

  it('quotes header names as needed, as CnosDB quotes Utf8("Hello World")', () => {
    const schema = schemaOf([
      ['Utf8("Hello World")', UTF8],
      ['a,b', INT64],
      ['plain', INT64],
    ]);
    expect(render('csv', schema, [])).toBe('"Utf8(""Hello World"")","a,b",plain\n');
  });

  it('writes the header alone for zero rows, with or without an empty batch', () => {
    const schema = schemaOf([
      ['a', INT64],
      ['b', UTF8],
    ]);
    expect(render('csv', schema, [])).toBe('a,b\n');
    expect(render('csv', schema, [batchOf(schema, [])])).toBe('a,b\n');
    expect(render('csv', schemaOf([['', INT64]]), [])).toBe('""\n');
  });

  it('sends the header with the first batch and nothing at the end when rows were written', () => {
    const schema = schemaOf([['n', INT64]]);
    const w = createResultWriter('csv', schema);
    const decode = (b: Uint8Array): string => new TextDecoder().decode(b);
    expect(decode(w.write(batchOf(schema, [[1n]])))).toBe('n\n1\n');
    expect(decode(w.write(batchOf(schema, [])))).toBe('');
    expect(decode(w.write(batchOf(schema, [[2n], [3n]])))).toBe('2\n3\n');
    expect(decode(w.end())).toBe('');
  });

  it('concatenates many batches, growing its buffer past the initial size', () => {
    const schema = schemaOf([
      ['i', INT64],
      ['s', UTF8],
    ]);
    const long = 'x'.repeat(100_000);
    const batches = Array.from({ length: 50 }, (_, b) =>
      batchOf(
        schema,
        Array.from({ length: 100 }, (_, r) => [BigInt(b * 100 + r), r === 7 ? long : `r${r}`]),
      ),
    );
    const lines = render('csv', schema, batches).split('\n');
    expect(lines.length).toBe(1 + 5000 + 1);
    expect(lines[0]).toBe('i,s');
    expect(lines[1]).toBe('0,r0');
    expect(lines[8]).toBe(`7,${long}`);
    expect(lines[5000]).toBe('4999,r99');
    expect(lines[5001]).toBe('');
  });
});

describe('TSV writer', () => {
  it('separates with TAB and quotes TAB, quotes and line breaks, not commas', () => {
    const schema = schemaOf([
      ['a b', UTF8],
      ['n', INT64],
      ['t', timestamp('Millisecond')],
    ]);
    const body = render('tsv', schema, [
      batchOf(schema, [
        ['x,y', 1n, 1667456411001n],
        ['tab\there', null, null],
        ['q"', 2n, 0n],
      ]),
    ]);
    expect(body).toBe(
      'a b\tn\tt\nx,y\t1\t2022-11-03T06:20:11.001000000\n"tab\there"\t\t\n"q"""\t2\t1970-01-01T00:00:00.000000000\n',
    );
  });

  it('writes the header alone for zero rows', () => {
    expect(
      render(
        'tsv',
        schemaOf([
          ['a', INT64],
          ['b', INT64],
        ]),
        [],
      ),
    ).toBe('a\tb\n');
  });
});
