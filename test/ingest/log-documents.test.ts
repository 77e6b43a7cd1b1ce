// Log bodies of /api/v1/es/_bulk -> batches, in-process: Elasticsearch bulk, NDJSON, Loki JSON
// and protobuf; flattening, time columns, tag columns, and every rejection.

import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { parseBulk, parseNdjson } from '../../host/ingest/es-bulk.js';
import { parseTagColumns, type LogOptions } from '../../host/ingest/log-documents.js';
import { parseLokiJson, parseLokiProtobuf } from '../../host/ingest/loki-push.js';
import { parseLabelSet } from '../../host/ingest/prometheus-labels.js';
import { columnsOf, rejection, rowsOf, utf8 } from './ingest-support.js';

const NOW_MS = 1_700_000_000_000;
const NOW_NS = BigInt(NOW_MS) * 1_000_000n;
const opts = (o: Partial<LogOptions> = {}): LogOptions => ({
  table: 'logs',
  timeColumn: 'time',
  tagColumns: new Set(),
  dbUnit: 'ns',
  now: BigInt(NOW_MS) * 1_000_000n,
  ...o,
});
const ndjson = (body: string, o?: Partial<LogOptions>) => rowsOf(parseNdjson(utf8(body), opts(o)));

describe('log documents', () => {
  it('flattens nested objects with dots and arrays by index; empty ones vanish', () => {
    const body = JSON.stringify({ a: { b: { c: 1 } }, list: [{ x: 'y' }, [true, 2]], empty: {}, none: [], s: 'text' });
    expect(ndjson(body)).toEqual([
      { table: 'logs', time: NOW_NS, 'a.b.c': 1, 'list.0.x': 'y', 'list.1.0': true, 'list.1.1': 2, s: 'text' },
    ]);
    expect(columnsOf(parseNdjson(utf8(body), opts()))).toEqual({
      logs: { 'a.b.c': 'DOUBLE', 'list.0.x': 'STRING', 'list.1.0': 'BOOLEAN', 'list.1.1': 'DOUBLE', s: 'STRING' },
    });
  });

  it('reads the time column as RFC 3339 with any fraction and offset, or integer nanoseconds', () => {
    expect(ndjson('{"time":"2024-01-31T12:00:00.123456789+02:00","v":1}')[0]!.time).toBe(1706695200_123_456_789n);
    expect(ndjson('{"time":1700000000123456789,"v":1}')[0]!.time).toBe(1_700_000_000_123_456_789n);
    expect(ndjson('{"time":-5,"v":1}')[0]!.time).toBe(-5n);
    expect(ndjson('{"@timestamp":"2024-01-31T12:00:00Z","v":1}', { timeColumn: '@timestamp' })[0]!.time).toBe(
      1706702400_000_000_000n,
    );
    expect(ndjson('{"meta":{"ts":"2024-01-31T12:00:00Z"},"v":1}', { timeColumn: 'meta.ts' })[0]!.time).toBe(
      1706702400_000_000_000n,
    );
  });

  it('gives documents without a time the request time, one nanosecond apart in body order', () => {
    expect(ndjson('{"v":1}')[0]!.time).toBe(NOW_NS);
    // The same time would make the documents of one series one row (the last): they stay apart.
    const byValue = new Map(ndjson('{"v":1}\n{"v":2}\n{"time":5,"v":3}\n{"v":4}').map((r) => [r.v, r.time]));
    expect(byValue).toEqual(
      new Map([
        [1, NOW_NS],
        [2, NOW_NS + 1n],
        [3, 5n],
        [4, NOW_NS + 2n],
      ]),
    );
    expect(
      rowsOf(parseNdjson(utf8('{"v":1}\n{"v":2}'), opts({ dbUnit: 'ms', now: 1_700_000_000_000n }))).map((r) => r.time),
    ).toEqual([1_700_000_000_000n, 1_700_000_000_001n]);
  });

  it('keeps documents of one series at one time apart, each at the next free unit of the precision', () => {
    const cases: Array<{ name: string; body: string; o?: Partial<LogOptions>; want: Array<[number, bigint]> }> = [
      {
        name: 'three at one time',
        body: '{"time":10,"v":1}\n{"time":10,"v":2}\n{"time":10,"v":3}',
        want: [
          [1, 10n],
          [2, 11n],
          [3, 12n],
        ],
      },
      {
        name: 'identical documents too',
        body: '{"time":10,"v":1}\n{"time":10,"v":1}',
        want: [
          [1, 10n],
          [1, 11n],
        ],
      },
      {
        name: 'a tie pushed onto a later row moves past it',
        body: '{"time":10,"v":1}\n{"time":11,"v":2}\n{"time":10,"v":3}',
        want: [
          [1, 10n],
          [2, 11n],
          [3, 12n],
        ],
      },
      {
        name: 'in a millisecond database',
        body: '{"time":"2024-01-31T12:00:00.001Z","v":1}\n{"time":"2024-01-31T12:00:00.001Z","v":2}',
        o: { dbUnit: 'ms' },
        want: [
          [1, 1706702400001n],
          [2, 1706702400002n],
        ],
      },
      {
        name: 'other series keep the time',
        body: '{"time":10,"h":"a","v":1}\n{"time":10,"h":"b","v":2}',
        o: { tagColumns: new Set(['h']) },
        want: [
          [1, 10n],
          [2, 10n],
        ],
      },
    ];
    for (const c of cases)
      expect(
        ndjson(c.body, c.o).map((r) => [r.v, r.time]),
        c.name,
      ).toEqual(c.want);
    // Bulk alike, per table.
    const bulk =
      '{"create":{"_index":"a"}}\n{"time":10,"v":1}\n{"create":{"_index":"b"}}\n{"time":10,"v":2}\n{"create":{"_index":"a"}}\n{"time":10,"v":3}\n';
    expect(
      rowsOf(parseBulk(utf8(bulk), opts({ table: '', indexTables: true })).batches).map((r) => [r.table, r.v, r.time]),
    ).toEqual([
      ['a', 1, 10n],
      ['a', 3, 11n],
      ['b', 2, 10n],
    ]);
  });

  it('reads a fallback time column when the time column is missing, and refuses a document with both', () => {
    const o = { timeColumn: '@timestamp', fallbackTimeColumn: 'time' };
    expect(
      ndjson('{"@timestamp":"2024-01-31T12:00:00Z","v":1}\n{"time":"2024-01-31T12:00:01Z","v":2}\n{"v":3}', o)
        .map((r) => [r.v, r.time])
        .sort((a, b) => Number(a[0]) - Number(b[0])),
    ).toEqual([
      [1, 1706702400_000_000_000n],
      [2, 1706702401_000_000_000n],
      [3, NOW_NS],
    ]);
    expect(
      rejection(() => parseNdjson(utf8('{"v":1}\n{"@timestamp":"2024-01-31T12:00:00Z","time":5,"v":2}'), opts(o))),
    ).toEqual([
      '040016',
      "line 2: the document has both '@timestamp' and 'time'; name its time column with the time_column parameter",
    ]);
  });

  it('converts times to the database precision', () => {
    expect(
      rowsOf(parseNdjson(utf8('{"time":"2024-01-31T12:00:00.123456789Z","v":1}'), opts({ dbUnit: 'ms' })))[0]!.time,
    ).toBe(1706702400_123n);
  });

  it('stores tag columns as tags: strings as they are, other values as JSON text', () => {
    const batches = parseNdjson(
      utf8('{"host":"a","code":200,"ok":true,"n":{"x":1.5},"v":1}'),
      opts({ tagColumns: parseTagColumns(' host , code,ok,n.x,,') }),
    );
    expect(rowsOf(batches)).toEqual([
      { table: 'logs', time: NOW_NS, host: 'a', code: '200', ok: 'true', 'n.x': '1.5', v: 1 },
    ]);
    expect(columnsOf(batches).logs).toEqual({ code: 'TAG', host: 'TAG', 'n.x': 'TAG', ok: 'TAG', v: 'DOUBLE' });
  });

  const rejected: Array<[string, Partial<LogOptions>, string, string]> = [
    ['{"a":null}', {}, '040016', "line 1: column 'a' is null; null values are not supported"],
    ['{"a":{"b":[1,null]}}', {}, '040016', "line 1: column 'a.b.1' is null; null values are not supported"],
    ['{"v":1}\n[1,2]', {}, '040016', 'line 2: expected a JSON object, found an array'],
    ['"text"', {}, '040016', 'line 1: expected a JSON object, found string "text"'],
    ['{"v":1}\n{"v":', {}, '040016', 'line 2: invalid JSON: Unexpected end of JSON input'],
    [
      '{"time":"yesterday","v":1}',
      {},
      '040016',
      "line 1: time column 'time': 'yesterday' is not an RFC 3339 time (want e.g. 2024-01-31T12:00:00.5Z)",
    ],
    [
      '{"time":true,"v":1}',
      {},
      '040016',
      "line 1: time column 'time' must be an RFC 3339 string or an integer of nanoseconds, found boolean true",
    ],
    [
      '{"time":1.5,"v":1}',
      {},
      '040016',
      "line 1: time column 'time' must be an RFC 3339 string or an integer of nanoseconds, found number 1.5",
    ],
    [
      '{"time":"9999-01-01T00:00:00Z","v":1}',
      {},
      '020012',
      'line 1: timestamp 253370764800000000000 (ns) is out of range when converted to the database precision',
    ],
    ['{"time":"2024-01-31T12:00:00Z"}', {}, '040016', 'line 1: the document has no field columns (only tags and time)'],
    [
      '{"host":"a"}',
      { tagColumns: new Set(['host']) },
      '040016',
      'line 1: the document has no field columns (only tags and time)',
    ],
    [
      '{"v":1}\n{"v":"x"}',
      {},
      '020010',
      "line 2: column 'v' of table 'logs' is DOUBLE in this request, written as STRING",
    ],
    [
      `{"a":${'['.repeat(100_000)}1${']'.repeat(100_000)}}`,
      {},
      '040016',
      'line 1: the document is nested deeper than 64 levels',
    ],
    [
      JSON.stringify(Object.fromEntries(Array.from({ length: 70_000 }, (_, i) => [`k${i}`, i]))),
      {},
      '040016',
      "line 1: table 'logs' would have 70000 columns; at most 65535 are allowed",
    ],
  ];
  for (const [body, o, code, message] of rejected) {
    it(`rejects ${JSON.stringify(body.length > 80 ? body.slice(0, 80) + '...' : body)}`, () =>
      expect(rejection(() => parseNdjson(utf8(body), opts(o)))).toEqual([code, message]));
  }
});

