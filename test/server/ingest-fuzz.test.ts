// Random and mutated bodies on every ingest route of a real server, with a seed: only 200, 400,
// 413 or 422 may come back (never a 500, a crash or a hang), the server keeps answering, and what
// it stored before is unchanged.

import { compressSync } from 'snappy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { otlpTypes } from '../../host/ingest/otlp-proto.js';
import { decodeOtlpJson } from '../../host/ingest/otlp-traces.js';
import { LOKI_PUSH_REQUEST } from '../../host/ingest/loki-push.js';
import { PROM_TYPES } from '../../host/ingest/prometheus-remote.js';
import { mutate, rng, utf8 } from '../ingest/ingest-support.js';
import { http, writeLp } from '../support/http.js';
import { otlpProtobuf } from '../support/otlp.js';
import { readBack } from '../support/read-back.js';
import { startServer, type ProcessServer } from '../support/server.js';

const OTLP = JSON.stringify({
  resourceSpans: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 's' } }] },
      scopeSpans: [{ spans: [{ traceId: '0102', spanId: '03', name: 'n', startTimeUnixNano: '1700000000000000000' }] }],
    },
  ],
});

const OTLP_METRICS = JSON.stringify({
  resourceMetrics: [
    {
      resource: { attributes: [{ key: 'host', value: { stringValue: 'a' } }] },
      scopeMetrics: [
        {
          metrics: [
            {
              name: 'fzm',
              gauge: {
                dataPoints: [
                  {
                    timeUnixNano: '1700000000000000000',
                    asDouble: 1.5,
                    attributes: [{ key: 'k', value: { intValue: '2' } }],
                  },
                ],
              },
            },
            {
              name: 'fzh',
              histogram: {
                aggregationTemporality: 2,
                dataPoints: [
                  {
                    timeUnixNano: '1700000000000000000',
                    count: '3',
                    sum: 4,
                    bucketCounts: ['1', '2'],
                    explicitBounds: [1],
                  },
                ],
              },
            },
            {
              name: 'fzs',
              summary: {
                dataPoints: [
                  {
                    timeUnixNano: '1700000000000000000',
                    count: '1',
                    sum: 1,
                    quantileValues: [{ quantile: 0.5, value: 1 }],
                  },
                ],
              },
            },
          ],
        },
      ],
    },
  ],
});
const OTLP_LOGS = JSON.stringify({
  resourceLogs: [
    {
      scopeLogs: [
        {
          logRecords: [
            {
              timeUnixNano: '1700000000000000000',
              severityText: 'INFO',
              body: { stringValue: 'x' },
              traceId: '0102',
              attributes: [{ key: 'a', value: { boolValue: true } }],
            },
          ],
        },
      ],
    },
  ],
});
interface Route {
  path: string;
  headers: Record<string, string>;
  sample: Uint8Array;
  /** Frames a mutated body (snappy for Prometheus and Loki protobuf). */
  frame?: (b: Uint8Array) => Uint8Array;
}

const snappy = (b: Uint8Array): Uint8Array => compressSync(Buffer.from(b));

