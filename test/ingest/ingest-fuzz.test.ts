// Seeded fuzzing of every TypeScript ingest parser, in-process: random and mutated bodies may be
// accepted or rejected with a UserError (a 4xx), never anything else (a TypeError would be a 500),
// and whatever is accepted encodes batches the storage can read.

import { describe, expect, it } from 'vitest';
import { UserError } from '../../host/core/errors.js';
import { readWriteBatch } from '../../host/core/write-batch.js';
import { parseBulk, parseNdjson } from '../../host/ingest/es-bulk.js';
import type { LogOptions } from '../../host/ingest/log-documents.js';
import { LOKI_PUSH_REQUEST, parseLokiJson, parseLokiProtobuf } from '../../host/ingest/loki-push.js';
import { parseOpenTsdbJson } from '../../host/ingest/opentsdb-json.js';
import { parseOpenTsdbText } from '../../host/ingest/opentsdb-text.js';
import { otlpTypes } from '../../host/ingest/otlp-proto.js';
import { decodeOtlpLogsJson, decodeOtlpLogsProtobuf, otlpLogsToBatches } from '../../host/ingest/otlp-logs.js';
import {
  decodeOtlpMetricsJson,
  decodeOtlpMetricsProtobuf,
  otlpMetricsToBatches,
} from '../../host/ingest/otlp-metrics.js';
import { decodeOtlpJson, decodeOtlpProtobuf, otlpTracesToBatches } from '../../host/ingest/otlp-traces.js';
import { parsePromRead, parsePromWrite, PROM_TYPES } from '../../host/ingest/prometheus-remote.js';
import { otlpProtobuf } from '../support/otlp.js';
import { mutate, rng, utf8 } from './ingest-support.js';

const LOG: LogOptions = {
  table: 'logs',
  timeColumn: 'time',
  tagColumns: new Set(['host']),
  dbUnit: 'ns',
  now: 1_700_000_000_000_000_000n,
};
const TEXT_ALPHABET = ' \n\r\t=,.:-+e0123456789{}[]"\\nulltruefalseput';

const OTLP_SAMPLE = JSON.stringify({
  resourceSpans: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 's' } }] },
      scopeSpans: [
        {
          scope: { name: 'x' },
          spans: [
            {
              traceId: '0102',
              spanId: '03',
              name: 'n',
              startTimeUnixNano: '1',
              attributes: [{ key: 'a', value: { arrayValue: { values: [{ intValue: '1' }] } } }],
              events: [{ name: 'e' }],
            },
          ],
        },
      ],
    },
  ],
});

const T1 = '"1700000000000000000"';
const OTLP_METRICS_SAMPLE = `{"resourceMetrics":[{"resource":{"attributes":[{"key":"h","value":{"stringValue":"a"}}]},"scopeMetrics":[{"scope":{"name":"s"},"metrics":[
{"name":"g","unit":"1","gauge":{"dataPoints":[{"timeUnixNano":${T1},"asDouble":1.5,"attributes":[{"key":"k","value":{"intValue":"2"}}]},{"timeUnixNano":${T1},"asInt":"7"}]}},
{"name":"c","sum":{"aggregationTemporality":2,"isMonotonic":true,"dataPoints":[{"startTimeUnixNano":"1","timeUnixNano":${T1},"asInt":"3"}]}},
{"name":"h","histogram":{"aggregationTemporality":1,"dataPoints":[{"timeUnixNano":${T1},"count":"3","sum":4,"min":1,"max":2,"bucketCounts":["1","2"],"explicitBounds":[1.5]}]}},
{"name":"e","exponentialHistogram":{"aggregationTemporality":2,"dataPoints":[{"timeUnixNano":${T1},"count":"2","scale":2,"zeroCount":"1","positive":{"offset":-3,"bucketCounts":["1"]}}]}},
{"name":"q","summary":{"dataPoints":[{"timeUnixNano":${T1},"count":"1","sum":1,"quantileValues":[{"quantile":0.5,"value":1}]}]}}]}]}]}`;
const OTLP_LOGS_SAMPLE = `{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"s"}}]},"scopeLogs":[{"scope":{"name":"x"},"logRecords":[
{"timeUnixNano":${T1},"severityNumber":9,"severityText":"INFO","body":{"kvlistValue":{"values":[{"key":"a","value":{"intValue":"1"}}]}},"traceId":"0102","spanId":"03","attributes":[{"key":"u","value":{"stringValue":"v"}}]},
{"observedTimeUnixNano":${T1},"body":{"stringValue":"x"}}]}]}]}`;
const LOG_RECORDS = { table: 't', dbUnit: 'ns' as const, nowNs: 1_700_000_000_000_000_000n };

interface Target {
  name: string;
  samples: Uint8Array[];
  parse: (body: Uint8Array) => Uint8Array[];
}

