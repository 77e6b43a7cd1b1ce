// The Elasticsearch routes as shippers call them, byte for byte: every path with and without a
// trailing slash, `/{index}/_bulk` and `_index` naming tables without `table`, `log_type` and
// `tag_columns` as headers, the probes Filebeat, Vector, Logstash, Fluent Bit, rsyslog and the
// clients make before writing, `HEAD|GET|PUT /{index}`, and bad input on each: Elasticsearch's
// error object and status, nothing stored.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, http, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

const PASSWORD = 'pw-routes';
let server: TestServer;

/** A request to /api/v1/es`path` as root (or `auth`). */
function es(
  path: string,
  options: { method?: string; body?: string; headers?: Record<string, string>; auth?: string | null } = {},
): Promise<HttpResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.auth !== null) headers.authorization = options.auth ?? basic('root', PASSWORD);
  return http(server.url, `/api/v1/es${path}`, {
    method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
    body: options.body,
    headers,
    auth: null,
  });
}

async function sql(statement: string, db = 'public', tenant = 'cnosdb'): Promise<string> {
  const r = await http(server.url, `/api/v1/sql?db=${db}&tenant=${tenant}`, {
    body: statement,
    auth: null,
    headers: { authorization: basic('root', PASSWORD) },
  });
  return `${r.status} ${r.text}`;
}

beforeAll(async () => {
  server = await startServer({ inProcess: true, args: ['--root-password', PASSWORD] });
  for (const s of [
    'CREATE TENANT other',
    "CREATE USER writer WITH PASSWORD = 'w'",
    'ALTER TENANT cnosdb ADD USER writer AS owner',
  ])
    expect(await sql(s)).toBe('200 ');
}, 60_000);

afterAll(async () => {
  await server?.stop();
  server?.cleanup();
});

describe('paths with and without a trailing slash', () => {
  const paths = [
    '',
    '/_cluster/health',
    '/_cat/health',
    '/_license',
    '/_xpack',
    '/_nodes',
    '/_index_template',
    '/_ilm/policy',
    '/_refresh',
  ];
  for (const path of paths) {
    it(`GET /api/v1/es${path} and ${path}/ answer the same, with X-Elastic-Product`, async () => {
      const [a, b] = [await es(path, { auth: null }), await es(`${path}/`, { auth: null })];
      expect([a.status, a.headers['x-elastic-product']]).toEqual([200, 'Elasticsearch']);
      expect([b.status, b.headers['x-elastic-product']]).toEqual([200, 'Elasticsearch']);
      // _cat/health's first column is the time of the answer.
      expect(b.text.replace(/^\d+ \d\d:\d\d:\d\d/, 'T')).toBe(a.text.replace(/^\d+ \d\d:\d\d:\d\d/, 'T'));
    });
  }

  it('takes bulk at /_bulk/ and /{index}/_bulk/ too', async () => {
    expect((await es('/_bulk/?table=slash_a', { body: '{"index":{}}\n{"v":1}\n' })).status).toBe(200);
    expect((await es('/slash_b/_bulk/', { method: 'PUT', body: '{"index":{}}\n{"v":2}\n' })).status).toBe(200);
    expect(await sql('SELECT v FROM slash_a')).toBe('200 v\n1.0\n');
    expect(await sql('SELECT v FROM slash_b')).toBe('200 v\n2.0\n');
  });
});

describe('tables from indexes', () => {
  it('the path names the table, an action _index overrides it, the table parameter overrides both', async () => {
    const body = [
      '{"create":{}}',
      '{"time":"2024-05-01T00:00:00Z","v":1}',
      '{"create":{"_index":"idx_named"}}',
      '{"time":"2024-05-01T00:00:01Z","v":2}',
      '',
    ].join('\n');
    const r = await es('/idx_path/_bulk', { body });
    expect(JSON.parse(r.text)).toMatchObject({
      errors: false,
      items: [{ create: { _index: 'idx_path', status: 201 } }, { create: { _index: 'idx_named', status: 201 } }],
    });
    expect(await sql('SELECT * FROM idx_path')).toBe('200 time,v\n2024-05-01T00:00:00.000000000,1.0\n');
    expect(await sql('SELECT * FROM idx_named')).toBe('200 time,v\n2024-05-01T00:00:01.000000000,2.0\n');
    const given = await es('/idx_path/_bulk?table=idx_param', { body });
    expect(JSON.parse(given.text)).toMatchObject({
      items: [{ create: { _index: 'idx_param' } }, { create: { _index: 'idx_param' } }],
    });
    expect(await sql('SELECT * FROM idx_param ORDER BY time')).toBe(
      '200 time,v\n2024-05-01T00:00:00.000000000,1.0\n2024-05-01T00:00:01.000000000,2.0\n',
    );
  });

  it('takes log_type, tag_columns and time_column as headers', async () => {
    const r = await es('/hdr_logs/_bulk', {
      body: '{"at":"2024-05-02T00:00:00Z","host":"a","v":1}\n{"at":"2024-05-02T00:00:01Z","host":"b","v":2}\n',
      headers: { log_type: 'ndjson', tag_columns: 'host', time_column: 'at' },
    });
    expect([r.status, r.text]).toEqual([200, '']);
    expect(await sql('SELECT * FROM hdr_logs ORDER BY time')).toBe(
      '200 time,host,v\n2024-05-02T00:00:00.000000000,a,1.0\n2024-05-02T00:00:01.000000000,b,2.0\n',
    );
    expect(
      await sql(
        "SELECT column_name, column_type FROM information_schema.columns WHERE table_name = 'hdr_logs' AND column_name = 'host'",
      ),
    ).toMatch(/host,TAG/);
  });
});

