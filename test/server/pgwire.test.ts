// The PostgreSQL port with real clients: Debian's psql (postgresql-client, installed by .ci/run)
// and npm's pg. Each answer is checked against what /api/v1/sql returns for the same query.

import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, writeLp } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

const PSQL = 'psql';

/** psql must be installed (Debian postgresql-client): a missing client fails, naming the package. */
function requirePsql(): void {
  const r = spawnSync(PSQL, ['--version'], { encoding: 'utf8' });
  if (r.error !== undefined || r.status !== 0)
    throw new Error(
      'psql not found: install the Debian package postgresql-client (.ci/run does: apt-get install postgresql-client)',
    );
}

/** psql as a child process, awaited: spawnSync would block the server, which runs in this process. */
async function psql(
  server: TestServer,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(PSQL, ['-X', '-h', '127.0.0.1', '-p', String(server.pgPort), ...args], {
    env: { PATH: process.env.PATH, PGCONNECT_TIMEOUT: '10', ...env },
    timeout: 30_000,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const status = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  return { status, stdout, stderr };
}

/** Text of every value, as the server sent it (no client-side parsing). */
const rawTypes = { getTypeParser: () => (v: string) => v };

function client(server: TestServer, options: Partial<pg.ClientConfig> = {}): pg.Client {
  return new pg.Client({
    host: '127.0.0.1',
    port: server.pgPort,
    user: 'root',
    database: 'public',
    types: rawTypes,
    ...options,
  });
}

async function sqlJson(server: TestServer, sql: string, db = 'public'): Promise<Array<Record<string, unknown>>> {
  const r = await http(server.url, `/api/v1/sql?db=${db}`, {
    method: 'POST',
    body: sql,
    headers: { accept: 'application/json' },
  });
  expect(r.status, r.text).toBe(200);
  return JSON.parse(r.text) as Array<Record<string, unknown>>;
}

async function sqlOk(server: TestServer, sql: string): Promise<void> {
  const r = await http(server.url, '/api/v1/sql?db=public', { method: 'POST', body: sql });
  expect(r.status, r.text).toBe(200);
}

const LINES = [
  'cpu,host=a usage=1.5,count=3i,ok=true,note="x y" 1690510331000000000',
  'cpu,host=b usage=-2,count=-7i,ok=false,note="it\'s" 1690510332123456789',
  'cpu,host=c usage=1e300 1690510333500000000',
].join('\n');

describe('PostgreSQL port: psql', () => {
  let server: TestServer;
  beforeAll(async () => {
    requirePsql();
    server = await startServer({ inProcess: true, args: ['--pg-port', '0'] });
    expect((await writeLp(server.url, LINES)).status).toBe(200);
    await sqlOk(server, "CREATE USER alice WITH PASSWORD = 'secret'");
    await sqlOk(server, 'ALTER TENANT cnosdb ADD USER alice AS member');
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    server?.cleanup();
  });

  it('runs a SELECT with -c and prints rows as psql prints them', async () => {
    const r = await psql(server, [
      '-U',
      'root',
      '-c',
      "SELECT host, usage, count, ok, note, time FROM cpu WHERE host <> 'c' ORDER BY host",
    ]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      [
        ' host | usage | count | ok | note |             time              ',
        '------+-------+-------+----+------+-------------------------------',
        ' a    |   1.5 |     3 | t  | x y  | 2023-07-28 02:12:11',
        " b    |  -2.0 |    -7 | f  | it's | 2023-07-28 02:12:12.123456789",
        '(2 rows)',
        '',
        '',
      ].join('\n'),
    );
  });

  it('lists databases (\\l), tables (\\dt), schemas (\\dn) and a table (\\d cpu)', async () => {
    const l = await psql(server, ['-U', 'root', '-c', '\\l']);
    expect(l.status, l.stderr).toBe(0);
    expect(l.stdout).toMatch(/^ public\s+\| root\s+\| UTF8\s+\| C\s+\| C\s+\|/m);
    expect(l.stdout).toMatch(/^ usage_schema\s+\| root/m);
    expect(l.stdout).toContain('(2 rows)');
    const dt = await psql(server, ['-U', 'root', '-c', '\\dt']);
    expect(dt.status, dt.stderr).toBe(0);
    expect(dt.stdout).toBe(
      [
        '       List of relations',
        ' Schema | Name | Type  | Owner ',
        '--------+------+-------+-------',
        ' public | cpu  | table | root',
        '(1 row)',
        '',
        '',
      ].join('\n'),
    );
    const dn = await psql(server, ['-U', 'root', '-c', '\\dn']);
    expect(dn.stdout).toMatch(/^ public\s+\| root$/m);
    const d = await psql(server, ['-U', 'root', '-c', '\\d cpu']);
    expect(d.status, d.stderr).toBe(0);
    expect(d.stdout).toBe(
      [
        '                          Table "public.cpu"',
        ' Column |            Type             | Collation | Nullable | Default ',
        '--------+-----------------------------+-----------+----------+---------',
        ' time   | timestamp without time zone |           | not null | ',
        ' host   | text                        |           |          | ',
        ' count  | bigint                      |           |          | ',
        ' note   | text                        |           |          | ',
        ' ok     | boolean                     |           |          | ',
        ' usage  | double precision            |           |          | ',
        '',
        '',
      ].join('\n'),
    );
    const missing = await psql(server, ['-U', 'root', '-c', '\\d nosuch']);
    expect(missing.stderr).toBe('Did not find any relation named "nosuch".\n');
  });

  it('reports a syntax error with its SQLSTATE class and Sundial code, exit status 1', async () => {
    const r = await psql(server, ['-U', 'root', '-v', 'VERBOSITY=verbose', '-c', 'SELEC 1']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('ERROR:  42601: sql parser error: Expected an SQL statement, found: SELEC');
    expect(r.stderr).toContain('DETAIL:  Sundial error code 010009');
  });

  it('logs in with a password (SCRAM-SHA-256) and refuses a wrong one', async () => {
    const ok = await psql(server, ['-U', 'alice', '-d', 'public', '-t', '-c', 'SELECT count(*) FROM cpu'], {
      PGPASSWORD: 'secret',
    });
    expect(ok.stderr).toBe('');
    expect(ok.stdout.trim()).toBe('3');
    const bad = await psql(server, ['-U', 'alice', '-d', 'public', '-c', 'SELECT 1'], { PGPASSWORD: 'wrong' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('FATAL:  password authentication failed for user "alice"');
    const unknown = await psql(server, ['-U', 'mallory', '-c', 'SELECT 1'], { PGPASSWORD: 'x' });
    expect(unknown.stderr).toContain('FATAL:  password authentication failed for user "mallory"');
  });

  it('checks privileges as HTTP does: a member may read but not create', async () => {
    const r = await psql(server, ['-U', 'alice', '-d', 'public', '-c', 'CREATE TABLE t (v BIGINT)'], {
      PGPASSWORD: 'secret',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('ERROR:  Insufficient privileges, expected [Full on database public of tenant cnosdb]');
    expect(r.stderr).toContain('DETAIL:  Sundial error code 010004');
  });

  it('names the tenant with tenant/database or options and refuses a tenant the user is not in', async () => {
    await sqlOk(server, 'CREATE TENANT other');
    const own = await psql(server, ['-U', 'root', '-d', 'cnosdb/public', '-t', '-c', 'SELECT count(*) FROM cpu']);
    expect(own.stdout.trim()).toBe('3');
    const created = await http(server.url, '/api/v1/sql?tenant=other', { method: 'POST', body: 'CREATE DATABASE odb' });
    expect(created.status, created.text).toBe(200);
    const viaOptions = await psql(server, ['-U', 'root', '-d', 'odb', '-t', '-c', '\\dt'], {
      PGOPTIONS: '-c tenant=other',
    });
    expect(viaOptions.stderr).toBe('Did not find any relations.\n');
    expect((await psql(server, ['-U', 'root', '-d', 'odb', '-c', 'SELECT 1'])).stderr).toContain(
      'FATAL:  Meta: Database not found: "odb"',
    );
    const outsider = await psql(server, ['-U', 'alice', '-d', 'other/public', '-c', 'SELECT 1'], {
      PGPASSWORD: 'secret',
    });
    expect(outsider.status).toBe(2);
    expect(outsider.stderr).toContain('FATAL:  The tenant other not found');
  });
});

describe('PostgreSQL port: pg (node-postgres)', () => {
  let server: TestServer;
  const ROWS = 100_000;
  beforeAll(async () => {
    server = await startServer({ inProcess: true, args: ['--pg-port', '0'] });
    expect((await writeLp(server.url, LINES)).status).toBe(200);
    const base = 1_700_000_000_000_000_000n;
    const lines: string[] = [];
    for (let i = 0; i < ROWS; i++)
      lines.push(
        `big,host=h${i % 97} v=${(i * 0.37).toFixed(2)},n=${i - 50_000}i,b=${i % 3 === 0} ${base + BigInt(i) * 1_000_001n}`,
      );
    expect((await writeLp(server.url, lines.join('\n'))).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    server?.cleanup();
  });

  it('answers simple queries with PostgreSQL types in text', async () => {
    const c = client(server);
    await c.connect();
    try {
      const r = await c.query("SELECT time, host, usage, count, ok, note FROM cpu WHERE host = 'b'");
      expect(r.fields.map((f) => [f.name, f.dataTypeID])).toEqual([
        ['time', 1114],
        ['host', 25],
        ['usage', 701],
        ['count', 20],
        ['ok', 16],
        ['note', 25],
      ]);
      expect(r.rows).toEqual([
        { time: '2023-07-28 02:12:12.123456789', host: 'b', usage: '-2.0', count: '-7', ok: 'f', note: "it's" },
      ]);
      expect(r.command).toBe('SELECT');
      expect(r.rowCount).toBe(1);
    } finally {
      await c.end();
    }
  });

  it('binds $n parameters as values, never as SQL', async () => {
    const c = client(server);
    await c.connect();
    try {
      const r = await c.query('SELECT host FROM cpu WHERE usage > $1 AND host <> $2 ORDER BY host', [0, 'z']);
      expect(r.rows).toEqual([{ host: 'a' }, { host: 'c' }]);
      const injected = await c.query('SELECT count(*) AS n FROM cpu WHERE host = $1', ["a' OR '1'='1"]);
      expect(injected.rows).toEqual([{ n: '0' }]);
      const quoted = await c.query('SELECT host FROM cpu WHERE note = $1', ["it's"]);
      expect(quoted.rows).toEqual([{ host: 'b' }]);
      const nul = await c.query('SELECT count(*) AS n FROM cpu WHERE note = $1', [null]);
      expect(nul.rows).toEqual([{ n: '0' }]);
    } finally {
      await c.end();
    }
  });

  it('runs a named prepared statement many times and answers binary results', async () => {
    const c = client(server);
    await c.connect();
    try {
      for (const host of ['a', 'b', 'c']) {
        const r = await c.query({
          name: 'by-host',
          text: 'SELECT host, count FROM cpu WHERE host = $1',
          values: [host],
        });
        expect(r.rows.map((x) => x.host)).toEqual([host]);
      }
    } finally {
      await c.end();
    }
    // pg decodes rows as bytes only when the whole client asks for binary results.
    const b = client(server, { binary: true, types: { getTypeParser: () => (v: Buffer) => Buffer.from(v) } } as never);
    await b.connect();
    try {
      const bin = await b.query({ text: 'SELECT time, usage, count, ok FROM cpu WHERE host = $1', values: ['a'] });
      expect(bin.fields.map((f) => f.format)).toEqual(['binary', 'binary', 'binary', 'binary']);
      // pg decodes every DataRow field as UTF-8 text (pg-protocol has no binary mode), so only
      // bytes that survive that are compared here: int8 3 and bool true.
      const row = bin.rows[0] as Record<string, Buffer>;
      expect(row.count!.toString('hex')).toBe('0000000000000003');
      expect(row.ok!.toString('hex')).toBe('01');
    } finally {
      await b.end();
    }
  });

  it(`streams a ${ROWS}-row result equal cell for cell to /api/v1/sql's JSON`, async () => {
    const sql = 'SELECT time, host, v, n, b FROM big ORDER BY time';
    const json = await sqlJson(server, sql);
    const c = client(server);
    await c.connect();
    try {
      const r = await c.query(sql);
      expect(r.rowCount).toBe(ROWS);
      expect(json.length).toBe(ROWS);
      let mismatches = 0;
      for (let i = 0; i < ROWS; i++) {
        const p = r.rows[i] as Record<string, string>;
        const h = json[i]!;
        const same =
          p.time === String(h.time).replace('T', ' ') &&
          p.host === h.host &&
          p.v === JSON.stringify(h.v).replace(/^(-?\d+)$/, '$1.0') &&
          p.n === String(h.n) &&
          p.b === (h.b ? 't' : 'f');
        if (!same && mismatches++ < 3) expect({ i, pg: p }).toEqual({ i, pg: h });
      }
      expect(mismatches).toBe(0);
    } finally {
      await c.end();
    }
  });

  it(`reads a ${ROWS}-row result through a named prepared statement with parameters, twice`, async () => {
    const json = await sqlJson(
      server,
      "SELECT time, host, v, n, b FROM big WHERE n >= -50000 AND host <> 'none' ORDER BY time",
    );
    expect(json.length).toBe(ROWS);
    const c = client(server);
    await c.connect();
    try {
      // The second run reuses the statement pg prepared on the first (Bind and Execute only).
      for (let run = 0; run < 2; run++) {
        const r = await c.query({
          name: 'big-since',
          text: 'SELECT time, host, v, n, b FROM big WHERE n >= $1 AND host <> $2 ORDER BY time',
          values: [-50_000, 'none'],
        });
        expect(r.rowCount).toBe(ROWS);
        let mismatches = 0;
        for (let i = 0; i < ROWS; i++) {
          const p = r.rows[i] as Record<string, string>;
          const h = json[i]!;
          const same =
            p.time === String(h.time).replace('T', ' ') &&
            p.host === h.host &&
            p.v === JSON.stringify(h.v).replace(/^(-?\d+)$/, '$1.0') &&
            p.n === String(h.n) &&
            p.b === (h.b ? 't' : 'f');
          if (!same && mismatches++ < 3) expect({ run, i, pg: p }).toEqual({ run, i, pg: h });
        }
        expect(mismatches).toBe(0);
      }
      // The parameters are values: a later bind of the same statement narrows the result.
      const few = await c.query({
        name: 'big-since',
        text: 'SELECT time, host, v, n, b FROM big WHERE n >= $1 AND host <> $2 ORDER BY time',
        values: [49_998, 'none'],
      });
      expect(few.rows.map((x) => (x as Record<string, string>).n)).toEqual(['49998', '49999']);
    } finally {
      await c.end();
    }
  });

  it('reports errors with their SQLSTATE and keeps the connection usable', async () => {
    const c = client(server);
    await c.connect();
    try {
      const cases: Array<[string, string, string]> = [
        ['SELEC 1', '42601', '010009'],
        ['SELECT * FROM nosuch', '42P01', '030019'],
        ['SELECT nosuch FROM cpu', '42703', '010001'],
      ];
      for (const [sql, code, sundial] of cases) {
        const e = (await c.query(sql).catch((x: unknown) => x)) as pg.DatabaseError;
        expect(e).toBeInstanceOf(pg.DatabaseError);
        expect([sql, e.code, e.detail]).toEqual([sql, code, `Sundial error code ${sundial}`]);
      }
      expect((await c.query('SELECT 1 AS one')).rows).toEqual([{ one: '1' }]);
    } finally {
      await c.end();
    }
  });

  it('answers INSERT with its row count and runs SET, SHOW, BEGIN and COMMIT', async () => {
    const c = client(server);
    await c.connect();
    try {
      await c.query('BEGIN');
      const ins = await c.query("INSERT INTO cpu (time, host, usage) VALUES (1, 'd', 4.5), (2, 'e', 5.5)");
      expect([ins.command, ins.rowCount]).toEqual(['INSERT', 2]);
      await c.query('COMMIT');
      await c.query("SET application_name = 'pgtest'");
      expect((await c.query('SHOW application_name')).rows).toEqual([{ application_name: 'pgtest' }]);
      expect((await c.query("SELECT current_setting('server_version_num')::int/100 AS version")).rows).toEqual([
        { version: '1500' },
      ]);
      expect(await sqlJson(server, "SELECT host, usage FROM cpu WHERE host IN ('d', 'e') ORDER BY host")).toEqual([
        { host: 'd', usage: 4.5 },
        { host: 'e', usage: 5.5 },
      ]);
    } finally {
      await c.end();
    }
  });

  it('cancels a running statement on a CancelRequest (57014) and serves the next one', async () => {
    const c = client(server);
    await c.connect();
    try {
      const conn = c as unknown as { processID: number; secretKey: number };
      const running = c.query('SELECT count(*) FROM big a JOIN big b ON a.host = b.host').catch((x: unknown) => x);
      await new Promise((r) => setTimeout(r, 300));
      await new Promise<void>((resolve, reject) => {
        const s = connect(server.pgPort!, '127.0.0.1', () => {
          const b = Buffer.alloc(16);
          b.writeInt32BE(16, 0);
          b.writeInt32BE(80877102, 4);
          b.writeInt32BE(conn.processID, 8);
          b.writeInt32BE(conn.secretKey, 12);
          s.end(b);
        });
        s.on('close', () => resolve());
        s.on('error', reject);
      });
      const e = (await running) as pg.DatabaseError;
      expect([e.code, e.message, e.detail]).toEqual([
        '57014',
        'canceling statement due to user request',
        'Sundial error code 010014',
      ]);
      expect((await c.query('SELECT 2 AS two')).rows).toEqual([{ two: '2' }]);
    } finally {
      await c.end();
    }
  }, 30_000);

  it('logs in with a cleartext password a user saved before SCRAM verifiers existed', async () => {
    await sqlOk(server, "CREATE USER olduser WITH PASSWORD = 'pw1'");
    await sqlOk(server, 'ALTER TENANT cnosdb ADD USER olduser AS member');
    const scram = client(server, { user: 'olduser', password: 'pw1' });
    await scram.connect();
    await scram.end();
    await server.stop();
    const path = join(server.dataDir, 'catalog.json');
    const doc = JSON.parse(readFileSync(path, 'utf8')) as {
      version: number;
      users: Array<{ name: string; scramVerifier: string }>;
    };
    doc.version = 4;
    for (const u of doc.users) delete (u as Partial<typeof u>).scramVerifier;
    writeFileSync(path, JSON.stringify(doc));
    server = await startServer({ inProcess: true, dataDir: server.dataDir, args: ['--pg-port', '0'] });
    const clear = client(server, { user: 'olduser', password: 'pw1' });
    await clear.connect();
    expect((await clear.query('SELECT current_user AS u')).rows).toEqual([{ u: 'olduser' }]);
    await clear.end();
    const wrong = client(server, { user: 'olduser', password: 'nope' });
    const e = (await wrong.connect().catch((x: unknown) => x)) as pg.DatabaseError;
    expect(e.code).toBe('28P01');
  }, 60_000);
});

describe('PostgreSQL port: limits', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({
      inProcess: true,
      args: ['--pg-port', '0', '--query-timeout', '500ms', '--query-memory-bytes', '1MiB'],
    });
    const lines: string[] = [];
    for (let i = 0; i < 30_000; i++) lines.push(`m,host=h${i % 10} v=${i} ${1_700_000_000_000_000_000n + BigInt(i)}`);
    expect((await writeLp(server.url, lines.join('\n'))).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    server?.cleanup();
  });

  it('fails a statement past the query timeout (57014, 010010) or the memory limit (53200, 010011)', async () => {
    const c = client(server);
    await c.connect();
    try {
      const slow = (await c
        .query('SELECT count(*) FROM m a JOIN m b ON a.host = b.host')
        .catch((x: unknown) => x)) as pg.DatabaseError;
      expect([slow.code, slow.detail]).toEqual(['57014', 'Sundial error code 010010']);
      // 60,000 rows: a tag column is counted 8 bytes a row (one string shared), so 30,000 fit 1 MiB.
      const big = (await c
        .query('SELECT host, v, time FROM m UNION ALL SELECT host, v, time FROM m ORDER BY v DESC, host')
        .catch((x: unknown) => x)) as pg.DatabaseError;
      expect([big.code, big.detail]).toEqual(['53200', 'Sundial error code 010011']);
      expect((await c.query('SELECT count(*) AS n FROM m')).rows).toEqual([{ n: '30000' }]);
    } finally {
      await c.end();
    }
  }, 30_000);
});

describe('PostgreSQL port: connection cap (server.pg_max_connections)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ inProcess: true, args: ['--pg-port', '0', '--pg-max-connections', '1'] });
    const lines: string[] = [];
    for (let i = 0; i < 30_000; i++) lines.push(`m,host=h${i % 10} v=${i} ${1_700_000_000_000_000_000n + BigInt(i)}`);
    expect((await writeLp(server.url, lines.join('\n'))).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    server?.cleanup();
  });

  it('refuses a session past the cap with FATAL 53300, still takes a CancelRequest, and admits one once a session ends', async () => {
    const first = client(server);
    await first.connect();
    let firstOpen = true;
    try {
      const refused = (await client(server)
        .connect()
        .catch((x: unknown) => x)) as pg.DatabaseError;
      expect([refused.code, refused.severity, refused.message]).toEqual([
        '53300',
        'FATAL',
        'sorry, too many clients already',
      ]);
      // psql says it as PostgreSQL's own refusal reads.
      const r = await psql(server, ['-U', 'root', '-d', 'public', '-c', 'SELECT 1']);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain('FATAL:  sorry, too many clients already');
      // HTTP has its own cap: it serves on.
      expect((await http(server.url, '/api/v1/sql?db=public', { body: 'SELECT 1' })).status).toBe(200);
      // A CancelRequest comes on a connection of its own, and must reach a full server.
      const conn = first as unknown as { processID: number; secretKey: number };
      const running = first.query('SELECT count(*) FROM m a JOIN m b ON a.host = b.host').catch((x: unknown) => x);
      await new Promise((r) => setTimeout(r, 200));
      await new Promise<void>((resolve, reject) => {
        const s = connect(server.pgPort!, '127.0.0.1', () => {
          const b = Buffer.alloc(16);
          b.writeInt32BE(16, 0);
          b.writeInt32BE(80877102, 4);
          b.writeInt32BE(conn.processID, 8);
          b.writeInt32BE(conn.secretKey, 12);
          s.end(b);
        });
        s.on('close', () => resolve());
        s.on('error', reject);
      });
      expect(((await running) as pg.DatabaseError).code).toBe('57014');
      await first.end();
      firstOpen = false;
      // The refused sessions were never counted: one may open now.
      await new Promise((r) => setTimeout(r, 100));
      const next = client(server);
      await next.connect();
      expect((await next.query('SELECT 1 AS one')).rows).toEqual([{ one: '1' }]);
      await next.end();
    } finally {
      if (firstOpen) await first.end();
    }
  }, 30_000);
});
