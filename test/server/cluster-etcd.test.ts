// Two Sundial nodes on one real etcd (server.cluster, docs/cluster.md): the catalog is shared (DDL
// and DCL on one node are seen and enforced on the other, races end in one catalog), membership is
// a leased key per node, and etcd going away makes DDL a 503 until it is back.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEtcd, type TestEtcd } from '../support/etcd.js';
import { http, writeLp, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

const QUIET = {
  SUNDIAL_WARMUP: 'false',
  SUNDIAL_WRITE_WARMUP: 'false',
  SUNDIAL_PARSE_WARMUP: 'false',
  SUNDIAL_REPORT_INTERVAL: '0',
};

type Auth = { user: string; password: string };

const sql = (url: string, text: string, db = 'public', auth?: Auth): Promise<HttpResponse> =>
  http(url, `/api/v1/sql?db=${db}`, { method: 'POST', body: text, ...(auth === undefined ? {} : { auth }) });

async function ok(url: string, text: string, db = 'public'): Promise<string> {
  const r = await sql(url, text, db);
  expect(r.status, `${text}: ${r.text}`).toBe(200);
  return r.text;
}

/** Polls `probe` until `done` holds (bounded: 200 rounds of 50 ms); returns the last value. */
async function eventually<T>(probe: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  let v = await probe();
  for (let i = 0; i < 200 && !done(v); i++) {
    await new Promise((r) => setTimeout(r, 50));
    v = await probe();
  }
  return v;
}

/** The whole catalog as a node shows it to root: tenants, users, roles, members, grants, databases, tables, columns. */
async function catalogOf(url: string): Promise<string> {
  const views = [
    'cluster_schema.tenants',
    'cluster_schema.users',
    'information_schema.roles',
    'information_schema.members',
    'information_schema.database_privileges',
    'information_schema.databases',
    'information_schema.tables',
    'information_schema.columns',
  ];
  const out: string[] = [];
  for (const v of views) {
    const text = await ok(url, `SELECT * FROM ${v}`);
    const [head, ...rows] = text.trim().split('\n');
    out.push(`${v}: ${head}`, ...rows.sort());
  }
  return out.join('\n');
}

function nodeEnv(etcd: TestEtcd, cluster: string, node: string): Record<string, string> {
  return { ...QUIET, SUNDIAL_ETCD_ENDPOINTS: etcd.endpoint, SUNDIAL_NAME: cluster, SUNDIAL_NODE_ID: node };
}

async function liveNodes(url: string): Promise<number> {
  const r = await http(url, '/metrics');
  const m = /^sundial_cluster_nodes (\d+)$/m.exec(r.text);
  return m === null ? -1 : Number(m[1]);
}

describe('two nodes sharing a catalog in etcd', () => {
  let etcd: TestEtcd;
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    etcd = await startEtcd();
    // Both start at once: one of them creates the catalog (root, tenant cnosdb), the other finds it.
    [a, b] = await Promise.all([
      startServer({ inProcess: true, env: nodeEnv(etcd, 'pair', 'a') }),
      startServer({ inProcess: true, env: nodeEnv(etcd, 'pair', 'b') }),
    ]);
  });

  afterAll(async () => {
    for (const s of [a, b]) {
      await s?.stop();
      s?.cleanup();
    }
    await etcd?.close();
  });

  it('bootstraps one catalog and counts both nodes', async () => {
    // usage_schema's tables, made at start by either node, reach the other within a watch round-trip.
    const fromA = await catalogOf(a.url);
    expect(
      await eventually(
        () => catalogOf(b.url),
        (t) => t === fromA,
      ),
    ).toBe(fromA);
    expect((await ok(a.url, 'SELECT user_name FROM cluster_schema.users')).trim().split('\n')).toEqual([
      'user_name',
      'root',
    ]);
    expect(
      await eventually(
        () => liveNodes(a.url),
        (n) => n === 2,
      ),
    ).toBe(2);
    expect(
      await eventually(
        () => liveNodes(b.url),
        (n) => n === 2,
      ),
    ).toBe(2);
  });

  it('shows DDL made on one node on the other, and takes writes to it there', async () => {
    await ok(a.url, 'CREATE DATABASE shared_db');
    const seen = await eventually(
      () => ok(b.url, 'SHOW DATABASES'),
      (t) => t.includes('shared_db'),
    );
    expect(seen).toContain('shared_db');
    await ok(b.url, 'CREATE TABLE cpu (usage DOUBLE, TAGS(host))', 'shared_db');
    const described = await eventually(
      () => sql(a.url, 'DESCRIBE TABLE cpu', 'shared_db'),
      (r) => r.status === 200,
    );
    expect(described.text).toBe(await ok(b.url, 'DESCRIBE TABLE cpu', 'shared_db'));
    // Rows stay on the node that took them in this step (docs/cluster.md); both nodes take them.
    expect((await writeLp(a.url, 'cpu,host=h1 usage=1 1000', 'db=shared_db')).status).toBe(200);
    expect((await writeLp(b.url, 'cpu,host=h2 usage=2 1000', 'db=shared_db')).status).toBe(200);
    expect(await ok(a.url, 'SELECT host, usage FROM cpu', 'shared_db')).toBe('host,usage\nh1,1.0\n');
    // A drop on B takes the database away on A, files and all.
    await ok(b.url, 'DROP DATABASE shared_db');
    const gone = await eventually(
      () => sql(a.url, 'SELECT * FROM cpu', 'shared_db'),
      (r) => r.status !== 200,
    );
    expect(JSON.parse(gone.text)).toMatchObject({ error_code: '030017' });
  });

  it('ends concurrent DDL on both nodes in one catalog, losers getting the single-node error', async () => {
    // The same database from both nodes: one creates it, the other is told it exists.
    for (let round = 0; round < 3; round++) {
      const [ra, rb] = await Promise.all([
        sql(a.url, `CREATE DATABASE race_${round}`),
        sql(b.url, `CREATE DATABASE race_${round}`),
      ]);
      expect([ra.status, rb.status].sort(), `${ra.text} ${rb.text}`).toEqual([200, 422]);
      const loser = ra.status === 422 ? ra : rb;
      expect(JSON.parse(loser.text)).toMatchObject({
        error_code: '030018',
        error_message: `Meta: Database "race_${round}" already exists`,
      });
    }
    // Different databases and tables from both at once: all of them made (once both see race_0:
    // a node sees another's change within a watch round-trip, not before).
    expect(
      await eventually(
        () => ok(b.url, 'SHOW DATABASES'),
        (t) => t.includes('race_2'),
      ),
    ).toContain('race_2');
    expect(
      await eventually(
        () => ok(a.url, 'SHOW DATABASES'),
        (t) => t.includes('race_2'),
      ),
    ).toContain('race_2');
    const made = await Promise.all(
      [0, 1, 2, 3].flatMap((i) => [
        sql(a.url, `CREATE DATABASE a_${i}`),
        sql(b.url, `CREATE DATABASE b_${i}`),
        sql(a.url, `CREATE TABLE ta_${i} (v DOUBLE, TAGS(t))`, 'race_0'),
        sql(b.url, `CREATE TABLE tb_${i} (v DOUBLE, TAGS(t))`, 'race_0'),
      ]),
    );
    expect(made.map((r, i) => `${i % 4} ${r.status}`).filter((t) => !t.endsWith('200'))).toEqual([]);
    // The same table from both, then columns added to it from both.
    const [ta, tb] = await Promise.all([
      sql(a.url, 'CREATE TABLE same (v DOUBLE, TAGS(t))', 'race_0'),
      sql(b.url, 'CREATE TABLE same (v DOUBLE, TAGS(t))', 'race_0'),
    ]);
    expect([ta.status, tb.status].sort(), `${ta.text} ${tb.text}`).toEqual([200, 422]);
    expect(JSON.parse((ta.status === 422 ? ta : tb).text)).toMatchObject({
      error_code: '030020',
      error_message: 'Meta: Table same already exists.',
    });
    const added = await Promise.all(
      [0, 1, 2].flatMap((i) => [
        sql(a.url, `ALTER TABLE same ADD FIELD fa_${i} BIGINT`, 'race_0'),
        sql(b.url, `ALTER TABLE same ADD FIELD fb_${i} STRING`, 'race_0'),
        sql(a.url, `ALTER TABLE same ADD TAG ta_${i}`, 'race_0'),
      ]),
    );
    expect(added.map((r) => r.status)).toEqual(added.map(() => 200));
    // Writes that make the same new table and columns through both nodes agree on them too.
    const writes = await Promise.all([
      writeLp(a.url, 'mem,host=h1 used=1i,free=2i 1000', 'db=race_0'),
      writeLp(b.url, 'mem,host=h2,rack=r1 used=3i,cached=4i 1000', 'db=race_0'),
    ]);
    expect(writes.map((r) => r.status)).toEqual([200, 200]);
    const fromA = await catalogOf(a.url);
    const fromB = await eventually(
      () => catalogOf(b.url),
      (t) => t === fromA,
    );
    expect(fromB).toBe(fromA);
    for (const i of [0, 1, 2])
      for (const c of [`fa_${i}`, `fb_${i}`, `ta_${i}`]) expect(fromA).toContain(`,same,${c},`);
    for (const c of ['host', 'rack', 'used', 'free', 'cached']) expect(fromA).toContain(`,mem,${c},`);
  });

  it('enforces users and privileges changed on one node on the other', async () => {
    const carol = { user: 'carol', password: 'carol-pw' };
    await ok(a.url, 'CREATE DATABASE guarded');
    await ok(a.url, 'CREATE TABLE g (v DOUBLE)', 'guarded');
    await ok(a.url, "CREATE USER carol WITH PASSWORD = 'carol-pw'");
    await ok(a.url, 'CREATE ROLE readers');
    await ok(a.url, 'ALTER TENANT cnosdb ADD USER carol AS readers');
    // On B: carol logs in, but may not read the database yet.
    const denied = await eventually(
      () => sql(b.url, 'SELECT * FROM g', 'guarded', carol),
      (r) => r.status === 422,
    );
    expect(JSON.parse(denied.text)).toEqual({
      error_code: '010004',
      error_message: 'Insufficient privileges, expected [Read on database guarded of tenant cnosdb]',
    });
    await ok(a.url, 'GRANT READ ON DATABASE guarded TO ROLE readers');
    const allowed = await eventually(
      () => sql(b.url, 'SELECT * FROM g', 'guarded', carol),
      (r) => r.status === 200,
    );
    expect(allowed.status, allowed.text).toBe(200);
    await ok(a.url, 'REVOKE READ ON DATABASE guarded FROM ROLE readers');
    expect(
      (
        await eventually(
          () => sql(b.url, 'SELECT * FROM g', 'guarded', carol),
          (r) => r.status === 422,
        )
      ).status,
    ).toBe(422);
    // A new password set on A: the old one stops working on B.
    await ok(a.url, "ALTER USER carol SET PASSWORD = 'carol-new'");
    expect(
      (
        await eventually(
          () => sql(b.url, 'SELECT 1', 'public', carol),
          (r) => r.status === 401,
        )
      ).status,
    ).toBe(401);
  });

  it('carries out a scheduled drop once, on whichever node is first, keeping the other pending drops', async () => {
    await ok(a.url, 'CREATE DATABASE soon');
    await ok(a.url, 'CREATE DATABASE later_db');
    await ok(a.url, "DROP DATABASE later_db AFTER '1h'");
    await ok(a.url, "DROP DATABASE soon AFTER '2s'");
    const status = (url: string): Promise<string> =>
      ok(
        url,
        "SELECT name, try_count, status FROM information_schema.resource_status WHERE name IN ('cnosdb-soon', 'cnosdb-later_db')",
      );
    const done = 'name,try_count,status\ncnosdb-later_db,0,Schedule\ncnosdb-soon,1,Successed\n';
    for (const s of [a, b])
      expect(
        await eventually(
          () => status(s.url),
          (t) => t === done,
        ),
      ).toBe(done);
    await ok(b.url, 'RECOVER DATABASE later_db');
    expect(
      await eventually(
        () => ok(a.url, 'SHOW DATABASES'),
        (t) => t.includes('later_db'),
      ),
    ).not.toContain('soon');
  });

  it('answers DDL with 503 000003 while etcd is down, and resumes once it is back', async () => {
    await etcd.stop();
    const down = await sql(a.url, 'CREATE DATABASE while_down');
    expect(down.status, down.text).toBe(503);
    const body = JSON.parse(down.text) as { error_code: string; error_message: string };
    expect(body.error_code).toBe('000003');
    expect(body.error_message.startsWith(`etcd at ${etcd.endpoint} is unreachable (`), body.error_message).toBe(true);
    expect(body.error_message.endsWith('): DDL and DCL are refused until it is back'), body.error_message).toBe(true);
    // Nothing of the refused statement stays: not in memory either.
    expect(await ok(a.url, 'SHOW DATABASES')).not.toContain('while_down');
    // Queries and writes of tables that exist go on meanwhile.
    const written = await writeLp(a.url, 'same,t=x v=1 2000', 'db=race_0');
    expect(written.status, written.text).toBe(200);
    await etcd.start();
    const back = await eventually(
      () => sql(a.url, 'CREATE DATABASE after_restart'),
      (r) => r.status === 200,
    );
    expect(back.status, back.text).toBe(200);
    expect(
      await eventually(
        () => ok(b.url, 'SHOW DATABASES'),
        (t) => t.includes('after_restart'),
      ),
    ).toContain('after_restart');
    expect(
      await eventually(
        () => liveNodes(b.url),
        (n) => n === 2,
      ),
    ).toBe(2);
  });

  it('drops a stopped node from the membership count', async () => {
    await b.stop();
    expect(
      await eventually(
        () => liveNodes(a.url),
        (n) => n === 1,
      ),
    ).toBe(1);
  });
});

