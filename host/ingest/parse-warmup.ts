// Parse warm-up: a parse worker starts cold. Its first span body took 270-290 ms (loading the
// parsers and the OTLP .proto files, compiling protobufjs' decoders, then V8 running everything
// in its interpreter), the next four 20-50 ms, and only the eighth or so the 6-8 ms of a warm
// worker (512 spans a body, .probe-measured on 2026-11-26). Those are the first requests a fresh
// server answers. So a worker first parses small generated bodies of every format it takes, of
// the shapes real shippers send (string, integer, double and boolean attributes; events and
// links; nested log documents), and throws the batches away: nothing reaches storage.
// Node only, as parse-jobs.ts.

import { LOKI_PUSH_REQUEST } from './loki-push.js';
import { otlpTypes } from './otlp-proto.js';
import type { ParseJob } from './parse-jobs.js';
import { PROM_TYPES } from './prometheus-remote.js';

export interface WarmupJob {
  job: ParseJob;
  body: Uint8Array;
}

/** Rows in each generated body: enough for the per-row loops to be compiled. */
const ROWS = 128;
/** Rounds over the bodies: V8 compiles a function after it has run enough times. */
export const WARMUP_ROUNDS = 12;
const T0_S = 1_704_067_200; // 2024-01-01T00:00:00Z
const TABLE = 'warmup';

const utf8 = new TextEncoder();

function hex(n: number, bytes: number): string {
  return n
    .toString(16)
    .padStart(bytes * 2, '0')
    .slice(-bytes * 2);
}

/** The spans of one body as OTLP/JSON-shaped objects (ids in hex, times as decimal strings). */
function spanObjects(): object[] {
  const spans: object[] = [];
  for (let i = 0; i < ROWS; i++) {
    const start = BigInt(T0_S + i) * 1_000_000_000n;
    const root = i % 4 === 0;
    spans.push({
      traceId: hex(Math.floor(i / 4) + 1, 16),
      spanId: hex(i + 1, 8),
      ...(root ? {} : { parentSpanId: hex(i - (i % 4) + 1, 8) }),
      name: root ? 'GET /items' : 'SELECT items',
      kind: root ? 2 : 3,
      startTimeUnixNano: start.toString(),
      endTimeUnixNano: (start + BigInt(1000 + i)).toString(),
      attributes: [
        { key: 'http.route', value: { stringValue: `/items/${i}` } },
        { key: 'http.status_code', value: { intValue: 200 + (i % 3) } },
        { key: 'ratio', value: { doubleValue: i / 7 } },
        { key: 'cached', value: { boolValue: i % 2 === 0 } },
      ],
      events:
        i % 8 === 0
          ? [
              {
                timeUnixNano: start.toString(),
                name: 'miss',
                attributes: [{ key: 'key', value: { stringValue: `k${i}` } }],
              },
            ]
          : [],
      links: i % 16 === 1 ? [{ traceId: hex(i, 16), spanId: hex(i, 8) }] : [],
      status: { code: i % 5 === 0 ? 2 : 1, ...(i % 5 === 0 ? { message: 'failed' } : {}) },
    });
  }
  return spans;
}

function otlpRequest(spans: object[]): object {
  const resource = (n: number) => ({
    attributes: [
      { key: 'service.name', value: { stringValue: `shop-${n}` } },
      { key: 'host.name', value: { stringValue: 'node-1' } },
    ],
  });
  const half = spans.length >> 1;
  return {
    resourceSpans: [
      {
        resource: resource(0),
        scopeSpans: [{ scope: { name: 'warmup', version: '1.0.0' }, spans: spans.slice(0, half) }],
      },
      {
        resource: resource(1),
        scopeSpans: [{ scope: { name: 'warmup', version: '1.0.0' }, spans: spans.slice(half) }],
      },
    ],
  };
}

/** OTLP/JSON to protobuf: protobufjs takes ids as base64 in fromObject, OTLP/JSON has hex. */
function otlpProtobuf(spans: object[]): Uint8Array {
  const T = otlpTypes().ExportTraceServiceRequest;
  const b64 = (h: string): string => Buffer.from(h, 'hex').toString('base64');
  const withBytes = (s: Record<string, unknown>): object => ({
    ...s,
    traceId: b64(s.traceId as string),
    spanId: b64(s.spanId as string),
    ...(s.parentSpanId === undefined ? {} : { parentSpanId: b64(s.parentSpanId as string) }),
    links: (s.links as Array<{ traceId: string; spanId: string }>).map((l) => ({
      traceId: b64(l.traceId),
      spanId: b64(l.spanId),
    })),
  });
  return T.encode(T.fromObject(otlpRequest(spans.map((s) => withBytes(s as Record<string, unknown>))))).finish();
}

