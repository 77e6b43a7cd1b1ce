// The log shippers that cannot be installed here (no Debian package, no npm package: Filebeat,
// Logstash, Vector, Fluent Bit, Promtail), as each one talks to Elasticsearch or Loki: its probes
// in order, with the methods, paths, headers and bodies its sources and documentation give
// (docs/logs.md "Shippers" lists them), then a batch as it sends one; every answer is checked
// where the shipper reads it, and every stored row is read back. A real-shipper test runs the
// shipper itself where it can be installed (rsyslog, es-clients.test.ts).

import { gzipSync } from 'node:zlib';
import protobuf from 'protobufjs';
import { compressSync } from 'snappy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ inProcess: true });
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

async function sql(statement: string): Promise<string> {
  const r = await http(server.url, '/api/v1/sql?db=public', { body: statement });
  return `${r.status} ${r.text}`;
}

interface Probe {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** What the shipper needs of the answer. */
  status: number;
  check?: (r: HttpResponse) => void;
}

/** Runs a shipper's requests in order; the base URL is the shipper's Elasticsearch host. */
async function replay(base: string, probes: Probe[]): Promise<void> {
  for (const p of probes) {
    const r = await http(server.url, `${base}${p.path}`, { method: p.method, body: p.body, headers: p.headers });
    expect(r.status, `${p.method} ${p.path}: ${r.text}`).toBe(p.status);
    if (p.status < 300) expect(r.headers['x-elastic-product'], `${p.method} ${p.path}`).toBe('Elasticsearch');
    p.check?.(r);
  }
}

const version = (r: HttpResponse): void => {
  const info = JSON.parse(r.text) as { version: { number: string } };
  // Beats refuse a server older than themselves, Vector and Logstash read the major version.
  expect(info.version.number).toBe('8.19.0');
};
const acknowledged = (r: HttpResponse): void => expect(JSON.parse(r.text)).toEqual({ acknowledged: true });
/** A bulk reply with every item stored (shippers resend or drop the items that carry an error). */
const allCreated =
  (n: number) =>
  (r: HttpResponse): void => {
    const reply = JSON.parse(r.text) as { errors: boolean; items: Array<Record<string, { status: number }>> };
    expect(reply.errors).toBe(false);
    expect(reply.items.map((i) => Object.values(i)[0]!.status)).toEqual(Array(n).fill(201));
  };
const ndjson = (lines: object[]): string => lines.map((l) => `${JSON.stringify(l)}\n`).join('');

describe('Filebeat 8 (libbeat esleg client, template and data stream setup)', () => {
  const index = 'filebeat-8.19.0';
  it('probes, sets up its template and data stream, and bulk-creates into the data stream', async () => {
    const docs = [0, 1].map((i) => ({
      '@timestamp': `2024-05-03T08:00:0${i}.123Z`,
      message: `line ${i}`,
      log: { offset: i * 7, file: { path: '/var/log/app.log' } },
      input: { type: 'filestream' },
      host: { name: 'web-1' },
      agent: { type: 'filebeat', version: '8.19.0' },
      ecs: { version: '8.0.0' },
    }));
    await replay('/api/v1/es', [
      { method: 'GET', path: '/', status: 200, check: version },
      {
        method: 'GET',
        path: '/_license?human=false',
        status: 200,
        check: (r) =>
          expect((JSON.parse(r.text) as { license: { type: string; status: string } }).license).toMatchObject({
            type: 'basic',
            status: 'active',
          }),
      },
      { method: 'GET', path: '/', status: 200, check: version },
      // Missing: Filebeat then loads its template, policy and data stream.
      { method: 'HEAD', path: `/_index_template/${index}`, status: 404 },
      {
        method: 'PUT',
        path: `/_index_template/${index}`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          index_patterns: [`${index}*`],
          data_stream: {},
          priority: 150,
          template: { settings: { 'index.lifecycle.name': 'filebeat' } },
        }),
        status: 200,
        check: acknowledged,
      },
      { method: 'GET', path: '/_ilm/policy/filebeat', status: 404 },
      {
        method: 'PUT',
        path: '/_ilm/policy/filebeat',
        headers: { 'content-type': 'application/json' },
        body: '{"policy":{"phases":{"hot":{"actions":{"rollover":{"max_age":"30d"}}}}}}',
        status: 200,
        check: acknowledged,
      },
      { method: 'GET', path: `/_data_stream/${index}`, status: 404 },
      { method: 'PUT', path: `/_data_stream/${index}`, status: 200, check: acknowledged },
      {
        method: 'POST',
        path: '/_bulk',
        headers: { 'content-type': 'application/json; charset=UTF-8', accept: 'application/json' },
        body: ndjson(docs.flatMap((d) => [{ create: { _index: index } }, d])),
        status: 200,
        check: allCreated(2),
      },
    ]);
    expect(await sql(`SELECT time, message, "log.offset", "host.name" FROM "${index}" ORDER BY time`)).toBe(
      '200 time,message,log.offset,host.name\n2024-05-03T08:00:00.123000000,line 0,0.0,web-1\n2024-05-03T08:00:01.123000000,line 1,7.0,web-1\n',
    );
  });
});

