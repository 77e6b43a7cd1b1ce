// OTLP ExportTraceServiceRequest -> one row per span, in-process, for both encodings: CnosDB's
// column names and types, ids as hex, enum names, attribute text, and no attribute of one span
// showing up on another (CnosDB's leak).

import { describe, expect, it } from 'vitest';
import { otlpTypes } from '../../host/ingest/otlp-proto.js';
import { decodeOtlpJson, decodeOtlpProtobuf, otlpTracesToBatches } from '../../host/ingest/otlp-traces.js';
import { columnsOf, rejection, rowsOf, utf8 } from './ingest-support.js';

const T0 = 1_700_000_000_000_000_000n;
const RS = 'ResourceSpans/';
const SP = 'ResourceSpans/ScopeSpans/Span/';

/** A request in OTLP/JSON form (hex ids, numeric enums, 64-bit integers as strings). */
const REQUEST = {
  resourceSpans: [
    {
      resource: {
        attributes: [
          { key: 'service.name', value: { stringValue: 'checkout' } },
          { key: 'host.name', value: { stringValue: 'h1' } },
        ],
        droppedAttributesCount: 1,
      },
      schemaUrl: 'https://opentelemetry.io/schemas/1.21.0',
      scopeSpans: [
        {
          scope: { name: 'lib', version: '1.2.3', attributes: [{ key: 'scope.attr', value: { boolValue: true } }] },
          spans: [
            {
              traceId: '0102030405060708090a0b0c0d0e0f10',
              spanId: 'a1a2a3a4a5a6a7a8',
              name: 'GET /cart',
              kind: 2,
              startTimeUnixNano: String(T0),
              endTimeUnixNano: String(T0 + 1_500_000n),
              attributes: [
                { key: 'http.method', value: { stringValue: 'GET' } },
                { key: 'http.status_code', value: { intValue: '200' } },
                { key: 'ratio', value: { doubleValue: 0.25 } },
                {
                  key: 'list',
                  value: { arrayValue: { values: [{ stringValue: 'a' }, { intValue: 2 }, { boolValue: false }] } },
                },
                { key: 'map', value: { kvlistValue: { values: [{ key: 'k', value: { doubleValue: 1.5 } }] } } },
                { key: 'raw', value: { bytesValue: 'AQID' } },
              ],
              events: [
                {
                  timeUnixNano: String(T0 + 1000n),
                  name: 'cache miss',
                  attributes: [{ key: 'key', value: { stringValue: 'c1' } }],
                },
              ],
              links: [{ traceId: 'ffffffffffffffffffffffffffffffff', spanId: '0000000000000001', traceState: 'x=1' }],
              status: { code: 1 },
            },
            {
              traceId: '0102030405060708090a0b0c0d0e0f10',
              spanId: 'b1b2b3b4b5b6b7b8',
              parentSpanId: 'a1a2a3a4a5a6a7a8',
              name: 'SELECT',
              kind: 3,
              startTimeUnixNano: String(T0 + 100n),
              endTimeUnixNano: String(T0 + 600n),
              attributes: [{ key: 'db.system', value: { stringValue: 'postgres' } }],
              status: { code: 2, message: 'boom' },
            },
          ],
        },
      ],
    },
  ],
};

const parsed = (request: unknown) => otlpTracesToBatches(request, { table: 'spans', dbUnit: 'ns' });
const fromJson = () => parsed(decodeOtlpJson(utf8(JSON.stringify(REQUEST))));
const fromProtobuf = () => {
  const T = otlpTypes().ExportTraceServiceRequest;
  return parsed(decodeOtlpProtobuf(T.encode(decodeOtlpJson(utf8(JSON.stringify(REQUEST))) as never).finish()));
};

