// usage_schema (host/server/usage-metrics.ts): the system tenant's database of usage counters,
// there from the first start with CnosDB's tables, undroppable, filled every report interval with
// each request's counts and bytes and each database's disk and memtable bytes; every tenant reads
// its own rows of it and nobody else's; the rows survive a restart.

import { afterEach, describe, expect, it } from 'vitest';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer | undefined;

afterEach(async () => {
  await server?.stop();
  server?.cleanup();
  server = undefined;
});

interface Who {
  tenant?: string;
  db?: string;
  user?: string;
  password?: string;
}

async function sql(text: string, who: Who = {}): Promise<{ status: number; text: string }> {
  const r = await http(server!.url, `/api/v1/sql?tenant=${who.tenant ?? 'cnosdb'}&db=${who.db ?? 'public'}`, {
    method: 'POST',
    body: text,
    auth: { user: who.user ?? 'root', password: who.password ?? '' },
  });
  return { status: r.status, text: r.text };
}

async function ok(text: string, who: Who = {}): Promise<string> {
  const r = await sql(text, who);
  expect(r.status, `${text}: ${r.text}`).toBe(200);
  return r.text;
}

/**
 * Polls `text` until it answers `want` (the reporter writes every 150 ms here). The polls run in
 * database usage_schema, so that they add nothing to public's counters.
 */
