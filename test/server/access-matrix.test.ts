// The access matrix (issue 7): every kind of user against every route and statement kind of
// tenant `acme`, with the exact status and code, then, read back as root, that nothing was
// written, created, dropped or granted where the request was refused, that refused reads carried
// no data, and that every refusal left one audit line naming the user, the tenant and the route.

import { compressSync } from 'snappy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROM_TYPES } from '../../host/ingest/prometheus-remote.js';
import { http, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

type Need = 'readMetrics' | 'readBoth' | 'write' | 'all' | 'owner' | 'admin';

interface Role {
  name: string;
  password: string;
  /** What the user may do; a string is the status and code every request gets. */
  can: ReadonlySet<Need> | { status: number; code: string };
}

const ALL_NEEDS: ReadonlySet<Need> = new Set(['readMetrics', 'readBoth', 'write', 'all', 'owner', 'admin']);
const ROLES: Role[] = [
  { name: 'admin2', password: 'secret-admin2', can: ALL_NEEDS },
  { name: 'owner1', password: 'secret-owner1', can: new Set(['readMetrics', 'readBoth', 'write', 'all', 'owner']) },
  { name: 'member1', password: 'secret-member1', can: new Set(['readMetrics', 'readBoth']) },
  { name: 'reader1', password: 'secret-reader1', can: new Set(['readMetrics']) },
  { name: 'writer1', password: 'secret-writer1', can: new Set(['readMetrics', 'write']) },
  { name: 'allrole1', password: 'secret-allrole1', can: new Set(['readMetrics', 'write', 'all']) },
  { name: 'outsider', password: 'secret-outsider', can: { status: 422, code: '030010' } },
  { name: 'nobody', password: 'secret-nobody', can: { status: 422, code: '030010' } },
  { name: 'dropped', password: 'secret-dropped', can: { status: 401, code: '010016' } },
  { name: 'changed', password: 'secret-changed', can: { status: 401, code: '010016' } },
  { name: 'mustchange', password: 'secret-mustchange', can: { status: 422, code: '010004' } },
];

const NS = 1_700_000_000_000_000_000n;
const PROM_READ = compressSync(
  Buffer.from(
    PROM_TYPES.ReadRequest.encode(
      PROM_TYPES.ReadRequest.fromObject({ queries: [], accepted_response_types: [0] }),
    ).finish(),
  ),
);

interface Action {
  name: string;
  need: Need;
  /** The request for a user; `who` is the user's name, used in every name it creates. */
  send(url: string, who: Role): Promise<HttpResponse>;
  /** The route as the audit line names it. */
  route: string;
}

function sqlAction(name: string, need: Need, text: (who: string) => string): Action {
  return {
    name,
    need,
    route: '/api/v1/sql',
    send: (url, who) =>
      http(url, '/api/v1/sql?tenant=acme&db=metrics', {
        method: 'POST',
        body: text(who.name),
        auth: { user: who.name, password: who.password },
      }),
  };
}

function post(
  name: string,
  need: Need,
  path: string,
  body: (who: string) => string | Buffer,
  headers: Record<string, string> = {},
): Action {
  const route = path.split('?')[0]!;
  return {
    name,
    need,
    route,
    send: (url, who) =>
      http(url, `${path}${path.includes('?') ? '&' : '?'}tenant=acme&db=metrics`, {
        method: 'POST',
        body: body(who.name),
        headers,
        auth: { user: who.name, password: who.password },
      }),
  };
}

const ACTIONS: Action[] = [
  sqlAction('SELECT', 'readMetrics', () => 'SELECT count(*) AS n FROM base'),
  sqlAction(
    'SELECT with a join',
    'readBoth',
    () => 'SELECT count(*) AS n FROM base b JOIN other.obase o ON b.time = o.time',
  ),
  sqlAction(
    'SELECT with a subquery',
    'readBoth',
    () => 'SELECT count(*) AS n FROM base WHERE v IN (SELECT v FROM other.obase)',
  ),
  sqlAction('EXPLAIN', 'readMetrics', () => 'EXPLAIN SELECT v FROM base'),
  sqlAction('SHOW TABLES', 'readMetrics', () => 'SHOW TABLES'),
  sqlAction('DESCRIBE TABLE', 'readMetrics', () => 'DESCRIBE TABLE base'),
  sqlAction('INSERT', 'write', (who) => `INSERT INTO ins (time, who, v) VALUES (1, '${who}', 1)`),
  sqlAction('DELETE', 'write', (who) => `DELETE FROM del WHERE who = '${who}'`),
  sqlAction('CREATE TABLE', 'all', (who) => `CREATE TABLE ct_${who} (v DOUBLE)`),
  sqlAction('DROP TABLE', 'all', (who) => `DROP TABLE dt_${who}`),
  sqlAction('COMPACT DATABASE', 'all', () => 'COMPACT DATABASE metrics'),
  sqlAction('CHECK DATABASE', 'all', () => 'CHECK DATABASE metrics'),
  sqlAction('CREATE DATABASE', 'owner', (who) => `CREATE DATABASE cd_${who}`),
  sqlAction('CREATE ROLE', 'owner', (who) => `CREATE ROLE cr_${who} INHERIT member`),
  sqlAction('GRANT', 'owner', (who) => `GRANT READ ON DATABASE other TO ROLE g_${who}`),
  sqlAction('ALTER TENANT ADD USER', 'owner', (who) => `ALTER TENANT acme ADD USER extra_${who} AS member`),
  sqlAction('CREATE USER', 'admin', (who) => `CREATE USER nu_${who} WITH PASSWORD = 'p'`),
  sqlAction('CREATE TENANT', 'admin', (who) => `CREATE TENANT nt_${who}`),
  post('line protocol write', 'write', '/api/v1/write', (who) => `lp,who=${who} v=1 ${NS}`),
  post('OpenTSDB write', 'write', '/api/v1/opentsdb/write', (who) => `tsdb 1700000000 1 who=${who}`),
  post('OpenTSDB put', 'write', '/api/v1/opentsdb/put', (who) =>
    JSON.stringify({ metric: 'put', timestamp: 1700000000, value: 1, tags: { who } }),
  ),
  post('Elasticsearch bulk', 'write', '/api/v1/es/_bulk?table=es&log_type=ndjson', (who) => `{"who":"${who}"}\n`),
  post('OTLP traces', 'write', '/api/v1/traces?table=spans', (who) => traceBody(who), {
    'content-type': 'application/json',
  }),
  post('OTLP metrics', 'write', '/v1/metrics', (who) => metricsBody(who), { 'content-type': 'application/json' }),
  post('OTLP logs', 'write', '/v1/logs?table=otlogs', (who) => logsBody(who), { 'content-type': 'application/json' }),
  post('Prometheus remote read', 'readMetrics', '/api/v1/prom/read', () => PROM_READ, {
    'content-type': 'application/x-protobuf',
    'content-encoding': 'snappy',
  }),
  {
    name: 'Jaeger services',
    need: 'readMetrics',
    route: '/api/services',
    send: (url, who) =>
      http(url, '/api/services?tenant=acme&db=metrics&table=spans', {
        auth: { user: who.name, password: who.password },
      }),
  },
];

function traceBody(service: string): string {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
        scopeSpans: [
          {
            spans: [
              {
                traceId: '0102030405060708090a0b0c0d0e0f10',
                spanId: '0102030405060708',
                name: 'op',
                startTimeUnixNano: '1700000000000000000',
                endTimeUnixNano: '1700000001000000000',
                kind: 2,
              },
            ],
          },
        ],
      },
    ],
  });
}