/**
 * OTLP/JSON metrics of every kind (gauge, sum, histogram: 32 points each; exponential histogram
 * and summary: 16), 16 series of each over 2 intervals, as a collector sends them.
 */
function otlpMetrics(): object {
  const ns = (t: number) => String(BigInt(T0_S + t) * 1_000_000_000n);
  const points = (n: number, point: (i: number) => object): object[] =>
    Array.from({ length: n }, (_, i) => ({
      attributes: [{ key: 'route', value: { stringValue: `/items/${i % 16}` } }],
      startTimeUnixNano: ns(-60),
      timeUnixNano: ns(i >> 4),
      ...point(i),
    }));
  const metrics = [
    {
      name: 'warmup.gauge',
      unit: 'By',
      gauge: { dataPoints: points(32, (i) => (i % 2 ? { asInt: String(i) } : { asDouble: i / 3 })) },
    },
    {
      name: 'warmup.sum',
      unit: '1',
      sum: { aggregationTemporality: 2, isMonotonic: true, dataPoints: points(32, (i) => ({ asInt: String(i * 10) })) },
    },
    {
      name: 'warmup.histogram',
      unit: 'ms',
      histogram: {
        aggregationTemporality: 1,
        dataPoints: points(32, (i) => ({
          count: '6',
          sum: i * 1.5,
          min: 0.5,
          max: 90,
          bucketCounts: ['1', '2', '3', '0'],
          explicitBounds: [1, 10, 100],
        })),
      },
    },
    {
      name: 'warmup.exponential',
      exponentialHistogram: {
        aggregationTemporality: 2,
        dataPoints: points(16, (i) => ({
          count: '3',
          sum: i,
          scale: 3,
          zeroCount: '0',
          positive: { offset: 4, bucketCounts: ['1', '0', '2'] },
        })),
      },
    },
    {
      name: 'warmup.summary',
      summary: {
        dataPoints: points(16, (i) => ({
          count: '4',
          sum: i,
          quantileValues: [
            { quantile: 0.5, value: i },
            { quantile: 0.99, value: i * 2 },
          ],
        })),
      },
    },
  ];
  return {
    resourceMetrics: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'warmup' } }] },
        scopeMetrics: [{ scope: { name: 'warmup', version: '1.0.0' }, metrics }],
      },
    ],
  };
}

/** OTLP/JSON log records, as an SDK's batch processor sends them. */
function otlpLogs(): object {
  const logRecords = Array.from({ length: ROWS }, (_, i) => ({
    timeUnixNano: String(BigInt(T0_S + i) * 1_000_000_000n),
    observedTimeUnixNano: String(BigInt(T0_S + i) * 1_000_000_000n + 5n),
    severityNumber: i % 10 === 0 ? 17 : 9,
    severityText: i % 10 === 0 ? 'ERROR' : 'INFO',
    body:
      i % 8 === 0
        ? { kvlistValue: { values: [{ key: 'code', value: { intValue: 500 } }] } }
        : { stringValue: `GET /items/${i} 200` },
    attributes: [
      { key: 'user', value: { stringValue: `u${i % 7}` } },
      { key: 'attempt', value: { intValue: i % 3 } },
    ],
    ...(i % 2 ? { traceId: hex(i + 1, 16), spanId: hex(i + 1, 8), flags: 1 } : {}),
  }));
  return {
    resourceLogs: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'warmup' } }] },
        scopeLogs: [{ scope: { name: 'warmup' }, logRecords }],
      },
    ],
  };
}

/** The protobuf encoding of an OTLP/JSON-shaped request (hex ids made bytes). */
function otlpEncoded(type: 'ExportMetricsServiceRequest' | 'ExportLogsServiceRequest', request: object): Uint8Array {
  const T = otlpTypes()[type];
  const withBytes = JSON.parse(JSON.stringify(request), (k, v: unknown) =>
    typeof v === 'string' && (k === 'traceId' || k === 'spanId') ? Buffer.from(v, 'hex').toString('base64') : v,
  ) as object;
  return T.encode(T.fromObject(withBytes)).finish();
}

/** A log document: nested objects and arrays, as Filebeat and Vector send them. */
function logDocument(i: number): object {
  return {
    time: new Date((T0_S + i) * 1000).toISOString(),
    host: `web-${i % 4}`,
    level: i % 10 === 0 ? 'error' : 'info',
    message: `GET /items/${i} 200`,
    bytes: 512 + i,
    latency: i / 3,
    ok: i % 10 !== 0,
    http: { method: 'GET', status: 200, headers: { agent: 'curl/8.5.0' } },
    tags: ['a', `t${i % 3}`],
  };
}