describe('a node whose etcd does not answer', () => {
  it('refuses to start, naming the endpoint', async () => {
    const etcd = await startEtcd();
    const endpoint = etcd.endpoint;
    await etcd.close();
    await expect(startServer({ inProcess: true, env: { ...QUIET, SUNDIAL_ETCD_ENDPOINTS: endpoint } })).rejects.toThrow(
      `cannot reach etcd at ${endpoint} (server.cluster.etcd_endpoints)`,
    );
  });
});

describe("a cluster node's data directory", () => {
  let etcd: TestEtcd;
  beforeAll(async () => {
    etcd = await startEtcd();
  });
  afterAll(async () => {
    await etcd?.close();
  });

  it("refuses a single node's directory, whose databases the cluster's catalog does not name", async () => {
    const single = await startServer({ inProcess: true, env: QUIET });
    await ok(single.url, 'CREATE DATABASE mine');
    await single.stop();
    try {
      await expect(
        startServer({ inProcess: true, dataDir: single.dataDir, env: nodeEnv(etcd, 'dirs', 'a') }),
      ).rejects.toThrow(`the data directory ${single.dataDir} holds a single node's catalog (catalog.json)`);
    } finally {
      single.cleanup();
    }
  });

  it('refuses to start on an empty cluster catalog with databases on disk, and keeps them', async () => {
    const first = await startServer({ inProcess: true, env: nodeEnv(etcd, 'kept', 'a') });
    await ok(first.url, 'CREATE DATABASE rows_here');
    expect((await writeLp(first.url, 'm v=7 1000', 'db=rows_here')).status).toBe(200);
    await first.stop();
    try {
      await expect(
        startServer({ inProcess: true, dataDir: first.dataDir, env: nodeEnv(etcd, 'other_name', 'a') }),
      ).rejects.toThrow(/holds \d+ database\(s\) \(db\/\), but the cluster's catalog \(.*other_name.*\) is empty/);
      const again = await startServer({ inProcess: true, dataDir: first.dataDir, env: nodeEnv(etcd, 'kept', 'a') });
      expect(await ok(again.url, 'SELECT v FROM m', 'rows_here')).toBe('v\n7.0\n');
      await again.stop();
    } finally {
      first.cleanup();
    }
  });
});
