import { describe, expect, it } from 'vitest';
import { createResultWriter } from '../../../host/engine/format/index.js';
import { displayWidth } from '../../../host/engine/format/table-writer.js';
import {
  BOOLEAN,
  DATE32,
  FLOAT64,
  INT64,
  INTERVAL,
  NULL,
  UINT64,
  UTF8,
  timestamp,
  type DataType,
} from '../../../host/engine/types/data-types.js';
import { batchOf, render, schemaOf } from './support.js';

const WINDOW: DataType = {
  id: 'Struct',
  fields: [
    { name: 'start', type: timestamp('Millisecond'), nullable: false },
    { name: 'end', type: timestamp('Millisecond'), nullable: false },
  ],
};

describe('text/table writer', () => {
  it('draws Arrow pretty_format_batches boxes, NULL as an empty cell, no final newline', () => {
    const schema = schemaOf([
      ['a', UTF8],
      ['b', INT64],
    ]);
    const body = render('table', schema, [
      batchOf(schema, [
        ['a', 1n],
        ['b', null],
      ]),
      batchOf(schema, [
        [null, 10n],
        ['d', 100n],
      ]),
    ]);
    expect(body).toBe(
      [
        '+---+-----+',
        '| a | b   |',
        '+---+-----+',
        '| a | 1   |',
        '| b |     |',
        '|   | 10  |',
        '| d | 100 |',
        '+---+-----+',
      ].join('\n'),
    );
  });

  it('shows every type as Arrow displays it, as the .slt files expect', () => {
    const schema = schemaOf([
      ['time', timestamp('Nanosecond')],
      ['f', FLOAT64],
      ['u', UINT64],
      ['ok', BOOLEAN],
      ['n', NULL],
      ['iv', INTERVAL],
      ['w', WINDOW],
      ['l', { id: 'List', item: INT64 }],
    ]);
    const body = render('table', schema, [
      batchOf(schema, [
        [
          946598400010000000n,
          1e-6,
          2n ** 64n - 1n,
          true,
          null,
          { months: 0, days: 0, nanos: 10_000_000n },
          { start: 946598400000n, end: 946598400010n },
          [1n, 2n],
        ],
      ]),
    ]);
    expect(body.split('\n')).toEqual([
      '+-------------------------+--------+----------------------+------+---+-------------------------------------------------------+------------------------------------------------------------+--------+',
      '| time                    | f      | u                    | ok   | n | iv                                                    | w                                                          | l      |',
      '+-------------------------+--------+----------------------+------+---+-------------------------------------------------------+------------------------------------------------------------+--------+',
      '| 1999-12-31T00:00:00.010 | 1.0e-6 | 18446744073709551615 | true |   | 0 years 0 mons 0 days 0 hours 0 mins 0.010000000 secs | {start: 1999-12-31T00:00:00, end: 1999-12-31T00:00:00.010} | [1, 2] |',
      '+-------------------------+--------+----------------------+------+---+-------------------------------------------------------+------------------------------------------------------------+--------+',
    ]);
  });

  it('shows dates, zoned timestamps, integers and strings as Arrow displays them', () => {
    const schema = schemaOf([
      ['d', DATE32],
      ['now()', timestamp('Nanosecond', '+00:00')],
      ['i', INT64],
      ['s', UTF8],
    ]);
    const body = render('table', schema, [
      batchOf(schema, [
        [19000, 1690510331001000000n, -(2n ** 63n), 'héllo'],
        [null, null, 0n, ''],
      ]),
    ]);
    expect(body.split('\n')).toEqual([
      '+------------+--------------------------+----------------------+-------+',
      '| d          | now()                    | i                    | s     |',
      '+------------+--------------------------+----------------------+-------+',
      '| 2022-01-08 | 2023-07-28T02:12:11.001Z | -9223372036854775808 | héllo |',
      '|            |                          | 0                    |       |',
      '+------------+--------------------------+----------------------+-------+',
    ]);
  });

  it('draws the header and two closing borders for zero rows, as comfy-table does', () => {
    expect(
      render(
        'table',
        schemaOf([
          ['key', UTF8],
          ['value', UTF8],
        ]),
        [],
      ),
    ).toBe(['+-----+-------+', '| key | value |', '+-----+-------+', '+-----+-------+'].join('\n'));
  });

  it('lays a cell with newlines over several lines (EXPLAIN plans)', () => {
    const schema = schemaOf([
      ['plan_type', UTF8],
      ['plan', UTF8],
    ]);
    const body = render('table', schema, [batchOf(schema, [['logical_plan', 'Projection: a\n  TableScan: t']])]);
    expect(body).toBe(
      [
        '+--------------+----------------+',
        '| plan_type    | plan           |',
        '+--------------+----------------+',
        '| logical_plan | Projection: a  |',
        '|              |   TableScan: t |',
        '+--------------+----------------+',
      ].join('\n'),
    );
  });

  it('counts East Asian wide characters as two columns and combining marks as none', () => {
    const schema = schemaOf([['name', UTF8]]);
    const body = render('table', schema, [batchOf(schema, [['日本'], ['e\u0301'], ['abcde']])]);
    expect(body).toBe(
      ['+-------+', '| name  |', '+-------+', '| 日本  |', '| e\u0301     |', '| abcde |', '+-------+'].join('\n'),
    );
    expect([
      displayWidth('abc'),
      displayWidth('日本語'),
      displayWidth('😀'),
      displayWidth('a\u200bb'),
      displayWidth('\t'),
    ]).toEqual([3, 6, 2, 2, 0]);
  });

  it('returns nothing until end(), which returns the whole table', () => {
    const schema = schemaOf([['n', INT64]]);
    const w = createResultWriter('table', schema);
    expect(w.write(batchOf(schema, [[1n]])).length).toBe(0);
    expect(new TextDecoder().decode(w.end())).toBe('+---+\n| n |\n+---+\n| 1 |\n+---+');
  });
});
