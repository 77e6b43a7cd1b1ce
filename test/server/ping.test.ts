import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

const version = (
  JSON.parse((await import('node:fs')).readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ inProcess: true });
});
afterAll(async () => {
  await server.stop();
  server.cleanup();
});

describe('GET /api/v1/ping', () => {
  it('answers healthy with the package version, without credentials', async () => {
    const r = await http(server.url, '/api/v1/ping', { auth: null });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json');
    expect(JSON.parse(r.text)).toEqual({ version, status: 'healthy' });
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('answers HEAD with the same status and no body', async () => {
    const r = await http(server.url, '/api/v1/ping', { method: 'HEAD', auth: null });
    expect(r.status).toBe(200);
    expect(r.body.length).toBe(0);
  });

  it('answers POST with 405, an empty body and Allow', async () => {
    const r = await http(server.url, '/api/v1/ping', { method: 'POST', auth: null, body: '' });
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe('GET, HEAD');
    expect(r.body.length).toBe(0);
  });

  it('compresses its body when asked', async () => {
    const r = await http(server.url, '/api/v1/ping', { auth: null, headers: { 'accept-encoding': 'gzip' } });
    expect(r.headers['content-encoding']).toBe('gzip');
    expect(r.headers.vary).toMatch(/accept-encoding/);
    const { gunzipSync } = await import('node:zlib');
    expect(JSON.parse(gunzipSync(r.body).toString())).toEqual({ version, status: 'healthy' });
  });
});

describe('unknown routes', () => {
  const cases: Array<[string, string, string, number, string | undefined]> = [
    ['an unknown path', 'GET', '/api/v1/nope', 404, undefined],
    ['a path outside /api/v1', 'GET', '/nope', 404, undefined],
    // InfluxDB's routes live at the root (CONTRACT.md "Server"): /write is a path, for POST only.
    ["GET on InfluxDB's write route", 'GET', '/write', 405, 'POST'],
    ['the root', 'GET', '/', 404, undefined],
    ['GET on the write route', 'GET', '/api/v1/write', 405, 'POST'],
    ['DELETE on the write route', 'DELETE', '/api/v1/write', 405, 'POST'],
    ['PUT on ping', 'PUT', '/api/v1/ping', 405, 'GET, HEAD'],
  ];
  for (const [name, method, path, status, allow] of cases) {
    it(`answers ${status} for ${name}, with an empty body`, async () => {
      const r = await http(server.url, path, { method, auth: null });
      expect(r.status).toBe(status);
      expect(r.body.length).toBe(0);
      expect(r.headers.allow).toBe(allow);
    });
  }
});
