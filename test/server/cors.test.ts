// CORS (`server.cors_origins`, host/server/cors.ts): off by default; with origins listed,
// preflights of the SQL and write routes answered per the Fetch standard, every answer of those
// routes (errors too) naming an allowed origin, nothing for a disallowed one; `*` without credentials.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../host/node/config.js';
import { http, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

const NO_WARMUPS = ['--warmup', 'false', '--write-warmup', 'false', '--parse-warmup', 'false'];
const APP = 'https://app.example.com';
const DEV = 'http://localhost:5173';
const OTHER = 'https://evil.example.net';
const ALLOW_HEADERS = 'Authorization, Content-Type, Content-Encoding, Accept, Tenant, Db, Table, X-Request-Id';
const EXPOSE_HEADERS =
  'X-Sundial-Error-Code, X-Sundial-Error, X-Sundial-Warning, X-Request-Id, Retry-After, WWW-Authenticate, Content-Encoding';

/** The access-control-* headers of an answer. */
function cors(res: HttpResponse): Record<string, unknown> {
  return Object.fromEntries(Object.entries(res.headers).filter(([k]) => k.startsWith('access-control-')));
}

/** The Vary header's names, sorted (hapi adds accept-encoding to every answer it may compress). */
function varies(res: HttpResponse): string[] {
  return String(res.headers.vary ?? '')
    .split(',')
    .map((v) => v.trim().toLowerCase())
    .filter((v) => v !== '')
    .sort();
}

function preflight(
  server: TestServer,
  path: string,
  origin: string | undefined,
  method: string | undefined,
  requestHeaders = 'authorization, content-type',
): Promise<HttpResponse> {
  const headers: Record<string, string> = { 'access-control-request-headers': requestHeaders };
  if (origin !== undefined) headers.origin = origin;
  if (method !== undefined) headers['access-control-request-method'] = method;
  return http(server.url, path, { method: 'OPTIONS', headers, auth: null });
}

describe('CORS off (the default)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ inProcess: true, args: NO_WARMUPS });
  });
  afterAll(async () => {
    await server.stop();
    server.cleanup();
  });

  it('answers a preflight as any OPTIONS: 405 with Allow, no CORS header', async () => {
    const res = await preflight(server, '/api/v1/sql', APP, 'POST');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(cors(res)).toEqual({});
  });

  it('adds no CORS header and no Vary: Origin to an answer', async () => {
    const res = await http(server.url, '/api/v1/sql', { body: 'SELECT 1 AS one', headers: { origin: APP } });
    expect(res.status).toBe(200);
    expect(cors(res)).toEqual({});
    expect(varies(res)).toEqual(['accept-encoding']);
  });
});

