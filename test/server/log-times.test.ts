// Log documents without a time column (es/_bulk bulk and NDJSON): each is a row of its own, also
// when they share a series and arrive in one request or in concurrent ones. With one "now" for a
// request, a hundred documents without tags were one row, and the reply counted a hundred created.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ inProcess: true });
});

afterAll(async () => {
  await server.stop();
});

const post = (query: string, body: string): Promise<HttpResponse> =>
  http(server.url, `/api/v1/es/_bulk?${query}`, { body });
const count = async (table: string): Promise<unknown> =>
  JSON.parse(
    (
      await http(server.url, '/api/v1/sql?db=public', {
        body: `SELECT count(*) AS n, count(DISTINCT time) AS t FROM ${table}`,
        headers: { accept: 'application/json' },
      })
    ).text,
  );

describe('log documents without a time', () => {
  it('are a row each in a bulk body, and the reply counts what was stored', async () => {
    const body = Array.from({ length: 100 }, (_, i) => `{"create":{}}\n{"msg":"line ${i}"}\n`).join('');
    const r = await post('table=nt_bulk', body);
    expect(r.status).toBe(200);
    expect((JSON.parse(r.text) as { items: unknown[] }).items).toHaveLength(100);
    expect(await count('nt_bulk')).toEqual([{ n: 100, t: 100 }]);
  });

  it('are a row each in databases of millisecond and microsecond precision too', async () => {
    for (const [db, precision] of [
      ['nt_ms', 'MS'],
      ['nt_us', 'US'],
    ]) {
      expect(
        (
          await http(server.url, '/api/v1/sql?db=public', {
            body: `CREATE DATABASE ${db} WITH PRECISION '${precision}'`,
          })
        ).status,
      ).toBe(200);
      const body = Array.from({ length: 50 }, (_, i) => `{"create":{}}\n{"msg":"line ${i}"}\n`).join('');
      expect((await post(`db=${db}&table=t`, body)).status).toBe(200);
      expect((await post(`db=${db}&table=t&log_type=ndjson`, '{"msg":"one more"}')).status).toBe(200);
      const r = await http(server.url, `/api/v1/sql?db=${db}`, {
        body: 'SELECT count(*) AS n, count(DISTINCT time) AS t FROM t',
        headers: { accept: 'application/json' },
      });
      expect(JSON.parse(r.text)).toEqual([{ n: 51, t: 51 }]);
    }
  });

  it('are a row each in NDJSON bodies sent at once on several connections (LogClock keeps their times apart; log-clock.test.ts)', async () => {
    const body = (c: number): string =>
      Array.from({ length: 200 }, (_, i) => `{"msg":"conn ${c} line ${i}"}`).join('\n');
    const replies = await Promise.all([0, 1, 2, 3].map((c) => post('table=nt_nd&log_type=ndjson', body(c))));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(await count('nt_nd')).toEqual([{ n: 800, t: 800 }]);
  });
});
