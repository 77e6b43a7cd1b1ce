// `ingest.parse_workers`: span, log, OpenTSDB JSON and Prometheus bodies parsed in worker threads
// (host/node/parse-pool.ts) or in the server's thread (0). Both give the same answers: every
// rejected body the same status, code, message and body, storing nothing; accepted bodies
// round-trip through SQL. A worker that dies fails only its own request, with 500, and is
// replaced; shutdown stops the workers.

import { compressSync } from 'snappy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOKI_PUSH_REQUEST } from '../../host/ingest/loki-push.js';
import { otlpTypes } from '../../host/ingest/otlp-proto.js';
import { PROM_TYPES } from '../../host/ingest/prometheus-remote.js';
import { http, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

const T0 = 1_706_702_400_000_000_000n;

function otlpBody(table: string): { path: string; headers: Record<string, string>; body: Buffer } {
  const T = otlpTypes().ExportTraceServiceRequest;
  const span = (i: number) => ({
    traceId: Buffer.alloc(16, 1),
    spanId: Buffer.alloc(8, i + 1),
    name: `op-${i}`,
    kind: 2,
    startTimeUnixNano: String(T0 + BigInt(i)),
    endTimeUnixNano: String(T0 + BigInt(i) + 1000n),
    attributes: [{ key: 'n', value: { intValue: i } }],
  });
  const message = T.fromObject({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'shop' } }] },
        scopeSpans: [{ spans: [0, 1, 2].map(span) }],
      },
    ],
  });
  return {
    path: '/api/v1/traces',
    headers: { 'content-type': 'application/x-protobuf', table },
    body: Buffer.from(T.encode(message).finish()),
  };
}

const NDJSON = '{"time":"2024-01-31T12:00:00Z","host":"a","v":1}\n{"time":"2024-01-31T12:00:01Z","host":"b","v":2}\n';

function lokiProtobuf(): Buffer {
  const m = LOKI_PUSH_REQUEST.fromObject({
    streams: [{ labels: '{job="varlogs"}', entries: [{ timestamp: { seconds: 1706702400, nanos: 5 }, line: 'boot' }] }],
  });
  return Buffer.from(LOKI_PUSH_REQUEST.encode(m).finish());
}

function promBody(): Buffer {
  const m = PROM_TYPES.WriteRequest.fromObject({
    timeseries: [
      {
        labels: [
          { name: '__name__', value: 'pw_prom' },
          { name: 'job', value: 'x' },
        ],
        samples: [{ value: 1.5, timestamp: 1706702400000 }],
      },
    ],
  });
  return compressSync(Buffer.from(PROM_TYPES.WriteRequest.encode(m).finish()));
}

/**
 * `rows` lines of line protocol into `table`, past the 64 KiB from which a parse worker scans it
 * (host/server/routes/write.ts); line `bad` (1-based), when given, has a field value that does not parse.
 */
function lineProtocol(table: string, rows: number, bad?: number): string {
  const lines: string[] = [];
  for (let i = 1; i <= rows; i++)
    lines.push(
      `${table},host=host_${i % 100},region=eu-west-1 usage_user=${i === bad ? '12x' : `${i}i`},usage_idle=${i / 8} ${T0 + BigInt(i)}`,
    );
  return lines.join('\n') + '\n';
}

interface Send {
  path: string;
  headers?: Record<string, string>;
  body: string | Buffer;
}