describe('CORS with listed origins', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ inProcess: true, args: [...NO_WARMUPS, '--cors-origins', `${APP}, ${DEV}`] });
  });
  afterAll(async () => {
    await server.stop();
    server.cleanup();
  });

  for (const path of ['/api/v1/sql', '/api/v1/write']) {
    it(`answers the preflight of ${path} from a listed origin with what it allows`, async () => {
      const res = await preflight(server, path, DEV, 'POST');
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(res.headers.allow).toBe('POST, OPTIONS');
      expect(varies(res)).toEqual(['accept-encoding', 'access-control-request-method', 'origin']);
      expect(cors(res)).toEqual({
        'access-control-allow-origin': DEV,
        'access-control-allow-credentials': 'true',
        'access-control-allow-methods': 'POST',
        'access-control-allow-headers': ALLOW_HEADERS,
        'access-control-max-age': '600',
      });
    });
  }

  it('answers the preflight of GET /api/v1/export, and names the origin on its answers', async () => {
    const res = await preflight(server, '/api/v1/export', APP, 'GET');
    expect(res.status).toBe(204);
    expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
    expect(cors(res)).toEqual({
      'access-control-allow-origin': APP,
      'access-control-allow-credentials': 'true',
      'access-control-allow-methods': 'GET, HEAD',
      'access-control-allow-headers': ALLOW_HEADERS,
      'access-control-max-age': '600',
    });
    const missing = await http(server.url, '/api/v1/export?table=no_such_table', { headers: { origin: APP } });
    expect(missing.status).toBe(422);
    expect(missing.headers['x-sundial-error-code']).toBe('030019');
    expect(cors(missing)).toEqual({
      'access-control-allow-origin': APP,
      'access-control-allow-credentials': 'true',
      'access-control-expose-headers': EXPOSE_HEADERS,
    });
  });

  const refused: Array<{ name: string; origin: string | undefined; method: string | undefined }> = [
    { name: 'an origin not listed', origin: OTHER, method: 'POST' },
    { name: 'a listed origin spelled differently (trailing slash)', origin: `${APP}/`, method: 'POST' },
    { name: 'a method the route does not take', origin: APP, method: 'DELETE' },
    { name: 'no Origin', origin: undefined, method: 'POST' },
    { name: 'no Access-Control-Request-Method (not a preflight)', origin: APP, method: undefined },
  ];
  for (const r of refused) {
    it(`answers a preflight with ${r.name} without any CORS header`, async () => {
      const res = await preflight(server, '/api/v1/sql', r.origin, r.method);
      expect(res.status).toBe(204);
      expect(res.headers.allow).toBe('POST, OPTIONS');
      expect(varies(res)).toEqual(['accept-encoding', 'access-control-request-method', 'origin']);
      expect(cors(res)).toEqual({});
    });
  }

  it('leaves the other routes alone: OPTIONS stays 405, answers get no CORS header', async () => {
    const res = await preflight(server, '/api/v1/opentsdb/write', APP, 'POST');
    expect(res.status).toBe(405);
    expect(cors(res)).toEqual({});
    const ping = await http(server.url, '/api/v1/ping', { headers: { origin: APP } });
    expect(cors(ping)).toEqual({});
  });

  it('names a listed origin on a query answer and exposes the headers clients read', async () => {
    const res = await http(server.url, '/api/v1/sql', {
      body: 'SELECT 1 AS one',
      headers: { origin: APP, accept: 'application/json' },
    });
    expect(res.status).toBe(200);
    expect(res.text).toBe('[{"one":1}]');
    expect(cors(res)).toEqual({
      'access-control-allow-origin': APP,
      'access-control-allow-credentials': 'true',
      'access-control-expose-headers': EXPOSE_HEADERS,
    });
    expect(varies(res)).toEqual(['accept-encoding', 'origin']);
  });

  it('keeps Vary: Accept-Encoding of a compressed answer beside Vary: Origin', async () => {
    const res = await http(server.url, '/api/v1/sql', {
      body: 'SELECT 1 AS one',
      headers: { origin: APP, 'accept-encoding': 'gzip' },
    });
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(varies(res)).toEqual(['accept-encoding', 'origin']);
    expect(res.headers['access-control-allow-origin']).toBe(APP);
  });

  const errors: Array<{ name: string; path: string; body: string; auth?: null; status: number; code: string }> = [
    { name: 'missing credentials', path: '/api/v1/sql', body: 'SELECT 1', auth: null, status: 401, code: '010016' },
    { name: 'a SQL syntax error', path: '/api/v1/sql', body: 'SELEC 1', status: 422, code: '010009' },
    {
      name: 'a write to an unknown database',
      path: '/api/v1/write?db=nope',
      body: 'm v=1 1',
      status: 422,
      code: '030017',
    },
    { name: 'a malformed line', path: '/api/v1/write', body: 'm v=', status: 400, code: '040004' },
  ];
  for (const e of errors) {
    it(`names a listed origin on ${e.name} (${e.status}), so that the page reads the error`, async () => {
      const res = await http(server.url, e.path, {
        body: e.body,
        headers: { origin: APP },
        ...(e.auth === null ? { auth: null } : {}),
      });
      expect(res.status).toBe(e.status);
      expect(res.headers['x-sundial-error-code']).toBe(e.code);
      expect(cors(res)).toEqual({
        'access-control-allow-origin': APP,
        'access-control-allow-credentials': 'true',
        'access-control-expose-headers': EXPOSE_HEADERS,
      });
    });
  }

  it('answers a write from a listed origin, and one from another origin without CORS headers', async () => {
    const ok = await http(server.url, '/api/v1/write', { body: 'cors_t v=1 1', headers: { origin: DEV } });
    expect(ok.status).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(DEV);
    const other = await http(server.url, '/api/v1/write', { body: 'cors_t v=2 2', headers: { origin: OTHER } });
    expect(other.status).toBe(200); // CORS is the browser's to enforce: the server only withholds the headers
    expect(cors(other)).toEqual({});
    expect(varies(other)).toEqual(['origin']);
  });
});

