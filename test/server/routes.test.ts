// Routing before payloads (CONTRACT.md "Server"; issue 25 "HTTP"): an unknown path is 404 with an
// empty body, and a known path with a method it does not take is 405 with `Allow` and an empty
// body, whatever the method, content type or body (`POST /api/v1/no-such-route` with JSON that
// does not parse, or a protobuf or NDJSON content type, answered 400). Every route the server
// declares is checked: the table comes from the server's own route list.

import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../host/node/config.js';
import { SundialServer } from '../../host/server/server.js';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** Bodies a client may send anywhere: none, and ones each payload parser of hapi would refuse. */
const BODIES: Array<{ name: string; headers: Record<string, string>; body?: Buffer }> = [
  { name: 'no body', headers: {} },
  { name: 'JSON that does not parse', headers: { 'content-type': 'application/json' }, body: Buffer.from('{"a": ') },
  {
    name: 'a protobuf body',
    headers: { 'content-type': 'application/x-protobuf' },
    body: Buffer.from([0x0a, 0xff, 0xff, 0x01]),
  },
  { name: 'an NDJSON body', headers: { 'content-type': 'application/x-ndjson' }, body: Buffer.from('{"a":1}\n{') },
  {
    name: 'a form that does not parse',
    headers: { 'content-type': 'multipart/form-data' },
    body: Buffer.from('--x\r\n'),
  },
  {
    name: 'an unknown encoding',
    headers: { 'content-type': 'text/plain', 'content-encoding': 'bogus' },
    body: Buffer.from('x'),
  },
  { name: '2 MiB of text', headers: { 'content-type': 'text/plain' }, body: Buffer.alloc(2 << 20, 0x61) },
];

/**
 * The paths the server routes, with the methods some route takes there ('*': all), from its route
 * table: a path may take methods of several routes (`PUT /api/v1/es/_license` is index creation,
 * `/api/v1/es/{index}`), so each is matched as the router matches it.
 */
function declaredRoutes(): Map<string, Set<string>> {
  const server = new SundialServer(loadConfig({ argv: [], env: {} }), pino({ level: 'silent' }), '0.0.0');
  const out = new Map<string, Set<string>>();
  for (const r of server.hapi.table()) {
    if (r.path === '/{any*}') continue;
    const path = r.path.replace(/\{[^}]+\}/g, 'x');
    if (!out.has(path)) out.set(path, new Set());
    out.get(path)!.add(r.method.toUpperCase());
  }
  for (const [path, methods] of out) {
    for (const m of METHODS) {
      if (m === 'HEAD') continue;
      const match = server.hapi.match(m.toLowerCase() as 'get', path);
      if (match !== null && match.path !== '/{any*}') methods.add(match.method === '*' ? '*' : m);
    }
  }
  return out;
}

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ inProcess: true });
});
afterAll(async () => {
  await server.stop();
  server.cleanup();
});

describe('an unknown path', () => {
  for (const path of ['/api/v1/no-such-route', '/', '/api/v1/sql/x', '/api/v2/nope', '/api/v1/es/_bulk/x']) {
    for (const b of BODIES) {
      it(`answers 404 with an empty body to every method on ${path} with ${b.name}`, async () => {
        for (const method of METHODS) {
          const r = await http(server.url, path, {
            method,
            headers: b.headers,
            ...(b.body === undefined ? {} : { body: b.body }),
            auth: null,
          });
          expect([method, r.status, r.body.length, r.headers.allow]).toEqual([method, 404, 0, undefined]);
        }
      });
    }
  }
});

describe('a known path with another method', () => {
  const routes = declaredRoutes();
  it('covers every route the server declares', () => {
    expect([...routes.keys()]).toEqual(
      expect.arrayContaining(['/api/v1/ping', '/api/v1/sql', '/api/v1/write', '/api/v1/es/_bulk', '/api/traces/x']),
    );
  });
  for (const [path, methods] of routes) {
    if (methods.has('*')) continue;
    // GET routes take HEAD too; the fallback lists methods in this order.
    const allowed = METHODS.filter((m) => methods.has(m) || (m === 'HEAD' && methods.has('GET')));
    const others = METHODS.filter((m) => !allowed.includes(m));
    for (const b of BODIES) {
      it(`answers 405 with Allow: ${allowed.join(', ')} and an empty body on ${path} with ${b.name}`, async () => {
        for (const method of others) {
          const r = await http(server.url, path, {
            method,
            headers: b.headers,
            ...(b.body === undefined ? {} : { body: b.body }),
            auth: null,
          });
          expect([method, r.status, r.body.length, r.headers.allow]).toEqual([method, 405, 0, allowed.join(', ')]);
        }
      });
    }
  }
});

describe('a route that takes every method', () => {
  // The Elasticsearch setup stubs acknowledge whatever a shipper sends them, bodies unread.
  for (const b of BODIES) {
    it(`answers 200 to PUT /api/v1/es/_index_template/x with ${b.name}`, async () => {
      const r = await http(server.url, '/api/v1/es/_index_template/x', {
        method: 'PUT',
        headers: b.headers,
        ...(b.body === undefined ? {} : { body: b.body }),
        auth: null,
      });
      expect([r.status, r.text]).toEqual([200, '{"acknowledged":true}']);
    });
  }
});