describe('Elasticsearch bulk', () => {
  it('reads create and index actions, ignores their metadata, skips blank lines', () => {
    const body = '{"create":{}}\n{"msg":"a"}\n\n{"index":{"_index":"x","_id":"1"}}\n{"msg":"b"}\n';
    const out = parseBulk(utf8(body), opts());
    expect(out.actions).toEqual(['create', 'index']);
    expect(rowsOf(out.batches).map((r) => r.msg)).toEqual(['a', 'b']);
  });

  it('accepts an empty body', () => {
    expect(parseBulk(utf8(''), opts())).toEqual({ batches: [], actions: [] });
  });

  const rejected: Array<[string, string]> = [
    ['{"create":{}}\n{"msg":"a"}\n{"create":{}}\n', "line 3: the 'create' action has no document after it"],
    ['{"delete":{"_id":"1"}}\n', "line 1: the bulk action 'delete' is not supported; use create or index"],
    ['{"update":{}}\n{"doc":{}}\n', "line 1: the bulk action 'update' is not supported; use create or index"],
    [
      '{"create":{},"index":{}}\n{"a":1}\n',
      'line 1: an action line must have exactly one key (create or index), found 2',
    ],
    ['{"create":1}\n{"a":1}\n', "line 1: the 'create' action must hold an object, found number 1"],
    ['[]\n{"a":1}\n', 'line 1: expected an action object such as {"create":{}}, found an array'],
    ['{"create":{"_index":5}}\n{"a":1}\n', "line 1: the action's _index must be a non-empty string, found number 5"],
    ['{"create":{"_index":""}}\n{"a":1}\n', 'line 1: the action\'s _index must be a non-empty string, found string ""'],
  ];
  for (const [body, message] of rejected) {
    it(`rejects ${JSON.stringify(body)}`, () =>
      expect(rejection(() => parseBulk(utf8(body), opts()))).toEqual(['040016', message]));
  }

  it('called as Elasticsearch, fails only the items whose documents cannot be stored', () => {
    const body = [
      '{"create":{}}',
      '{"a":null}',
      '{"index":{}}',
      '{"a":1}',
      '{"create":{}}',
      '{"a":',
      '{"create":{}}',
      '{"a":"x"}',
      '{"create":{}}',
      '{"a":2}',
      '',
    ].join('\n');
    // CnosDB's form (a table parameter): the first bad document fails the request.
    expect(rejection(() => parseBulk(utf8(body), opts()))).toEqual([
      '040016',
      "line 2: column 'a' is null; null values are not supported",
    ]);
    const out = parseBulk(utf8(body), opts({ indexTables: true }));
    expect(out.actions).toEqual(['create', 'index', 'create', 'create', 'create']);
    expect(out.failures).toEqual([
      {
        item: 0,
        type: 'document_parsing_exception',
        reason: "line 2: column 'a' is null; null values are not supported",
      },
      { item: 2, type: 'document_parsing_exception', reason: 'line 6: invalid JSON: Unexpected end of JSON input' },
      {
        item: 3,
        type: 'document_parsing_exception',
        reason: "line 8: column 'a' of table 'logs' is DOUBLE in this request, written as STRING",
      },
    ]);
    expect(rowsOf(out.batches).map((r) => r.a)).toEqual([1, 2]);
  });

  describe('with index tables (no table parameter)', () => {
    const indexed = (o: Partial<LogOptions> = {}) => opts({ table: '', indexTables: true, ...o });

    it("puts each document in its action's _index, else the default table", () => {
      const body =
        '{"create":{"_index":"a"}}\n{"v":1}\n{"index":{"_index":"b"}}\n{"v":2}\n{"create":{}}\n{"v":3}\n{"create":{"_index":"a"}}\n{"v":4}\n';
      const out = parseBulk(utf8(body), indexed({ table: 'dflt' }));
      expect(out.tables).toEqual({ names: ['a', 'b', 'dflt'], of: Uint32Array.from([0, 1, 2, 0]) });
      expect(rowsOf(out.batches).map((r) => [r.table, r.v])).toEqual([
        ['a', 1],
        ['a', 4],
        ['b', 2],
        ['dflt', 3],
      ]);
    });

    it('without any index, refuses the body; with a bad name, fails the item', () => {
      expect(
        rejection(() => parseBulk(utf8('{"create":{"_index":"a"}}\n{"v":1}\n{"create":{}}\n{"v":2}\n'), indexed())),
      ).toEqual([
        '040016',
        "line 3: the document has no index: name it in the action's _index, in the path (/{index}/_bulk) or with the table parameter",
      ]);
      const out = parseBulk(
        utf8('{"create":{"_index":".."}}\n{"v":1}\n{"create":{"_index":"ok"}}\n{"v":2}\n'),
        indexed(),
      );
      expect(out.failures).toEqual([
        {
          item: 0,
          type: 'invalid_index_name_exception',
          reason: "Invalid index name [..]: Name cannot be '.' or '..'",
        },
      ]);
      expect(rowsOf(out.batches).map((r) => [r.table, r.v])).toEqual([['ok', 2]]);
    });

    it('ignores _index when the table is given', () => {
      const out = parseBulk(utf8('{"create":{"_index":"a"}}\n{"v":1}\n'), opts());
      expect([out.tables, rowsOf(out.batches)[0]!.table]).toEqual([undefined, 'logs']);
    });
  });
});