function lines(make: (i: number) => string): Uint8Array {
  const out: string[] = [];
  for (let i = 0; i < ROWS; i++) out.push(make(i));
  return utf8.encode(out.join('\n') + '\n');
}

/** One body of every format a parse job takes, with its job. */
export function warmupJobs(nowMs: number): WarmupJob[] {
  const log = {
    table: TABLE,
    timeColumn: 'time',
    tagColumns: ['host'],
    dbUnit: 'ns' as const,
    now: BigInt(Math.trunc(nowMs)) * 1_000_000n,
  };
  const spans = spanObjects();
  const streams = [0, 1].map((s) => ({
    job: `job-${s}`,
    lines: Array.from({ length: ROWS / 2 }, (_, i) => [String((T0_S + i) * 1e9), `line ${i} of ${s}`]),
  }));
  const lokiJson = { streams: streams.map((s) => ({ stream: { job: s.job }, values: s.lines })) };
  const lokiProto = LOKI_PUSH_REQUEST.fromObject({
    streams: streams.map((s) => ({
      labels: `{job="${s.job}"}`,
      entries: s.lines.map(([t, line]) => ({ timestamp: { seconds: Math.floor(Number(t) / 1e9), nanos: 0 }, line })),
    })),
  });
  const prom = PROM_TYPES.WriteRequest.fromObject({
    timeseries: Array.from({ length: ROWS / 4 }, (_, i) => ({
      labels: [
        { name: '__name__', value: 'warmup_requests' },
        { name: 'instance', value: `node-${i}` },
        { name: 'job', value: 'warmup' },
      ],
      samples: [0, 1, 2, 3].map((k) => ({ value: i + k / 4, timestamp: (T0_S + k) * 1000 })),
    })),
  });
  return [
    { job: { format: 'otlp-protobuf', table: TABLE, dbUnit: 'ns' }, body: otlpProtobuf(spans) },
    { job: { format: 'otlp-json', table: TABLE, dbUnit: 'ns' }, body: utf8.encode(JSON.stringify(otlpRequest(spans))) },
    {
      job: { format: 'bulk', ...log },
      body: lines((i) => `{"${i % 2 === 0 ? 'create' : 'index'}":{}}\n${JSON.stringify(logDocument(i))}`),
    },
    { job: { format: 'ndjson', ...log }, body: lines((i) => JSON.stringify(logDocument(i))) },
    { job: { format: 'loki-json', ...log }, body: utf8.encode(JSON.stringify(lokiJson)) },
    { job: { format: 'loki-protobuf', ...log }, body: LOKI_PUSH_REQUEST.encode(lokiProto).finish() },
    {
      job: { format: 'opentsdb-json', precision: undefined, dbUnit: 'ns' },
      body: utf8.encode(
        JSON.stringify(
          Array.from({ length: ROWS }, (_, i) => ({
            metric: 'sys.cpu.user',
            timestamp: T0_S + i,
            value: i % 3 === 0 ? i : i / 8,
            tags: { host: `web-${i % 4}`, cpu: String(i % 2) },
          })),
        ),
      ),
    },
    { job: { format: 'prom-write', dbUnit: 'ns' }, body: PROM_TYPES.WriteRequest.encode(prom).finish() },
    {
      job: { format: 'otlp-metrics-protobuf', dbUnit: 'ns' },
      body: otlpEncoded('ExportMetricsServiceRequest', otlpMetrics()),
    },
    { job: { format: 'otlp-metrics-json', dbUnit: 'ns' }, body: utf8.encode(JSON.stringify(otlpMetrics())) },
    {
      job: { format: 'otlp-logs-protobuf', table: TABLE, dbUnit: 'ns', nowNs: BigInt(Math.trunc(nowMs)) * 1_000_000n },
      body: otlpEncoded('ExportLogsServiceRequest', otlpLogs()),
    },
    {
      job: { format: 'otlp-logs-json', table: TABLE, dbUnit: 'ns', nowNs: BigInt(Math.trunc(nowMs)) * 1_000_000n },
      body: utf8.encode(JSON.stringify(otlpLogs())),
    },
    {
      job: { format: 'line-protocol', tsMultiplier: 1n, tsDivisor: 1n, defaultTs: 0n },
      body: lines(
        (i) =>
          `${TABLE},host=web-${i % 4},region=eu usage_user=${i}i,usage_idle=${i / 8},up=true,note="n${i}" ${(T0_S + i) * 1e9}`,
      ),
    },
  ];
}
