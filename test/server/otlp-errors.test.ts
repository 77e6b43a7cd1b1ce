// Bad input on the OTLP/HTTP routes: malformed bodies, wrong content types and encodings, missing
// and wrong credentials, another tenant's database. Each gets OTLP's answer (the status, and a
// google.rpc.Status body in the request's encoding) and stores nothing. Then partial success:
// the data points and records that cannot be stored are counted in `partial_success` and the
// rest are stored.

import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { otlpTypes } from '../../host/ingest/otlp-proto.js';
import { http, type HttpOptions, type HttpResponse } from '../support/http.js';
import { otlpProtobuf } from '../support/otlp.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;

const T = '1800000000000000000';

/** A valid body of each route, which would create a `bad_*` table if it were stored. */
function validBodies(): Record<
  string,
  {
    type: 'ExportTraceServiceRequest' | 'ExportMetricsServiceRequest' | 'ExportLogsServiceRequest';
    value: object;
    table?: string;
  }
> {
  return {
    '/v1/traces': {
      type: 'ExportTraceServiceRequest',
      table: 'bad_spans',
      value: {
        resourceSpans: [
          {
            scopeSpans: [
              {
                spans: [
                  {
                    traceId: '0102030405060708090a0b0c0d0e0f10',
                    spanId: '0102030405060708',
                    name: 'x',
                    startTimeUnixNano: T,
                  },
                ],
              },
            ],
          },
        ],
      },
    },
    '/v1/metrics': {
      type: 'ExportMetricsServiceRequest',
      value: {
        resourceMetrics: [
          {
            scopeMetrics: [
              { metrics: [{ name: 'bad_metric', gauge: { dataPoints: [{ timeUnixNano: T, asDouble: 1 }] } }] },
            ],
          },
        ],
      },
    },
    '/v1/logs': {
      type: 'ExportLogsServiceRequest',
      table: 'bad_logs',
      value: { resourceLogs: [{ scopeLogs: [{ logRecords: [{ timeUnixNano: T, body: { stringValue: 'x' } }] }] }] },
    },
  };
}

interface Case {
  name: string;
  status: number;
  code: string;
  grpc: number;
  /** The request, given the route's valid protobuf and JSON bodies. */
  request: (proto: Uint8Array, json: string) => HttpOptions;
  /** The error body is JSON (an application/json request). */
  json?: boolean;
}

const PB = { 'content-type': 'application/x-protobuf' };
const JS = { 'content-type': 'application/json' };

const CASES: Case[] = [
  {
    name: 'a truncated protobuf body',
    status: 400,
    code: '040017',
    grpc: 3,
    request: (p) => ({ body: p.subarray(0, p.length - 3), headers: PB }),
  },
  {
    name: 'JSON that does not parse',
    status: 400,
    code: '040017',
    grpc: 3,
    json: true,
    request: (_p, j) => ({ body: j.slice(0, -2), headers: JS }),
  },
  {
    name: 'JSON that is not a request object',
    status: 400,
    code: '040017',
    grpc: 3,
    json: true,
    request: () => ({ body: '[1]', headers: JS }),
  },
  {
    name: 'a protobuf body sent as JSON',
    status: 400,
    code: '040017',
    grpc: 3,
    json: true,
    request: (p) => ({ body: p, headers: JS }),
  },
  {
    name: 'a wrong content type',
    status: 415,
    code: '040005',
    grpc: 3,
    request: (p) => ({ body: p, headers: { 'content-type': 'text/plain' } }),
  },
  { name: 'no content type', status: 415, code: '040005', grpc: 3, request: (p) => ({ body: p, headers: {} }) },
  {
    name: 'an unknown content encoding',
    status: 415,
    code: '040005',
    grpc: 3,
    request: (p) => ({ body: p, headers: { ...PB, 'content-encoding': 'lz4' } }),
  },
  {
    name: 'a corrupt gzip stream',
    status: 400,
    code: '040013',
    grpc: 3,
    request: (p) => ({ body: p, headers: { ...PB, 'content-encoding': 'gzip' } }),
  },
  {
    name: 'no credentials',
    status: 401,
    code: '010016',
    grpc: 16,
    request: (p) => ({ body: p, headers: PB, auth: null }),
  },
  {
    name: 'a wrong password',
    status: 401,
    code: '010016',
    grpc: 16,
    json: true,
    request: (_p, j) => ({ body: j, headers: JS, auth: { user: 'root', password: 'wrong' } }),
  },
  {
    name: "another tenant's database",
    status: 422,
    code: '030010',
    grpc: 7,
    request: (p) => ({ body: p, headers: PB, auth: { user: 'eve', password: 'pw' } }),
  },
  {
    name: 'an unknown database',
    status: 422,
    code: '030017',
    grpc: 5,
    request: (p) => ({ body: p, headers: { ...PB, db: 'nope' } }),
  },
];