const TARGETS: Target[] = [
  {
    name: 'OpenTSDB text',
    samples: [utf8('put sys.cpu 1700000000 1.5 host=a cpu=0\nm 1700000000123 -2 k=v\n')],
    parse: (b) => parseOpenTsdbText(b, { precision: undefined, dbUnit: 'ns' }),
  },
  {
    name: 'OpenTSDB JSON',
    samples: [
      utf8(
        '[{"metric":"m","timestamp":1700000000,"value":1,"tags":{"h":"a"}},{"metric":"n","timestamp":"1","value":"2.5","tags":{"h":"b"}}]',
      ),
    ],
    parse: (b) => parseOpenTsdbJson(b, { precision: undefined, dbUnit: 'ns' }).batches,
  },
  {
    name: 'Elasticsearch bulk',
    samples: [
      utf8('{"create":{}}\n{"time":"2024-01-01T00:00:00Z","host":"a","m":{"x":[1,true,"s"]}}\n{"index":{}}\n{"v":1}\n'),
    ],
    parse: (b) => parseBulk(b, LOG).batches,
  },
  {
    name: 'NDJSON',
    samples: [utf8('{"time":1700000000000000000,"host":"a","v":1.5}\n{"s":"x","b":false}\n')],
    parse: (b) => parseNdjson(b, LOG),
  },
  {
    name: 'Loki JSON',
    samples: [
      utf8('{"streams":[{"stream":{"host":"a"},"values":[["1700000000000000000","line"],["1","l2",{"k":"v"}]]}]}'),
    ],
    parse: (b) => parseLokiJson(b, LOG).batches,
  },
  {
    name: 'Loki protobuf',
    samples: [
      LOKI_PUSH_REQUEST.encode(
        LOKI_PUSH_REQUEST.fromObject({
          streams: [
            {
              labels: '{host="a", job="j"}',
              entries: [
                {
                  timestamp: { seconds: 1700000000, nanos: 5 },
                  line: 'hello',
                  structuredMetadata: [{ name: 'k', value: 'v' }],
                },
              ],
            },
          ],
        }),
      ).finish(),
    ],
    parse: (b) => parseLokiProtobuf(b, LOG).batches,
  },
  {
    name: 'OTLP JSON',
    samples: [utf8(OTLP_SAMPLE)],
    parse: (b) => otlpTracesToBatches(decodeOtlpJson(b), { table: 't', dbUnit: 'ns' }).batches,
  },
  {
    name: 'OTLP protobuf',
    samples: [
      otlpTypes()
        .ExportTraceServiceRequest.encode(decodeOtlpJson(utf8(OTLP_SAMPLE)) as never)
        .finish(),
    ],
    parse: (b) => otlpTracesToBatches(decodeOtlpProtobuf(b), { table: 't', dbUnit: 'ns' }).batches,
  },
  {
    name: 'OTLP metrics JSON',
    samples: [utf8(OTLP_METRICS_SAMPLE)],
    parse: (b) => otlpMetricsToBatches(decodeOtlpMetricsJson(b), { dbUnit: 'ns' }).batches,
  },
  {
    name: 'OTLP metrics protobuf',
    samples: [otlpProtobuf('ExportMetricsServiceRequest', OTLP_METRICS_SAMPLE)],
    parse: (b) => otlpMetricsToBatches(decodeOtlpMetricsProtobuf(b), { dbUnit: 'ms' }).batches,
  },
  {
    name: 'OTLP logs JSON',
    samples: [utf8(OTLP_LOGS_SAMPLE)],
    parse: (b) => otlpLogsToBatches(decodeOtlpLogsJson(b), LOG_RECORDS).batches,
  },
  {
    name: 'OTLP logs protobuf',
    samples: [otlpProtobuf('ExportLogsServiceRequest', OTLP_LOGS_SAMPLE)],
    parse: (b) => otlpLogsToBatches(decodeOtlpLogsProtobuf(b), { ...LOG_RECORDS, dbUnit: 'us' }).batches,
  },
  {
    name: 'Prometheus write',
    samples: [
      PROM_TYPES.WriteRequest.encode(
        PROM_TYPES.WriteRequest.fromObject({
          timeseries: [
            {
              labels: [
                { name: '__name__', value: 'up' },
                { name: 'job', value: 'j' },
              ],
              samples: [{ value: 1, timestamp: 1700000000000 }],
            },
          ],
        }),
      ).finish(),
    ],
    parse: (b) => parsePromWrite(b, 'ns').batches,
  },
  {
    name: 'Prometheus read',
    samples: [
      PROM_TYPES.ReadRequest.encode(
        PROM_TYPES.ReadRequest.fromObject({
          queries: [{ start_timestamp_ms: 1, end_timestamp_ms: 2, matchers: [{ type: 2, name: 'a', value: 'x.*' }] }],
        }),
      ).finish(),
    ],
    parse: (b) => (parsePromRead(b), []),
  },
];

const ITERATIONS = 1500;

describe('ingest parser fuzz', () => {
  for (const t of TARGETS) {
    it(`${t.name}: only UserErrors escape, accepted bodies encode valid batches`, () => {
      const random = rng(0x5eed + t.name.length);
      for (const s of t.samples) for (const b of t.parse(s)) readWriteBatch(b);
      let accepted = 0;
      let rejected = 0;
      for (let n = 0; n < ITERATIONS; n++) {
        const body =
          n % 5 === 0
            ? Uint8Array.from({ length: Math.floor(random() * 120) }, () => Math.floor(random() * 256))
            : mutate(t.samples[Math.floor(random() * t.samples.length)]!, random, TEXT_ALPHABET);
        try {
          for (const b of t.parse(body)) readWriteBatch(b);
          accepted++;
        } catch (e) {
          if (!(e instanceof UserError))
            throw new Error(`${t.name}: ${String(e)} for body ${Buffer.from(body).toString('hex')}`, { cause: e });
          expect(e.status, e.message).toBeGreaterThanOrEqual(400);
          expect(e.status, e.message).toBeLessThan(500);
          rejected++;
        }
      }
      expect(accepted + rejected).toBe(ITERATIONS);
      expect(rejected).toBeGreaterThan(0);
    });
  }
});