describe('Loki JSON', () => {
  const push = (streams: unknown) => JSON.stringify({ streams });

  it('makes one row per entry: time in ns, the line in msg, labels and structured metadata as columns', () => {
    const body = push([
      {
        stream: { job: 'api', level: 'info' },
        values: [
          ['1700000000000000001', 'first'],
          ['1700000000000000002', 'second', { trace_id: 'abc' }],
        ],
      },
      { stream: { job: 'db' }, values: [['1700000000000000003', 'third']] },
    ]);
    const batches = parseLokiJson(utf8(body), opts({ tagColumns: new Set(['job']) })).batches;
    expect(rowsOf(batches)).toEqual([
      { table: 'logs', time: 1_700_000_000_000_000_001n, job: 'api', level: 'info', msg: 'first' },
      { table: 'logs', time: 1_700_000_000_000_000_002n, job: 'api', level: 'info', msg: 'second', trace_id: 'abc' },
      { table: 'logs', time: 1_700_000_000_000_000_003n, job: 'db', msg: 'third' },
    ]);
    expect(columnsOf(batches).logs).toEqual({ job: 'TAG', level: 'STRING', msg: 'STRING', trace_id: 'STRING' });
  });

  const rejected: Array<[string, string]> = [
    ['[]', "a Loki push body is an object with a 'streams' array, found an array"],
    ['{"streams":{}}', "a Loki push body is an object with a 'streams' array, found an object"],
    [push([{ stream: [], values: [] }]), 'streams[0].stream: expected an object of labels, found an array'],
    [push([{ stream: { a: 1 }, values: [] }]), "streams[0].stream: label 'a' must be a string, found number 1"],
    [
      push([{ stream: {}, values: {} }]),
      'streams[0].values: expected an array of [timestamp, line] pairs, found an object',
    ],
    [
      push([{ stream: {}, values: [['1']] }]),
      'streams[0].values[0]: expected [timestamp, line] or [timestamp, line, metadata], found an array',
    ],
    [
      push([{ stream: {}, values: [['2024-01-01', 'x']] }]),
      'streams[0].values[0]: the timestamp must be a string of nanoseconds, found string "2024-01-01"',
    ],
    [push([{ stream: {}, values: [['1', null]] }]), 'streams[0].values[0]: the log line must be a string, found null'],
    [
      push([{ stream: {}, values: [['1', 'x', { k: 2 }]] }]),
      "streams[0].values[0]: structured metadata 'k' must be a string, found number 2",
    ],
  ];
  for (const [body, message] of rejected) {
    it(`rejects ${body}`, () =>
      expect(rejection(() => parseLokiJson(utf8(body), opts()))).toEqual(['040016', message]));
  }
});

