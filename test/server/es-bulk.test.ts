// POST /api/v1/es/_bulk against a real server, driven by the clients people use: the official
// @elastic/elasticsearch bulk helper, NDJSON streamed in chunks, and Loki pushes as Promtail sends
// them (JSON, and snappy-compressed protobuf); the handshake routes shippers probe; every
// rejection with its status and JSON error. Stored rows are read back after the server stops.

import { Readable } from 'node:stream';
import { request as httpRequest } from 'node:http';
import { Client } from '@elastic/elasticsearch';
import protobuf from 'protobufjs';
import { compressSync } from 'snappy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, type HttpResponse } from '../support/http.js';
import { readBack, type ReadBack } from '../support/read-back.js';
import { startServer, type TestServer } from '../support/server.js';

const PUSH = protobuf
  .parse(
    // grafana/loki pkg/push/push.proto, the messages Promtail sends (gogoproto options dropped).
    `syntax = "proto3"; package logproto;
     message PushRequest { repeated StreamAdapter streams = 1; }
     message StreamAdapter { string labels = 1; repeated EntryAdapter entries = 2; uint64 hash = 3; }
     message LabelPairAdapter { string name = 1; string value = 2; }
     message EntryAdapter { Timestamp timestamp = 1; string line = 2; repeated LabelPairAdapter structuredMetadata = 3; }
     message Timestamp { int64 seconds = 1; int32 nanos = 2; }`,
  )
  .root.lookupType('logproto.PushRequest');

const DOCS = Array.from({ length: 250 }, (_, i) => ({
  '@timestamp': new Date(Date.UTC(2024, 0, 31, 12, 0, 0, i)).toISOString(),
  host: `web-${i % 3}`,
  message: `GET /item/${i} 200`,
  http: { status: 200 + (i % 2), bytes: i * 10, ok: i % 2 === 0 },
  tags: ['a', 'b'],
}));

const NDJSON_LINES = Array.from({ length: 100 }, (_, i) =>
  JSON.stringify({
    time: `2024-02-01T00:00:${String(i % 60).padStart(2, '0')}.${String(i).padStart(3, '0')}+00:00`,
    level: i % 5 === 0 ? 'warn' : 'info',
    n: i,
  }),
);

/** POSTs `chunks` with chunked transfer encoding (no Content-Length), as a streaming shipper does. */
function postStream(url: string, path: string, chunks: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      new URL(path, url),
      {
        method: 'POST',
        headers: {
          authorization: 'Basic ' + Buffer.from('root:').toString('base64'),
          'content-type': 'application/x-ndjson',
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    Readable.from(chunks).pipe(req);
  });
}

interface Case {
  name: string;
  query: string;
  body: string | Buffer;
  headers?: Record<string, string>;
  status: number;
  code?: string;
  /** Called as Elasticsearch (a bulk body without `table`): its error shape and statuses. */
  es?: true;
  /** Elasticsearch's error type (default illegal_argument_exception). */
  type?: string;
  message?: string;
  absent?: string;
}

