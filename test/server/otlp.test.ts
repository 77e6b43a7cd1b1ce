// The OpenTelemetry JS SDKs sending through their official OTLP/HTTP exporters, protobuf and JSON,
// to the standard paths /v1/metrics, /v1/logs and /v1/traces with only Basic credentials (no
// Sundial headers); every stored row and value is read back through /api/v1/sql.

import { ROOT_CONTEXT, SpanKind, trace, TraceFlags, ValueType } from '@opentelemetry/api';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { OTLPLogExporter as JsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as ProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import {
  AggregationTemporalityPreference,
  OTLPMetricExporter as JsonMetricExporter,
} from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtoMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { LoggerProvider, SimpleLogRecordProcessor, type LogRecordExporter } from '@opentelemetry/sdk-logs';
import {
  AggregationType,
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { otlpTypes } from '../../host/ingest/otlp-proto.js';
import { basic, http } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

const headers = { authorization: basic('root', '') };

let server: TestServer;

type Row = Record<string, unknown>;

/** Every row of `table` (ordered by `order`), with `time` and the BIGINT nanosecond columns as exact strings. */
async function rows(table: string, order: string, nsColumns: readonly string[] = []): Promise<Row[]> {
  const exact = ['time', ...nsColumns].map((c) => `CAST(CAST("${c}" AS BIGINT) AS STRING) AS "${c}#"`).join(', ');
  const r = await http(server.url, '/api/v1/sql', {
    method: 'POST',
    headers: { accept: 'application/json' },
    body: `SELECT *, ${exact} FROM "${table}" ORDER BY ${order}`,
  });
  expect(r.status, r.text).toBe(200);
  return (JSON.parse(r.text) as Row[]).map((row) => {
    // JSON numbers past 2^53 are not exact: the string copies replace them.
    for (const c of ['time', ...nsColumns]) {
      row[c] = row[`${c}#`] === null ? null : BigInt(row[`${c}#`] as string);
      delete row[`${c}#`];
    }
    return row;
  });
}

const nowNs = (): bigint => BigInt(Date.now()) * 1_000_000n;

beforeAll(async () => {
  server = await startServer({ inProcess: true });
});

afterAll(async () => {
  await server?.stop();
  server?.cleanup();
});

describe('POST /v1/metrics from the OpenTelemetry metrics SDK', () => {
  const window: Record<string, { from: bigint; to: bigint }> = {};

  async function exportOnce(name: 'proto' | 'json', exporter: PushMetricExporter): Promise<void> {
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
    const provider = new MeterProvider({
      resource: resourceFromAttributes({
        'service.name': `shop-${name}`,
        'deployment.environment': 'test',
        'host.cores': 8,
        region: 'eu',
      }),
      readers: [reader],
      views: [{ instrumentName: 'payload.size', aggregation: { type: AggregationType.EXPONENTIAL_HISTOGRAM } }],
    });
    const meter = provider.getMeter('shop-metrics', '2.1.0');
    const requests = meter.createCounter('http.requests', { valueType: ValueType.INT });
    requests.add(3, { route: '/a', region: 'us' });
    requests.add(2, { route: '/a', region: 'us' });
    requests.add(4, { route: '/b' });
    const latency = meter.createHistogram('http.latency', {
      unit: 'ms',
      advice: { explicitBucketBoundaries: [1, 10, 100] },
    });
    for (const v of [0.5, 5, 50, 500]) latency.record(v, { route: '/a' });
    const queue = meter.createUpDownCounter('queue.depth');
    queue.add(5);
    queue.add(-2);
    meter.createGauge('room.temp', { unit: 'Cel' }).record(21.5, { room: 'kitchen' });
    const sizes = meter.createHistogram('payload.size', { unit: 'By' });
    for (const v of [3, 12, 40]) sizes.record(v);
    const from = nowNs();
    // One export: shutdown collects and exports once.
    await provider.shutdown();
    window[name] = { from, to: nowNs() };
  }

  beforeAll(async () => {
    await exportOnce('proto', new ProtoMetricExporter({ url: `${server.url}/v1/metrics`, headers }));
    await exportOnce(
      'json',
      new JsonMetricExporter({
        url: `${server.url}/v1/metrics`,
        headers,
        temporalityPreference: AggregationTemporalityPreference.DELTA,
      }),
    );
  });

  const shared = (name: 'proto' | 'json') => ({
    'service.name': `shop-${name}`,
    'deployment.environment': 'test',
    'host.cores': '8',
    'otel.scope.name': 'shop-metrics',
    'otel.scope.version': '2.1.0',
  });

  /** Checks the times of a row and drops them, leaving the values. */
  function values(row: Row): Row {
    const name = String(row['service.name']).slice(5) as 'proto' | 'json';
    const { from, to } = window[name]!;
    const time = row.time as bigint;
    const start = row.start_time_unix_nano as bigint;
    expect(time >= from && time <= to, `time ${time} within ${from}..${to}`).toBe(true);
    expect(start > 0n && start <= time).toBe(true);
    const { time: _t, start_time_unix_nano: _s, ...rest } = row;
    return rest;
  }

  it('stores a monotonic sum: a row per point, point attributes over resource ones, temporality as sent', async () => {
    const stored = (await rows('http.requests', '"service.name", route', ['start_time_unix_nano'])).map(values);
    const sum = (name: 'proto' | 'json', route: string, region: string, value: number) => ({
      ...shared(name),
      region,
      route,
      'otel.monotonic': 'true',
      'otel.temporality': name === 'json' ? 'delta' : 'cumulative',
      value,
    });
    expect(stored).toEqual([
      sum('json', '/a', 'us', 5),
      sum('json', '/b', 'eu', 4),
      sum('proto', '/a', 'us', 5),
      sum('proto', '/b', 'eu', 4),
    ]);
  });

  it('stores a histogram as count, sum, min, max and cumulative le_ buckets', async () => {
    const stored = (await rows('http.latency', '"service.name"', ['start_time_unix_nano'])).map(values);
    const hist = (name: 'proto' | 'json') => ({
      ...shared(name),
      region: 'eu',
      route: '/a',
      'otel.temporality': name === 'json' ? 'delta' : 'cumulative',
      'otel.unit': 'ms',
      count: 4,
      sum: 555.5,
      min: 0.5,
      max: 500,
      le_1: 1,
      le_10: 2,
      le_100: 3,
      'le_+Inf': 4,
    });
    expect(stored).toEqual([hist('json'), hist('proto')]);
  });

  it('stores a non-monotonic sum (always cumulative) and a gauge', async () => {
    const queue = (await rows('queue.depth', '"service.name"', ['start_time_unix_nano'])).map(values);
    const q = (name: 'proto' | 'json') => ({
      ...shared(name),
      region: 'eu',
      'otel.monotonic': 'false',
      'otel.temporality': 'cumulative',
      value: 3,
    });
    expect(queue).toEqual([q('json'), q('proto')]);
    const temp = (await rows('room.temp', '"service.name"', ['start_time_unix_nano'])).map(values);
    const g = (name: 'proto' | 'json') => ({
      ...shared(name),
      region: 'eu',
      room: 'kitchen',
      'otel.unit': 'Cel',
      value: 21.5,
    });
    expect(temp).toEqual([g('json'), g('proto')]);
  });

  it('stores an exponential histogram whose buckets hold each recorded value', async () => {
    const stored = (await rows('payload.size', '"service.name"', ['start_time_unix_nano'])).map(values);
    expect(stored).toHaveLength(2);
    for (const row of stored) {
      const { scale, positive_offset: offset, positive_bucket_counts: counts, ...rest } = row;
      expect(rest).toEqual({
        ...shared(String(row['service.name']).slice(5) as 'proto' | 'json'),
        region: 'eu',
        'otel.temporality': row['service.name'] === 'shop-json' ? 'delta' : 'cumulative',
        'otel.unit': 'By',
        count: 3,
        sum: 55,
        min: 3,
        max: 40,
        zero_count: 0,
        zero_threshold: 0,
      });
      // Bucket i of scale s holds (2^((offset+i)/2^s), 2^((offset+i+1)/2^s)].
      const buckets = JSON.parse(counts as string) as number[];
      const expected = new Array<number>(buckets.length).fill(0);
      for (const v of [3, 12, 40])
        expected[Math.ceil(Math.log2(v) * 2 ** (scale as number)) - 1 - (offset as number)]! += 1;
      expect(buckets).toEqual(expected);
    }
  });
});

describe('POST /v1/logs from the OpenTelemetry logs SDK', () => {
  const T = 1_800_000_000n * 1_000_000_000n + 123_456_789n;
  const traceId = '0af7651916cd43dd8448eb211c80319c';
  const spanId = 'b7ad6b7169203331';
  let from: bigint;
  let to: bigint;

  async function emit(
    exporter: LogRecordExporter,
    service: string,
    records: (logger: ReturnType<LoggerProvider['getLogger']>) => void,
  ): Promise<void> {
    const provider = new LoggerProvider({
      resource: resourceFromAttributes({ 'service.name': service, 'host.name': 'h1' }),
      processors: [new SimpleLogRecordProcessor({ exporter })],
    });
    records(provider.getLogger('shop-logs', '1.0.0'));
    await provider.forceFlush();
    await provider.shutdown();
  }

  beforeAll(async () => {
    from = nowNs();
    const hr = (ns: bigint): [number, number] => [Number(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)];
    await emit(new ProtoLogExporter({ url: `${server.url}/v1/logs`, headers }), 'shop', (logger) => {
      logger.emit({
        timestamp: hr(T),
        severityNumber: SeverityNumber.INFO,
        severityText: 'INFO',
        body: 'started',
        attributes: { user: 'u1', attempt: 2, ok: true },
      });
      // The same series and time: stored one nanosecond later.
      logger.emit({ timestamp: hr(T), severityNumber: SeverityNumber.INFO, severityText: 'INFO', body: 'second' });
      const context = trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId, traceFlags: TraceFlags.SAMPLED });
      logger.emit({
        timestamp: hr(T + 5n),
        severityNumber: SeverityNumber.ERROR,
        severityText: 'ERROR',
        body: { code: 500, reason: 'boom' },
        context,
      });
      // The first record again, but observed later: another event, the next nanosecond.
      logger.emit({
        timestamp: hr(T),
        severityNumber: SeverityNumber.INFO,
        severityText: 'INFO',
        body: 'started',
        attributes: { user: 'u1', attempt: 2, ok: true },
      });
    });
    await emit(new JsonLogExporter({ url: `${server.url}/v1/logs`, headers }), 'billing', (logger) => {
      logger.emit({
        timestamp: hr(T + 7n),
        severityNumber: SeverityNumber.WARN,
        severityText: 'WARN',
        body: 'slow',
        attributes: { ms: 1.5 },
      });
    });
    to = nowNs();
  });

  it('stores one row per record in otel_logs, resource and scope as tags, attributes as fields', async () => {
    const stored = await rows('otel_logs', 'time', ['observed_time_unix_nano']);
    for (const r of stored) {
      const observed = r.observed_time_unix_nano as bigint;
      expect(observed >= from && observed <= to).toBe(true);
      delete r.observed_time_unix_nano;
    }
    const tags = (service: string, severity: string) => ({
      'host.name': 'h1',
      'otel.scope.name': 'shop-logs',
      'otel.scope.version': '1.0.0',
      'service.name': service,
      severity_text: severity,
    });
    const none = { attempt: null, ok: null, user: null, ms: null, trace_id: null, span_id: null, flags: null };
    expect(stored).toEqual([
      {
        ...none,
        time: T,
        ...tags('shop', 'INFO'),
        body: 'started',
        severity_number: 9,
        user: 'u1',
        attempt: '2',
        ok: 'true',
      },
      { ...none, time: T + 1n, ...tags('shop', 'INFO'), body: 'second', severity_number: 9 },
      {
        ...none,
        time: T + 2n,
        ...tags('shop', 'INFO'),
        body: 'started',
        severity_number: 9,
        user: 'u1',
        attempt: '2',
        ok: 'true',
      },
      {
        ...none,
        time: T + 5n,
        ...tags('shop', 'ERROR'),
        body: '{"code":500,"reason":"boom"}',
        severity_number: 17,
        trace_id: traceId,
        span_id: spanId,
        flags: 1,
      },
      { ...none, time: T + 7n, ...tags('billing', 'WARN'), body: 'slow', severity_number: 13, ms: '1.5' },
    ]);
  });
});