const EXPECTED = [
  {
    table: 'spans',
    time: T0,
    [`${RS}Resource/attributes/service.name`]: 'checkout',
    [`${RS}ScopeSpans/InstrumentationScope/name`]: 'lib',
    [`${RS}ScopeSpans/InstrumentationScope/version`]: '1.2.3',
    [`${SP}trace_id`]: '0102030405060708090a0b0c0d0e0f10',
    [`${SP}span_id`]: 'a1a2a3a4a5a6a7a8',
    [`${SP}parent_span_id`]: '',
    [`${SP}trace_state`]: '',
    [`${SP}name`]: 'GET /cart',
    [`${SP}Status/code`]: 'STATUS_CODE_OK',
    [`${RS}schema_url`]: 'https://opentelemetry.io/schemas/1.21.0',
    [`${RS}Resource/attributes/host.name`]: 'h1',
    [`${RS}Resource/dropped_attributes_count`]: 1,
    [`${RS}ScopeSpans/schema_url`]: '',
    [`${RS}ScopeSpans/InstrumentationScope/attributes/scope.attr`]: 'true',
    [`${RS}ScopeSpans/InstrumentationScope/dropped_attributes_count`]: 0,
    [`${SP}flags`]: 0,
    [`${SP}kind`]: 'SPAN_KIND_SERVER',
    [`${SP}end_time_unix_nano`]: Number(T0 + 1_500_000n),
    [`${SP}attributes/http.method`]: 'GET',
    [`${SP}attributes/http.status_code`]: '200',
    [`${SP}attributes/ratio`]: '0.25',
    [`${SP}attributes/list`]: '["a",2,false]',
    [`${SP}attributes/map`]: '{"k":1.5}',
    [`${SP}attributes/raw`]: 'AQID',
    [`${SP}dropped_attributes_count`]: 0,
    [`${SP}Event_0/time_unix_nano`]: Number(T0 + 1000n),
    [`${SP}Event_0/name`]: 'cache miss',
    [`${SP}Event_0/attributes/key`]: 'c1',
    [`${SP}Event_0/dropped_attributes_count`]: 0,
    [`${SP}dropped_events_count`]: 0,
    [`${SP}Link_0/trace_id`]: 'ffffffffffffffffffffffffffffffff',
    [`${SP}Link_0/span_id`]: '0000000000000001',
    [`${SP}Link_0/trace_state`]: 'x=1',
    [`${SP}Link_0/dropped_attributes_count`]: 0,
    [`${SP}Link_0/flags`]: 0,
    [`${SP}dropped_links_count`]: 0,
    [`${SP}Status/message`]: '',
    // The Jaeger types of the attributes that are not strings (jaeger-spans.ts reads them).
    [`${SP}attribute_types`]: JSON.stringify({
      'ResourceSpans/ScopeSpans/InstrumentationScope/attributes/scope.attr': 'bool',
      [`${SP}attributes/http.status_code`]: 'int64',
      [`${SP}attributes/ratio`]: 'float64',
      [`${SP}attributes/raw`]: 'binary',
    }),
    [`${SP}duration_nano`]: 1_500_000,
  },
  {
    table: 'spans',
    time: T0 + 100n,
    [`${RS}Resource/attributes/service.name`]: 'checkout',
    [`${RS}ScopeSpans/InstrumentationScope/name`]: 'lib',
    [`${RS}ScopeSpans/InstrumentationScope/version`]: '1.2.3',
    [`${SP}trace_id`]: '0102030405060708090a0b0c0d0e0f10',
    [`${SP}span_id`]: 'b1b2b3b4b5b6b7b8',
    [`${SP}parent_span_id`]: 'a1a2a3a4a5a6a7a8',
    [`${SP}trace_state`]: '',
    [`${SP}name`]: 'SELECT',
    [`${SP}Status/code`]: 'STATUS_CODE_ERROR',
    [`${RS}schema_url`]: 'https://opentelemetry.io/schemas/1.21.0',
    [`${RS}Resource/attributes/host.name`]: 'h1',
    [`${RS}Resource/dropped_attributes_count`]: 1,
    [`${RS}ScopeSpans/schema_url`]: '',
    [`${RS}ScopeSpans/InstrumentationScope/attributes/scope.attr`]: 'true',
    [`${RS}ScopeSpans/InstrumentationScope/dropped_attributes_count`]: 0,
    [`${SP}flags`]: 0,
    [`${SP}kind`]: 'SPAN_KIND_CLIENT',
    [`${SP}end_time_unix_nano`]: Number(T0 + 600n),
    [`${SP}attributes/db.system`]: 'postgres',
    [`${SP}dropped_attributes_count`]: 0,
    [`${SP}dropped_events_count`]: 0,
    [`${SP}dropped_links_count`]: 0,
    [`${SP}Status/message`]: 'boom',
    [`${SP}attribute_types`]: '{"ResourceSpans/ScopeSpans/InstrumentationScope/attributes/scope.attr":"bool"}',
    [`${SP}duration_nano`]: 500,
  },
];