const cases: Case[] = [
  // Called as CnosDB documents the route (`table`, or NDJSON and Loki): CONTRACT.md's statuses and body.
  {
    name: 'a missing table',
    query: 'log_type=ndjson',
    body: '{"a":1}',
    status: 400,
    code: '040016',
    message:
      "the 'table' parameter (or an index in the path, /api/v1/es/{index}/_bulk) is required for log_type ndjson",
  },
  {
    name: 'an unknown log_type',
    query: 'table=bad1&log_type=csv',
    body: '{"a":1}',
    status: 400,
    code: '040001',
    message: "invalid log_type 'csv': want bulk, ndjson or loki",
    absent: 'bad1',
  },
  {
    name: 'a null value',
    query: 'table=bad2&log_type=ndjson',
    body: '{"a":1}\n{"a":null}\n',
    status: 400,
    code: '040016',
    message: "line 2: column 'a' is null; null values are not supported",
    absent: 'bad2',
  },
  {
    name: 'a time that does not parse',
    query: 'table=bad3',
    body: '{"create":{}}\n{"time":"31/01/2024","a":1}\n',
    status: 400,
    code: '040016',
    absent: 'bad3',
  },
  {
    name: 'a document that is not an object',
    query: 'table=bad4&log_type=ndjson',
    body: '[1,2]\n',
    status: 400,
    code: '040016',
    message: 'line 1: expected a JSON object, found an array',
    absent: 'bad4',
  },
  {
    name: 'a bulk action without its document',
    query: 'table=bad5',
    body: '{"create":{}}\n',
    status: 400,
    code: '040016',
    absent: 'bad5',
  },
  {
    name: 'a truncated Loki protobuf',
    query: 'table=bad6&log_type=loki',
    headers: { 'content-type': 'application/x-protobuf' },
    body: lokiProtobuf(true),
    status: 400,
    code: '040017',
    absent: 'bad6',
  },
  {
    name: 'a corrupt snappy block',
    query: 'table=bad7&log_type=loki',
    headers: { 'content-type': 'application/x-protobuf' },
    body: Buffer.from([0x20, 0x00, 0x01]),
    status: 400,
    code: '040013',
    absent: 'bad7',
  },
  {
    name: 'a type conflict within the request',
    query: 'table=bad8&log_type=ndjson',
    body: '{"a":1}\n{"a":"x"}\n',
    status: 422,
    code: '020010',
    absent: 'bad8',
  },
  {
    name: 'an unknown database',
    query: 'table=bad9&db=nope',
    body: '',
    status: 422,
    code: '030017',
    message: 'Meta: Database not found: "nope"',
  },
  {
    name: 'a protobuf body sent as bulk',
    query: 'table=bad10',
    headers: { 'content-type': 'application/x-protobuf' },
    body: '{"create":{}}\n{"a":1}\n',
    status: 400,
    code: '040005',
    message:
      "unsupported Content-Type 'application/x-protobuf' for log_type bulk: want application/x-ndjson or application/json",
    absent: 'bad10',
  },
  // Called as Elasticsearch (an index names the table): Elasticsearch's statuses and error shape.
  {
    name: 'a bulk document without an index',
    es: true,
    query: '',
    body: '{"create":{}}\n{"a":1}\n',
    status: 400,
    code: '040016',
    message:
      "line 1: the document has no index: name it in the action's _index, in the path (/{index}/_bulk) or with the table parameter",
  },
  {
    name: 'an unknown database, as Elasticsearch',
    es: true,
    query: 'db=nope',
    body: '{"create":{"_index":"bad11"}}\n{"a":1}\n',
    status: 404,
    code: '030017',
    type: 'index_not_found_exception',
    message: 'Meta: Database not found: "nope"',
  },
];

function lokiProtobuf(truncated = false): Buffer {
  const message = PUSH.encode(
    PUSH.fromObject({
      streams: [
        {
          labels: '{job="varlogs", filename="/var/log/syslog"}',
          entries: [
            { timestamp: { seconds: 1706702400, nanos: 1 }, line: 'kernel: boot' },
            {
              timestamp: { seconds: 1706702401 },
              line: 'sshd: accepted',
              structuredMetadata: [{ name: 'pid', value: '42' }],
            },
          ],
        },
      ],
    }),
  ).finish();
  return compressSync(Buffer.from(truncated ? message.subarray(0, message.length - 5) : message));
}

let server: TestServer;
let stored: ReadBack;
let bulkStats: { total: number; successful: number; failed: number };
let gzipStats: { total: number; successful: number; failed: number };
let rawBulk: HttpResponse;
let failedItems: HttpResponse;
let ndjsonStatus: number;
let lokiJson: HttpResponse;
let lokiProto: HttpResponse;
const handshake = new Map<string, HttpResponse>();
const responses = new Map<string, HttpResponse>();