const ROUTES: Route[] = [
  {
    path: '/api/v1/opentsdb/write',
    headers: {},
    sample: utf8('put fz 1700000000 1.5 host=a\nfz 1700000000123 2 host=b\n'),
  },
  {
    path: '/api/v1/opentsdb/put',
    headers: {},
    sample: utf8('[{"metric":"fz","timestamp":1700000000,"value":1,"tags":{"host":"a"}}]'),
  },
  {
    path: '/api/v1/es/_bulk?table=fz&tag_columns=host',
    headers: {},
    sample: utf8('{"create":{}}\n{"time":"2024-01-01T00:00:00Z","host":"a","v":1,"n":{"x":"y"}}\n'),
  },
  {
    path: '/api/v1/es/_bulk?table=fz2&log_type=ndjson',
    headers: {},
    sample: utf8('{"time":1700000000000000000,"v":1.5}\n{"s":"x"}\n'),
  },
  {
    path: '/api/v1/es/_bulk?table=fz3&log_type=loki',
    headers: { 'content-type': 'application/json' },
    sample: utf8('{"streams":[{"stream":{"a":"b"},"values":[["1700000000000000000","l"]]}]}'),
  },
  {
    path: '/api/v1/es/_bulk?table=fz4&log_type=loki',
    headers: { 'content-type': 'application/x-protobuf' },
    sample: LOKI_PUSH_REQUEST.encode(
      LOKI_PUSH_REQUEST.fromObject({
        streams: [{ labels: '{a="b"}', entries: [{ timestamp: { seconds: 1700000000 }, line: 'x' }] }],
      }),
    ).finish(),
    frame: snappy,
  },
  { path: '/api/v1/traces', headers: { table: 'fz5', 'content-type': 'application/json' }, sample: utf8(OTLP) },
  {
    path: '/api/v1/traces',
    headers: { table: 'fz6', 'content-type': 'application/x-protobuf' },
    sample: otlpTypes()
      .ExportTraceServiceRequest.encode(decodeOtlpJson(utf8(OTLP)) as never)
      .finish(),
  },
  { path: '/v1/metrics', headers: { 'content-type': 'application/json' }, sample: utf8(OTLP_METRICS) },
  {
    path: '/v1/metrics',
    headers: { 'content-type': 'application/x-protobuf' },
    sample: otlpProtobuf('ExportMetricsServiceRequest', OTLP_METRICS),
  },
  { path: '/v1/logs', headers: { table: 'fz8', 'content-type': 'application/json' }, sample: utf8(OTLP_LOGS) },
  {
    path: '/v1/logs',
    headers: { table: 'fz9', 'content-type': 'application/x-protobuf' },
    sample: otlpProtobuf('ExportLogsServiceRequest', OTLP_LOGS),
  },
  {
    path: '/api/v1/prom/write',
    headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy' },
    sample: PROM_TYPES.WriteRequest.encode(
      PROM_TYPES.WriteRequest.fromObject({
        timeseries: [
          { labels: [{ name: '__name__', value: 'fz7' }], samples: [{ value: 1, timestamp: 1700000000000 }] },
        ],
      }),
    ).finish(),
    frame: snappy,
  },
];

const PER_ROUTE = 40;
const ALPHABET = ' \n\t=,.:-+e0123456789{}[]"\\nulltruefalse';

describe('ingest fuzz over HTTP', () => {
  let server: ProcessServer;
  beforeAll(async () => {
    server = await startServer();
    expect((await writeLp(server.url, 'keep,k=1 v=42i 1')).status).toBe(200);
  });
  afterAll(async () => {
    if (server.child.exitCode === null) await server.stop();
    server.cleanup();
  });

  it('answers every random or mutated body with 200, 400, 413 or 422', async () => {
    const random = rng(20261123);
    const statuses = new Map<number, number>();
    for (const route of ROUTES) {
      for (let n = 0; n < PER_ROUTE; n++) {
        let body =
          n % 4 === 0
            ? Uint8Array.from({ length: Math.floor(random() * 150) }, () => Math.floor(random() * 256))
            : mutate(route.sample, random, ALPHABET);
        if (route.frame !== undefined && n % 8 !== 1) body = route.frame(body);
        const r = await http(server.url, route.path, { method: 'POST', body, headers: route.headers });
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        expect(
          [200, 400, 413, 422],
          `${route.path} ${Buffer.from(body).toString('hex')}: ${r.headers['x-sundial-error']}`,
        ).toContain(r.status);
      }
    }
    expect(statuses.get(400)).toBeGreaterThan(0);
    expect(statuses.get(200)).toBeGreaterThan(0);
    expect((await http(server.url, '/api/v1/ping', { auth: null })).status).toBe(200);
  });

  it('left what was stored before intact', async () => {
    expect(await server.stop()).toBe(0);
    const stored = await readBack(server.dataDir);
    try {
      expect(await stored.rows('keep')).toEqual([{ time: 1n, k: '1', v: 42n }]);
    } finally {
      await stored.close();
    }
  });
});