describe('Logstash 8 (logstash-output-elasticsearch 11, data streams)', () => {
  it('health-checks with HEAD /, reads the version and license, and sends gzip bulks with filter_path', async () => {
    const docs = [0, 1, 2].map((i) => ({
      '@timestamp': `2024-05-03T09:00:00.00${i}Z`,
      '@version': '1',
      message: `event ${i}`,
      event: { original: `event ${i}` },
      host: { hostname: 'ls-1' },
      data_stream: { type: 'logs', dataset: 'generic', namespace: 'default' },
    }));
    const body = gzipSync(ndjson(docs.flatMap((d) => [{ create: { _index: 'logs-generic-default' } }, d])));
    await replay('/api/v1/es', [
      { method: 'HEAD', path: '/', status: 200 },
      // Logstash refuses an 8.x server whose answers lack X-Elastic-Product (replay checks it).
      { method: 'GET', path: '/', status: 200, check: version },
      { method: 'GET', path: '/_license', status: 200 },
      // Without data streams: the legacy index template, then `index` actions.
      { method: 'HEAD', path: '/_index_template/ecs-logstash', status: 404 },
      {
        method: 'PUT',
        path: '/_index_template/ecs-logstash',
        headers: { 'content-type': 'application/json' },
        body: '{"index_patterns":"ecs-logstash-*","template":{}}',
        status: 200,
        check: acknowledged,
      },
      {
        method: 'POST',
        path: '/_bulk?filter_path=errors,items.*.error,items.*.status',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body,
        status: 200,
        check: allCreated(3),
      },
    ]);
    expect(await sql('SELECT time, message, "data_stream.dataset" FROM "logs-generic-default" ORDER BY time')).toBe(
      '200 time,message,data_stream.dataset\n2024-05-03T09:00:00.000000000,event 0,generic\n2024-05-03T09:00:00.001000000,event 1,generic\n2024-05-03T09:00:00.002000000,event 2,generic\n',
    );
  });
});

describe('Vector (elasticsearch sink)', () => {
  it('reads the version, checks cluster health, and bulk-indexes with its timeout parameter', async () => {
    const docs = [0, 1].map((i) => ({
      message: `vector ${i}`,
      timestamp: `2024-05-03T10:00:0${i}Z`,
      host: 'vec-1',
      source_type: 'file',
      file: '/var/log/v.log',
    }));
    await replay('/api/v1/es', [
      { method: 'GET', path: '/', status: 200, check: version },
      {
        method: 'GET',
        path: '/_cluster/health',
        status: 200,
        check: (r) => expect((JSON.parse(r.text) as { status: string }).status).toBe('green'),
      },
      // Vector's own field is `timestamp`: named with time_column (its `query` option), it is the time.
      {
        method: 'POST',
        path: '/_bulk?timeout=60s&time_column=timestamp',
        headers: { 'content-type': 'application/x-ndjson' },
        body: ndjson(docs.flatMap((d) => [{ index: { _index: 'vector-2024.05.03' } }, d])),
        status: 200,
        check: allCreated(2),
      },
      // Its data_stream mode stamps @timestamp and creates into logs-generic-default.
      {
        method: 'POST',
        path: '/_bulk?timeout=60s',
        headers: { 'content-type': 'application/x-ndjson' },
        body: ndjson([
          { create: { _index: 'vector-ds' } },
          { '@timestamp': '2024-05-03T10:00:05Z', message: 'ds', data_stream: { type: 'logs' } },
        ]),
        status: 200,
        check: allCreated(1),
      },
    ]);
    expect(await sql('SELECT time, message, host FROM "vector-2024.05.03" ORDER BY time')).toBe(
      '200 time,message,host\n2024-05-03T10:00:00.000000000,vector 0,vec-1\n2024-05-03T10:00:01.000000000,vector 1,vec-1\n',
    );
    expect(await sql('SELECT time, message FROM "vector-ds"')).toBe(
      '200 time,message\n2024-05-03T10:00:05.000000000,ds\n',
    );
  });
});

