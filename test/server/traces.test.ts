// POST /api/v1/traces fed by the OpenTelemetry SDK through both official OTLP/HTTP exporters
// (protobuf and JSON), several resources and scopes, attributes of every type, events, links and
// statuses; then read back with SQL, through the Jaeger query API and, after the server stops,
// from its data directory. Rejected bodies get the right status and store nothing.

import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { otlpTypes } from '../../host/ingest/otlp-proto.js';
import { basic, http, type HttpResponse } from '../support/http.js';
import { readBack, type ReadBack } from '../support/read-back.js';
import { startServer, type TestServer } from '../support/server.js';

const SP = 'ResourceSpans/ScopeSpans/Span/';
const AUTH = basic('root', '');

interface Ids {
  checkoutTrace: string;
  rootSpan: string;
  childSpan: string;
  otherTrace: string;
  otherSpan: string;
  billingTrace: string;
}

/** Sends spans through a real exporter; resolves once they are exported. */
async function send(
  exporter: ProtoExporter | JsonExporter,
  service: string,
  build: (provider: BasicTracerProvider) => void,
): Promise<void> {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service, 'deployment.environment': 'test', 'host.cores': 8 }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  build(provider);
  await provider.forceFlush();
  await provider.shutdown();
}

let server: TestServer;
let stored: ReadBack;
let ids: Ids;
const api = new Map<string, HttpResponse>();
const rejected = new Map<string, HttpResponse>();
let sqlAnswer: HttpResponse;

const jaeger = (path: string, headers: Record<string, string> = { table: 'spans' }) =>
  http(server.url, path, { headers });