const PUSH = protobuf
  .parse(
    `syntax = "proto3"; package logproto;
     message PushRequest { repeated StreamAdapter streams = 1; }
     message StreamAdapter { string labels = 1; repeated EntryAdapter entries = 2; uint64 hash = 3; }
     message LabelPairAdapter { string name = 1; string value = 2; }
     message EntryAdapter { Timestamp timestamp = 1; string line = 2; repeated LabelPairAdapter structuredMetadata = 3; }
     message Timestamp { int64 seconds = 1; int32 nanos = 2; }`,
  )
  .root.lookupType('logproto.PushRequest');

describe('Loki protobuf', () => {
  it('reads streams with Prometheus-style label strings and Timestamp entries', () => {
    const message = PUSH.encode(
      PUSH.fromObject({
        streams: [
          {
            labels: '{job="api", path="/a\\"b\\\\c", emoji="\\u2713"}',
            entries: [
              {
                timestamp: { seconds: 1700000000, nanos: 5 },
                line: 'hello',
                structuredMetadata: [{ name: 'trace_id', value: 't1' }],
              },
              { timestamp: { seconds: 1700000001 }, line: 'world' },
            ],
          },
        ],
      }),
    ).finish();
    expect(rowsOf(parseLokiProtobuf(message, opts({ tagColumns: new Set(['job']) })).batches)).toEqual([
      {
        table: 'logs',
        time: 1_700_000_000_000_000_005n,
        job: 'api',
        path: '/a"b\\c',
        emoji: '✓',
        msg: 'hello',
        trace_id: 't1',
      },
      { table: 'logs', time: 1_700_000_001_000_000_000n, job: 'api', path: '/a"b\\c', emoji: '✓', msg: 'world' },
    ]);
  });

  it('rejects a truncated message and a bad label string', () => {
    const message = PUSH.encode(
      PUSH.fromObject({ streams: [{ labels: '{a="b"}', entries: [{ line: 'x'.repeat(50) }] }] }),
    ).finish();
    expect(rejection(() => parseLokiProtobuf(message.subarray(0, message.length - 10), opts()))[0]).toBe('040017');
    const bad = PUSH.encode(PUSH.fromObject({ streams: [{ labels: 'a="b"', entries: [{ line: 'x' }] }] })).finish();
    expect(rejection(() => parseLokiProtobuf(bad, opts()))).toEqual([
      '040016',
      "streams[0].labels: invalid label set at offset 0: expected '{'",
    ]);
  });
});

describe('Prometheus label sets', () => {
  const cases: Array<[string, Array<[string, string]> | RegExp]> = [
    ['{}', []],
    [
      ' { a = "1" , b_2="x y" , } ',
      [
        ['a', '1'],
        ['b_2', 'x y'],
      ],
    ],
    ['{a="\\n\\t\\x41\\u00e9\\U0001F600"}', [['a', '\n\tAé😀']]],
    ['{a="1"', /expected ',' or '}'/],
    ['{1a="x"}', /expected a label name/],
    ['{a=x}', /expected a double-quoted label value/],
    ['{a="x}', /expected the closing quote/],
    ['{a="\\q"}', /expected a valid escape sequence/],
    ['{a="x"} junk', /expected the end after the closing brace/],
  ];
  for (const [text, want] of cases) {
    it(`parses ${text}`, () => {
      const got = parseLabelSet(text);
      if (want instanceof RegExp) expect(got).toMatch(want);
      else expect(got).toEqual(want);
    });
  }
});
