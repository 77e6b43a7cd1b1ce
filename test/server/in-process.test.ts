// Two servers in one process (test/support/server.ts' inProcess, node/serve.ts' startServer) keep
// their own state: data, catalog, metrics registry and lifetime. The http tier runs most files
// this way, so a state shared by accident would make their results depend on each other.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, writeLp } from '../support/http.js';
import { scrape } from '../support/metrics.js';
import { startServer, type TestServer } from '../support/server.js';

const QUIET = {
  SUNDIAL_WARMUP: 'false',
  SUNDIAL_WRITE_WARMUP: 'false',
  SUNDIAL_PARSE_WARMUP: 'false',
  SUNDIAL_REPORT_INTERVAL: '0',
};
const WRITES = 'sundial_http_requests_total{route="/api/v1/write",method="POST",status="200"}';
const sql = (url: string, text: string) => http(url, '/api/v1/sql', { method: 'POST', body: text });

describe('two servers in one process', () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    [a, b] = await Promise.all([
      startServer({ inProcess: true, env: QUIET }),
      startServer({ inProcess: true, env: QUIET }),
    ]);
  });
  afterAll(async () => {
    for (const s of [a, b]) {
      await s?.stop();
      s?.cleanup();
    }
  });

  it('listen on their own ports with their own data directories', () => {
    expect(a.url).not.toBe(b.url);
    expect(a.dataDir).not.toBe(b.dataDir);
  });

  it('store and count a write only where it was sent', async () => {
    expect((await writeLp(a.url, 'cpu,host=a usage=1 1700000000000000000')).status).toBe(200);
    expect((await sql(a.url, 'SELECT host, usage FROM cpu')).text).toBe('host,usage\na,1.0\n');
    const missing = await sql(b.url, 'SELECT host, usage FROM cpu');
    // CnosDB answers an unknown table with 422 (docs/errors.md).
    expect([missing.status, missing.text]).toEqual([422, expect.stringContaining('cpu')]);
    const [sa, sb] = await Promise.all([scrape(a.url), scrape(b.url)]);
    expect([sa.get(WRITES), sb.get(WRITES)]).toEqual([1, undefined]);
  });

  it('keep their own catalog', async () => {
    expect((await sql(b.url, 'CREATE DATABASE only_b')).status).toBe(200);
    const list = async (url: string) => (await sql(url, 'SHOW DATABASES')).text.split('\n').includes('only_b');
    expect([await list(a.url), await list(b.url)]).toEqual([false, true]);
  });

  it('stop one at a time: the other keeps serving, its logs apart', async () => {
    expect(await a.stop()).toBe(0);
    await a.waitForLog((l) => l.msg === 'stopped');
    expect((await http(b.url, '/api/v1/ping', { auth: null })).status).toBe(200);
    expect((await sql(b.url, 'SHOW DATABASES')).status).toBe(200);
    expect(b.logs.some((l) => l.msg === 'stopped' || l.msg === 'shutting down')).toBe(false);
  });
});