/** One body of every format the workers parse, each into a table of its own. */
const ACCEPTED: Array<{ name: string; send: Send; table: string; count: number; status?: number }> = [
  { name: 'OTLP protobuf spans', send: otlpBody('pw_spans'), table: 'pw_spans', count: 3 },
  {
    name: 'OTLP JSON spans',
    send: {
      path: '/api/v1/traces',
      headers: { 'content-type': 'application/json', table: 'pw_spans_json' },
      body: '{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0102","spanId":"03","name":"a","startTimeUnixNano":"1706702400000000000"}]}]}]}',
    },
    table: 'pw_spans_json',
    count: 1,
  },
  {
    name: 'Elasticsearch bulk',
    send: {
      path: '/api/v1/es/_bulk?table=pw_bulk&tag_columns=host',
      body: `{"create":{}}\n${NDJSON.split('\n')[0]}\n{"index":{}}\n${NDJSON.split('\n')[1]}\n`,
    },
    table: 'pw_bulk',
    count: 2,
  },
  {
    name: 'NDJSON',
    send: { path: '/api/v1/es/_bulk?table=pw_nd&log_type=ndjson&tag_columns=host', body: NDJSON },
    table: 'pw_nd',
    count: 2,
  },
  {
    name: 'Loki JSON',
    send: {
      path: '/api/v1/es/_bulk?table=pw_loki&log_type=loki',
      headers: { 'content-type': 'application/json' },
      body: '{"streams":[{"stream":{"job":"a"},"values":[["1706702400000000001","x"]]}]}',
    },
    table: 'pw_loki',
    count: 1,
  },
  {
    name: 'Loki protobuf',
    send: {
      path: '/api/v1/es/_bulk?table=pw_loki_pb&log_type=loki',
      headers: { 'content-type': 'application/x-protobuf' },
      body: compressSync(lokiProtobuf()),
    },
    table: 'pw_loki_pb',
    count: 1,
  },
  {
    name: 'OpenTSDB JSON',
    send: {
      path: '/api/v1/opentsdb/put',
      body: '[{"metric":"pw_tsdb","timestamp":1706702400,"value":1,"tags":{"h":"a"}},{"metric":"pw_tsdb","timestamp":1706702401,"value":2,"tags":{"h":"a"}}]',
    },
    table: 'pw_tsdb',
    count: 2,
  },
  {
    name: 'Prometheus remote write',
    send: {
      path: '/api/v1/prom/write',
      headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy' },
      body: promBody(),
    },
    table: 'pw_prom',
    count: 1,
  },
  {
    name: 'line protocol of 2,000 lines',
    send: { path: '/api/v1/write?db=public', body: lineProtocol('pw_lp', 2000) },
    table: 'pw_lp',
    count: 2000,
  },
  {
    name: "line protocol of 2,000 lines through InfluxDB's /write",
    send: { path: '/write?db=public', body: lineProtocol('pw_lp_influx', 2000) },
    table: 'pw_lp_influx',
    count: 2000,
    status: 204,
  },
];

interface Rejected {
  name: string;
  send: Send;
  table: string;
  status: number;
  code: string;
  message: string | RegExp;
}

const truncatedSpans = otlpBody('bad_otlp').body;
const deepValue = '{"arrayValue":{"values":['.repeat(70) + '{"stringValue":"x"}' + ']}}'.repeat(70);

