// The Jaeger query API as jaeger-query answers: tags typed as their OTLP attribute values were,
// every duration Go's time.ParseDuration accepts (minDuration=0 among them), errors in Jaeger's
// envelope, and /api/dependencies. Spans are written as OTLP/JSON with known ids and durations.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, type HttpOptions, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;

const T0 = 1_800_000_000_000_000_000n;
const TRACE_A = 'a'.repeat(32);
const TRACE_B = 'b'.repeat(32);
const str = (key: string, v: string) => ({ key, value: { stringValue: v } });

/** A span of `service` starting `startUs` µs after T0 and lasting `durationUs` µs. */
function span(
  traceId: string,
  spanId: string,
  parentSpanId: string,
  name: string,
  startUs: number,
  durationUs: number,
  attributes: object[] = [],
): object {
  const start = T0 + BigInt(startUs) * 1000n;
  return {
    traceId,
    spanId,
    parentSpanId,
    name,
    kind: 2,
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + BigInt(durationUs) * 1000n),
    attributes,
  };
}

function resource(service: string, spans: object[], extra: object[] = []): object {
  return {
    resource: { attributes: [str('service.name', service), ...extra] },
    scopeSpans: [{ scope: { name: 'lib' }, spans }],
  };
}

const jaeger = (path: string, options: HttpOptions = {}): Promise<HttpResponse> =>
  http(server.url, path, { ...options, headers: { table: 'spans', ...options.headers } });
const data = async <T>(path: string): Promise<T> => {
  const r = await jaeger(path);
  expect(r.status, r.text).toBe(200);
  return (JSON.parse(r.text) as { data: T }).data;
};

beforeAll(async () => {
  server = await startServer({ inProcess: true });
  const body = {
    resourceSpans: [
      resource(
        'frontend',
        [
          span(TRACE_A, '01'.repeat(8), '', 'GET /', 0, 2000, [
            { key: 'http.status_code', value: { intValue: '200' } },
            { key: 'ratio', value: { doubleValue: 0.5 } },
            { key: 'cached', value: { boolValue: false } },
            { key: 'payload', value: { bytesValue: 'AQI=' } },
            { key: 'names', value: { arrayValue: { values: [{ stringValue: 'a' }] } } },
            str('zip', '02134'),
          ]),
          span(TRACE_B, '05'.repeat(8), '', 'GET /quick', 10, 100),
        ],
        [{ key: 'host.cores', value: { intValue: '8' } }],
      ),
      resource('backend', [
        span(TRACE_A, '02'.repeat(8), '01'.repeat(8), 'handle', 100, 1000),
        span(TRACE_A, '03'.repeat(8), '02'.repeat(8), 'render', 200, 500),
      ]),
      resource('db', [span(TRACE_A, '04'.repeat(8), '02'.repeat(8), 'SELECT', 300, 0)]),
    ],
  };
  const r = await http(server.url, '/api/v1/traces', {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', table: 'spans' },
  });
  expect(r.status, r.text).toBe(200);
});

afterAll(async () => {
  await server?.stop();
  server?.cleanup();
});

type Tag = { key: string; type: string; value: unknown };
type Trace = {
  traceID: string;
  spans: Array<{ spanID: string; tags: Tag[] }>;
  processes: Record<string, { serviceName: string; tags: Tag[] }>;
};

describe('Jaeger tags', () => {
  it('types attribute tags as Jaeger does: int64, float64, bool, binary, else string', async () => {
    const [trace] = await data<Trace[]>(`/api/traces/${TRACE_A}`);
    const root = trace!.spans.find((s) => s.spanID === '01'.repeat(8))!;
    expect(root.tags).toEqual(
      expect.arrayContaining([
        { key: 'http.status_code', type: 'int64', value: 200 },
        { key: 'ratio', type: 'float64', value: 0.5 },
        { key: 'cached', type: 'bool', value: false },
        { key: 'payload', type: 'binary', value: 'AQI=' },
        { key: 'names', type: 'string', value: '["a"]' },
        { key: 'zip', type: 'string', value: '02134' },
      ]),
    );
    const frontend = Object.values(trace!.processes).find((p) => p.serviceName === 'frontend')!;
    expect(frontend.tags).toEqual([{ key: 'host.cores', type: 'int64', value: 8 }]);
    // A typed tag still matches a search by its text.
    expect(
      (await data<Trace[]>('/api/traces?service=frontend&tags=%7B%22http.status_code%22%3A%22200%22%7D')).map(
        (t) => t.traceID,
      ),
    ).toEqual([TRACE_A]);
  });
});

