// X-Request-Id on every response, the client's own when it is a sane token, and `reqId` on the
// log lines a request causes (docs/monitoring.md "Request ids").

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

const QUIET = {
  SUNDIAL_WARMUP: 'false',
  SUNDIAL_WRITE_WARMUP: 'false',
  SUNDIAL_PARSE_WARMUP: 'false',
  SUNDIAL_REPORT_INTERVAL: '0',
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ inProcess: true, env: QUIET });
});
afterAll(async () => {
  await server?.stop();
  server?.cleanup();
});

describe('X-Request-Id', () => {
  const cases: Array<{ name: string; sent: string | undefined; kept: boolean }> = [
    { name: 'a UUID', sent: '0b4c9a9e-3f0e-4c57-9d2a-2a7f4b1e5c11', kept: true },
    { name: 'a W3C trace id', sent: '4bf92f3577b34da6a3ce929d0e0e4736', kept: true },
    { name: 'every allowed punctuation', sent: 'a-b_c.d:e/f+g=h@i', kept: true },
    { name: '128 characters', sent: 'x'.repeat(128), kept: true },
    { name: '129 characters', sent: 'x'.repeat(129), kept: false },
    { name: 'a space', sent: 'two words', kept: false },
    { name: 'a quote', sent: 'id"quoted', kept: false },
    { name: 'a semicolon', sent: 'Root=1-abc;Parent=2', kept: false },
    { name: 'an empty value', sent: '', kept: false },
    { name: 'no header', sent: undefined, kept: false },
  ];
  for (const c of cases) {
    it(`${c.kept ? 'keeps' : 'replaces'} ${c.name}`, async () => {
      const headers: Record<string, string> = c.sent === undefined ? {} : { 'x-request-id': c.sent };
      const r = await http(server.url, '/api/v1/ping', { auth: null, headers });
      expect(r.status).toBe(200);
      const id = r.headers['x-request-id'];
      if (c.kept) expect(id).toBe(c.sent);
      else expect(id).toMatch(UUID);
    });
  }

  it('makes a new id for every request', async () => {
    const ids = new Set<unknown>();
    for (let i = 0; i < 5; i++)
      ids.add((await http(server.url, '/api/v1/ping', { auth: null })).headers['x-request-id']);
    expect(ids.size).toBe(5);
  });

  const answers: Array<[string, () => Promise<{ status: number; headers: Record<string, unknown> }>, number]> = [
    [
      'an unknown path (404)',
      () => http(server.url, '/nowhere', { auth: null, headers: { 'x-request-id': 'r404' } }),
      404,
    ],
    [
      'a wrong method (405)',
      () => http(server.url, '/api/v1/write', { auth: null, headers: { 'x-request-id': 'r405' } }),
      405,
    ],
    [
      'a failed login (401)',
      () =>
        http(server.url, '/api/v1/sql', {
          method: 'POST',
          body: 'SELECT 1',
          auth: null,
          headers: { 'x-request-id': 'r401' },
        }),
      401,
    ],
    [
      'a refused write (400, empty body)',
      () =>
        http(server.url, '/api/v1/write', {
          method: 'POST',
          body: 'not line protocol',
          headers: { 'x-request-id': 'r400' },
        }),
      400,
    ],
    [
      'a query (200)',
      () => http(server.url, '/api/v1/sql', { method: 'POST', body: 'SELECT 1', headers: { 'x-request-id': 'r200' } }),
      200,
    ],
    ['metrics (200)', () => http(server.url, '/metrics', { auth: null, headers: { 'x-request-id': 'rmetrics' } }), 200],
  ];
  for (const [name, send, status] of answers) {
    it(`is on ${name}`, async () => {
      const r = await send();
      expect(r.status).toBe(status);
      expect(r.headers['x-request-id']).toMatch(/^r(\d+|metrics)$/);
    });
  }
});

describe('reqId on log lines', () => {
  it("is on the lines a request causes, the client's id or the one answered", async () => {
    const own = await http(server.url, '/api/v1/sql', {
      method: 'POST',
      body: 'SELECT 1',
      auth: { user: 'root', password: 'wrong' },
      headers: { 'x-request-id': 'audit-me-1' },
    });
    expect(own.status).toBe(401);
    const line = await server.waitForLog((l) => l.audit === 'denied' && l.reqId === 'audit-me-1');
    expect([line.msg, line.status]).toEqual(['request denied', 401]);

    const made = await http(server.url, '/api/v1/sql', {
      method: 'POST',
      body: 'SELECT 1',
      auth: { user: 'nobody', password: 'x' },
    });
    const id = made.headers['x-request-id'];
    expect(id).toMatch(UUID);
    expect((await server.waitForLog((l) => l.audit === 'denied' && l.user === 'nobody')).reqId).toBe(id);
  });

  it('is not on lines no request caused', () => {
    const ready = server.logs.find((l) => l.msg === 'ready');
    expect(ready).toBeDefined();
    expect(ready!.reqId).toBeUndefined();
  });
});