const REJECTED: Rejected[] = [
  {
    name: 'a truncated OTLP protobuf',
    send: { ...otlpBody('bad_otlp'), body: truncatedSpans.subarray(0, truncatedSpans.length - 9) },
    table: 'bad_otlp',
    status: 400,
    code: '040017',
    message: /^cannot decode the body as an OTLP ExportTraceServiceRequest: /,
  },
  {
    name: 'OTLP JSON that is not an object',
    send: { path: '/api/v1/traces', headers: { 'content-type': 'application/json', table: 'bad_json' }, body: '[1]' },
    table: 'bad_json',
    status: 400,
    code: '040017',
    message: 'an OTLP/JSON body is one ExportTraceServiceRequest object',
  },
  {
    name: 'an attribute nested past 64 levels',
    send: {
      path: '/api/v1/traces',
      headers: { 'content-type': 'application/json', table: 'bad_deep' },
      body: `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"01","spanId":"02","attributes":[{"key":"k","value":${deepValue}}]}]}]}]}`,
    },
    table: 'bad_deep',
    status: 400,
    code: '040017',
    message: 'the body is not an OTLP/JSON ExportTraceServiceRequest: maximum nesting depth exceeded',
  },
  {
    name: 'a bulk action without its document',
    send: { path: '/api/v1/es/_bulk?table=bad_bulk', body: '{"create":{}}\n{"v":1}\n{"create":{}}\n' },
    table: 'bad_bulk',
    status: 400,
    code: '040016',
    message: "line 3: the 'create' action has no document after it",
  },
  {
    name: 'an NDJSON null',
    send: { path: '/api/v1/es/_bulk?table=bad_null&log_type=ndjson', body: '{"a":1}\n{"a":null}\n' },
    table: 'bad_null',
    status: 400,
    code: '040016',
    message: "line 2: column 'a' is null; null values are not supported",
  },
  {
    name: 'an NDJSON time that does not parse',
    send: { path: '/api/v1/es/_bulk?table=bad_time&log_type=ndjson', body: '{"time":"31/01/2024","a":1}\n' },
    table: 'bad_time',
    status: 400,
    code: '040016',
    message: /^line 1: time column 'time': /,
  },
  {
    name: 'a type conflict within the request',
    send: { path: '/api/v1/es/_bulk?table=bad_conflict&log_type=ndjson', body: '{"a":1}\n{"a":"x"}\n' },
    table: 'bad_conflict',
    status: 422,
    code: '020010',
    message: "line 2: column 'a' of table 'bad_conflict' is DOUBLE in this request, written as STRING",
  },
  {
    name: 'invalid UTF-8 in NDJSON',
    send: {
      path: '/api/v1/es/_bulk?table=bad_utf8&log_type=ndjson',
      body: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]),
    },
    table: 'bad_utf8',
    status: 400,
    code: '040016',
    message: 'the body is not valid UTF-8',
  },
  {
    name: 'a truncated Loki protobuf',
    send: {
      path: '/api/v1/es/_bulk?table=bad_loki&log_type=loki',
      headers: { 'content-type': 'application/x-protobuf' },
      body: compressSync(lokiProtobuf().subarray(0, 10)),
    },
    table: 'bad_loki',
    status: 400,
    code: '040017',
    message: /^cannot decode the body as /,
  },
  {
    name: 'OpenTSDB JSON without a metric',
    send: { path: '/api/v1/opentsdb/put', body: '{"timestamp":1706702400,"value":1,"tags":{"h":"a"}}' },
    table: 'bad_tsdb',
    status: 400,
    code: '040011',
    message: /^data point: /,
  },
  {
    name: 'a truncated Prometheus WriteRequest',
    send: {
      path: '/api/v1/prom/write',
      headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy' },
      body: compressSync(Buffer.from([0x0a, 0x20, 0x0a])),
    },
    table: 'pw_prom_bad',
    status: 400,
    code: '040017',
    message: /^cannot decode the body as a Prometheus WriteRequest: /,
  },
  {
    name: 'line protocol of 2,000 lines with a bad value on line 1,500',
    send: { path: '/api/v1/write?db=public', body: lineProtocol('bad_lp', 2000, 1500) },
    table: 'bad_lp',
    status: 400,
    code: '040004',
    message: "line 1500, column 48: invalid number, found '12x'",
  },
  {
    name: "the same through InfluxDB's /write, which quotes the line",
    send: { path: '/write?db=public', body: lineProtocol('bad_lp_influx', 2000, 1500) },
    table: 'bad_lp_influx',
    status: 400,
    code: '040004',
    message: `unable to parse 'bad_lp_influx,host=host_0,region=eu-west-1 usage_user=12x,usage_idle=187.5 ${T0 + 1500n}': line 1500, column 55: invalid number, found '12x'`,
  },
];

function send(server: TestServer, s: Send): Promise<HttpResponse> {
  return http(server.url, s.path, { method: 'POST', headers: s.headers, body: s.body });
}