describe('Jaeger durations', () => {
  // Trace A's spans last 2 ms, 1 ms, 500 µs and 0; trace B's one span 100 µs.
  const cases: Array<[string, string[]]> = [
    ['0', [TRACE_A, TRACE_B]],
    ['+0', [TRACE_A, TRACE_B]],
    ['-1s', [TRACE_A, TRACE_B]],
    ['0s', [TRACE_A, TRACE_B]],
    ['100us', [TRACE_A, TRACE_B]],
    ['101\u00b5s', [TRACE_A]],
    ['101\u03bcs', [TRACE_A]],
    ['100000ns', [TRACE_A, TRACE_B]],
    ['.5ms', [TRACE_A]],
    ['1.5ms', [TRACE_A]],
    ['2.ms', [TRACE_A]],
    ['0.002s', [TRACE_A]],
    ['2001us', []],
    ['1h30m', []],
    ['1m0.5s', []],
    ['', [TRACE_A, TRACE_B]],
  ];
  for (const [minDuration, traces] of cases) {
    it(`minDuration=${JSON.stringify(minDuration)} finds ${traces.length} traces`, async () => {
      const found = await data<Trace[]>(`/api/traces?service=frontend&minDuration=${encodeURIComponent(minDuration)}`);
      // Any span of a trace of the service may match the duration.
      expect(found.map((t) => t.traceID).sort()).toEqual([...traces].sort());
    });
  }

  it('takes maxDuration the same way', async () => {
    // Spans of the service only: trace A's frontend span lasts 2 ms.
    expect(await data('/api/traces?service=frontend&maxDuration=0')).toEqual([]);
    expect((await data<Trace[]>('/api/traces?service=frontend&maxDuration=1999us')).map((t) => t.traceID)).toEqual([
      TRACE_B,
    ]);
    expect((await data<Trace[]>('/api/traces?service=frontend&maxDuration=2ms')).map((t) => t.traceID).sort()).toEqual([
      TRACE_A,
      TRACE_B,
    ]);
    expect(
      (await data<Trace[]>('/api/traces?service=frontend&minDuration=50us&maxDuration=150us')).map((t) => t.traceID),
    ).toEqual([TRACE_B]);
  });

  for (const bad of ['1', 'soon', '.s', '1d', '5 s', '1.5', '-', '9223372037s']) {
    it(`refuses minDuration=${JSON.stringify(bad)} in Jaeger's error envelope`, async () => {
      const r = await jaeger(`/api/traces?service=frontend&minDuration=${encodeURIComponent(bad)}`);
      expect([r.status, r.headers['content-type'], r.headers['x-sundial-error-code']]).toEqual([
        400,
        'application/json',
        '040001',
      ]);
      expect(JSON.parse(r.text)).toEqual({
        data: null,
        total: 0,
        limit: 0,
        offset: 0,
        errors: [{ code: 400, msg: `invalid minDuration '${bad}': want a Go duration such as 1.5s, 100ms or 1h30m` }],
      });
    });
  }
});

describe("Jaeger's error envelope", () => {
  const cases: Array<[string, string, HttpOptions, number, string]> = [
    [
      'a trace id that is not hex',
      '/api/traces/not-hex',
      {},
      400,
      "invalid trace id 'not-hex': want up to 32 hex digits",
    ],
    ['no credentials', '/api/services', { auth: null }, 401, 'missing Authorization header (want Basic credentials)'],
    ['an unknown table', '/api/services', { headers: { table: 'nope' } }, 422, ''],
    ['a missing service', '/api/operations', {}, 400, "the 'service' parameter is required"],
    ['a bad endTs', '/api/dependencies?endTs=soon', {}, 400, "invalid endTs 'soon': want an integer"],
  ];
  for (const [name, path, options, status, msg] of cases) {
    it(`answers ${name} with ${status} and errors[]`, async () => {
      const r = await jaeger(path, options);
      expect(r.status, r.text).toBe(status);
      const body = JSON.parse(r.text) as { data: unknown; errors: Array<{ code: number; msg: string }> };
      expect(body).toEqual({
        data: null,
        total: 0,
        limit: 0,
        offset: 0,
        errors: [{ code: status, msg: msg === '' ? r.headers['x-sundial-error'] : msg }],
      });
      if (msg === '') expect(r.headers['x-sundial-error-code']).toBe('030019');
    });
  }
});

describe('GET /api/dependencies', () => {
  const endMs = Number(T0 / 1_000_000n) + 1;
  it('links services whose spans are parent and child, counting the calls', async () => {
    expect(await data(`/api/dependencies?endTs=${endMs}&lookback=60000`)).toEqual([
      { parent: 'backend', child: 'db', callCount: 1 },
      { parent: 'frontend', child: 'backend', callCount: 1 },
    ]);
  });

  it('reads only the spans of the window', async () => {
    expect(await data(`/api/dependencies?endTs=${endMs - 2}&lookback=60000`)).toEqual([]);
    expect(await data('/api/dependencies')).toEqual([]);
  });
});