function metricsBody(who: string): string {
  const point = {
    timeUnixNano: '1700000000000000000',
    asDouble: 1,
    attributes: [{ key: 'who', value: { stringValue: who } }],
  };
  return JSON.stringify({
    resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'otm', gauge: { dataPoints: [point] } }] }] }],
  });
}

function logsBody(who: string): string {
  return JSON.stringify({
    resourceLogs: [
      {
        resource: { attributes: [{ key: 'who', value: { stringValue: who } }] },
        scopeLogs: [{ logRecords: [{ timeUnixNano: '1700000000000000000', body: { stringValue: 'x' } }] }],
      },
    ],
  });
}

/** The keys of a refusal's body on `route`: each API answers errors in its own shape. */
function errorKeys(route: string): string[] {
  if (route === '/api/services') return ['data', 'total', 'limit', 'offset', 'errors'];
  if (route.startsWith('/v1/')) return ['code', 'message'];
  return ['error_code', 'error_message'];
}

/** The message of a refusal, whatever the body's shape. */
function errorMessage(text: string): string {
  const body = JSON.parse(text) as { error_message?: string; message?: string; errors?: Array<{ msg: string }> };
  return body.error_message ?? body.message ?? body.errors![0]!.msg;
}

function expected(role: Role, action: Action): { status: number; code?: string } {
  if (!(role.can instanceof Set)) return role.can as { status: number; code: string };
  return role.can.has(action.need) ? { status: 200 } : { status: 422, code: '010004' };
}

