// Lookups by tag value over many series, as SQL and the Jaeger API send them: `tag = 'v'` and
// `tag IN (...)` find their series in an index of the tag's values once the same series list is
// asked twice (storage/series-list.ts seriesWithTags). The answers must be those of a plain
// test of every series, on the first query of a list and after, and follow new series.

import { ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, http, writeLp, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ inProcess: true });
});

afterAll(async () => {
  await server.stop();
});

const sql = (text: string): Promise<HttpResponse> =>
  http(server.url, '/api/v1/sql?db=public', { body: text, headers: { accept: 'application/json' } });

/** Series h0..h(n-1) from `from`, rack r(i % 7) except every eleventh, two rows each. */
function lines(from: number, n: number): string {
  const out: string[] = [];
  for (let i = from; i < from + n; i++) {
    const tags = i % 11 === 0 ? `host=h${i}` : `host=h${i},rack=r${i % 7}`;
    out.push(`m,${tags} v=${i} ${1_000 + i}`, `m,${tags} v=${i + 0.5} ${2_000 + i}`);
  }
  return out.join('\n');
}

/** What the table holds for hosts `from`..`to`-1 that pass `keep`, as `SELECT host, time, v ... ORDER BY host, time` answers. */
function expected(to: number, keep: (i: number) => boolean): Array<{ host: string; v: number }> {
  const out: Array<{ host: string; v: number }> = [];
  for (let i = 0; i < to; i++) if (keep(i)) out.push({ host: `h${i}`, v: i }, { host: `h${i}`, v: i + 0.5 });
  return out.sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : a.v - b.v));
}

describe('SQL lookups by tag value', () => {
  it('answer as a test of every series would, query after query and after new series', async () => {
    expect((await writeLp(server.url, lines(0, 400), '?db=public&precision=ns')).status).toBe(200);
    let written = 400;
    const rack = (i: number): string | undefined => (i % 11 === 0 ? undefined : `r${i % 7}`);
    const cases: Array<{ where: string; keep: (i: number) => boolean }> = [
      { where: "rack = 'r3'", keep: (i) => rack(i) === 'r3' },
      { where: "rack IN ('r5', 'r1', 'nope')", keep: (i) => rack(i) === 'r5' || rack(i) === 'r1' },
      { where: "host = 'h12'", keep: (i) => i === 12 },
      { where: "host IN ('h12', 'h13') AND rack = 'r6'", keep: (i) => i === 13 },
      { where: "rack = 'nope'", keep: () => false },
      { where: "'r2' = rack AND host != 'h2'", keep: (i) => rack(i) === 'r2' && i !== 2 },
    ];
    for (let round = 0; round < 2; round++) {
      for (const c of cases) {
        const want = expected(written, c.keep);
        for (let k = 0; k < 3; k++) {
          const r = await sql(`SELECT host, v FROM m WHERE ${c.where} ORDER BY host, time`);
          expect(r.status, r.text).toBe(200);
          expect(JSON.parse(r.text)).toEqual(want);
          const n = await sql(`SELECT count(v) AS n FROM m WHERE ${c.where}`);
          expect(JSON.parse(n.text)).toEqual([{ n: want.length }]);
        }
      }
      // New series, some in the racks asked for: the next list has them, and its own index.
      expect((await writeLp(server.url, lines(written, 50), '?db=public&precision=ns')).status).toBe(200);
      written += 50;
    }
  });
});

describe('Jaeger lookups by trace id', () => {
  it('find every span of a trace among 320, lookup after lookup', async () => {
    const exporter = new OTLPTraceExporter({
      url: `${server.url}/api/v1/traces`,
      headers: { authorization: basic('root', ''), table: 'spans', db: 'public' },
    });
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'shop' }),
      spanProcessors: [new BatchSpanProcessor(exporter, { maxExportBatchSize: 512, maxQueueSize: 1024 })],
    });
    const tracer = provider.getTracer('lookups');
    const traces = new Map<string, string[]>();
    for (let t = 0; t < 64; t++) {
      const root = tracer.startSpan(`GET /item/${t % 4}`, { kind: SpanKind.SERVER });
      const spans = [root.spanContext().spanId];
      const ctx = trace.setSpan(ROOT_CONTEXT, root);
      for (let c = 0; c < 4; c++) {
        const child = tracer.startSpan(`db ${c}`, { kind: SpanKind.CLIENT }, ctx);
        spans.push(child.spanContext().spanId);
        child.end();
      }
      root.end();
      traces.set(root.spanContext().traceId, spans.sort());
    }
    await provider.forceFlush();
    await provider.shutdown();
    const ids = [...traces.keys()];
    const jaeger = (path: string): Promise<HttpResponse> => http(server.url, path, { headers: { table: 'spans' } });
    for (let k = 0; k < 3; k++) {
      for (const id of [ids[0]!, ids[17]!, ids[63]!]) {
        const r = await jaeger(`/api/traces/${id}`);
        expect(r.status, r.text).toBe(200);
        const data = JSON.parse(r.text).data as Array<{ traceID: string; spans: Array<{ spanID: string }> }>;
        expect(data.map((t) => t.traceID)).toEqual([id]);
        expect(data[0]!.spans.map((s) => s.spanID).sort()).toEqual(traces.get(id));
      }
      const both = await jaeger(`/api/traces?traceID=${ids[5]},${ids[40]}`);
      const data = JSON.parse(both.text).data as Array<{ traceID: string; spans: unknown[] }>;
      expect(data.map((t) => t.traceID).sort()).toEqual([ids[5], ids[40]].sort());
      expect(data.map((t) => t.spans.length)).toEqual([5, 5]);
      expect((await jaeger('/api/traces/0123456789abcdef0123456789abcdef')).status).toBe(404);
      const ops = JSON.parse((await jaeger('/api/services/shop/operations')).text).data as string[];
      expect([...ops].sort()).toEqual([
        'GET /item/0',
        'GET /item/1',
        'GET /item/2',
        'GET /item/3',
        'db 0',
        'db 1',
        'db 2',
        'db 3',
      ]);
    }
  });
});
