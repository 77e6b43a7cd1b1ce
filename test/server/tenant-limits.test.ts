// Per-tenant limits: the token buckets and the concurrency cap in process with a clock the test
// moves (host/server/tenant-limits.ts), then over HTTP: one tenant past its limits gets 429 with
// Retry-After and stores nothing, while another tenant keeps getting 200s. Statuses only: timing
// is measured in bench/, never asserted here.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantDef } from '../../host/meta/catalog.js';
import { parseLimiterConfig, type Bucket } from '../../host/meta/limiter-config.js';
import { TenantLimits } from '../../host/server/tenant-limits.js';
import { http, writeLp } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

const bucket = (max: number | null, initial: number, refill: number, interval: number): Bucket => ({
  remote_bucket: { max, initial, refill, interval },
  local_bucket: { max: 0, initial: 0 },
});

function tenant(id: number, request: Record<string, unknown>): TenantDef {
  return {
    id,
    name: `t${id}`,
    comment: null,
    dropAfter: null,
    limiter: parseLimiterConfig(JSON.stringify({ request_config: request })),
    members: new Map(),
    roles: new Map(),
  };
}

/** The status, retry and kind of an attempt: 'ok' or '429 <s>s <Kind>'. */
function attempt(run: () => unknown): string {
  try {
    run();
    return 'ok';
  } catch (e) {
    const err = e as { status: number; retryAfterS: number; message: string };
    return `${err.status} ${err.retryAfterS}s ${err.message.split(' ')[0]}`;
  }
}

describe('TenantLimits', () => {
  it('lets `initial` writes through, then refuses until a refill, with the wait as Retry-After', () => {
    const clock = { now: 1_000_000 };
    const limits = new TenantLimits(() => clock.now);
    const t = tenant(1, { http_writes: bucket(3, 2, 1, 2000) });
    expect([1, 2, 3].map(() => attempt(() => limits.admitWrite(t)))).toEqual(['ok', 'ok', '429 2s HttpWrites']);
    clock.now += 1999;
    expect(attempt(() => limits.admitWrite(t))).toBe('429 1s HttpWrites');
    clock.now += 1;
    expect(attempt(() => limits.admitWrite(t))).toBe('ok');
    // Never more than `max` banked, however long the tenant was idle.
    clock.now += 60_000;
    expect([1, 2, 3, 4].map(() => attempt(() => limits.admitWrite(t)))).toEqual([
      'ok',
      'ok',
      'ok',
      '429 2s HttpWrites',
    ]);
  });

  it('keeps tenants apart: one at its limit does not touch another', () => {
    const limits = new TenantLimits(() => 0);
    const a = tenant(1, { http_queries: bucket(1, 1, 1, 1000) });
    const b = tenant(2, { http_queries: bucket(1, 1, 1, 1000) });
    const unlimited: TenantDef = { ...tenant(3, {}), limiter: null };
    expect(attempt(() => limits.admitQuery(a)())).toBe('ok');
    expect(attempt(() => limits.admitQuery(a)())).toBe('429 1s HttpQueries');
    expect(attempt(() => limits.admitQuery(b)())).toBe('ok');
    for (let i = 0; i < 100; i++) expect(attempt(() => limits.admitQuery(unlimited)())).toBe('ok');
  });

  it('applies the coord_ bucket as well, and takes from none when one refuses', () => {
    const clock = { now: 0 };
    const limits = new TenantLimits(() => clock.now);
    const t = tenant(1, { http_writes: bucket(5, 5, 5, 1000), coord_writes: bucket(1, 1, 1, 1000) });
    expect([1, 2].map(() => attempt(() => limits.admitWrite(t)))).toEqual(['ok', '429 1s CoordWrites']);
    clock.now += 1000;
    // http_writes still holds 4 (the refused write took none): four more pass once coord refills.
    const passed = [];
    for (let i = 0; i < 4; i++) {
      passed.push(attempt(() => limits.admitWrite(t)));
      clock.now += 1000;
    }
    expect(passed).toEqual(['ok', 'ok', 'ok', 'ok']);
  });

  it('admits a body larger than the bucket once it is full, and then makes the next wait for the debt', () => {
    const clock = { now: 0 };
    const limits = new TenantLimits(() => clock.now);
    const t = tenant(1, { http_data_in: bucket(100, 100, 50, 1000) });
    expect(attempt(() => limits.chargeDataIn(t, 250))).toBe('ok');
    expect(attempt(() => limits.chargeDataIn(t, 1))).toBe('429 4s HttpDataIn');
    clock.now += 4000;
    expect(attempt(() => limits.chargeDataIn(t, 1))).toBe('ok');
  });

  it('admits queries while bytes out are not in debt, and charges what was sent', () => {
    const clock = { now: 0 };
    const limits = new TenantLimits(() => clock.now);
    const t = tenant(1, { http_data_out: bucket(1000, 1000, 1000, 1000) });
    limits.admitQuery(t)();
    limits.chargeDataOut(t, 2500);
    expect(attempt(() => limits.admitQuery(t))).toBe('429 2s HttpDataOut');
    clock.now += 2000;
    expect(attempt(() => limits.admitQuery(t)())).toBe('ok');
  });

  it('caps the queries running at once and frees a slot on release', () => {
    const limits = new TenantLimits(() => 0);
    const t = tenant(1, { http_concurrent_queries: 2 });
    const first = limits.admitQuery(t);
    const second = limits.admitQuery(t);
    expect(attempt(() => limits.admitQuery(t))).toBe('429 1s HttpConcurrentQueries');
    first();
    first(); // a second release of the same slot frees nothing more
    const third = limits.admitQuery(t);
    expect(attempt(() => limits.admitQuery(t))).toBe('429 1s HttpConcurrentQueries');
    second();
    third();
  });

  it('starts new buckets when the limiter changes', () => {
    const limits = new TenantLimits(() => 0);
    const t = tenant(1, { http_writes: bucket(1, 1, 1, 60_000) });
    limits.admitWrite(t);
    expect(attempt(() => limits.admitWrite(t))).toBe('429 60s HttpWrites');
    t.limiter = parseLimiterConfig(JSON.stringify({ request_config: { http_writes: bucket(2, 2, 1, 60_000) } }));
    expect(attempt(() => limits.admitWrite(t))).toBe('ok');
    t.limiter = null;
    for (let i = 0; i < 10; i++) expect(attempt(() => limits.admitWrite(t))).toBe('ok');
  });
});

