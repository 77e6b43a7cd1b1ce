// `filter_path` on `/api/v1/es/_bulk` replies, as Elasticsearch trims them (REST common options,
// "Response filtering"): Logstash sends `errors,items.*.error,items.*.status` with every bulk,
// others `items.*.error` or `took`. One bulk of three documents, the second failing, and one
// that stores all three; each case checks the whole reply.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ inProcess: true });
});
afterAll(async () => {
  await server.stop();
  server.cleanup();
});

const ndjson = (lines: unknown[]): string => lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
const doc = (i: number, time: string): unknown[] => [{ create: {} }, { '@timestamp': time, message: `m${i}` }];
const FAILING = ndjson([...doc(0, '2024-05-01T10:00:00Z'), ...doc(1, '01/05/2024'), ...doc(2, '2024-05-01T10:00:02Z')]);
const STORED = ndjson([0, 1, 2].flatMap((i) => doc(i, `2024-05-01T11:00:0${i}Z`)));
const ERROR = {
  type: 'document_parsing_exception',
  reason: "line 4: time column '@timestamp': '01/05/2024' is not an RFC 3339 time (want e.g. 2024-01-31T12:00:00.5Z)",
};

const CASES: Array<{ name: string; filter: string; body: string; reply: unknown }> = [
  {
    name: "Logstash's list on a failed document",
    filter: 'errors,items.*.error,items.*.status',
    body: FAILING,
    reply: {
      errors: true,
      items: [{ create: { status: 201 } }, { create: { status: 400, error: ERROR } }, { create: { status: 201 } }],
    },
  },
  {
    name: "Logstash's list, all stored",
    filter: 'errors,items.*.error,items.*.status',
    body: STORED,
    reply: { errors: false, items: [0, 1, 2].map(() => ({ create: { status: 201 } })) },
  },
  {
    name: 'items.*.error: only the failed items',
    filter: 'items.*.error',
    body: FAILING,
    reply: { items: [{ create: { error: ERROR } }] },
  },
  { name: 'items.*.error, all stored: nothing left', filter: 'items.*.error', body: STORED, reply: {} },
  { name: 'errors', filter: 'errors', body: FAILING, reply: { errors: true } },
  {
    name: 'a wildcard in a name and ** for any depth',
    filter: 'err*,**.reason',
    body: FAILING,
    reply: { errors: true, items: [{ create: { error: { reason: ERROR.reason } } }] },
  },
  { name: 'a name no reply has', filter: 'hits.total', body: STORED, reply: {} },
];

describe('filter_path on _bulk replies', () => {
  for (const c of CASES) {
    it(`answers ${c.name}`, async () => {
      const r = await http(server.url, `/api/v1/es/fp/_bulk?filter_path=${encodeURIComponent(c.filter)}`, {
        body: c.body,
        headers: { 'content-type': 'application/x-ndjson' },
      });
      expect([r.status, r.headers['x-elastic-product'], r.headers['content-type']]).toEqual([
        200,
        'Elasticsearch',
        'application/json',
      ]);
      expect(JSON.parse(r.text)).toEqual(c.reply);
    });
  }

  it('answers took alone, and everything but took with -took', async () => {
    const path = (f: string): string => `/api/v1/es/fp/_bulk?filter_path=${f}`;
    const took = await http(server.url, path('took'), { body: STORED });
    expect(took.text).toMatch(/^\{"took":\d+\}$/);
    const rest = await http(server.url, path('-took'), { body: STORED });
    expect(JSON.parse(rest.text)).toEqual({
      errors: false,
      items: [0, 1, 2].map(() => ({ create: { _index: 'fp', status: 201, result: 'created' } })),
    });
  });

  it('applies given twice, as Elasticsearch joins the lists', async () => {
    const r = await http(server.url, '/api/v1/es/fp/_bulk?filter_path=errors&filter_path=took', { body: STORED });
    expect(Object.keys(JSON.parse(r.text) as object)).toEqual(['took', 'errors']);
  });
});
