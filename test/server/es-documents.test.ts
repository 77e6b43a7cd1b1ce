// Elasticsearch documents one at a time (`/{index}/_doc`, `/_doc/{id}`, `/_create/{id}`) against a
// real server, `@timestamp` as the time of Elasticsearch-style calls, and documents that share a
// series and a millisecond, which every log route keeps (docs/http-api.md "Writes"): 1,000 of
// them through bulk (as Elasticsearch and as CnosDB), NDJSON and single documents, read back.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;

/** `statement`'s CSV answer, as "status body". */
async function sql(statement: string): Promise<string> {
  const r = await http(server.url, '/api/v1/sql?db=public', { body: statement });
  return `${r.status} ${r.text}`;
}

beforeAll(async () => {
  server = await startServer({ inProcess: true });
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

const json = { 'content-type': 'application/json' };

describe('POST|PUT /api/v1/es/{index}/_doc, /_doc/{id}, /_create/{id}', () => {
  it('stores one document and answers 201 with the body and Location Elasticsearch 8 gives', async () => {
    const r = await http(server.url, '/api/v1/es/doc_logs/_doc', {
      body: JSON.stringify({ '@timestamp': '2024-05-01T10:00:00.250Z', message: 'started', level: 'info' }),
      headers: json,
    });
    expect(r.status).toBe(201);
    expect(r.headers['x-elastic-product']).toBe('Elasticsearch');
    const body = JSON.parse(r.text) as Record<string, unknown>;
    expect(body._id).toMatch(/^[A-Za-z0-9_-]{20}$/);
    expect(body).toEqual({
      _index: 'doc_logs',
      _id: body._id,
      _version: 1,
      result: 'created',
      _shards: { total: 1, successful: 1, failed: 0 },
      _seq_no: 0,
      _primary_term: 1,
    });
    expect(r.headers.location).toBe(`/doc_logs/_doc/${body._id as string}`);
    expect(await sql('SELECT * FROM doc_logs')).toBe(
      '200 time,level,message\n2024-05-01T10:00:00.250000000,info,started\n',
    );
  });

  const withId: Array<{ method: string; path: string; id: string }> = [
    { method: 'PUT', path: '/api/v1/es/doc_ids/_doc/a-1', id: 'a-1' },
    { method: 'POST', path: '/api/v1/es/doc_ids/_doc/b%202', id: 'b 2' },
    { method: 'PUT', path: '/api/v1/es/doc_ids/_create/c3', id: 'c3' },
    { method: 'POST', path: '/api/v1/es/doc_ids/_create/d4/', id: 'd4' },
  ];
  it('takes the id of the path with PUT and POST, _doc and _create, and stores each call', async () => {
    let n = 0;
    for (const c of withId) {
      // A pretty-printed document: line breaks between tokens are JSON white space.
      const doc = JSON.stringify({ '@timestamp': `2024-05-01T10:00:0${n}Z`, n: n++ }, null, 2);
      const r = await http(server.url, c.path, { method: c.method, body: doc, headers: json });
      expect(r.status, c.path).toBe(201);
      const body = JSON.parse(r.text) as Record<string, unknown>;
      expect([body._id, body.result, r.headers.location], c.path).toEqual([
        c.id,
        'created',
        `/doc_ids/_doc/${encodeURIComponent(c.id)}`,
      ]);
    }
    expect(await sql('SELECT time, n FROM doc_ids ORDER BY time')).toBe(
      '200 time,n\n2024-05-01T10:00:00.000000000,0.0\n2024-05-01T10:00:01.000000000,1.0\n2024-05-01T10:00:02.000000000,2.0\n2024-05-01T10:00:03.000000000,3.0\n',
    );
  });

  const refused: Array<{
    name: string;
    method: string;
    path: string;
    body: string;
    status: number;
    type?: string;
    reason: string | RegExp;
  }> = [
    {
      name: 'PUT without an id',
      method: 'PUT',
      path: '/api/v1/es/doc_bad/_doc',
      body: '{"v":1}',
      status: 405,
      reason: 'Incorrect HTTP method for uri [/doc_bad/_doc] and method [PUT], allowed: [POST]',
    },
    {
      name: 'invalid JSON',
      method: 'POST',
      path: '/api/v1/es/doc_bad/_doc',
      body: '{"v":',
      status: 400,
      type: 'document_parsing_exception',
      reason: /^invalid JSON: /,
    },
    {
      name: 'a null',
      method: 'POST',
      path: '/api/v1/es/doc_bad/_doc',
      body: '{"v":null}',
      status: 400,
      type: 'document_parsing_exception',
      reason: "column 'v' is null; null values are not supported",
    },
    {
      name: 'a time that does not parse',
      method: 'POST',
      path: '/api/v1/es/doc_bad/_doc',
      body: '{"@timestamp":"soon","v":1}',
      status: 400,
      type: 'document_parsing_exception',
      reason: /^time column '@timestamp': /,
    },
    {
      name: 'an index starting with _',
      method: 'POST',
      path: '/api/v1/es/_x/_doc',
      body: '{"v":1}',
      status: 400,
      type: 'invalid_index_name_exception',
      reason: "Invalid index name [_x], must not start with '_', '-', '+'",
    },
    {
      name: 'an id past 512 bytes',
      method: 'PUT',
      path: `/api/v1/es/doc_bad/_doc/${'i'.repeat(513)}`,
      body: '{"v":1}',
      status: 400,
      type: 'action_request_validation_exception',
      reason: /^Validation Failed: 1: id \[i+\] is too long, must be no longer than 512 bytes but was: 513;$/,
    },
    {
      name: 'no body',
      method: 'POST',
      path: '/api/v1/es/doc_bad/_doc',
      body: '',
      status: 400,
      type: 'illegal_argument_exception',
      reason: 'request body is required',
    },
  ];
  it('refuses what Elasticsearch refuses, in its error shape, storing nothing', async () => {
    for (const c of refused) {
      const r = await http(server.url, c.path, { method: c.method, body: c.body, headers: json });
      expect(r.status, c.name).toBe(c.status);
      expect(r.headers['x-elastic-product'], c.name).toBe('Elasticsearch');
      const body = JSON.parse(r.text) as {
        error: string | { type: string; reason: string; root_cause: unknown[] };
        status: number;
      };
      expect(body.status, c.name).toBe(c.status);
      if (c.type === undefined) {
        expect(body.error, c.name).toBe(c.reason);
        continue;
      }
      const error = body.error as { type: string; reason: string; root_cause: unknown[] };
      expect(error.type, c.name).toBe(c.type);
      expect(error.reason, c.name).toMatch(c.reason);
      expect(error.root_cause, c.name).toEqual([{ type: error.type, reason: error.reason }]);
    }
    expect(await sql("SELECT count(*) FROM information_schema.tables WHERE table_name = 'doc_bad'")).toBe(
      '200 COUNT(UInt8(1))\n0\n',
    );
  });

  it('needs credentials', async () => {
    const r = await http(server.url, '/api/v1/es/doc_auth/_doc', { body: '{"v":1}', headers: json, auth: null });
    expect(r.status).toBe(401);
    expect((JSON.parse(r.text) as { error: { type: string } }).error.type).toBe('security_exception');
  });
});

describe('@timestamp, the time of Elasticsearch-style calls', () => {
  it('is the time of a bulk body without table; else time; time_column names another', async () => {
    const bulk = [
      '{"create":{"_index":"ts_es"}}',
      '{"@timestamp":"2024-05-02T00:00:01Z","v":1}',
      '{"create":{"_index":"ts_es"}}',
      '{"time":"2024-05-02T00:00:02Z","v":2}',
      '{"create":{"_index":"ts_es"}}',
      '{"@timestamp":"2024-05-02T00:00:03Z","time":"2024-05-02T00:00:04Z","v":3}',
      '',
    ].join('\n');
    const r = await http(server.url, '/api/v1/es/_bulk', {
      body: bulk,
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(r.status).toBe(200);
    const items = (
      JSON.parse(r.text) as { items: Array<{ create: { status: number; error?: { type: string; reason: string } } }> }
    ).items;
    expect(items.map((i) => i.create.status)).toEqual([201, 201, 400]);
    expect(items[2]!.create.error).toEqual({
      type: 'document_parsing_exception',
      reason:
        "line 6: the document has both '@timestamp' and 'time'; name its time column with the time_column parameter",
    });
    expect(await sql('SELECT time, v FROM ts_es ORDER BY time')).toBe(
      '200 time,v\n2024-05-02T00:00:01.000000000,1.0\n2024-05-02T00:00:02.000000000,2.0\n',
    );
    // With time_column, that column is the time and @timestamp a field.
    const named = await http(server.url, '/api/v1/es/ts_named/_bulk?time_column=at', {
      body: '{"index":{}}\n{"at":"2024-05-02T00:00:05Z","@timestamp":"x","v":5}\n',
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(named.status).toBe(200);
    expect(await sql('SELECT * FROM ts_named')).toBe('200 time,@timestamp,v\n2024-05-02T00:00:05.000000000,x,5.0\n');
  });

  it('is a field when called as CnosDB (a table parameter), whose time column is time', async () => {
    const r = await http(server.url, '/api/v1/es/_bulk?table=ts_cnosdb', {
      body: '{"create":{}}\n{"time":"2024-05-02T00:00:06Z","@timestamp":"y","v":6}\n',
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(r.status).toBe(200);
    expect(await sql('SELECT * FROM ts_cnosdb')).toBe('200 time,@timestamp,v\n2024-05-02T00:00:06.000000000,y,6.0\n');
  });
});

describe('documents of one series in one millisecond', () => {
  const MS = '2024-05-03T08:00:00.123Z';
  const docs = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ '@timestamp': MS, service: 'api', n: i }));
  const cnosdbDocs = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ time: MS, service: 'api', n: i }));
  const routes: Array<{ name: string; table: string; path: string; body: string }> = [
    {
      name: 'bulk as Elasticsearch',
      table: 'tie_es',
      path: '/api/v1/es/tie_es/_bulk?tag_columns=service',
      body: docs.map((d) => `{"create":{}}\n${d}\n`).join(''),
    },
    {
      name: 'bulk as CnosDB',
      table: 'tie_bulk',
      path: '/api/v1/es/_bulk?table=tie_bulk&tag_columns=service',
      body: cnosdbDocs.map((d) => `{"index":{}}\n${d}\n`).join(''),
    },
    {
      name: 'NDJSON',
      table: 'tie_nd',
      path: '/api/v1/es/_bulk?table=tie_nd&log_type=ndjson&tag_columns=service',
      body: cnosdbDocs.join('\n'),
    },
  ];
  for (const route of routes) {
    it(`keeps all 1,000 through ${route.name}, in order, a nanosecond apart`, async () => {
      const r = await http(server.url, route.path, {
        body: route.body,
        headers: { 'content-type': 'application/x-ndjson' },
      });
      expect(r.status).toBe(200);
      const got = await sql(`SELECT time, service, n FROM ${route.table} ORDER BY time`);
      const want = Array.from(
        { length: 1000 },
        (_, i) => `2024-05-03T08:00:00.123${String(i).padStart(6, '0')},api,${i}.0`,
      );
      expect(got).toBe(`200 time,service,n\n${want.join('\n')}\n`);
    });
  }

  it("keeps a millisecond database's too, a millisecond apart", async () => {
    expect(await sql("CREATE DATABASE tie_ms WITH PRECISION 'MS'")).toBe('200 ');
    const r = await http(server.url, '/api/v1/es/_bulk?db=tie_ms&table=t&log_type=ndjson', {
      body: cnosdbDocs.slice(0, 3).join('\n'),
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(r.status).toBe(200);
    const q = await http(server.url, '/api/v1/sql?db=tie_ms', { body: 'SELECT time, n FROM t ORDER BY time' });
    expect(q.text).toBe(
      'time,n\n2024-05-03T08:00:00.123000000,0.0\n2024-05-03T08:00:00.124000000,1.0\n2024-05-03T08:00:00.125000000,2.0\n',
    );
  });
});