const allowed = (action: string): string[] =>
  ROLES.filter((r) => expected(r, ACTIONS.find((a) => a.name === action)!).status === 200).map((r) => r.name);
const refused = (action: string): string[] =>
  ROLES.filter((r) => expected(r, ACTIONS.find((a) => a.name === action)!).status !== 200).map((r) => r.name);

let server: TestServer;
const results = new Map<string, HttpResponse>();
/** The audit lines of the matrix's requests (later tests send more). */
let audit: Array<Record<string, unknown>> = [];

async function root(sql: string, tenant = 'acme', db = 'metrics'): Promise<string> {
  const r = await http(server.url, `/api/v1/sql?tenant=${tenant}&db=${db}`, { method: 'POST', body: sql });
  if (r.status !== 200) throw new Error(`${sql}: ${r.status} ${r.text}`);
  return r.text;
}

/** One column of a root query, sorted. */
async function column(sql: string, tenant?: string): Promise<string[]> {
  return (await root(sql, tenant)).trim().split('\n').slice(1).sort();
}

beforeAll(async () => {
  server = await startServer({ inProcess: true });
  for (const s of [
    'CREATE TENANT acme',
    'CREATE TENANT elsewhere',
    ...ROLES.map((r) => `CREATE USER ${r.name} WITH PASSWORD = '${r.password}'`),
    ...ROLES.map((r) => `CREATE USER extra_${r.name}`),
    'ALTER USER admin2 SET granted_admin = true',
    'ALTER USER mustchange SET must_change_password = true',
    'ALTER TENANT elsewhere ADD USER outsider AS owner',
  ])
    await root(s, 'cnosdb', 'public');
  for (const s of [
    'CREATE DATABASE metrics',
    'CREATE DATABASE other',
    'CREATE ROLE r_read',
    'CREATE ROLE r_write',
    'CREATE ROLE r_all',
    'GRANT READ ON DATABASE metrics TO ROLE r_read',
    'GRANT WRITE ON DATABASE metrics TO ROLE r_write',
    'GRANT ALL ON DATABASE metrics TO ROLE r_all',
    'ALTER TENANT acme ADD USER owner1 AS owner',
    'ALTER TENANT acme ADD USER member1 AS member',
    'ALTER TENANT acme ADD USER reader1 AS r_read',
    'ALTER TENANT acme ADD USER writer1 AS r_write',
    'ALTER TENANT acme ADD USER allrole1 AS r_all',
    'ALTER TENANT acme ADD USER dropped AS owner',
    'ALTER TENANT acme ADD USER changed AS owner',
    'ALTER TENANT acme ADD USER mustchange AS owner',
    ...ROLES.map((r) => `CREATE ROLE g_${r.name}`),
    'CREATE TABLE base (v DOUBLE)',
    'CREATE TABLE other.obase (v DOUBLE)',
    'INSERT INTO base (time, v) VALUES (1, 1)',
    'INSERT INTO other.obase (time, v) VALUES (1, 1)',
    'CREATE TABLE ins (v DOUBLE, TAGS(who))',
    'CREATE TABLE del (v DOUBLE, TAGS(who))',
    `INSERT INTO del (time, who, v) VALUES ${ROLES.map((r) => `(1, '${r.name}', 1)`).join(', ')}`,
    ...ROLES.map((r) => `CREATE TABLE dt_${r.name} (v DOUBLE)`),
  ])
    await root(s);
  await http(server.url, '/api/v1/traces?tenant=acme&db=metrics&table=spans', {
    method: 'POST',
    body: traceBody('setup'),
    headers: { 'content-type': 'application/json' },
  });
  // `changed` logs in once (so its login is cached), then its password changes; `dropped` is dropped.
  expect(
    (
      await http(server.url, '/api/v1/sql?tenant=acme&db=metrics', {
        method: 'POST',
        body: 'SELECT 1',
        auth: { user: 'changed', password: 'secret-changed' },
      })
    ).status,
  ).toBe(200);
  await root("ALTER USER changed SET PASSWORD = 'secret-changed-new'", 'cnosdb', 'public');
  await root('DROP USER dropped', 'cnosdb', 'public');
  for (const role of ROLES)
    for (const action of ACTIONS) results.set(`${role.name} ${action.name}`, await action.send(server.url, role));
  // Log lines travel through a pipe: wait until the server's lines for these requests are in.
  const refusals = ROLES.reduce((n, role) => n + ACTIONS.filter((a) => expected(role, a).status !== 200).length, 0);
  const auditLines = (): Array<Record<string, unknown>> => server.logs.filter((l) => l.audit === 'denied');
  for (let waited = 0; auditLines().length < refusals && waited < 5000; waited += 20)
    await new Promise((r) => setTimeout(r, 20));
  audit = auditLines();
});

