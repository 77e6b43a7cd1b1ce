// The slow-query log (`log.slow_query`, docs/monitoring.md): a statement longer than the setting
// is logged once, when it ends, with its text (passwords masked), user, tenant, database, rows,
// time and request id; with the default of 10 s an ordinary one is not.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, writeLp } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

const QUIET = {
  SUNDIAL_WARMUP: 'false',
  SUNDIAL_WRITE_WARMUP: 'false',
  SUNDIAL_PARSE_WARMUP: 'false',
  SUNDIAL_REPORT_INTERVAL: '0',
};
const KEYS = 1000;
/** A million joined rows, grouped back to KEYS: far more than a millisecond on any machine. */
const JOIN = 'SELECT a.k, count(*) AS n FROM j a CROSS JOIN j b GROUP BY a.k';

async function load(server: TestServer): Promise<void> {
  const lines = Array.from({ length: KEYS }, (_, i) => `j,k=k${i} v=${i} ${i + 1}`);
  expect((await writeLp(server.url, lines.join('\n'))).status).toBe(200);
}

const slowLines = (server: TestServer): Array<Record<string, unknown>> =>
  server.logs.filter((l) => l.msg === 'slow query');

describe('log.slow_query = 1ms', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ inProcess: true, env: QUIET, args: ['--slow-query', '1ms'] });
    await load(server);
  });
  afterAll(async () => {
    await server?.stop();
    server?.cleanup();
  });

  it('logs a query longer than the setting with its statement, user, tenant, database, rows, time and request id', async () => {
    const r = await http(server.url, '/api/v1/sql?db=public', {
      method: 'POST',
      body: JOIN,
      headers: { 'x-request-id': 'slow-join' },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.text.split('\n').length - 2).toBe(KEYS);
    const line = await server.waitForLog((l) => l.msg === 'slow query' && l.statement === JOIN);
    expect(line).toMatchObject({
      level: 30,
      statement: JOIN,
      statementChars: JOIN.length,
      user: 'root',
      tenant: 'cnosdb',
      database: 'public',
      rows: KEYS,
      reqId: 'slow-join',
    });
    expect(line.durationMs).toBeGreaterThanOrEqual(1);
    expect(line.peakMemoryBytes).toBeGreaterThan(0);
    expect(slowLines(server).filter((l) => l.statement === JOIN)).toHaveLength(1);
  });

  it('masks a password and has no rows for a statement without a result set', async () => {
    // scrypt makes CREATE USER take tens of milliseconds.
    const r = await http(server.url, '/api/v1/sql', {
      method: 'POST',
      body: "CREATE USER slowpoke WITH PASSWORD = 'hunter2'",
    });
    expect(r.status, r.text).toBe(200);
    const line = await server.waitForLog(
      (l) => l.msg === 'slow query' && String(l.statement).startsWith('CREATE USER slowpoke'),
    );
    expect([line.statement, line.rows]).toEqual(["CREATE USER slowpoke WITH PASSWORD = '*****'", null]);
    expect(JSON.stringify(server.logs)).not.toContain('hunter2');
  });

  it('cuts a long statement at 4096 characters and says how long it was', async () => {
    const long = `SELECT a.k, count(*) AS n FROM j a CROSS JOIN j b WHERE a.k <> '${'z'.repeat(5000)}' GROUP BY a.k`;
    expect((await http(server.url, '/api/v1/sql', { method: 'POST', body: long })).status).toBe(200);
    const line = await server.waitForLog((l) => l.msg === 'slow query' && l.statementChars === long.length);
    expect(line.statement).toBe(`${long.slice(0, 4096)}...`);
  });
});

describe('log.slow_query by default (10 s)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ inProcess: true, env: QUIET });
    await load(server);
  });
  afterAll(async () => {
    await server?.stop();
    server?.cleanup();
  });

  it('does not log the same query', async () => {
    const r = await http(server.url, '/api/v1/sql', { method: 'POST', body: JOIN });
    expect(r.status, r.text).toBe(200);
    // The line would be written before the answer's last byte reached the client.
    expect((await http(server.url, '/api/v1/ping', { auth: null })).status).toBe(200);
    expect(slowLines(server)).toEqual([]);
  });
});