function sql(server: TestServer, text: string): Promise<HttpResponse> {
  return http(server.url, '/api/v1/sql?db=public', { method: 'POST', body: text });
}

/** What a client sees of a response: status, error headers, body. */
function seen(r: HttpResponse): { status: number; code: unknown; message: unknown; body: string } {
  return {
    status: r.status,
    code: r.headers['x-sundial-error-code'],
    message: r.headers['x-sundial-error'],
    body: r.text,
  };
}

const modes = [
  { name: 'in the server thread (0 workers)', args: ['--parse-workers', '0'] },
  { name: 'in 2 worker threads', args: ['--parse-workers', '2'] },
] as const;

const servers = new Map<string, TestServer>();
const accepted = new Map<string, HttpResponse>();
const rejected = new Map<string, HttpResponse>();
const counts = new Map<string, string>();
const tables = new Map<string, string>();

beforeAll(async () => {
  for (const mode of modes) {
    const server = await startServer({ inProcess: true, args: [...mode.args] });
    servers.set(mode.name, server);
    for (const c of ACCEPTED) accepted.set(`${mode.name}/${c.name}`, await send(server, c.send));
    for (const c of REJECTED) rejected.set(`${mode.name}/${c.name}`, await send(server, c.send));
    for (const c of ACCEPTED)
      counts.set(`${mode.name}/${c.name}`, (await sql(server, `SELECT count(*) AS n FROM ${c.table}`)).text);
    tables.set(mode.name, (await sql(server, 'SHOW TABLES')).text);
  }
});

afterAll(async () => {
  for (const s of servers.values()) {
    await s.stop();
    s.cleanup();
  }
});

describe('ingest.parse_workers', () => {
  for (const mode of modes) {
    describe(`parsing ${mode.name}`, () => {
      for (const c of ACCEPTED) {
        it(`stores ${c.name} and SQL reads the rows back`, () => {
          const r = accepted.get(`${mode.name}/${c.name}`)!;
          expect(r.status, r.text).toBe(c.status ?? 200);
          expect(counts.get(`${mode.name}/${c.name}`)).toBe(`n\n${c.count}\n`);
        });
      }

      for (const c of REJECTED) {
        it(`rejects ${c.name} with ${c.status} ${c.code} and stores nothing`, () => {
          const r = rejected.get(`${mode.name}/${c.name}`)!;
          expect([r.status, r.headers['x-sundial-error-code']]).toEqual([c.status, c.code]);
          expect(r.headers['x-sundial-error']).toMatch(
            typeof c.message === 'string'
              ? new RegExp(`^${c.message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`)
              : c.message,
          );
          expect(tables.get(mode.name)!.split('\n')).not.toContain(c.table);
        });
      }
    });
  }

  it('gives every rejected body the same status, code, message and body in both modes', () => {
    for (const c of REJECTED) {
      expect(seen(rejected.get(`${modes[1].name}/${c.name}`)!), c.name).toEqual(
        seen(rejected.get(`${modes[0].name}/${c.name}`)!),
      );
    }
  });

  it('starts workers only with a positive setting, all of them once ready (the warm-up), never more', async () => {
    const started = (mode: (typeof modes)[number]) =>
      servers.get(mode.name)!.logs.filter((l) => l.msg === 'parse worker started').length;
    expect(started(modes[0])).toBe(0);
    expect(started(modes[1])).toBe(2);
    expect(servers.get(modes[0].name)!.logs.find((l) => l.msg === 'ready')).toMatchObject({
      parseWorkers: 0,
      parseWarmup: false,
    });
    expect(servers.get(modes[1].name)!.logs.find((l) => l.msg === 'ready')).toMatchObject({
      parseWorkers: 2,
      parseWarmup: true,
    });
  });
});