async function eventually(text: string, want: string, who: Who = { db: 'usage_schema' }): Promise<void> {
  const deadline = Date.now() + 10_000;
  let got = '';
  while (Date.now() < deadline) {
    got = await ok(text, who);
    if (got === want) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(got).toBe(want);
}

const FAST = ['--warmup', 'false', '--report-interval', '150ms'];

describe('usage_schema', () => {
  it("exists from the first start with CnosDB's tables, and cannot be dropped or taken by a user", async () => {
    server = await startServer({ args: ['--warmup', 'false'] });
    expect(await ok('SHOW DATABASES')).toBe('database_name\ncluster_schema\npublic\nusage_schema\n');
    expect(await ok('SHOW TABLES', { db: 'usage_schema' })).toBe(
      'table_name\ncoord_data_in\ncoord_data_out\ncoord_queries\ncoord_writes\nhttp_data_in\nhttp_data_out\nhttp_queries\nhttp_writes\nsql_data_in\nvnode_cache_size\nvnode_disk_storage\n',
    );
    // Its options as CnosDB's meta writes them: DatabaseConfig's defaults, 2 MiB of memcache.
    expect(await ok('DESCRIBE DATABASE usage_schema')).toBe(
      'ttl,shard,vnode_duration,replica,precision,max_memcache_size,memcache_partitions,wal_max_file_size,wal_sync,strict_write,max_cache_readers\nINF,1,1year,1,NS,2 MiB,16,1 GiB,false,false,32\n',
    );
    expect(await ok('DESCRIBE TABLE usage_schema.coord_data_in')).toBe(
      'column_name,data_type,column_type,compression_codec\ntime,TIMESTAMP(NANOSECOND),TIME,DEFAULT\ndatabase,STRING,TAG,DEFAULT\nnode_id,STRING,TAG,DEFAULT\ntenant,STRING,TAG,DEFAULT\nvalue,BIGINT UNSIGNED,FIELD,DEFAULT\n',
    );
    expect(await ok('DESCRIBE TABLE usage_schema.http_writes')).toBe(
      'column_name,data_type,column_type,compression_codec\ntime,TIMESTAMP(NANOSECOND),TIME,DEFAULT\napi,STRING,TAG,DEFAULT\ndatabase,STRING,TAG,DEFAULT\nhost,STRING,TAG,DEFAULT\nnode_id,STRING,TAG,DEFAULT\ntenant,STRING,TAG,DEFAULT\nuser,STRING,TAG,DEFAULT\nvalue,BIGINT UNSIGNED,FIELD,DEFAULT\n',
    );
    const drop = await sql('DROP DATABASE usage_schema');
    expect([drop.status, JSON.parse(drop.text)]).toEqual([
      422,
      { error_code: '010065', error_message: 'Database "usage_schema" forbid drop' },
    ]);
    await ok('CREATE TENANT other');
    expect((await sql('CREATE DATABASE usage_schema', { tenant: 'other' })).status).toBe(422);
  });

  it('counts requests, bytes in and out and each database, and keeps the rows across a restart', async () => {
    server = await startServer({ args: FAST });
    const body = 'm,t=a v=1 1\nm,t=b v=2 2';
    expect((await http(server.url, '/api/v1/write?db=public', { method: 'POST', body })).status).toBe(200);
    expect((await http(server.url, '/api/v1/write?db=public', { method: 'POST', body })).status).toBe(200);
    // The same two points twice: two rows, four points written.
    expect(await ok('SELECT count(*) AS n FROM m')).toBe('n\n2\n');
    await eventually(
      'SELECT api, database, node_id, tenant, user, value FROM usage_schema.http_writes ORDER BY time DESC LIMIT 1',
      `api,database,node_id,tenant,user,value\napi/v1/write,public,1001,cnosdb,root,2\n`,
    );
    // Cumulative: the last row of a series holds every request so far.
    await eventually(
      "SELECT value FROM usage_schema.http_data_in WHERE api = 'api/v1/write' ORDER BY time DESC LIMIT 1",
      `value\n${2 * body.length}\n`,
    );
    await eventually(
      "SELECT value FROM usage_schema.http_data_out WHERE api = 'api/v1/sql' AND database = 'public' ORDER BY time DESC LIMIT 1",
      `value\n${'n\n2\n'.length}\n`,
    );
    await eventually(
      "SELECT value FROM usage_schema.coord_writes WHERE database = 'public' ORDER BY time DESC LIMIT 1",
      'value\n2\n',
    );
    await eventually(
      "SELECT value > 0 AS some FROM usage_schema.coord_data_in WHERE database = 'public' ORDER BY time DESC LIMIT 1",
      'some\ntrue\n',
    );
    await eventually(
      "SELECT value > 0 AS some FROM usage_schema.vnode_cache_size WHERE database = 'public' ORDER BY time DESC LIMIT 1",
      'some\ntrue\n',
    );
    await ok("INSERT INTO m (time, t, v) VALUES (3, 'c', 3.0)");
    await eventually(
      "SELECT value > 0 AS some FROM usage_schema.sql_data_in WHERE database = 'public' ORDER BY time DESC LIMIT 1",
      'some\ntrue\n',
    );
    await eventually(
      "SELECT value FROM usage_schema.coord_writes WHERE database = 'public' ORDER BY time DESC LIMIT 1",
      'value\n3\n',
    );
    const before = await ok('SELECT count(*) AS n FROM usage_schema.http_writes');

    await server.stop();
    server = await startServer({ dataDir: server.dataDir, args: ['--warmup', 'false', '--report-interval', '0'] });
    const after = await ok('SELECT count(*) AS n FROM usage_schema.http_writes');
    // The rows written before the stop are kept (the stop wrote a last report, so maybe one more).
    expect(Number(after.split('\n')[1])).toBeGreaterThanOrEqual(Number(before.split('\n')[1]));
    expect(await ok("SELECT max(value) AS v FROM usage_schema.http_writes WHERE api = 'api/v1/write'")).toBe('v\n2\n');
  });

  it('shows another tenant only its own rows, and lets only the system tenant write there', async () => {
    server = await startServer({ args: FAST });
    await ok('CREATE TENANT t2');
    await ok("CREATE USER u2 WITH PASSWORD = 'p2'");
    await ok('ALTER TENANT t2 ADD USER u2 AS owner');
    const u2 = { tenant: 't2', db: 'd2', user: 'u2', password: 'p2' };
    await ok('CREATE DATABASE d2', { tenant: 't2' });
    const w = await http(server.url, '/api/v1/write?tenant=t2&db=d2', {
      method: 'POST',
      body: 'm v=1 1',
      auth: { user: 'u2', password: 'p2' },
    });
    expect(w.status).toBe(200);
    expect((await http(server.url, '/api/v1/write?db=public', { method: 'POST', body: 'm v=1 1' })).status).toBe(200);
    await eventually('SELECT DISTINCT tenant FROM usage_schema.http_writes ORDER BY tenant', 'tenant\ncnosdb\nt2\n');
    expect(await ok('SELECT tenant, database, user, value FROM usage_schema.http_writes', u2)).toBe(
      'tenant,database,user,value\nt2,d2,u2,1\n',
    );
    expect(await ok('SELECT DISTINCT tenant FROM http_writes', { ...u2, db: 'usage_schema' })).toBe('tenant\nt2\n');
    expect(await ok("SHOW TAG VALUES FROM http_writes WITH KEY = 'tenant'", { ...u2, db: 'usage_schema' })).toBe(
      'key,value\ntenant,t2\n',
    );
    const insert = await sql('INSERT INTO usage_schema.http_writes (time, value) VALUES (1, 1)', u2);
    expect([insert.status, JSON.parse(insert.text).error_code]).toEqual([422, '030017']);
    const lp = await http(server.url, '/api/v1/write?tenant=t2&db=usage_schema', {
      method: 'POST',
      body: 'http_writes value=1u 1',
      auth: { user: 'u2', password: 'p2' },
    });
    expect([lp.status, lp.headers['x-sundial-error-code']]).toEqual([422, '030017']);
  });
});
