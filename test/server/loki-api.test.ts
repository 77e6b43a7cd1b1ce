// POST /loki/api/v1/push, Loki's own path, as its clients push: winston-loki unchanged (snappy
// protobuf, its default, and JSON with structured metadata), and raw pushes in JSON, gzip JSON and
// protobuf; the tenant from X-Scope-OrgID, the database and table from `db`/`table` or the
// ingest.loki_* settings; bad input answered as Loki answers (a text line, Loki's statuses),
// nothing stored. Every stored row and value is read back through /api/v1/sql.

import { gzipSync } from 'node:zlib';
import { compressSync } from 'snappy';
import { createLogger } from 'winston';
import LokiTransport from 'winston-loki';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOKI_PUSH_REQUEST } from '../../host/ingest/loki-push.js';
import { basic, http, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

const PASSWORD = 'pw-loki';
/** 2024-06-01T00:00:00Z in nanoseconds. */
const T0 = 1_717_200_000_000_000_000n;

let server: TestServer;

function push(
  body: string | Buffer,
  headers: Record<string, string>,
  query = '',
  auth: string | null = basic('root', PASSWORD),
): Promise<HttpResponse> {
  return http(server.url, `/loki/api/v1/push${query}`, {
    method: 'POST',
    body,
    headers: { ...headers, ...(auth === null ? {} : { authorization: auth }) },
    auth: null,
  });
}

/** `statement`'s rows as objects. */
async function rows(statement: string): Promise<Array<Record<string, unknown>>> {
  const r = await http(server.url, '/api/v1/sql?db=public', {
    body: statement,
    auth: null,
    headers: { authorization: basic('root', PASSWORD), accept: 'application/json' },
  });
  expect(r.status, r.text).toBe(200);
  return JSON.parse(r.text) as Array<Record<string, unknown>>;
}

async function sql(statement: string, db = 'public', tenant = 'cnosdb'): Promise<string> {
  const r = await http(server.url, `/api/v1/sql?db=${db}&tenant=${tenant}`, {
    body: statement,
    auth: null,
    headers: { authorization: basic('root', PASSWORD) },
  });
  return `${r.status} ${r.text}`;
}

function protobuf(streams: Array<{ labels: string; entries: Array<[bigint, string]> }>): Buffer {
  const message = LOKI_PUSH_REQUEST.fromObject({
    streams: streams.map((s) => ({
      labels: s.labels,
      entries: s.entries.map(([ns, line]) => ({
        timestamp: { seconds: Number(ns / 1_000_000_000n), nanos: Number(ns % 1_000_000_000n) },
        line,
      })),
    })),
  });
  return compressSync(Buffer.from(LOKI_PUSH_REQUEST.encode(message).finish()));
}

const JSON_PUSH = JSON.stringify({
  streams: [
    {
      stream: { job: 'api', env: 'prod' },
      values: [
        [`${T0}`, 'GET /a 200'],
        [`${T0 + 5n}`, 'GET /b 500', { trace_id: 'abc' }],
      ],
    },
  ],
});

beforeAll(async () => {
  server = await startServer({ inProcess: true, args: ['--root-password', PASSWORD] });
  for (const s of [
    'CREATE TENANT acme',
    "CREATE USER dev WITH PASSWORD = 'd'",
    'ALTER TENANT cnosdb ADD USER dev AS owner',
  ])
    expect(await sql(s)).toBe('200 ');
  expect(await sql('CREATE DATABASE logsdb', 'public', 'acme')).toBe('200 ');
}, 60_000);

afterAll(async () => {
  await server?.stop();
  server?.cleanup();
});

describe('winston-loki', () => {
  const ship = async (json: boolean, table: string, lines: number): Promise<unknown[]> => {
    const failures: unknown[] = [];
    const transport = new LokiTransport({
      host: server.url,
      basicAuth: `root:${PASSWORD}`,
      json,
      labels: { app: 'shop' },
      headers: { table, tag_columns: 'app' },
      interval: 0.1,
      gracefulShutdown: false,
      onConnectionError: (e: unknown) => failures.push(e),
    });
    const logger = createLogger({ transports: [transport] });
    // One millisecond stamps many lines: every one is kept (issue 25).
    for (let i = 0; i < lines; i++) logger.info(`order ${i} placed`, { order: i });
    logger.warn('slow payment');
    await transport.flush();
    transport.close?.();
    return failures;
  };

  it('pushes snappy protobuf (its default): one row per line, labels as columns', async () => {
    expect(await ship(false, 'winston_proto', 50)).toEqual([]);
    // winston-loki's line: the message, then the rest of winston's info object as JSON.
    const want = [
      ...Array.from({ length: 50 }, (_, i) => ({
        msg: `order ${i} placed {"order":${i},"level":"info"}`,
        app: 'shop',
        level: 'info',
      })),
      { msg: 'slow payment {"level":"warn"}', app: 'shop', level: 'warn' },
    ];
    const got = await rows('SELECT msg, app, level FROM winston_proto ORDER BY time');
    expect(got).toEqual(want);
  });

  it('pushes JSON with its metadata as structured metadata columns', async () => {
    expect(await ship(true, 'winston_json', 20)).toEqual([]);
    const want = [
      ...Array.from({ length: 20 }, (_, i) => ({
        msg: `order ${i} placed {"order":${i},"level":"info"}`,
        app: 'shop',
        level: 'info',
        order: String(i),
      })),
      { msg: 'slow payment {"level":"warn"}', app: 'shop', level: 'warn', order: null },
    ];
    expect(await rows('SELECT msg, app, level, "order" FROM winston_json ORDER BY time')).toEqual(want);
  });
});

describe('raw pushes', () => {
  it('takes JSON, gzip JSON and protobuf; answers 204 with no body', async () => {
    const json = await push(JSON_PUSH, { 'content-type': 'application/json' }, '?table=raw_json');
    expect([json.status, json.body.length]).toEqual([204, 0]);
    const gz = await push(
      gzipSync(JSON_PUSH),
      { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      '?table=raw_gzip',
    );
    expect(gz.status).toBe(204);
    const pb = await push(
      protobuf([
        {
          labels: '{job="api", env="prod"}',
          entries: [
            [T0, 'GET /a 200'],
            [T0 + 5n, 'GET /b 500'],
          ],
        },
      ]),
      { 'content-type': 'application/x-protobuf' },
      '?table=raw_proto',
    );
    expect(pb.status).toBe(204);
    // Loki reads a push without a Content-Type as protobuf.
    const bare = await push(protobuf([{ labels: '{job="bare"}', entries: [[T0, 'x']] }]), {}, '?table=raw_bare');
    expect(bare.status).toBe(204);
    for (const t of ['raw_json', 'raw_gzip']) {
      expect(await sql(`SELECT * FROM ${t} ORDER BY time`)).toBe(
        '200 time,env,job,msg,trace_id\n2024-06-01T00:00:00.000000000,prod,api,GET /a 200,\n2024-06-01T00:00:00.000000005,prod,api,GET /b 500,abc\n',
      );
    }
    expect(await sql('SELECT * FROM raw_proto ORDER BY time')).toBe(
      '200 time,env,job,msg\n2024-06-01T00:00:00.000000000,prod,api,GET /a 200\n2024-06-01T00:00:00.000000005,prod,api,GET /b 500\n',
    );
    expect(await sql('SELECT * FROM raw_bare')).toBe('200 time,job,msg\n2024-06-01T00:00:00.000000000,bare,x\n');
  });

  it('goes to the tenant X-Scope-OrgID names, into the default table `logs`', async () => {
    const r = await push(JSON_PUSH, { 'content-type': 'application/json', 'x-scope-orgid': 'acme', db: 'logsdb' });
    expect(r.status).toBe(204);
    expect(await sql('SELECT msg FROM logs ORDER BY time', 'logsdb', 'acme')).toBe('200 msg\nGET /a 200\nGET /b 500\n');
    // The `tenant` parameter, Sundial's own, wins over the header.
    expect(
      (
        await push(
          JSON_PUSH,
          { 'content-type': 'application/json', 'x-scope-orgid': 'acme' },
          '?tenant=cnosdb&table=org_override',
        )
      ).status,
    ).toBe(204);
    expect(await sql('SELECT count(*) AS n FROM org_override')).toBe('200 n\n2\n');
  });
});

describe('bad input', () => {
  // [case, body, headers, query, auth, status, code, table that must not exist, tenant/db to look in]
  const cases: Array<[string, string | Buffer, Record<string, string>, string, string | null, number, string, string]> =
    [
      [
        'no credentials',
        JSON_PUSH,
        { 'content-type': 'application/json' },
        '?table=bad_a',
        null,
        401,
        '010016',
        'bad_a',
      ],
      [
        'a wrong password',
        JSON_PUSH,
        { 'content-type': 'application/json' },
        '?table=bad_b',
        basic('root', 'nope'),
        401,
        '010016',
        'bad_b',
      ],
      [
        "another tenant's database",
        JSON_PUSH,
        { 'content-type': 'application/json', 'x-scope-orgid': 'acme' },
        '?table=bad_c&db=logsdb',
        basic('dev', 'd'),
        403,
        '030010',
        'bad_c',
      ],
      [
        'an unknown tenant',
        JSON_PUSH,
        { 'content-type': 'application/json', 'x-scope-orgid': 'nosuch' },
        '?table=bad_d',
        basic('root', PASSWORD),
        403,
        '030010',
        'bad_d',
      ],
      [
        'an unknown database',
        JSON_PUSH,
        { 'content-type': 'application/json' },
        '?table=bad_e&db=nope',
        basic('root', PASSWORD),
        404,
        '030017',
        'bad_e',
      ],
      [
        'JSON that does not parse',
        '{"streams":[',
        { 'content-type': 'application/json' },
        '?table=bad_f',
        basic('root', PASSWORD),
        400,
        '040016',
        'bad_f',
      ],
      [
        'JSON without streams',
        '{"values":[]}',
        { 'content-type': 'application/json' },
        '?table=bad_g',
        basic('root', PASSWORD),
        400,
        '040016',
        'bad_g',
      ],
      [
        'a timestamp that is not nanoseconds',
        '{"streams":[{"stream":{"a":"b"},"values":[["yesterday","x"]]}]}',
        { 'content-type': 'application/json' },
        '?table=bad_h',
        basic('root', PASSWORD),
        400,
        '040016',
        'bad_h',
      ],
      [
        'protobuf that is not a PushRequest',
        compressSync(Buffer.from([0x0a, 0xff, 0xff, 0x01])),
        { 'content-type': 'application/x-protobuf' },
        '?table=bad_i',
        basic('root', PASSWORD),
        400,
        '040017',
        'bad_i',
      ],
      [
        'protobuf not snappy-compressed',
        Buffer.from([0x20, 0x00, 0x01]),
        { 'content-type': 'application/x-protobuf' },
        '?table=bad_j',
        basic('root', PASSWORD),
        400,
        '040013',
        'bad_j',
      ],
      [
        'a wrong content type',
        JSON_PUSH,
        { 'content-type': 'text/plain' },
        '?table=bad_k',
        basic('root', PASSWORD),
        400,
        '040005',
        'bad_k',
      ],
      [
        'an unknown content encoding',
        JSON_PUSH,
        { 'content-type': 'application/json', 'content-encoding': 'bogus' },
        '?table=bad_l',
        basic('root', PASSWORD),
        400,
        '040005',
        'bad_l',
      ],
    ];
  for (const [name, body, headers, query, auth, status, code, table] of cases) {
    it(`answers ${name} with ${status} and Loki's text line, storing nothing`, async () => {
      const r = await push(body, headers, query, auth);
      expect([r.status, r.headers['x-sundial-error-code'], r.headers['content-type']]).toEqual([
        status,
        code,
        'text/plain; charset=utf-8',
      ]);
      expect(r.text).toMatch(/^[^\n]+\n$/);
      expect(r.text.trimEnd()).toBe(String(r.headers['x-sundial-error']));
      if (status === 401) expect(r.headers['www-authenticate']).toMatch(/^Basic /);
      for (const [tenant, db] of [
        ['cnosdb', 'public'],
        ['acme', 'logsdb'],
      ])
        expect(await sql(`SELECT * FROM ${table}`, db, tenant)).toMatch(/^422 .*Table not found/);
    });
  }
});

describe('the ingest.loki_* settings', () => {
  it('name the tenant, database and table of a push that names none', async () => {
    const other = await startServer({
      inProcess: true,
      args: [
        '--root-password',
        PASSWORD,
        '--loki-tenant',
        'cnosdb',
        '--loki-database',
        'lokidb',
        '--loki-table',
        'app_logs',
      ],
    });
    try {
      const auth = { authorization: basic('root', PASSWORD) };
      expect(
        (await http(other.url, '/api/v1/sql', { body: 'CREATE DATABASE lokidb', auth: null, headers: auth })).status,
      ).toBe(200);
      const r = await http(other.url, '/loki/api/v1/push', {
        method: 'POST',
        body: JSON_PUSH,
        headers: { 'content-type': 'application/json', ...auth },
        auth: null,
      });
      expect(r.status).toBe(204);
      const rows = await http(other.url, '/api/v1/sql?db=lokidb', {
        body: 'SELECT msg, job FROM app_logs ORDER BY time',
        auth: null,
        headers: auth,
      });
      expect(rows.text).toBe('msg,job\nGET /a 200,api\nGET /b 500,api\n');
    } finally {
      await other.stop();
      other.cleanup();
    }
  }, 60_000);
});