describe('the probes shippers make before writing', () => {
  // [who, method, path, status, body it must contain]
  const probes: Array<[string, string, string, number, unknown]> = [
    [
      'the clients (info)',
      'GET',
      '',
      200,
      {
        version: { number: '8.19.0', build_flavor: 'default', minimum_wire_compatibility_version: '7.17.0' },
        tagline: 'You Know, for Search',
      },
    ],
    ['Vector (healthcheck)', 'GET', '/_cluster/health', 200, { status: 'green', number_of_nodes: 1, timed_out: false }],
    ['Logstash, Filebeat (license)', 'GET', '/_license', 200, { license: { status: 'active', type: 'basic' } }],
    [
      'Filebeat (features)',
      'GET',
      '/_xpack',
      200,
      { license: { status: 'active' }, features: { ilm: { available: true, enabled: true } } },
    ],
    ['Logstash (sniffing)', 'GET', '/_nodes/http', 200, { _nodes: { failed: 0 }, nodes: {} }],
    [
      'Filebeat, Logstash (template)',
      'GET',
      '/_index_template/filebeat-8.19.0',
      404,
      { error: { type: 'resource_not_found_exception' }, status: 404 },
    ],
    ['Filebeat, Logstash (template install)', 'PUT', '/_index_template/filebeat-8.19.0', 200, { acknowledged: true }],
    ['Logstash (legacy template)', 'PUT', '/_template/logstash', 200, { acknowledged: true }],
    ['Filebeat (component template)', 'PUT', '/_component_template/logs@custom', 200, { acknowledged: true }],
    [
      'Filebeat, Logstash (ILM policy)',
      'GET',
      '/_ilm/policy/filebeat',
      404,
      { error: { type: 'resource_not_found_exception', reason: 'Lifecycle policy not found: filebeat' } },
    ],
    ['Filebeat, Logstash (ILM install)', 'PUT', '/_ilm/policy/filebeat', 200, { acknowledged: true }],
    [
      'Filebeat modules (pipeline)',
      'PUT',
      '/_ingest/pipeline/filebeat-8.19.0-system-syslog',
      200,
      { acknowledged: true },
    ],
    ['Logstash (rollover alias)', 'GET', '/_alias/logstash', 404, { error: { type: 'aliases_not_found_exception' } }],
    ['data streams', 'GET', '/_data_stream', 200, { data_streams: [] }],
    ['the bulk helper (refresh)', 'POST', '/logs/_refresh', 200, { _shards: { failed: 0 } }],
  ];
  for (const [who, method, path, status, body] of probes) {
    it(`answers ${who}: ${method} ${path || '/'} -> ${status}`, async () => {
      const r = await es(path, {
        method,
        auth: null,
        ...(method === 'PUT' ? { body: '{"template":{}}', headers: { 'content-type': 'application/json' } } : {}),
      });
      expect([r.status, r.headers['x-elastic-product'], r.headers['content-type']]).toEqual([
        status,
        'Elasticsearch',
        'application/json',
      ]);
      expect(JSON.parse(r.text)).toMatchObject(body as object);
    });
  }

  it('answers rsyslog (health) in _cat text', async () => {
    const r = await es('/_cat/health?v', { auth: null });
    expect(r.text).toMatch(
      /^epoch timestamp cluster status node\.total .*\n\d+ \d\d:\d\d:\d\d sundial green 1 1 0 0 0 0 0 0 - 100\.0%\n$/,
    );
  });

  it('HEAD, GET and PUT of an index read the catalog of the request database', async () => {
    expect(
      (
        await es('/idx_head/_bulk', {
          body: '{"index":{}}\n{"host":"a","v":1,"ok":true,"s":"x"}\n',
          headers: { tag_columns: 'host' },
        })
      ).status,
    ).toBe(200);
    const head = await es('/idx_head', { method: 'HEAD' });
    expect([head.status, head.headers['x-elastic-product'], head.body.length]).toEqual([200, 'Elasticsearch', 0]);
    expect((await es('/idx_missing', { method: 'HEAD' })).status).toBe(404);
    expect(JSON.parse((await es('/idx_head')).text)).toEqual({
      idx_head: {
        aliases: {},
        mappings: {
          properties: {
            time: { type: 'date_nanos' },
            host: { type: 'keyword' },
            ok: { type: 'boolean' },
            s: { type: 'text' },
            v: { type: 'double' },
          },
        },
        settings: { index: { number_of_shards: '1', number_of_replicas: '0', provided_name: 'idx_head' } },
      },
    });
    expect(JSON.parse((await es('/idx_new', { method: 'PUT', body: '{}' })).text)).toEqual({
      acknowledged: true,
      shards_acknowledged: true,
      index: 'idx_new',
    });
    const exists = await es('/idx_head', { method: 'PUT', body: '{}' });
    expect([exists.status, (JSON.parse(exists.text) as { error: { type: string } }).error.type]).toEqual([
      400,
      'resource_already_exists_exception',
    ]);
    const underscore = await es('/_foo', { method: 'PUT', body: '{}' });
    expect([underscore.status, (JSON.parse(underscore.text) as { error: { type: string } }).error.type]).toEqual([
      400,
      'invalid_index_name_exception',
    ]);
  });
});