afterAll(async () => {
  await server?.stop();
  server?.cleanup();
});

describe('access matrix', () => {
  for (const role of ROLES) {
    for (const action of ACTIONS) {
      const want = expected(role, action);
      it(`${role.name}: ${action.name} answers ${want.status}${want.code === undefined ? '' : ` ${want.code}`}`, () => {
        const r = results.get(`${role.name} ${action.name}`)!;
        expect(r.status, r.text).toBe(want.status);
        if (want.code === undefined) return;
        expect(r.headers['x-sundial-error-code']).toBe(want.code);
        // A refusal carries the error and nothing else: no rows, no data.
        if (action.route === '/api/v1/write' || action.route.startsWith('/api/v1/opentsdb'))
          expect(r.body.length).toBe(0);
        else expect(Object.keys(JSON.parse(r.text) as object)).toEqual(errorKeys(action.route));
        if (want.status === 401) expect(r.headers['www-authenticate']).toMatch(/^Basic /);
      });
    }
  }

  it('answers every 401 the same, whatever the cause', () => {
    const unauthorized = [...results].filter(([, r]) => r.status === 401 && r.body.length > 0);
    const texts = new Set(
      unauthorized
        .filter(([k]) => ACTIONS.every((a) => !k.endsWith(` ${a.name}`) || errorKeys(a.route)[0] === 'error_code'))
        .map(([, r]) => r.text.replace(/'[^']*'/, "'U'")),
    );
    expect([...texts]).toEqual([
      `{"error_code":"010016","error_message":"Access denied for user 'U': username or password invalid"}`,
    ]);
    // The routes that answer in their ecosystems' shapes (Jaeger, OTLP) say the same.
    const messages = new Set(
      unauthorized.map(
        ([, r]) => `${r.headers['x-sundial-error-code']} ${errorMessage(r.text).replace(/'[^']*'/, "'U'")}`,
      ),
    );
    expect([...messages]).toEqual(["010016 Access denied for user 'U': username or password invalid"]);
  });

  it('says the same about a tenant that exists and one that does not', async () => {
    const exists = results.get('outsider SELECT')!;
    const missing = await http(server.url, '/api/v1/sql?tenant=acme_nope&db=metrics', {
      method: 'POST',
      body: 'SELECT 1',
      auth: { user: 'outsider', password: 'secret-outsider' },
    });
    expect(JSON.parse(exists.text)).toEqual({ error_code: '030010', error_message: 'The tenant acme not found' });
    expect(JSON.parse(missing.text)).toEqual({ error_code: '030010', error_message: 'The tenant acme_nope not found' });
  });

  it('stores the writes of the users allowed to write, and only theirs', async () => {
    const writers = allowed('line protocol write').sort();
    expect(await column('SELECT who FROM lp')).toEqual(writers);
    expect(await column('SELECT who FROM tsdb')).toEqual(writers);
    expect(await column('SELECT who FROM put')).toEqual(writers);
    expect(await column('SELECT who FROM es')).toEqual(writers);
    expect(await column('SELECT who FROM ins')).toEqual(writers);
    expect(await column('SELECT who FROM otm')).toEqual(writers);
    expect(await column('SELECT who FROM otlogs')).toEqual(writers);
    expect(
      await column(
        `SELECT DISTINCT "ResourceSpans/Resource/attributes/service.name" FROM spans WHERE "ResourceSpans/Resource/attributes/service.name" <> 'setup'`,
      ),
    ).toEqual(writers);
    expect(await column('SELECT who FROM del')).toEqual(refused('DELETE').sort());
  });

  it('creates and drops tables, databases, roles, grants, members, users and tenants only for those allowed', async () => {
    const tables = await column('SHOW TABLES');
    expect(tables.filter((t) => t.startsWith('ct_'))).toEqual(
      allowed('CREATE TABLE')
        .map((n) => `ct_${n}`)
        .sort(),
    );
    expect(tables.filter((t) => t.startsWith('dt_'))).toEqual(
      refused('DROP TABLE')
        .map((n) => `dt_${n}`)
        .sort(),
    );
    expect((await column('SHOW DATABASES')).filter((d) => d.startsWith('cd_'))).toEqual(
      allowed('CREATE DATABASE')
        .map((n) => `cd_${n}`)
        .sort(),
    );
    const prefixed = async (sql: string, prefix: string, tenant?: string): Promise<string[]> =>
      (await column(sql, tenant)).filter((n) => n.startsWith(prefix));
    expect(await prefixed('SELECT role_name FROM information_schema.roles', 'cr_')).toEqual(
      allowed('CREATE ROLE')
        .map((n) => `cr_${n}`)
        .sort(),
    );
    expect(
      await column("SELECT role_name FROM information_schema.database_privileges WHERE database_name = 'other'"),
    ).toEqual(
      allowed('GRANT')
        .map((n) => `g_${n}`)
        .sort(),
    );
    expect(await prefixed('SELECT user_name FROM information_schema.members', 'extra_')).toEqual(
      allowed('ALTER TENANT ADD USER')
        .map((n) => `extra_${n}`)
        .sort(),
    );
    // cluster_schema is the system tenant's.
    expect(await prefixed('SELECT user_name FROM cluster_schema.users', 'nu_', 'cnosdb')).toEqual(
      allowed('CREATE USER')
        .map((n) => `nu_${n}`)
        .sort(),
    );
    expect(await prefixed('SELECT tenant_name FROM cluster_schema.tenants', 'nt_', 'cnosdb')).toEqual(
      allowed('CREATE TENANT')
        .map((n) => `nt_${n}`)
        .sort(),
    );
  });

  it('returns the data to those allowed to read', () => {
    for (const name of allowed('SELECT')) expect(results.get(`${name} SELECT`)!.text).toBe('n\n1\n');
    for (const name of allowed('SELECT with a join'))
      expect(results.get(`${name} SELECT with a join`)!.text).toBe('n\n1\n');
  });

  it('logs one audit line per refused request, naming the user, the tenant, the route and the reason', () => {
    for (const role of ROLES) {
      const refusals = ACTIONS.filter((a) => expected(role, a).status !== 200);
      const lines = audit.filter((l) => l.user === role.name);
      expect(lines.map((l) => `${String(l.route)} ${String(l.code)}`).sort(), role.name).toEqual(
        refusals.map((a) => `${a.route} ${expected(role, a).code}`).sort(),
      );
      for (const l of lines) {
        expect(l.tenant).toBe('acme');
        expect(typeof l.reason).toBe('string');
      }
    }
    // No password ever reaches the log.
    const all = JSON.stringify(server.logs);
    for (const role of ROLES) expect(all).not.toContain(role.password);
  });
});
