// The shared write pipeline on every ingest route of a server with a 2000-byte body limit: bodies
// over the limit on the wire or after decompression (gzip and snappy bombs) are 413, an unknown
// Content-Encoding is 400, no credentials is 401, each in the route's error style (empty body on
// the spec's write routes, JSON elsewhere); and the limit is exact (a body at it is accepted).

import { gzipSync } from 'node:zlib';
import { compressSync } from 'snappy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

const LIMIT = 2000;

interface Route {
  path: string;
  headers: Record<string, string>;
  /** A valid body of about `n` bytes. */
  body: (n: number) => Buffer;
  style: 'empty' | 'json';
  /** A valid, very repetitive body 20 times the limit: a few hundred bytes gzipped. */
  bomb: Buffer;
}

const pad = (make: (i: number) => string, n: number): Buffer => {
  let s = '';
  for (let i = 0; s.length + make(i).length <= n; i++) s += make(i);
  return Buffer.from(s);
};

const BOMB = LIMIT * 20;
const ROUTES: Route[] = [
  {
    path: '/api/v1/write',
    headers: {},
    body: (n) => pad((i) => `m f=${i} ${i + 1}\n`, n),
    style: 'empty',
    bomb: pad(() => 'm f=1 1\n', BOMB),
  },
  {
    path: '/api/v1/opentsdb/write',
    headers: {},
    body: (n) => pad((i) => `m ${i + 1} 1 k=v\n`, n),
    style: 'empty',
    bomb: pad(() => 'm 1 1 k=v\n', BOMB),
  },
  {
    path: '/api/v1/opentsdb/put',
    headers: {},
    body: (n) =>
      Buffer.from(
        `[${pad((i) => `{"metric":"m","timestamp":${i + 1},"value":1,"tags":{"k":"v"}},`, n - 57)}{"metric":"m","timestamp":1,"value":1,"tags":{"k":"v"}}]`,
      ),
    style: 'empty',
    bomb: Buffer.from(
      `[${pad(() => '{"metric":"m","timestamp":1,"value":1,"tags":{"k":"v"}},', BOMB)}{"metric":"m","timestamp":1,"value":1,"tags":{"k":"v"}}]`,
    ),
  },
  {
    path: '/api/v1/es/_bulk?table=t&log_type=ndjson',
    headers: {},
    body: (n) => pad((i) => `{"v":${i}}\n`, n),
    style: 'json',
    bomb: pad(() => '{"v":1}\n', BOMB),
  },
  {
    path: '/api/v1/traces',
    headers: { table: 't', 'content-type': 'application/json' },
    body: (n) => Buffer.from(`{"resourceSpans":[]${' '.repeat(Math.max(0, n - 20))}}`),
    style: 'json',
    bomb: Buffer.from(`{"resourceSpans":[]${' '.repeat(BOMB)}}`),
  },
];

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ inProcess: true, args: ['--write-body-bytes', String(LIMIT)] });
});

afterAll(async () => {
  await server.stop();
  server.cleanup();
});

function expectError(r: Awaited<ReturnType<typeof http>>, status: number, code: string, style: 'empty' | 'json'): void {
  expect([r.status, r.headers['x-sundial-error-code']]).toEqual([status, code]);
  if (style === 'empty') expect(r.body.length).toBe(0);
  else expect((JSON.parse(r.text) as { error_code: string }).error_code).toBe(code);
}

describe('write pipeline limits on every ingest route', () => {
  for (const route of ROUTES) {
    describe(route.path, () => {
      const post = (body: Buffer, headers: Record<string, string> = {}, auth?: null) =>
        http(server.url, route.path, {
          method: 'POST',
          body,
          headers: { ...route.headers, ...headers },
          ...(auth === null ? { auth: null } : {}),
        });

      it('accepts a body at the limit', async () => {
        const body = route.body(LIMIT);
        expect(body.length).toBeLessThanOrEqual(LIMIT);
        expect((await post(body)).status).toBe(200);
      });

      it('answers 413 for a body over the limit', async () => {
        expectError(await post(route.body(LIMIT * 3)), 413, '040014', route.style);
      });

      it('answers 413 for a small gzip body that expands past the limit', async () => {
        const bomb = gzipSync(route.bomb);
        expect(bomb.length).toBeLessThan(LIMIT);
        expectError(await post(bomb, { 'content-encoding': 'gzip' }), 413, '040014', route.style);
      });

      it('answers 400 for an unknown Content-Encoding', async () => {
        expectError(await post(route.body(100), { 'content-encoding': 'lz4' }), 400, '040005', route.style);
      });

      it('answers 401 without credentials', async () => {
        const r = await post(route.body(100), {}, null);
        expectError(r, 401, '010016', route.style);
        expect(r.headers['www-authenticate']).toMatch(/^Basic/);
      });
    });
  }

  it('answers 413 for a snappy block that declares more than the limit (Prometheus, Loki)', async () => {
    const bomb = compressSync(Buffer.alloc(LIMIT * 10));
    expect(bomb.length).toBeLessThan(LIMIT);
    for (const [path, headers] of [
      ['/api/v1/prom/write', { 'content-encoding': 'snappy', 'content-type': 'application/x-protobuf' }],
      ['/api/v1/es/_bulk?table=t&log_type=loki', { 'content-type': 'application/x-protobuf' }],
    ] as const) {
      expectError(await http(server.url, path, { method: 'POST', body: bomb, headers }), 413, '040014', 'json');
    }
  });
});