beforeAll(async () => {
  server = await startServer({ inProcess: true });
  const client = (compression: boolean) =>
    new Client({ node: `${server.url}/api/v1/es`, auth: { username: 'root', password: '' }, compression });
  const bulk = (docs: object[], query: Record<string, string>, compression = false) =>
    client(compression).helpers.bulk(
      {
        datasource: docs,
        onDocument: () => ({ create: { _index: 'ignored' } }),
        flushBytes: 8 * 1024,
        onDrop: (d) => console.error(d),
      },
      { querystring: query },
    );
  bulkStats = await bulk(DOCS, { table: 'es_logs', time_column: '@timestamp', tag_columns: 'host' });
  gzipStats = await bulk(DOCS.slice(0, 10), { table: 'es_gzip', time_column: '@timestamp' }, true);
  rawBulk = await http(server.url, '/api/v1/es/_bulk?table=es_raw', {
    method: 'POST',
    body: '{"index":{"_id":"1"}}\n{"v":1}\n{"create":{}}\n{"v":2}\n',
  });
  failedItems = await http(server.url, '/api/v1/es/es_items/_bulk', {
    method: 'POST',
    body: '{"create":{}}\n{"time":"31/01/2024","a":1}\n{"create":{}}\n{"time":"2024-01-31T00:00:00Z","a":2}\n',
  });
  ndjsonStatus = await postStream(
    server.url,
    '/api/v1/es/_bulk?table=nd&log_type=ndjson&tag_columns=level',
    NDJSON_LINES.map((l) => l + '\n'),
  );
  lokiJson = await http(server.url, '/api/v1/es/_bulk?table=loki_json&log_type=loki&tag_columns=job', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      streams: [
        {
          stream: { job: 'api', level: 'error' },
          values: [
            ['1706702400000000005', 'timeout'],
            ['1706702400000000006', 'retry', { attempt: '2' }],
          ],
        },
      ],
    }),
  });
  lokiProto = await http(server.url, '/api/v1/es/_bulk?table=loki_proto&log_type=loki&tag_columns=job,filename', {
    method: 'POST',
    headers: { 'content-type': 'application/x-protobuf' },
    body: lokiProtobuf(),
  });
  for (const [method, path] of [
    ['GET', '/api/v1/es'],
    ['HEAD', '/api/v1/es'],
    ['GET', '/api/v1/es/_license'],
    ['PUT', '/api/v1/es/_index_template/logs'],
    ['GET', '/api/v1/es/_ilm/policy/x'],
    ['GET', '/api/v1/es/_nodes/http'],
    ['PUT', '/api/v1/es/_ingest/pipeline/p'],
  ] as const) {
    handshake.set(`${method} ${path}`, await http(server.url, path, { method, auth: null }));
  }
  for (const c of cases)
    responses.set(
      c.name,
      await http(server.url, `/api/v1/es/_bulk?${c.query}`, { method: 'POST', body: c.body, headers: c.headers }),
    );
  expect(await server.stop()).toBe(0);
  stored = await readBack(server.dataDir);
});

afterAll(async () => {
  await stored?.close();
  server?.cleanup();
});

