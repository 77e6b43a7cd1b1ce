import { describe, expect, it } from 'vitest';
import { INT64, FLOAT64, UTF8, BOOLEAN, NULL, timestamp, type DataType } from '../../host/engine/types/data-types.js';
import { batchOf, render, schemaOf } from '../engine/format/support.js';
import { parseJsonSequence, type JsonValue } from './json-values.js';
import { actualLines, errorRegex, expectedCells, expectedLines } from './normalize.js';
import { judge } from './runner.js';
import type { Outcome } from './server-client.js';
import { parseSlt } from './slt-parser.js';

/** Sundial's JSON answer for rows of `schema`, read back as the runner reads it. */
function answer(schema: ReturnType<typeof schemaOf>, rows: Parameters<typeof batchOf>[1]): JsonValue[][] {
  const [array] = parseJsonSequence(render('json', schema, [batchOf(schema, rows)]));
  if (array?.t !== 'array') throw new Error('not an array');
  return array.items.map((o) => (o.t === 'object' ? o.entries.map(([, v]) => v) : []));
}

const WINDOW: DataType = {
  id: 'Struct',
  fields: [
    { name: 'start', type: timestamp('Nanosecond'), nullable: false },
    { name: 'end', type: timestamp('Nanosecond'), nullable: false },
  ],
};

describe('normalisation of expected and actual rows', () => {
  it('splits expected lines into quoted strings, braces and words', () => {
    expect(expectedCells('2021-01-01T00:00:00 "t0000" 3.1415')).toEqual(['2021-01-01T00:00:00', 't0000', '3.1415']);
    expect(expectedCells('"say \\"hi\\"" "" NULL "NULL" "two  spaces"')).toEqual([
      'say "hi"',
      '',
      'NULL',
      'NULL',
      'two  spaces',
    ]);
    expect(expectedCells('{start: 1999-12-31T00:00:00, end: 1999-12-31T00:00:00.010} "tag11" 111')).toEqual([
      '{start: 1999-12-31T00:00:00, end: 1999-12-31T00:00:00.010}',
      'tag11',
      '111',
    ]);
    expect(expectedCells('[1, 2] x')).toEqual(['[1, 2]', 'x']);
    // A string ending in a backslash: CnosDB does not escape it, so `\"` before a space closes.
    expect(expectedCells('1 "}\\" "qy" 2')).toEqual(['1', '}\\', 'qy', '2']);
    expect(expectedCells('"a\\"')).toEqual(['a\\']);
  });

  it('renders Sundial JSON answers as the .slt files expect them (Arrow display through Flight)', () => {
    const schema = schemaOf([
      ['time', timestamp('Nanosecond')],
      ['t0', UTF8],
      ['f', FLOAT64],
      ['i', INT64],
      ['b', BOOLEAN],
      ['n', NULL],
      ['w', WINDOW],
    ]);
    const rows = answer(schema, [
      [946598400010000000n, 'tag11', 1, -5n, true, null, { start: 946598400000000000n, end: 946598400010000000n }],
      [0n, null, 1e-6, 9007199254740993n, false, null, { start: 0n, end: 1n }],
      [1n, '', 0.5, 0n, null, null, null],
    ]);
    const expected = [
      '1999-12-31T00:00:00.010 "tag11" 1.0 -5 true NULL {start: 1999-12-31T00:00:00, end: 1999-12-31T00:00:00.010}',
      '1970-01-01T00:00:00 "NULL" 1.0e-6 9007199254740993 false NULL {start: 1970-01-01T00:00:00, end: 1970-01-01T00:00:00.000000001}',
      '1970-01-01T00:00:00.000000001 "" 0.5 0 NULL NULL NULL',
    ];
    expect(actualLines(rows)).toEqual(expectedLines(expected));
  });

  it('splits a last cell with newlines into rows, leading spaces as dashes (EXPLAIN)', () => {
    const schema = schemaOf([
      ['plan_type', UTF8],
      ['plan', UTF8],
    ]);
    const rows = answer(schema, [['logical_plan', 'Projection: a\n  TableScan: t\n']]);
    expect(actualLines(rows)).toEqual(['logical_plan', 'Projection: a', '--TableScan: t']);
  });
});

describe('error regexes', () => {
  const flight = (message: string): string =>
    `Arrow error: Io error: Status \\{ code: Internal, message: "${message}", metadata: MetadataMap \\{ headers: \\{"content\\-type": "application/grpc", "date": "[^"]+", "content\\-length": "0"\\} \\}, source: None \\}`;

  const CASES: ReadonlyArray<readonly [string, string, string, boolean]> = [
    [
      'a planning error without its phase',
      flight('Build logical plan: Datafusion: Schema error: No field named \\\\"x\\\\"\\.'),
      'Datafusion: Schema error: No field named "x".',
      true,
    ],
    [
      'a chunk error without its phase',
      flight("Could not chunk result: Coordinator: Fields can't be empty"),
      "Coordinator: Fields can't be empty",
      true,
    ],
    ['an execution error without its phase', flight('Execute logical plan: boom'), 'boom', true],
    [
      'a different message',
      flight('Build logical plan: Meta: Database not found: \\\\"d\\\\"'),
      'Database not found: "d"',
      false,
    ],
    [
      'a Debug-escaped tab and newline',
      flight('Build logical plan: x\\\\n\\\\tCandidate functions:'),
      'x\n\tCandidate functions:',
      true,
    ],
    [
      'a plain regex searched as written',
      '.*create expired bucket.*',
      'Coordinator: Meta: Operation not support: create expired bucket',
      true,
    ],
    // The Flight client's own Arrow error (db_precision.slt), which CnosDB's HTTP writers raise too.
    [
      "the client's Arrow error without its prefix",
      'Arrow error: Cast error: Failed to convert 1682049219172428000 to datetime for Timestamp\\(Millisecond, None\\)',
      'Fetch result: Cast error: Failed to convert 1682049219172428000 to datetime for Timestamp(Millisecond, None)',
      true,
    ],
  ];
  for (const [name, source, message, matches] of CASES) {
    it(`${matches ? 'matches' : 'does not match'} ${name}`, () => {
      expect(errorRegex(source).test(message)).toBe(matches);
    });
  }
});

