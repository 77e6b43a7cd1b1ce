// InfluxDB 1.x's JSON answer: key order, exact 64-bit integers, RFC3339Nano times (Go's layout)
// or epoch integers, empty statements, errors, partial flags and pretty printing.

import { describe, expect, it } from 'vitest';
import { resultsJson, rfc3339Nano, type StatementResult } from '../../host/influxql/index.js';

const results: StatementResult[] = [
  {
    statementId: 0,
    series: [
      {
        name: 'cpu',
        tags: { host: 'a' },
        columns: ['time', 'v', 'n', 's', 'b'],
        values: [
          [1_700_000_000_500_000_000n, 1.5, 9_007_199_254_740_993n, 'x"y', true],
          [1_700_000_010_000_000_000n, 2, null, null, false],
        ],
        timeColumn: true,
        partial: true,
      },
    ],
    partial: true,
  },
  { statementId: 1, series: [] },
  { statementId: 2, series: [], error: 'database not found: x' },
];

describe('resultsJson', () => {
  it('writes RFC3339Nano times, exact integers, and leaves out what is empty', () => {
    expect(resultsJson(results, { pretty: false })).toBe(
      '{"results":[{"statement_id":0,"series":[{"name":"cpu","tags":{"host":"a"},"columns":["time","v","n","s","b"],"values":[["2023-11-14T22:13:20.5Z",1.5,9007199254740993,"x\\"y",true],["2023-11-14T22:13:30Z",2,null,null,false]],"partial":true}],"partial":true},{"statement_id":1},{"statement_id":2,"error":"database not found: x"}]}',
    );
  });

  it('writes times as integers in the epoch unit', () => {
    const text = resultsJson(results.slice(0, 1), { epoch: 'ms', pretty: false });
    expect(text).toContain('"values":[[1700000000500,1.5,');
    expect(resultsJson(results.slice(0, 1), { epoch: 'h', pretty: false })).toContain('"values":[[472222,1.5,');
  });

  it('indents by four spaces with pretty', () => {
    expect(
      resultsJson(
        [{ statementId: 0, series: [{ name: 'databases', columns: ['name'], values: [['db']], timeColumn: false }] }],
        { pretty: true },
      ),
    ).toBe(
      [
        '{',
        '    "results": [',
        '        {',
        '            "statement_id": 0,',
        '            "series": [',
        '                {',
        '                    "name": "databases",',
        '                    "columns": [',
        '                        "name"',
        '                    ],',
        '                    "values": [',
        '                        [',
        '                            "db"',
        '                        ]',
        '                    ]',
        '                }',
        '            ]',
        '        }',
        '    ]',
        '}',
      ].join('\n'),
    );
  });
});

describe('rfc3339Nano', () => {
  const cases: Array<[bigint, string]> = [
    [0n, '1970-01-01T00:00:00Z'],
    [1n, '1970-01-01T00:00:00.000000001Z'],
    [1_795_931_916_967_722_466n, '2026-11-29T05:58:36.967722466Z'],
    [-1_000_000_000n, '1969-12-31T23:59:59Z'],
    [1_700_000_000_120_000_000n, '2023-11-14T22:13:20.12Z'],
  ];
  for (const [ns, text] of cases) it(`formats ${ns}`, () => expect(rfc3339Nano(ns)).toBe(text));
});