describe('POST /api/v1/es/_bulk', () => {
  it('takes every document from the Elasticsearch client bulk helper', () => {
    expect(bulkStats).toMatchObject({ total: 250, successful: 250, failed: 0 });
    expect(gzipStats).toMatchObject({ total: 10, successful: 10, failed: 0 });
  });

  it('stored the bulk documents: flattened, time from @timestamp, host as tag', async () => {
    const rows = await stored.rows('es_logs');
    expect(rows).toHaveLength(250);
    const first = rows.find((r) => r.message === 'GET /item/0 200');
    expect(first).toEqual({
      time: 1706702400_000_000_000n,
      host: 'web-0',
      message: 'GET /item/0 200',
      'http.status': 200,
      'http.bytes': 0,
      'http.ok': true,
      'tags.0': 'a',
      'tags.1': 'b',
    });
    const t = stored.storage.catalog.database('cnosdb', 'public')!.tables.get('es_logs')!;
    expect(t.tags.map((c) => c.name)).toEqual(['host']);
    expect(await stored.rows('es_gzip')).toHaveLength(10);
  });

  it("answers bulk with Elasticsearch's reply shape, one item per action", () => {
    expect(rawBulk.status).toBe(200);
    expect(rawBulk.headers['x-elastic-product']).toBe('Elasticsearch');
    expect(rawBulk.text).toMatch(
      /^\{"took":\d+,"errors":false,"items":\[\{"index":\{"_index":"es_raw","status":201,"result":"created"\}\},\{"create":\{"_index":"es_raw","status":201,"result":"created"\}\}\]\}$/,
    );
  });

  it('called as Elasticsearch, fails only the document that cannot be stored, as an item with its error', async () => {
    expect(failedItems.status).toBe(200);
    expect(JSON.parse(failedItems.text)).toMatchObject({
      errors: true,
      items: [
        {
          create: {
            _index: 'es_items',
            status: 400,
            error: {
              type: 'document_parsing_exception',
              reason:
                "line 2: time column 'time': '31/01/2024' is not an RFC 3339 time (want e.g. 2024-01-31T12:00:00.5Z)",
            },
          },
        },
        { create: { _index: 'es_items', status: 201, result: 'created' } },
      ],
    });
    expect(await stored.rows('es_items')).toEqual([{ time: 1706659200_000_000_000n, a: 2 }]);
  });

  it('takes NDJSON streamed in chunks', async () => {
    expect(ndjsonStatus).toBe(200);
    const rows = await stored.rows('nd');
    expect(rows).toHaveLength(100);
    expect(rows.filter((r) => r.level === 'warn')).toHaveLength(20);
    expect(rows.find((r) => r.n === 61)).toEqual({ time: 1706745601_061_000_000n, level: 'info', n: 61 });
  });

  it('takes Loki JSON: one row per entry, line in msg, labels as columns', async () => {
    expect([lokiJson.status, lokiJson.body.length]).toEqual([200, 0]);
    expect(await stored.rows('loki_json')).toEqual([
      { time: 1706702400000000005n, job: 'api', level: 'error', msg: 'timeout' },
      { time: 1706702400000000006n, job: 'api', level: 'error', msg: 'retry', attempt: '2' },
    ]);
  });

  it('takes Loki snappy protobuf as Promtail sends it', async () => {
    expect([lokiProto.status, lokiProto.body.length]).toEqual([200, 0]);
    expect(await stored.rows('loki_proto')).toEqual([
      { time: 1706702400000000001n, filename: '/var/log/syslog', job: 'varlogs', msg: 'kernel: boot' },
      { time: 1706702401000000000n, filename: '/var/log/syslog', job: 'varlogs', msg: 'sshd: accepted', pid: '42' },
    ]);
  });

  for (const c of cases) {
    it(`rejects ${c.name} with ${c.status} ${c.code}`, () => {
      const r = responses.get(c.name)!;
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      if (c.es !== true) {
        expect([r.status, r.headers['x-sundial-error-code']]).toEqual([c.status, c.code]);
        const body = JSON.parse(r.text) as { error_code: string; error_message: string };
        expect(Object.keys(body)).toEqual(['error_code', 'error_message']);
        expect(body.error_code).toBe(c.code);
        if (c.message !== undefined) expect(body.error_message).toBe(c.message);
      } else {
        expect([r.status, r.headers['x-sundial-error-code'], r.headers['x-elastic-product']]).toEqual([
          c.status,
          c.code,
          'Elasticsearch',
        ]);
        const body = JSON.parse(r.text) as {
          error: { type: string; reason: string; root_cause: unknown[] };
          status: number;
          error_code: string;
          error_message: string;
        };
        expect([body.status, body.error_code, body.error.type]).toEqual([
          c.status,
          c.code,
          c.type ?? 'illegal_argument_exception',
        ]);
        expect(body.error.root_cause).toEqual([{ type: body.error.type, reason: body.error.reason }]);
        expect(body.error.reason).toBe(body.error_message);
        if (c.message !== undefined) expect(body.error_message).toBe(c.message);
      }
      if (c.absent !== undefined)
        expect(stored.storage.catalog.database('cnosdb', 'public')!.tables.has(c.absent)).toBe(false);
    });
  }
});

describe('Elasticsearch handshake routes', () => {
  it('answer as Elasticsearch 8 does, without credentials', () => {
    const get = handshake.get('GET /api/v1/es')!;
    expect([get.status, get.headers['x-elastic-product']]).toEqual([200, 'Elasticsearch']);
    expect(JSON.parse(get.text)).toMatchObject({
      version: { number: '8.19.0', build_flavor: 'default' },
      tagline: 'You Know, for Search',
    });
    const head = handshake.get('HEAD /api/v1/es')!;
    expect([head.status, head.headers['x-elastic-product'], head.body.length]).toEqual([200, 'Elasticsearch', 0]);
    const license = JSON.parse(handshake.get('GET /api/v1/es/_license')!.text) as { license: Record<string, unknown> };
    expect(license.license).toMatchObject({ type: 'basic', status: 'active' });
    const answers: Array<[string, number, unknown]> = [
      ['PUT /api/v1/es/_index_template/logs', 200, { acknowledged: true }],
      [
        'GET /api/v1/es/_ilm/policy/x',
        404,
        { error: { type: 'resource_not_found_exception', reason: 'Lifecycle policy not found: x' }, status: 404 },
      ],
      [
        'GET /api/v1/es/_nodes/http',
        200,
        { _nodes: { total: 0, successful: 0, failed: 0 }, cluster_name: 'sundial', nodes: {} },
      ],
      ['PUT /api/v1/es/_ingest/pipeline/p', 200, { acknowledged: true }],
    ];
    for (const [k, status, body] of answers) {
      const r = handshake.get(k)!;
      expect([k, r.status, r.headers['x-elastic-product']]).toEqual([k, status, 'Elasticsearch']);
      expect(JSON.parse(r.text)).toMatchObject(body as object);
    }
  });
});