describe('bad input', () => {
  // [case, path, options, status, Sundial code, Elasticsearch type, table that must not exist]
  const cases: Array<[string, string, Parameters<typeof es>[1], number, string, string, string]> = [
    [
      'no credentials',
      '/bad_a/_bulk',
      { body: '{"index":{}}\n{"v":1}\n', auth: null },
      401,
      '010016',
      'security_exception',
      'bad_a',
    ],
    [
      'a wrong password',
      '/bad_b/_bulk',
      { body: '{"index":{}}\n{"v":1}\n', auth: basic('root', 'nope') },
      401,
      '010016',
      'security_exception',
      'bad_b',
    ],
    [
      "another tenant's database",
      '/bad_c/_bulk?tenant=other',
      { body: '{"index":{}}\n{"v":1}\n', auth: basic('writer', 'w') },
      403,
      '030010',
      'security_exception',
      'bad_c',
    ],
    [
      'an unknown database',
      '/bad_d/_bulk?db=nope',
      { body: '{"index":{}}\n{"v":1}\n' },
      404,
      '030017',
      'index_not_found_exception',
      'bad_d',
    ],
    [
      'a malformed action line',
      '/bad_e/_bulk',
      { body: '{"index":\n{"v":1}\n' },
      400,
      '040016',
      'illegal_argument_exception',
      'bad_e',
    ],
    [
      'an unsupported action',
      '/bad_f/_bulk',
      { body: '{"delete":{"_id":"1"}}\n' },
      400,
      '040016',
      'illegal_argument_exception',
      'bad_f',
    ],
    [
      'a wrong content type',
      '/bad_g/_bulk',
      { body: '{"index":{}}\n{"v":1}\n', headers: { 'content-type': 'application/xml' } },
      400,
      '040005',
      'illegal_argument_exception',
      'bad_g',
    ],
    [
      'an unknown content encoding',
      '/bad_h/_bulk',
      { body: '{"index":{}}\n{"v":1}\n', headers: { 'content-encoding': 'bogus' } },
      400,
      '040005',
      'illegal_argument_exception',
      'bad_h',
    ],
    [
      'a corrupt gzip body',
      '/bad_i/_bulk',
      { body: 'not gzip', headers: { 'content-encoding': 'gzip' } },
      400,
      '040013',
      'illegal_argument_exception',
      'bad_i',
    ],
    [
      'no credentials on an index',
      '/bad_j',
      { method: 'PUT', body: '{}', auth: null },
      401,
      '010016',
      'security_exception',
      'bad_j',
    ],
  ];
  for (const [name, path, options, status, code, type, table] of cases) {
    it(`answers ${name} with ${status} ${type}, storing nothing`, async () => {
      const r = await es(path, options);
      expect([
        r.status,
        r.headers['x-sundial-error-code'],
        r.headers['x-elastic-product'],
        r.headers['content-type'],
      ]).toEqual([status, code, 'Elasticsearch', 'application/json']);
      const body = JSON.parse(r.text) as {
        error: { type: string; reason: string; root_cause: unknown[] };
        status: number;
        error_code: string;
        error_message: string;
      };
      expect([body.status, body.error.type, body.error_code, body.error.reason]).toEqual([
        status,
        type,
        code,
        body.error_message,
      ]);
      if (status === 401) expect(r.headers['www-authenticate']).toMatch(/^Basic /);
      expect(await sql(`SELECT * FROM ${table}`)).toMatch(/^422 .*Table not found/);
    });
  }
});