describe('tenant limits over HTTP', () => {
  let server: TestServer;
  const limiter = JSON.stringify({
    object_config: null,
    request_config: {
      http_writes: bucket(3, 3, 1, 3_600_000),
      http_queries: bucket(2, 2, 1, 3_600_000),
      http_data_in: bucket(null, 200, 1, 3_600_000),
    },
  });

  beforeAll(async () => {
    server = await startServer({ inProcess: true });
    const root = (sql: string) => http(server.url, '/api/v1/sql', { method: 'POST', body: sql });
    for (const s of ['CREATE TENANT busy', 'CREATE TENANT calm']) expect((await root(s)).status).toBe(200);
    for (const t of ['busy', 'calm'])
      expect(
        (await http(server.url, `/api/v1/sql?tenant=${t}`, { method: 'POST', body: 'CREATE DATABASE d' })).status,
      ).toBe(200);
    // A tenant's limits bind every user of it, admins included; set last so the setup is not counted.
    expect((await root(`ALTER TENANT busy SET _limiter = '${limiter}'`)).status).toBe(200);
  });

  afterAll(async () => {
    await server?.stop();
    server?.cleanup();
  });

  it('answers 429 with Retry-After to the tenant past its write limit, stores none of those writes, and keeps serving another tenant', async () => {
    const statuses: string[] = [];
    for (let i = 0; i < 6; i++) {
      const busy = await writeLp(server.url, `m v=${i} ${i + 1}`, 'tenant=busy&db=d');
      const calm = await writeLp(server.url, `m v=${i} ${i + 1}`, 'tenant=calm&db=d');
      statuses.push(`${busy.status}/${calm.status}`);
      if (busy.status === 429) {
        expect(busy.headers['retry-after']).toMatch(/^\d+$/);
        expect(Number(busy.headers['retry-after'])).toBeGreaterThan(3000);
        expect(busy.headers['x-sundial-error-code']).toBe('030024');
        expect(busy.headers['x-sundial-error']).toMatch(/^HttpWrites reached limit for tenant busy/);
        expect(busy.body.length).toBe(0);
      }
    }
    expect(statuses).toEqual(['200/200', '200/200', '200/200', '429/200', '429/200', '429/200']);
    const count = (t: string) =>
      http(server.url, `/api/v1/sql?tenant=${t}&db=d`, { method: 'POST', body: 'SELECT count(*) AS n FROM m' });
    expect((await count('calm')).text).toBe('n\n6\n');
    // busy's queries are limited too: this one is its first of two.
    expect((await count('busy')).text).toBe('n\n3\n');
  });

  it('answers 429 to queries past the tenant limit, in JSON, while the other tenant queries on', async () => {
    const busy = await http(server.url, '/api/v1/sql?tenant=busy&db=d', { method: 'POST', body: 'SELECT 1' });
    expect(busy.status).toBe(200);
    const refused = await http(server.url, '/api/v1/sql?tenant=busy&db=d', { method: 'POST', body: 'SELECT 1' });
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.text)).toMatchObject({
      error_code: '030024',
      error_message: expect.stringMatching(/^HttpQueries reached limit for tenant busy/),
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    for (let i = 0; i < 5; i++)
      expect(
        (await http(server.url, '/api/v1/sql?tenant=calm&db=d', { method: 'POST', body: 'SELECT 1' })).status,
      ).toBe(200);
  });

  it('logs the refusals as audit lines', async () => {
    await server.waitForLog((l) => l.audit === 'denied' && l.route === '/api/v1/sql' && l.code === '030024');
    const lines = server.logs.filter((l) => l.audit === 'denied' && l.code === '030024');
    expect(lines.map((l) => `${String(l.tenant)} ${String(l.route)} ${String(l.status)}`).sort()).toEqual([
      'busy /api/v1/sql 429',
      'busy /api/v1/write 429',
      'busy /api/v1/write 429',
      'busy /api/v1/write 429',
    ]);
  });
});