describe('parse warm-up', () => {
  it('has every worker parse every generated body, storing nothing', async () => {
    const server = servers.get(modes[1].name)!;
    const workers = new Set(server.logs.filter((l) => l.msg === 'parse worker started').map((l) => l.threadId));
    const warmed = () => server.logs.filter((l) => l.msg === 'parse worker warmed up');
    await server.waitForLog((l) => l.msg === 'parse worker warmed up' && warmed().length === 2, 60_000);
    expect(new Set(warmed().map((l) => l.threadId))).toEqual(workers);
    // 13 formats x WARMUP_ROUNDS (12), every one parsed: a body that fails logs a BUG instead.
    for (const l of warmed()) expect(l.jobs).toBe(156);
    expect(server.logs.some((l) => typeof l.msg === 'string' && l.msg.includes('warm-up body failed'))).toBe(false);
    expect((await sql(server, 'SHOW TABLES')).text.split('\n')).not.toContain('warmup');
  });

  it('is skipped with --parse-warmup false: workers start on demand', async () => {
    const server = await startServer({ inProcess: true, args: ['--parse-workers', '2', '--parse-warmup', 'false'] });
    try {
      expect(server.logs.find((l) => l.msg === 'ready')).toMatchObject({ parseWorkers: 2, parseWarmup: false });
      expect(server.logs.filter((l) => l.msg === 'parse worker started')).toHaveLength(0);
      for (const c of ACCEPTED) expect((await send(server, c.send)).status, c.name).toBe(c.status ?? 200);
      // One request at a time: the first worker is idle again for each next one.
      expect(server.logs.filter((l) => l.msg === 'parse worker started')).toHaveLength(1);
      expect(await server.stop()).toBe(0);
      expect(server.logs.some((l) => l.msg === 'parse worker warmed up')).toBe(false);
    } finally {
      server.cleanup();
    }
  });
});

describe('parse workers', () => {
  it('stop with the server on SIGTERM', async () => {
    const server = await startServer({ args: ['--parse-workers', '1'] });
    try {
      expect((await send(server, ACCEPTED[3]!.send)).status).toBe(200);
      expect(await server.stop()).toBe(0);
      const msgs = server.logs.map((l) => l.msg);
      expect(server.logs.find((l) => l.msg === 'parse workers stopped')?.workers).toBe(1);
      expect(msgs.indexOf('parse workers stopped')).toBeLessThan(msgs.indexOf('stopped'));
    } finally {
      server.cleanup();
    }
  });

  it('a worker that dies fails only the request it was parsing, with 500, and another takes its place', async () => {
    // The worker exits (as on an out-of-memory) when it gets a job for table `pw_crash`.
    const server = await startServer({
      args: ['--parse-workers', '1'],
      env: { SUNDIAL_TEST_PARSE_WORKER_EXIT: 'pw_crash' },
    });
    try {
      const crash = send(server, { path: '/api/v1/es/_bulk?table=pw_crash&log_type=ndjson', body: NDJSON });
      // Sent together: whichever the one worker takes first, only the crashing request fails.
      const after = send(server, ACCEPTED[3]!.send);
      const [c, a] = await Promise.all([crash, after]);
      expect(seen(c)).toEqual({
        status: 500,
        code: '000001',
        message: 'internal error; see the server log',
        body: '{"error_code":"000001","error_message":"internal error; see the server log"}',
      });
      expect(a.status).toBe(200);
      expect((await send(server, ACCEPTED[0]!.send)).status).toBe(200);
      expect((await sql(server, 'SHOW TABLES')).text.split('\n')).not.toContain('pw_crash');
      expect((await sql(server, 'SELECT count(*) AS n FROM pw_nd')).text).toBe('n\n2\n');
      const started = server.logs.filter((l) => l.msg === 'parse worker started');
      expect(started).toHaveLength(2);
      expect(server.logs.find((l) => l.msg === 'parse worker exited; the next job starts another')).toMatchObject({
        threadId: started[0]!.threadId,
        code: 70,
        parsing: true,
      });
      expect(await server.stop()).toBe(0);
    } finally {
      server.cleanup();
    }
  });
});