describe('Fluent Bit (es output)', () => {
  it('probes nothing and bulk-creates, with _type unless Suppress_Type_Name is on', async () => {
    const line = (i: number, action: object) => [
      action,
      { '@timestamp': `2024-05-03T11:00:00.${String(i).padStart(3, '0')}Z`, log: `fb ${i}`, stream: 'stdout' },
    ];
    await replay('/api/v1/es', [
      // Default (Suppress_Type_Name Off): `_type` in the action, which Sundial ignores with the rest of the metadata.
      {
        method: 'POST',
        path: '/_bulk',
        headers: { 'content-type': 'application/x-ndjson' },
        body: ndjson([
          ...line(1, { create: { _index: 'fluent-bit', _type: '_doc' } }),
          ...line(2, { create: { _index: 'fluent-bit' } }),
        ]),
        status: 200,
        check: allCreated(2),
      },
      // Logstash_Format On: a dated index and `index` (Write_Operation index).
      {
        method: 'POST',
        path: '/_bulk',
        headers: { 'content-type': 'application/x-ndjson' },
        body: ndjson(line(3, { index: { _index: 'logstash-2024.05.03' } })),
        status: 200,
        check: allCreated(1),
      },
    ]);
    expect(await sql('SELECT time, log, stream FROM "fluent-bit" ORDER BY time')).toBe(
      '200 time,log,stream\n2024-05-03T11:00:00.001000000,fb 1,stdout\n2024-05-03T11:00:00.002000000,fb 2,stdout\n',
    );
    expect(await sql('SELECT log FROM "logstash-2024.05.03"')).toBe('200 log\nfb 3\n');
  });
});

describe('Promtail (Loki push client)', () => {
  const PUSH = protobuf
    .parse(
      `syntax = "proto3"; package logproto;
       message PushRequest { repeated StreamAdapter streams = 1; }
       message StreamAdapter { string labels = 1; repeated EntryAdapter entries = 2; uint64 hash = 3; }
       message EntryAdapter { Timestamp timestamp = 1; string line = 2; }
       message Timestamp { int64 seconds = 1; int32 nanos = 2; }`,
    )
    .root.lookupType('logproto.PushRequest');

  it('probes nothing and pushes snappy protobuf with its user agent and tenant header', async () => {
    const message = PUSH.encode(
      PUSH.create({
        streams: [
          {
            labels: '{filename="/var/log/app.log", job="varlogs"}',
            entries: [0, 1].map((i) => ({ timestamp: { seconds: 1714726800, nanos: i * 1000 }, line: `pt ${i}` })),
          },
        ],
      }),
    ).finish();
    const r = await http(server.url, '/loki/api/v1/push?table=promtail', {
      body: compressSync(Buffer.from(message)),
      headers: { 'content-type': 'application/x-protobuf', 'user-agent': 'promtail/2.9.8', 'x-scope-orgid': 'cnosdb' },
    });
    expect([r.status, r.text]).toEqual([204, '']);
    expect(await sql('SELECT time, msg, job, filename FROM promtail ORDER BY time')).toBe(
      '200 time,msg,job,filename\n2024-05-03T09:00:00.000000000,pt 0,varlogs,/var/log/app.log\n2024-05-03T09:00:00.000001000,pt 1,varlogs,/var/log/app.log\n',
    );
  });
});