beforeAll(async () => {
  server = await startServer({ inProcess: true });
  const headers = { authorization: AUTH, table: 'spans', db: 'public' };
  const protoExporter = new ProtoExporter({ url: `${server.url}/api/v1/traces`, headers });
  await send(protoExporter, 'checkout', (provider) => {
    const http = provider.getTracer('http-server', '1.4.0');
    const db = provider.getTracer('db-client', '2.0.0');
    const other = http.startSpan('GET /health', { kind: SpanKind.SERVER, attributes: { 'only.on.health': 'yes' } });
    other.end();
    const root = http.startSpan('GET /cart', {
      kind: SpanKind.SERVER,
      attributes: {
        'http.method': 'GET',
        'http.status_code': 200,
        ratio: 0.5,
        cached: false,
        names: ['a', 'b'],
        codes: [1, 2],
        flags: [true, false],
      },
      links: [{ context: other.spanContext(), attributes: { reason: 'follows' } }],
    });
    const child: Span = db.startSpan(
      'SELECT cart',
      { kind: SpanKind.CLIENT, attributes: { 'db.system': 'postgresql' } },
      trace.setSpan(ROOT_CONTEXT, root),
    );
    child.addEvent('retry', { attempt: 2 });
    child.setStatus({ code: SpanStatusCode.ERROR, message: 'connection reset' });
    child.end();
    root.setStatus({ code: SpanStatusCode.OK });
    root.end();
    ids = {
      checkoutTrace: root.spanContext().traceId,
      rootSpan: root.spanContext().spanId,
      childSpan: child.spanContext().spanId,
      otherTrace: other.spanContext().traceId,
      otherSpan: other.spanContext().spanId,
      billingTrace: '',
    };
  });
  const jsonExporter = new JsonExporter({ url: `${server.url}/api/v1/traces`, headers });
  await send(jsonExporter, 'billing', (provider) => {
    const span = provider
      .getTracer('billing-lib')
      .startSpan('charge', { kind: SpanKind.INTERNAL, attributes: { amount: 12.5 } });
    span.end();
    ids.billingTrace = span.spanContext().traceId;
  });

  for (const path of [
    '/api/services',
    '/api/services/checkout/operations',
    '/api/operations?service=checkout&spanKind=server',
    `/api/traces/${ids.checkoutTrace}`,
    `/api/traces/${ids.checkoutTrace.toUpperCase()}`,
    '/api/traces?service=checkout&limit=20',
    '/api/traces?service=checkout&tags=%7B%22db.system%22%3A%22postgresql%22%7D',
    '/api/traces?service=checkout&minDuration=1h',
    `/api/traces?traceID=${ids.billingTrace}`,
    '/api/traces/0123456789abcdef0123456789abcdef',
    '/api/traces/not-hex',
    '/api/traces?service=checkout&minDuration=soon',
  ]) {
    api.set(path, await jaeger(path));
  }
  sqlAnswer = await http(server.url, '/api/v1/sql', {
    method: 'POST',
    headers: { accept: 'application/json' },
    body: `SELECT "${SP}name" AS name, "${SP}kind" AS kind, "${SP}parent_span_id" = '' AS root, "${SP}Status/code" AS status,
             "ResourceSpans/Resource/attributes/service.name" AS service, "${SP}Event_0/name" AS event,
             abs("${SP}duration_nano" - ("${SP}end_time_unix_nano" - CAST(CAST(time AS BIGINT) AS DOUBLE))) < 1000 AS duration_ok
           FROM spans ORDER BY name`,
  });
  api.set('no table', await jaeger('/api/services', {}));
  api.set('unknown table', await jaeger('/api/services', { table: 'nope' }));

  const valid = otlpTypes()
    .ExportTraceServiceRequest.encode(
      otlpTypes().ExportTraceServiceRequest.fromObject({
        resourceSpans: [
          {
            scopeSpans: [
              { spans: [{ traceId: Buffer.alloc(16, 1), spanId: Buffer.alloc(8, 2), name: 'x'.repeat(100) }] },
            ],
          },
        ],
      }),
    )
    .finish();
  const post = (
    table: string,
    body: Uint8Array | string,
    contentType: string | undefined,
    extra: Record<string, string> = {},
  ) =>
    http(server.url, '/api/v1/traces', {
      method: 'POST',
      body,
      headers: { ...(contentType ? { 'content-type': contentType } : {}), table, ...extra },
    });
  rejected.set(
    'a truncated protobuf',
    await post('bad1', valid.subarray(0, valid.length - 20), 'application/x-protobuf'),
  );
  rejected.set('a wrong content type', await post('bad2', valid, 'text/plain'));
  rejected.set('no content type', await post('bad3', valid, undefined));
  rejected.set('JSON that is not an object', await post('bad4', '[1]', 'application/json'));
  rejected.set(
    'a hex id that is not hex',
    await post('bad5', '{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"zz"}]}]}]}', 'application/json'),
  );
  rejected.set(
    'a missing table',
    await http(server.url, '/api/v1/traces', {
      method: 'POST',
      body: valid,
      headers: { 'content-type': 'application/x-protobuf' },
    }),
  );
  rejected.set('an unknown database', await post('bad6', valid, 'application/x-protobuf', { db: 'nope' }));
  expect(await server.stop()).toBe(0);
  stored = await readBack(server.dataDir);
});

afterAll(async () => {
  await stored?.close();
  server?.cleanup();
});

type Trace = {
  traceID: string;
  spans: Array<Record<string, unknown> & { spanID: string; tags: Array<{ key: string; value: unknown }> }>;
  processes: Record<string, { serviceName: string; tags: unknown[] }>;
};
const data = <T>(path: string): T => (JSON.parse(api.get(path)!.text) as { data: T }).data;