describe('OTLP traces', () => {
  it('maps OTLP/JSON spans to rows with CnosDB column names, without attributes leaking', () => {
    const out = fromJson();
    expect(out.spans).toBe(2);
    expect(rowsOf(out.batches)).toEqual(EXPECTED);
  });

  it('maps protobuf spans to the same rows', () => {
    expect(rowsOf(fromProtobuf().batches)).toEqual(EXPECTED);
  });

  it('types counts, flags and times as DOUBLE, ids and names as tags, the rest STRING', () => {
    const cols = columnsOf(fromJson().batches).spans!;
    expect(
      Object.entries(cols)
        .filter(([, t]) => t === 'TAG')
        .map(([n]) => n)
        .sort(),
    ).toEqual(
      [
        `${RS}Resource/attributes/service.name`,
        `${RS}ScopeSpans/InstrumentationScope/name`,
        `${RS}ScopeSpans/InstrumentationScope/version`,
        `${SP}Status/code`,
        `${SP}name`,
        `${SP}parent_span_id`,
        `${SP}span_id`,
        `${SP}trace_id`,
        `${SP}trace_state`,
      ].sort(),
    );
    expect(cols[`${SP}duration_nano`]).toBe('DOUBLE');
    expect(cols[`${SP}attributes/http.status_code`]).toBe('STRING');
  });

  it('converts start times to the database precision', () => {
    const out = otlpTracesToBatches(decodeOtlpJson(utf8(JSON.stringify(REQUEST))), { table: 'spans', dbUnit: 'us' });
    expect(rowsOf(out.batches).map((r) => r.time)).toEqual([T0 / 1000n, (T0 + 100n) / 1000n]);
  });

  it('accepts an empty request', () => {
    expect(parsed(decodeOtlpJson(utf8('{}')))).toEqual({ batches: [], spans: 0 });
    expect(parsed(decodeOtlpProtobuf(new Uint8Array(0)))).toEqual({ batches: [], spans: 0 });
  });

  it('rejects a truncated protobuf message', () => {
    const bytes = otlpTypes()
      .ExportTraceServiceRequest.encode(decodeOtlpJson(utf8(JSON.stringify(REQUEST))) as never)
      .finish();
    for (const cut of [1, 10, bytes.length - 1]) {
      const [code, message] = rejection(() => decodeOtlpProtobuf(bytes.subarray(0, cut)));
      expect(code).toBe('040017');
      expect(message).toMatch(/^cannot decode the body as an OTLP ExportTraceServiceRequest: /);
    }
  });

  const badJson: Array<[string, string]> = [
    ['not json', 'the body is not valid JSON: '],
    ['[]', 'an OTLP/JSON body is one ExportTraceServiceRequest object'],
    [
      '{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"xyz"}]}]}]}',
      'resourceSpans[0].scopeSpans[0].spans[0].traceId must be a hex string, found "xyz"',
    ],
    [
      '{"resourceSpans":[{"scopeSpans":[{"spans":[{"links":[{"spanId":5}]}]}]}]}',
      'resourceSpans[0].scopeSpans[0].spans[0].links[0].spanId must be a hex string, found 5',
    ],
    ['{"resourceSpans":"x"}', 'the body is not an OTLP/JSON ExportTraceServiceRequest: '],
  ];
  for (const [body, message] of badJson) {
    it(`rejects the JSON ${body}`, () => {
      const [code, got] = rejection(() => decodeOtlpJson(utf8(body)));
      expect(code).toBe('040017');
      expect(got.startsWith(message)).toBe(true);
    });
  }

  it('rejects attribute values nested too deeply, in both encodings', () => {
    let value: object = { stringValue: 'x' };
    for (let i = 0; i < 100; i++) value = { arrayValue: { values: [value] } };
    const req = {
      resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: '01', attributes: [{ key: 'deep', value }] }] }] }],
    };
    expect(rejection(() => decodeOtlpJson(utf8(JSON.stringify(req))))).toEqual([
      '040017',
      'the body is not an OTLP/JSON ExportTraceServiceRequest: maximum nesting depth exceeded',
    ]);
    // The same request in protobuf, written field by field (protobufjs refuses to encode it).
    const field = (tag: number, bytes: Uint8Array): Uint8Array => {
      const len: number[] = [];
      for (let n = bytes.length; ; n >>>= 7) {
        len.push(n > 0x7f ? (n & 0x7f) | 0x80 : n);
        if (n <= 0x7f) break;
      }
      return Uint8Array.from([(tag << 3) | 2, ...len, ...bytes]);
    };
    let any = field(1, utf8('x')); // AnyValue.string_value, as the body of an AnyValue
    for (let i = 0; i < 100; i++) any = field(5, field(1, any)); // AnyValue.array_value.values
    const body = field(1, field(2, field(2, field(9, Uint8Array.from([...field(1, utf8('deep')), ...field(2, any)])))));
    const [code, message] = rejection(() => decodeOtlpProtobuf(body));
    expect([code, message]).toEqual([
      '040017',
      'cannot decode the body as an OTLP ExportTraceServiceRequest: maximum nesting depth exceeded',
    ]);
  });

  it('rejects a start time beyond the 64-bit signed range', () => {
    const req = {
      resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: '01', startTimeUnixNano: '18446744073709551615' }] }] }],
    };
    expect(rejection(() => parsed(decodeOtlpJson(utf8(JSON.stringify(req)))))).toEqual([
      '020012',
      'resourceSpans[0].scopeSpans[0].spans[0]: timestamp 18446744073709551615 (ns) is out of range when converted to the database precision',
    ]);
  });
});