describe('judge', () => {
  const record = (text: string) => {
    const r = parseSlt(text, 'j.slt')[0]!;
    if (r.kind !== 'statement' && r.kind !== 'query') throw new Error('not executable');
    return r;
  };
  const rows = (...r: JsonValue[][]): Outcome => ({ kind: 'rows', rows: r });
  const num = (raw: string): JsonValue => ({ t: 'number', raw });
  const str = (v: string): JsonValue => ({ t: 'string', v });
  const error: Outcome = { kind: 'error', status: 422, code: '030019', message: 'Table not found: "cnosdb.public.t"' };
  const broken: Outcome = { kind: 'broken', reason: 'HTTP 404 without an error code' };

  const CASES: ReadonlyArray<readonly [string, string, Outcome, boolean]> = [
    ['statement ok on success', 'statement ok\nCREATE TABLE t(f DOUBLE);', { kind: 'done' }, true],
    ['statement ok on INSERT rows', 'statement ok\nINSERT INTO t VALUES (1);', rows([num('1')]), true],
    ['statement ok on an error', 'statement ok\nDROP TABLE t;', error, false],
    ['statement ok without a valid answer', 'statement ok\nDROP TABLE t;', broken, false],
    ['statement error on any error', 'statement error\nDROP TABLE t;', error, true],
    ['statement error on success', 'statement error\nDROP TABLE t;', { kind: 'done' }, false],
    ['statement error without a valid answer', 'statement error\nDROP TABLE t;', broken, false],
    [
      'statement error with a matching regex',
      'statement error Table not found: \\"cnosdb\\.public\\.t\\"\nDROP TABLE t;',
      error,
      true,
    ],
    ['statement error with another regex', 'statement error Database not found\nDROP TABLE t;', error, false],
    ['statement count on the rows column', 'statement count 2\nINSERT INTO t VALUES (1), (2);', rows([num('2')]), true],
    ['statement count on a wrong count', 'statement count 3\nINSERT INTO t VALUES (1), (2);', rows([num('2')]), false],
    [
      'query results in order',
      'query IT\nSELECT i, s FROM t;\n----\n1 "a"\n2 "b"',
      rows([num('1'), str('a')], [num('2'), str('b')]),
      true,
    ],
    [
      'query results out of order',
      'query IT\nSELECT i, s FROM t;\n----\n1 "a"\n2 "b"',
      rows([num('2'), str('b')], [num('1'), str('a')]),
      false,
    ],
    [
      'rowsort results out of order',
      'query IT rowsort\nSELECT i, s FROM t;\n----\n1 "a"\n2 "b"',
      rows([num('2'), str('b')], [num('1'), str('a')]),
      true,
    ],
    ['a missing row', 'query I\nSELECT i FROM t;\n----\n1\n2', rows([num('1')]), false],
    [
      'a DOUBLE shown as Arrow does',
      'query R\nSELECT f FROM t;\n----\n444.0\n1.0e-6',
      rows([num('444.0')], [num('1e-6')]),
      true,
    ],
    ['an integer where a DOUBLE is expected', 'query R\nSELECT f FROM t;\n----\n444.0', rows([num('444')]), false],
    ['zero rows for an empty expectation', 'query I\nSELECT i FROM t;\n----\n', rows(), true],
    ['no result set for an empty expectation', 'query I\nSELECT i FROM t;', { kind: 'done' }, true],
    ['no result set where rows are expected', 'query I\nSELECT i FROM t;\n----\n1', { kind: 'done' }, false],
    ['query error on an error', 'query error\nSELECT x;', error, true],
    ['query results on an error', 'query I\nSELECT x;\n----\n1', error, false],
  ];
  for (const [name, text, outcome, ok] of CASES) {
    it(`${ok ? 'passes' : 'fails'} ${name}`, () => {
      expect(judge(record(text), outcome).ok).toBe(ok);
    });
  }

  it('shows expected and got as normalised lines', () => {
    const v = judge(record('query IT\nSELECT i, s FROM t;\n----\n1   "a  b"'), rows([num('2'), str('x')]));
    expect(v).toEqual({ ok: false, expected: '1 a b', got: '2 x' });
    expect(judge(record('statement ok\nDROP TABLE t;'), error)).toEqual({
      ok: false,
      expected: 'success',
      got: 'error 422 030019: Table not found: "cnosdb.public.t"',
    });
  });
});