describe('POST /api/v1/traces', () => {
  it('stored one row per span with CnosDB column names', async () => {
    const rows = await stored.rows('spans');
    expect(rows).toHaveLength(4);
    const root = rows.find((r) => r[`${SP}span_id`] === ids.rootSpan)!;
    expect(root).toMatchObject({
      'ResourceSpans/Resource/attributes/service.name': 'checkout',
      'ResourceSpans/Resource/attributes/deployment.environment': 'test',
      'ResourceSpans/Resource/attributes/host.cores': '8',
      'ResourceSpans/ScopeSpans/InstrumentationScope/name': 'http-server',
      'ResourceSpans/ScopeSpans/InstrumentationScope/version': '1.4.0',
      [`${SP}trace_id`]: ids.checkoutTrace,
      [`${SP}parent_span_id`]: '',
      [`${SP}name`]: 'GET /cart',
      [`${SP}kind`]: 'SPAN_KIND_SERVER',
      [`${SP}Status/code`]: 'STATUS_CODE_OK',
      [`${SP}attributes/http.method`]: 'GET',
      [`${SP}attributes/http.status_code`]: '200',
      [`${SP}attributes/ratio`]: '0.5',
      [`${SP}attributes/cached`]: 'false',
      [`${SP}attributes/names`]: '["a","b"]',
      [`${SP}attributes/codes`]: '[1,2]',
      [`${SP}attributes/flags`]: '[true,false]',
      [`${SP}Link_0/trace_id`]: ids.otherTrace,
      [`${SP}Link_0/span_id`]: ids.otherSpan,
      [`${SP}Link_0/attributes/reason`]: 'follows',
    });
    expect(typeof root[`${SP}duration_nano`]).toBe('number');
    const child = rows.find((r) => r[`${SP}span_id`] === ids.childSpan)!;
    expect(child).toMatchObject({
      [`${SP}parent_span_id`]: ids.rootSpan,
      'ResourceSpans/ScopeSpans/InstrumentationScope/name': 'db-client',
      [`${SP}kind`]: 'SPAN_KIND_CLIENT',
      [`${SP}Status/code`]: 'STATUS_CODE_ERROR',
      [`${SP}Status/message`]: 'connection reset',
      [`${SP}Event_0/name`]: 'retry',
      [`${SP}Event_0/attributes/attempt`]: '2',
    });
    const billing = rows.find((r) => r[`${SP}trace_id`] === ids.billingTrace)!;
    expect(billing).toMatchObject({
      'ResourceSpans/Resource/attributes/service.name': 'billing',
      [`${SP}attributes/amount`]: '12.5',
      [`${SP}kind`]: 'SPAN_KIND_INTERNAL',
    });
  });

  it('reads the spans back with SQL', () => {
    expect(sqlAnswer.status).toBe(200);
    expect(JSON.parse(sqlAnswer.text)).toEqual([
      {
        name: 'GET /cart',
        kind: 'SPAN_KIND_SERVER',
        root: true,
        status: 'STATUS_CODE_OK',
        service: 'checkout',
        event: null,
        duration_ok: true,
      },
      {
        name: 'GET /health',
        kind: 'SPAN_KIND_SERVER',
        root: true,
        status: 'STATUS_CODE_UNSET',
        service: 'checkout',
        event: null,
        duration_ok: true,
      },
      {
        name: 'SELECT cart',
        kind: 'SPAN_KIND_CLIENT',
        root: false,
        status: 'STATUS_CODE_ERROR',
        service: 'checkout',
        event: 'retry',
        duration_ok: true,
      },
      {
        name: 'charge',
        kind: 'SPAN_KIND_INTERNAL',
        root: true,
        status: 'STATUS_CODE_UNSET',
        service: 'billing',
        event: null,
        duration_ok: true,
      },
    ]);
  });

  it("does not leak one span's attributes into another", async () => {
    for (const r of await stored.rows('spans')) {
      const name = r[`${SP}name`];
      const attrs = Object.keys(r).filter(
        (k) => k.startsWith(`${SP}attributes/`) || k.startsWith(`${SP}Event_`) || k.startsWith(`${SP}Link_`),
      );
      if (name === 'GET /health') expect(attrs).toEqual([`${SP}attributes/only.on.health`]);
      if (name === 'SELECT cart')
        expect(attrs.every((a) => a.includes('db.system') || a.includes('Event_0'))).toBe(true);
      if (name === 'charge') expect(attrs).toEqual([`${SP}attributes/amount`]);
    }
  });

  const statuses: Array<[string, number, string]> = [
    ['a truncated protobuf', 400, '040017'],
    ['a wrong content type', 400, '040005'],
    ['no content type', 400, '040005'],
    ['JSON that is not an object', 400, '040017'],
    ['a hex id that is not hex', 400, '040017'],
    ['a missing table', 400, '040016'],
    ['an unknown database', 422, '030017'],
  ];
  for (const [name, status, code] of statuses) {
    it(`rejects ${name} with ${status} ${code} and stores nothing`, () => {
      const r = rejected.get(name)!;
      expect([r.status, r.headers['x-sundial-error-code']]).toEqual([status, code]);
      expect((JSON.parse(r.text) as { error_code: string }).error_code).toBe(code);
      for (const t of ['bad1', 'bad2', 'bad3', 'bad4', 'bad5', 'bad6'])
        expect(stored.storage.catalog.database('cnosdb', 'public')!.tables.has(t)).toBe(false);
    });
  }
});