describe('CORS with *', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ inProcess: true, args: [...NO_WARMUPS, '--cors-origins', `*,${APP}`] });
  });
  afterAll(async () => {
    await server.stop();
    server.cleanup();
  });

  it('allows any origin without credentials, and a listed one with them', async () => {
    const any = await preflight(server, '/api/v1/sql', OTHER, 'POST');
    expect(cors(any)).toEqual({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': ALLOW_HEADERS,
      'access-control-max-age': '600',
    });
    const answer = await http(server.url, '/api/v1/sql', { body: 'SELECT 1', headers: { origin: OTHER } });
    expect(cors(answer)).toEqual({
      'access-control-allow-origin': '*',
      'access-control-expose-headers': EXPOSE_HEADERS,
    });
    const listed = await http(server.url, '/api/v1/sql', { body: 'SELECT 1', headers: { origin: APP } });
    expect(listed.headers['access-control-allow-origin']).toBe(APP);
    expect(listed.headers['access-control-allow-credentials']).toBe('true');
  });
});

describe('server.cors_origins', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sundial-cors-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const toml = (name: string, text: string): string => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const cases: Array<{
    name: string;
    argv?: string[];
    env?: Record<string, string>;
    want: readonly string[] | string;
  }> = [
    {
      name: 'a TOML array',
      argv: ['--config', toml('a.toml', '[server]\ncors_origins = ["https://a.example", "*"]\n')],
      want: ['https://a.example', '*'],
    },
    {
      name: 'a TOML array with a number in it',
      argv: ['--config', toml('b.toml', '[server]\ncors_origins = [8080]\n')],
      want: 'invalid server.cors_origins from config file',
    },
    { name: 'none by default', want: [] },
    {
      name: 'a comma-separated flag',
      argv: ['--cors-origins', 'https://a.example, http://localhost:3000'],
      want: ['https://a.example', 'http://localhost:3000'],
    },
    { name: 'the environment variable', env: { SUNDIAL_CORS_ORIGINS: '*' }, want: ['*'] },
    {
      name: 'an origin with a path',
      argv: ['--cors-origins', 'https://a.example/app'],
      want: 'invalid server.cors_origins from flag --cors-origins: "https://a.example/app"',
    },
    {
      name: 'a default port spelled out',
      argv: ['--cors-origins', 'https://a.example:443'],
      want: 'invalid server.cors_origins',
    },
    { name: 'a bare host', argv: ['--cors-origins', 'a.example'], want: 'invalid server.cors_origins' },
  ];
  for (const c of cases) {
    it(`reads ${c.name}`, () => {
      const load = (): readonly string[] => loadConfig({ argv: c.argv ?? [], env: c.env ?? {} })['server.cors_origins'];
      if (typeof c.want === 'string') expect(load).toThrow(c.want);
      else expect(load()).toEqual(c.want);
    });
  }
});