describe('POST /v1/logs sent twice', () => {
  it('stores a retried export once', async () => {
    const T = otlpTypes().ExportLogsServiceRequest;
    const body = T.encode(
      T.fromObject({
        resourceLogs: [
          {
            scopeLogs: [
              {
                logRecords: [
                  {
                    timeUnixNano: '1800000000000000001',
                    observedTimeUnixNano: '1800000000000000002',
                    body: { stringValue: 'once' },
                  },
                ],
              },
            ],
          },
        ],
      }),
    ).finish();
    for (let i = 0; i < 2; i++) {
      const r = await http(server.url, '/v1/logs', {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/x-protobuf', table: 'retried' },
      });
      expect([r.status, r.body.length]).toEqual([200, 0]);
    }
    expect(await rows('retried', 'time', ['observed_time_unix_nano'])).toEqual([
      {
        time: 1_800_000_000_000_000_001n,
        observed_time_unix_nano: 1_800_000_000_000_000_002n,
        severity_text: '',
        body: 'once',
        severity_number: 0,
      },
    ]);
  });
});

describe('POST /v1/traces from the OpenTelemetry tracing SDK', () => {
  async function send(exporter: SpanExporter, service: string, name: string): Promise<string> {
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': service }),
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const span = provider
      .getTracer('web', '3.0.0')
      .startSpan(name, { kind: SpanKind.SERVER, attributes: { 'http.status_code': 200 } });
    span.end();
    await provider.forceFlush();
    await provider.shutdown();
    return span.spanContext().spanId;
  }

  it('stores spans in otel_traces without a table header, and in the named table with one', async () => {
    const protoSpan = await send(new ProtoTraceExporter({ url: `${server.url}/v1/traces`, headers }), 'front', 'GET /');
    const jsonSpan = await send(
      new JsonTraceExporter({ url: `${server.url}/v1/traces`, headers }),
      'front',
      'GET /json',
    );
    const namedSpan = await send(
      new JsonTraceExporter({ url: `${server.url}/v1/traces`, headers: { ...headers, table: 'my_spans' } }),
      'back',
      'POST /',
    );
    const SP = 'ResourceSpans/ScopeSpans/Span/';
    const read = async (table: string) =>
      (await rows(table, `"${SP}name"`)).map((r) => ({
        service: r['ResourceSpans/Resource/attributes/service.name'],
        scope: r['ResourceSpans/ScopeSpans/InstrumentationScope/name'],
        span: r[`${SP}span_id`],
        name: r[`${SP}name`],
        kind: r[`${SP}kind`],
        status: r[`${SP}attributes/http.status_code`],
      }));
    const row = (span: string, name: string, service = 'front') => ({
      service,
      scope: 'web',
      span,
      name,
      kind: 'SPAN_KIND_SERVER',
      status: '200',
    });
    expect(await read('otel_traces')).toEqual([row(protoSpan, 'GET /'), row(jsonSpan, 'GET /json')]);
    expect(await read('my_spans')).toEqual([row(namedSpan, 'POST /', 'back')]);
  });
});