const answers = new Map<string, HttpResponse>();

beforeAll(async () => {
  server = await startServer({ inProcess: true });
  for (const sql of [
    'CREATE TENANT acme',
    "CREATE USER eve WITH PASSWORD = 'pw'",
    'ALTER TENANT acme ADD USER eve AS owner',
  ]) {
    const r = await http(server.url, '/api/v1/sql', { method: 'POST', body: sql });
    expect(r.status, r.text).toBe(200);
  }
  for (const [path, { type, value, table }] of Object.entries(validBodies())) {
    const proto = otlpProtobuf(type, value);
    const json = JSON.stringify(value);
    for (const c of CASES) {
      const req = c.request(proto, json);
      answers.set(
        `${path} ${c.name}`,
        await http(server.url, path, {
          ...req,
          method: 'POST',
          headers: { ...req.headers, ...(table ? { table } : {}) },
        }),
      );
    }
  }
});

afterAll(async () => {
  await server?.stop();
  server?.cleanup();
});

describe('bad input on the OTLP routes', () => {
  for (const path of ['/v1/traces', '/v1/metrics', '/v1/logs']) {
    for (const c of CASES) {
      it(`${path}: ${c.name} is ${c.status} with a google.rpc.Status`, () => {
        const r = answers.get(`${path} ${c.name}`)!;
        expect([r.status, r.headers['x-sundial-error-code']], r.text).toEqual([c.status, c.code]);
        expect(r.headers['content-type']).toBe(c.json ? 'application/json' : 'application/x-protobuf');
        const status = c.json
          ? (JSON.parse(r.text) as { code: number; message: string })
          : (otlpTypes().Status.toObject(otlpTypes().Status.decode(r.body)) as { code: number; message: string });
        expect(status.code).toBe(c.grpc);
        expect(status.message).toBe(r.headers['x-sundial-error']);
        if (c.status === 401) expect(r.headers['www-authenticate']).toMatch(/^Basic /);
      });
    }
  }

  it('stored nothing, in either tenant', async () => {
    for (const [tenant, db] of [
      ['cnosdb', 'public'],
      ['acme', 'public'],
    ]) {
      const r = await http(server.url, `/api/v1/sql?tenant=${tenant}&db=${db}`, {
        method: 'POST',
        body: 'SHOW TABLES',
        headers: { accept: 'application/json' },
      });
      if (tenant === 'acme') expect([r.status, r.headers['x-sundial-error-code']]).toEqual([422, '030017']);
      else expect([r.status, r.text]).toEqual([200, '[]']);
    }
  });
});