describe('Jaeger query API', () => {
  it('lists services and operations', () => {
    expect(api.get('/api/services')!.text).toBe(
      '{"data":["billing","checkout"],"total":2,"limit":0,"offset":0,"errors":null}',
    );
    expect(data('/api/services/checkout/operations')).toEqual(['GET /cart', 'GET /health', 'SELECT cart']);
    expect(data('/api/operations?service=checkout&spanKind=server')).toEqual([
      { name: 'GET /cart', spanKind: 'server' },
      { name: 'GET /health', spanKind: 'server' },
    ]);
  });

  it('returns a whole trace by id, in any case', () => {
    const [t] = data<Trace[]>(`/api/traces/${ids.checkoutTrace}`);
    expect(data(`/api/traces/${ids.checkoutTrace.toUpperCase()}`)).toEqual([t]);
    expect(t!.traceID).toBe(ids.checkoutTrace);
    expect(t!.spans.map((s) => s.spanID).sort()).toEqual([ids.rootSpan, ids.childSpan].sort());
    const root = t!.spans.find((s) => s.spanID === ids.rootSpan);
    const child = t!.spans.find((s) => s.spanID === ids.childSpan);
    expect(root).toMatchObject({
      operationName: 'GET /cart',
      references: [{ refType: 'FOLLOWS_FROM', traceID: ids.otherTrace, spanID: ids.otherSpan }],
      processID: 'p1',
    });
    expect(child!.references).toEqual([{ refType: 'CHILD_OF', traceID: ids.checkoutTrace, spanID: ids.rootSpan }]);
    expect(child!.tags).toEqual(
      expect.arrayContaining([
        { key: 'db.system', type: 'string', value: 'postgresql' },
        { key: 'span.kind', type: 'string', value: 'client' },
        { key: 'otel.status_code', type: 'string', value: 'ERROR' },
        { key: 'error', type: 'bool', value: true },
        { key: 'otel.status_description', type: 'string', value: 'connection reset' },
        { key: 'otel.scope.name', type: 'string', value: 'db-client' },
      ]),
    );
    expect(child!.logs).toEqual([
      {
        timestamp: expect.any(Number),
        fields: [
          { key: 'event', type: 'string', value: 'retry' },
          { key: 'attempt', type: 'int64', value: 2 },
        ],
      },
    ]);
    expect(t!.processes.p1).toEqual({
      serviceName: 'checkout',
      tags: [
        { key: 'deployment.environment', type: 'string', value: 'test' },
        { key: 'host.cores', type: 'int64', value: 8 },
      ],
    });
  });

  it('searches by service, tags, duration and trace ids', () => {
    expect(
      data<Trace[]>('/api/traces?service=checkout&limit=20')
        .map((t) => t.traceID)
        .sort(),
    ).toEqual([ids.checkoutTrace, ids.otherTrace].sort());
    const byTag = data<Trace[]>('/api/traces?service=checkout&tags=%7B%22db.system%22%3A%22postgresql%22%7D');
    expect(byTag.map((t) => [t.traceID, t.spans.length])).toEqual([[ids.checkoutTrace, 2]]);
    expect(data('/api/traces?service=checkout&minDuration=1h')).toEqual([]);
    expect(data<Trace[]>(`/api/traces?traceID=${ids.billingTrace}`).map((t) => t.processes.p1!.serviceName)).toEqual([
      'billing',
    ]);
  });

  it("answers a missing trace with jaeger-query's 404", () => {
    const r = api.get('/api/traces/0123456789abcdef0123456789abcdef')!;
    expect([r.status, r.text]).toEqual([
      404,
      '{"data":null,"total":0,"limit":0,"offset":0,"errors":[{"code":404,"msg":"trace not found"}]}',
    ]);
  });

  it('rejects bad parameters and unknown tables', () => {
    const code = (k: string) => [api.get(k)!.status, api.get(k)!.headers['x-sundial-error-code']];
    expect(code('/api/traces/not-hex')).toEqual([400, '040001']);
    expect(code('/api/traces?service=checkout&minDuration=soon')).toEqual([400, '040001']);
    expect(code('no table')).toEqual([400, '040016']);
    expect(code('unknown table')).toEqual([422, '030019']);
  });
});