describe('partial success', () => {
  const metrics = {
    resourceMetrics: [
      {
        resource: { attributes: [{ key: 'host', value: { stringValue: 'r1' } }] },
        scopeMetrics: [
          {
            metrics: [
              {
                name: 'good_gauge',
                gauge: {
                  dataPoints: [
                    { timeUnixNano: T, asDouble: 1.5, attributes: [{ key: 'host', value: { stringValue: 'a' } }] },
                    { timeUnixNano: T, asInt: '7', attributes: [{ key: 'host', value: { stringValue: 'b' } }] },
                    { timeUnixNano: '0', asDouble: 2 },
                    { timeUnixNano: T, asDouble: 3, flags: 1 },
                    { timeUnixNano: T },
                    { timeUnixNano: T, asDouble: 4, attributes: [{ key: 'value', value: { stringValue: 'x' } }] },
                  ],
                },
              },
              {
                name: 'bad_hist',
                histogram: {
                  aggregationTemporality: 2,
                  dataPoints: [{ timeUnixNano: T, count: '3', bucketCounts: ['1', '2'], explicitBounds: [1, 2, 3] }],
                },
              },
              {
                name: 'good_summary',
                summary: {
                  dataPoints: [
                    {
                      timeUnixNano: T,
                      count: '10',
                      sum: 55.5,
                      quantileValues: [
                        { quantile: 0.5, value: 5 },
                        { quantile: 0.99, value: 9.9 },
                      ],
                    },
                  ],
                },
              },
            ],
          },
        ],
      },
    ],
  };
  const MESSAGE =
    '5 of 8 data points rejected; the first: resourceMetrics[0].scopeMetrics[0].metrics[0] ("good_gauge") dataPoints[2]: time_unix_nano is missing';
  const logs = {
    resourceLogs: [
      {
        scopeLogs: [
          {
            logRecords: [
              { timeUnixNano: T, body: { stringValue: 'kept' } },
              {
                timeUnixNano: T,
                body: { stringValue: 'lost' },
                attributes: [{ key: 'body', value: { stringValue: 'shadow' } }],
              },
            ],
          },
        ],
      },
    ],
  };

  it('rejects the data points that cannot be stored, counts them in protobuf and JSON, stores the rest', async () => {
    const T_ = otlpTypes().ExportMetricsServiceResponse;
    const proto = await http(server.url, '/v1/metrics', {
      method: 'POST',
      body: otlpProtobuf('ExportMetricsServiceRequest', metrics),
      headers: PB,
    });
    expect([proto.status, proto.headers['content-type']]).toEqual([200, 'application/x-protobuf']);
    expect(T_.toObject(T_.decode(proto.body), { longs: Number })).toEqual({
      partialSuccess: { rejectedDataPoints: 5, errorMessage: MESSAGE },
    });
    const json = await http(server.url, '/v1/metrics?db=public', {
      method: 'POST',
      body: gzipSync(JSON.stringify(metrics)),
      headers: { ...JS, 'content-encoding': 'gzip' },
    });
    expect([json.status, json.headers['content-type'], json.text]).toEqual([
      200,
      'application/json',
      JSON.stringify({ partialSuccess: { rejectedDataPoints: '5', errorMessage: MESSAGE } }),
    ]);
    const sql = async (q: string) =>
      JSON.parse(
        (await http(server.url, '/api/v1/sql', { method: 'POST', body: q, headers: { accept: 'application/json' } }))
          .text,
      ) as unknown;
    expect(await sql('SELECT * FROM good_gauge ORDER BY host')).toEqual([
      { time: '2027-01-15T08:00:00', host: 'a', value: 1.5 },
      { time: '2027-01-15T08:00:00', host: 'b', value: 7 },
    ]);
    expect(await sql('SELECT * FROM good_summary')).toEqual([
      { time: '2027-01-15T08:00:00', host: 'r1', count: 10, sum: 55.5, 'quantile_0.5': 5, 'quantile_0.99': 9.9 },
    ]);
    expect(await sql("SELECT count(*) AS n FROM information_schema.tables WHERE table_name = 'bad_hist'")).toEqual([
      { n: 0 },
    ]);
  });

  it('rejects a log record whose attribute takes the name of a column Sundial writes', async () => {
    const T_ = otlpTypes().ExportLogsServiceResponse;
    const r = await http(server.url, '/v1/logs', {
      method: 'POST',
      body: otlpProtobuf('ExportLogsServiceRequest', logs),
      headers: { ...PB, table: 'partial_logs' },
    });
    expect(r.status).toBe(200);
    expect(T_.toObject(T_.decode(r.body), { longs: Number })).toEqual({
      partialSuccess: {
        rejectedLogRecords: 1,
        errorMessage:
          "1 of 2 log records rejected; the first: resourceLogs[0].scopeLogs[0].logRecords[1]: attribute 'body' has the name of a column Sundial writes for every record",
      },
    });
    const rows = await http(server.url, '/api/v1/sql', {
      method: 'POST',
      body: 'SELECT * FROM partial_logs',
      headers: { accept: 'application/json' },
    });
    expect(JSON.parse(rows.text)).toEqual([
      { time: '2027-01-15T08:00:00', severity_text: '', body: 'kept', severity_number: 0 },
    ]);
  });
});
