// POST /api/v1/sql against a real server: statement kinds, result bodies, every error status,
// chunked streaming (also an error after the first byte), compression. Bodies are CSV, the
// default format; the other formats are tested with their writers (host/engine/format/).

import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, writeLp, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

function sql(s: TestServer, body: string, query = '', headers: Record<string, string> = {}): Promise<HttpResponse> {
  return http(s.url, `/api/v1/sql${query ? `?${query}` : ''}`, { method: 'POST', body, headers });
}

const DATA = [
  'cpu,host=a,region=eu usage=12.5,count=3i 1700000000000000000',
  'cpu,host=a,region=eu usage=13.5,count=4i 1700000060000000000',
  'cpu,host=b,region=us usage=50,count=0i 1700000000000000000',
  'cpu,host=b,region=us usage=51 1700000060000000000',
].join('\n');

interface Case {
  name: string;
  sql: string;
  query?: string;
  headers?: Record<string, string>;
  status: number;
  /** The exact body for 200s. */
  body?: string;
  code?: string;
  message?: RegExp;
}

const cases: Case[] = [
  {
    name: 'SELECT of literals names the columns as DataFusion does',
    sql: "SELECT 1, 2.5, 'x', NULL",
    status: 200,
    body: 'Int64(1),Float64(2.5),"Utf8(""x"")",NULL\n1,2.5,x,\n',
  },
  {
    name: 'SELECT * returns time, tags, fields',
    sql: 'SELECT * FROM cpu ORDER BY host, time',
    status: 200,
    body: 'time,host,region,count,usage\n2023-11-14T22:13:20.000000000,a,eu,3,12.5\n2023-11-14T22:14:20.000000000,a,eu,4,13.5\n2023-11-14T22:13:20.000000000,b,us,0,50.0\n2023-11-14T22:14:20.000000000,b,us,,51.0\n',
  },
  {
    name: 'a filter on a tag and time',
    sql: "SELECT host, usage FROM cpu WHERE host = 'b' AND time > '2023-11-14T22:13:20Z'",
    status: 200,
    body: 'host,usage\nb,51.0\n',
  },
  {
    name: 'aggregates by tag with date_bin',
    sql: "SELECT host, date_bin(INTERVAL '1 hour', time) AS h, avg(usage), count(count) FROM cpu GROUP BY host, h ORDER BY host",
    status: 200,
    body: 'host,h,AVG(cpu.usage),COUNT(cpu.count)\na,2023-11-14T22:00:00.000000000,13.0,2\nb,2023-11-14T22:00:00.000000000,50.5,1\n',
  },
  {
    name: 'a zero-row result still has its header',
    sql: "SELECT host FROM cpu WHERE host = 'nobody'",
    status: 200,
    body: 'host\n',
  },
  { name: 'a trailing semicolon is fine', sql: 'SELECT 1;;', status: 200, body: 'Int64(1)\n1\n' },
  { name: 'an empty body is an empty 200', sql: '', status: 200, body: '' },
  {
    name: 'the db parameter picks the database',
    sql: 'SELECT count(*) FROM cpu',
    query: 'db=public',
    status: 200,
    body: 'COUNT(UInt8(1))\n4\n',
  },
  {
    name: 'TSV on request',
    sql: 'SELECT 1 AS a, 2 AS b',
    headers: { accept: 'text/tsv' },
    status: 200,
    body: 'a\tb\n1\t2\n',
  },
  {
    name: 'JSON on request: NULL is null',
    sql: "SELECT host, count, usage FROM cpu WHERE time > '2023-11-14T22:14:00Z' ORDER BY host",
    headers: { accept: 'application/json' },
    status: 200,
    body: '[{"host":"a","count":4,"usage":13.5},{"host":"b","count":null,"usage":51.0}]',
  },
  {
    name: 'NDJSON on request',
    sql: 'SELECT host, time FROM cpu WHERE count = 0',
    headers: { accept: 'application/nd-json' },
    status: 200,
    body: '{"host":"b","time":"2023-11-14T22:13:20"}\n',
  },
  {
    name: 'a text table on request',
    sql: 'SELECT host, count FROM cpu WHERE usage > 50',
    headers: { accept: 'text/table' },
    status: 200,
    body: '+------+-------+\n| host | count |\n+------+-------+\n| b    |       |\n+------+-------+',
  },
  { name: 'SHOW TABLES', sql: 'SHOW TABLES', status: 200, body: 'table_name\ncpu\n' },
  {
    name: 'SHOW DATABASES',
    sql: 'SHOW DATABASES',
    status: 200,
    body: 'database_name\ncluster_schema\npublic\nusage_schema\n',
  },
  {
    name: 'DESCRIBE TABLE',
    sql: 'DESCRIBE TABLE cpu',
    status: 200,
    body: 'column_name,data_type,column_type,compression_codec\ntime,TIMESTAMP(NANOSECOND),TIME,DEFAULT\nhost,STRING,TAG,DEFAULT\nregion,STRING,TAG,DEFAULT\ncount,BIGINT,FIELD,DEFAULT\nusage,DOUBLE,FIELD,DEFAULT\n',
  },
  {
    name: 'SHOW SERIES',
    sql: 'SHOW SERIES FROM cpu ORDER BY key',
    status: 200,
    body: 'key\n"cpu,host=a,region=eu"\n"cpu,host=b,region=us"\n',
  },
  {
    name: 'SHOW TAG VALUES',
    sql: 'SHOW TAG VALUES FROM cpu WITH KEY = host',
    status: 200,
    body: 'key,value\nhost,a\nhost,b\n',
  },
  {
    name: 'DESCRIBE DATABASE',
    sql: 'DESCRIBE DATABASE public',
    status: 200,
    body: 'ttl,shard,vnode_duration,replica,precision,max_memcache_size,memcache_partitions,wal_max_file_size,wal_sync,strict_write,max_cache_readers\nINF,1,1year,1,NS,128 MiB,16,128 MiB,false,false,32\n',
  },
  // Errors
  {
    name: 'several statements',
    sql: 'SELECT 1; SELECT 2',
    status: 422,
    code: '010013',
    message: /^Multi-statement not allow, found num:2/,
  },
  {
    name: 'a syntax error names line and column',
    sql: 'SELECT 1,\n  FROM',
    status: 422,
    code: '010009',
    message: /^sql parser error: Expected an expression:, found: FROM at Line: 2, Column 3$/,
  },
  {
    name: 'an unknown column',
    sql: 'SELECT nope FROM cpu',
    status: 422,
    code: '010001',
    message: /^Datafusion: Schema error: No field named nope\. Valid fields are cpu\.time, cpu\.host/,
  },
  {
    name: 'an unknown table',
    sql: 'SELECT * FROM nope',
    status: 422,
    code: '030019',
    message: /^Meta: Table not found: "cnosdb\.public\.nope"$/,
  },
  {
    name: 'an unknown database',
    sql: 'SELECT * FROM nodb.cpu',
    status: 422,
    code: '030017',
    message: /^Meta: Database not found: "nodb"$/,
  },
  {
    name: 'a type error',
    sql: 'SELECT 3 + TRUE',
    status: 422,
    code: '010001',
    message: /Can not evaluate Int64 \+ Boolean/,
  },
  {
    name: 'division by zero',
    sql: 'SELECT count / 0 FROM cpu',
    status: 422,
    code: '010001',
    message: /Divide by zero/,
  },
  // A value that does not cast: Arrow's error, CnosDB's QueryError::Arrow code.
  {
    name: 'a value that does not cast',
    sql: "SELECT CAST(CASE WHEN count > 0 THEN 'x' ELSE '1' END AS BIGINT) FROM cpu",
    status: 422,
    code: '010002',
    message: /^Arrow: Cast error: Cannot cast string 'x' to value of Int64 type$/,
  },
  { name: 'an unsupported statement', sql: 'SHOW STREAMS', status: 422, code: '010005' },
  // CnosDB statements Sundial does not run are refused as such, not as syntax errors.
  {
    name: 'COPY VNODE',
    sql: 'COPY VNODE 1 TO NODE 2',
    status: 422,
    code: '010005',
    message: /^This feature is not implemented: COPY VNODE statements$/,
  },
  // COPY INTO runs only with storage.external_dir (test/server/copy-into.test.ts).
  {
    name: 'COPY INTO without storage.external_dir',
    sql: "COPY INTO 'file:///tmp/x/' FROM cpu FILE_FORMAT = (TYPE = 'CSV')",
    status: 422,
    code: '010047',
    message: /^object store error: local locations need storage\.external_dir/,
  },
  {
    name: 'CREATE STREAM s AS',
    sql: 'CREATE STREAM s AS INSERT INTO t SELECT * FROM cpu',
    status: 422,
    code: '010005',
    message: /^This feature is not implemented: CREATE STREAM statements$/,
  },
  {
    name: 'SHOW REPLICAS',
    sql: 'SHOW REPLICAS',
    status: 422,
    code: '010005',
    message: /^This feature is not implemented: SHOW REPLICAS$/,
  },
  {
    name: 'a cluster command',
    sql: 'MOVE VNODE 1 TO NODE 2',
    status: 422,
    code: '010005',
    message: /MOVE VNODE statements/,
  },
  {
    name: 'a bad chunked value',
    sql: 'SELECT 1',
    query: 'chunked=maybe',
    status: 400,
    code: '040001',
    message: /chunked/,
  },
  {
    name: 'an unacceptable Accept',
    sql: 'SELECT 1',
    headers: { accept: 'application/xml' },
    status: 400,
    code: '040005',
  },
  {
    name: 'an unknown tenant',
    sql: 'SELECT 1',
    query: 'tenant=nope',
    status: 422,
    code: '030010',
    message: /The tenant nope not found/,
  },
  {
    name: 'an unknown Content-Encoding',
    sql: 'SELECT 1',
    headers: { 'content-encoding': 'lz77' },
    status: 400,
    code: '040005',
  },
];

describe('POST /api/v1/sql', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ inProcess: true });
    expect((await writeLp(s.url, DATA)).status).toBe(200);
  });
  afterAll(async () => {
    await s.stop();
    s.cleanup();
  });

  for (const c of cases) {
    it(c.name, async () => {
      const r = await sql(s, c.sql, c.query, c.headers);
      expect(r.status, r.text).toBe(c.status);
      if (c.status === 200) {
        expect(r.text).toBe(c.body);
        expect(r.headers['content-length']).toBe(String(r.body.length));
        expect(r.headers['content-type']).toBe(c.headers?.accept ?? 'text/csv');
      } else {
        expect(r.headers['content-type']).toBe('application/json');
        const e = JSON.parse(r.text) as { error_code: string; error_message: string };
        if (c.code !== undefined) expect(e.error_code).toBe(c.code);
        if (c.message !== undefined) expect(e.error_message).toMatch(c.message);
        expect(r.headers['x-sundial-error-code']).toBe(e.error_code);
      }
    });
  }

  it('stores INSERT ... VALUES and answers the row count', async () => {
    const r = await sql(
      s,
      "INSERT INTO cpu (time, host, region, usage) VALUES ('2023-11-14T22:15:20Z', 'c', 'ap', 1.5), ('2023-11-14T22:16:20Z', 'c', 'ap', 2.0)",
    );
    expect(r.status, r.text).toBe(200);
    expect(r.text).toBe('rows\n2\n');
    const back = await sql(s, "SELECT time, usage FROM cpu WHERE host = 'c' ORDER BY time");
    expect(back.text).toBe('time,usage\n2023-11-14T22:15:20.000000000,1.5\n2023-11-14T22:16:20.000000000,2.0\n');
  });

  it('stores nothing of an INSERT whose last row does not fit', async () => {
    const r = await sql(s, "INSERT INTO cpu (time, host, usage) VALUES (1, 'd', '1.0'), (2, 'd', 'x')");
    expect(r.status).toBe(422);
    expect(JSON.parse(r.text).error_message).toBe("Arrow: Cast error: Cannot cast string 'x' to value of Float64 type");
    expect((await sql(s, "SELECT count(*) FROM cpu WHERE host = 'd'")).text).toBe('COUNT(UInt8(1))\n0\n');
  });

  it('answers INSERT ... SELECT', async () => {
    const r = await sql(
      s,
      "INSERT INTO cpu (time, host, usage) SELECT time + INTERVAL '1 day', 'e', usage * 2 FROM cpu WHERE host = 'a'",
    );
    expect(r.text).toBe('rows\n2\n');
    expect((await sql(s, "SELECT usage FROM cpu WHERE host = 'e' ORDER BY time")).text).toBe('usage\n25.0\n27.0\n');
  });

  it('explains a query: logical and physical plans', async () => {
    const r = await sql(s, "EXPLAIN SELECT host FROM cpu WHERE host = 'a' LIMIT 1");
    expect(r.status).toBe(200);
    expect(r.text).toContain(
      'logical_plan,"Limit: skip=0, fetch=1\n  TableScan: cpu projection=[host], full_filters=[cpu.host = Utf8(""a"")], fetch=1"',
    );
    expect(r.text).toContain('physical_plan,"LimitExec');
  });

  it('creates, alters, describes and drops a database', async () => {
    const ok = async (q: string, body = ''): Promise<void> => {
      const r = await sql(s, q);
      expect(r.status, `${q}: ${r.text}`).toBe(200);
      expect(r.text).toBe(body);
    };
    await ok("CREATE DATABASE other WITH TTL '10d' SHARD 2 VNODE_DURATION '1d' PRECISION 'MS'");
    await ok(
      'DESCRIBE DATABASE other',
      'ttl,shard,vnode_duration,replica,precision,max_memcache_size,memcache_partitions,wal_max_file_size,wal_sync,strict_write,max_cache_readers\n10days,2,1day,1,MS,128 MiB,16,128 MiB,false,false,32\n',
    );
    await ok("ALTER DATABASE other SET TTL '20d'");
    await ok(
      'DESCRIBE DATABASE other',
      'ttl,shard,vnode_duration,replica,precision,max_memcache_size,memcache_partitions,wal_max_file_size,wal_sync,strict_write,max_cache_readers\n20days,2,1day,1,MS,128 MiB,16,128 MiB,false,false,32\n',
    );
    await ok('SHOW DATABASES', 'database_name\ncluster_schema\nother\npublic\nusage_schema\n');
    const r = await sql(s, "ALTER DATABASE other SET PRECISION 'NS'");
    expect(r.status).toBe(422);
    expect(JSON.parse(r.text).error_message).toBe(
      'sql parser error: database config is unmodifiable, only can modify database option: TTL, SHARD, VNODE_DURATION, REPLICA at Line: 1, Column 26',
    );
    await ok('DROP DATABASE other');
    await ok('SHOW DATABASES', 'database_name\ncluster_schema\npublic\nusage_schema\n');
    const gone = await sql(s, 'DROP DATABASE other');
    expect(gone.status).toBe(422);
    expect(JSON.parse(gone.text)).toEqual({ error_code: '030017', error_message: 'Meta: Database not found: "other"' });
  });

  it('creates a table, changes its columns, writes, deletes and drops it', async () => {
    const ok = async (q: string, body = ''): Promise<void> => {
      const r = await sql(s, q);
      expect(r.status, `${q}: ${r.text}`).toBe(200);
      expect(r.text).toBe(body);
    };
    await ok('CREATE TABLE t (v BIGINT CODEC(DELTA), note STRING, TAGS(h))');
    await ok(
      "INSERT INTO t (time, h, v, note) VALUES (1, 'a', 10, 'x'), (2, 'b', 20, 'y'), (3, 'a', 30, NULL)",
      'rows\n3\n',
    );
    await ok('ALTER TABLE t ADD FIELD d DOUBLE CODEC(GORILLA)');
    await ok('ALTER TABLE t ADD TAG r');
    await ok('ALTER TABLE t RENAME COLUMN note TO label');
    await ok('ALTER TABLE t ALTER v SET CODEC(QUANTILE)');
    await ok('ALTER TABLE t DROP d');
    await ok(
      'DESCRIBE TABLE t',
      'column_name,data_type,column_type,compression_codec\ntime,TIMESTAMP(NANOSECOND),TIME,DEFAULT\nh,STRING,TAG,DEFAULT\nv,BIGINT,FIELD,QUANTILE\nlabel,STRING,FIELD,DEFAULT\nr,STRING,TAG,DEFAULT\n',
    );
    await ok("INSERT INTO t (time, h, r, v) VALUES (4, 'b', 'eu', 40)", 'rows\n1\n');
    await ok(
      'SELECT * FROM t ORDER BY time',
      'time,h,v,label,r\n1970-01-01T00:00:00.000000001,a,10,x,\n1970-01-01T00:00:00.000000002,b,20,y,\n1970-01-01T00:00:00.000000003,a,30,,\n1970-01-01T00:00:00.000000004,b,40,,eu\n',
    );
    await ok("DELETE FROM t WHERE h = 'a' AND time < 3");
    await ok(
      'SELECT time, h, v FROM t ORDER BY time',
      'time,h,v\n1970-01-01T00:00:00.000000002,b,20\n1970-01-01T00:00:00.000000003,a,30\n1970-01-01T00:00:00.000000004,b,40\n',
    );
    await ok('DROP TABLE t');
    const gone = await sql(s, 'SELECT * FROM t');
    expect(gone.status).toBe(422);
    expect(JSON.parse(gone.text).error_code).toBe('030019');
  });

  it('keeps schema changes across a restart', async () => {
    const own = await startServer({ inProcess: true });
    try {
      expect((await sql(own, 'CREATE DATABASE kept')).status).toBe(200);
      expect((await sql(own, 'CREATE TABLE kept.t (v DOUBLE, TAGS(h))')).status).toBe(200);
      expect((await sql(own, "INSERT INTO kept.t (time, h, v) VALUES (1, 'a', 1.5)")).status).toBe(200);
      await own.stop();
      const again = await startServer({ inProcess: true, dataDir: own.dataDir });
      try {
        const r = await sql(again, 'SELECT h, v FROM kept.t');
        expect(r.text).toBe('h,v\na,1.5\n');
      } finally {
        await again.stop();
      }
    } finally {
      own.cleanup();
    }
  });

  it('streams with chunked=true: same bytes, Transfer-Encoding chunked, no Content-Length', async () => {
    const plain = await sql(s, 'SELECT host, usage FROM cpu ORDER BY time, host');
    const r = await sql(s, 'SELECT host, usage FROM cpu ORDER BY time, host', 'chunked=true');
    expect(r.status).toBe(200);
    expect(r.headers['transfer-encoding']).toBe('chunked');
    expect(r.headers['content-length']).toBeUndefined();
    expect(r.text).toBe(plain.text);
  });

  it('ends a stream with the error object when a later batch fails', async () => {
    // Each series is its own batch: the first takes the remainder fine, the second by zero (a
    // zero divisor column divides to NULL, as in DataFusion 27, but % by zero fails).
    expect((await writeLp(s.url, 'div,k=1 d=3i 1\ndiv,k=2 d=0i 1')).status).toBe(200);
    const r = await sql(s, 'SELECT k, 10 % d AS q FROM div', 'chunked=true');
    expect(r.status).toBe(200);
    expect(r.text).toBe('k,q\n1,1\n{"error_code":"010001","error_message":"Arrow error: Divide by zero error"}\n');
    const whole = await sql(s, 'SELECT k, 10 % d AS q FROM div');
    expect(whole.status).toBe(422);
  });

  it('reports an error before the first byte with its status, also when chunked', async () => {
    const r = await sql(s, "SELECT 10 % d FROM div WHERE k = '2'", 'chunked=true');
    expect(r.status).toBe(422);
    expect(JSON.parse(r.text).error_code).toBe('010001');
  });

  it('compresses when asked, chunked or not', async () => {
    for (const q of ['', 'chunked=true']) {
      const r = await sql(s, 'SELECT host, usage FROM cpu ORDER BY time, host', q, { 'accept-encoding': 'gzip' });
      expect(r.status).toBe(200);
      expect(r.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(r.body).toString()).toMatch(/^host,usage\na,12.5\n/);
    }
  });

  it('takes a gzip-compressed SQL body', async () => {
    const { gzipSync } = await import('node:zlib');
    const r = await http(s.url, '/api/v1/sql', {
      method: 'POST',
      body: gzipSync('SELECT 7'),
      headers: { 'content-encoding': 'gzip' },
    });
    expect(r.text).toBe('Int64(7)\n7\n');
  });

  it('needs credentials', async () => {
    const r = await http(s.url, '/api/v1/sql', { method: 'POST', body: 'SELECT 1', auth: null });
    expect(r.status).toBe(401);
  });

  it('answers 405 to GET', async () => {
    const r = await http(s.url, '/api/v1/sql', { method: 'GET' });
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe('POST');
  });
});

describe('POST /api/v1/sql limits', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({
      inProcess: true,
      args: [
        '--sql-body-bytes',
        '64',
        '--query-timeout',
        '300ms',
        '--query-memory-bytes',
        '50000',
        '--max-concurrent-queries',
        '1',
      ],
    });
    const lines: string[] = [];
    for (let i = 0; i < 2000; i++) lines.push(`big,h=h${i % 10} v=${i}i ${i}`);
    expect((await writeLp(s.url, lines.join('\n'))).status).toBe(200);
  });
  afterAll(async () => {
    await s.stop();
    s.cleanup();
  });

  it('rejects a body over the SQL limit with 413', async () => {
    const r = await sql(s, `SELECT ${'1 + '.repeat(40)}1`);
    expect(r.status).toBe(413);
    expect(JSON.parse(r.text).error_code).toBe('040014');
  });

  it('stops a query past the timeout with 500 010010', async () => {
    const r = await sql(s, 'SELECT count(*) FROM big a JOIN big b ON true JOIN big c ON true');
    expect(r.status).toBe(500);
    expect(JSON.parse(r.text)).toEqual({ error_code: '010010', error_message: 'query timeout' });
  });

  it('fails a query over the memory limit with 422 010011', async () => {
    const r = await sql(s, 'SELECT * FROM big ORDER BY v');
    expect(r.status).toBe(422);
    const e = JSON.parse(r.text);
    expect(e.error_code).toBe('010011');
    expect(e.error_message).toMatch(/^query memory limit exceeded: ORDER BY needs \d+ bytes, the limit is 50000 bytes/);
  });

  it('holds the build side of a cross join within the memory limit', async () => {
    const r = await sql(s, 'SELECT a.v, b.v, b.h, b.time FROM big a CROSS JOIN big b');
    expect(r.status).toBe(422);
    const e = JSON.parse(r.text);
    expect(e.error_code).toBe('010011');
    expect(e.error_message).toMatch(
      /^query memory limit exceeded: join build side needs \d+ bytes, the limit is 50000 bytes/,
    );
  });
});

describe('POST /api/v1/sql when the client goes away', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ inProcess: true, args: ['--max-concurrent-queries', '1'] });
    const lines: string[] = [];
    for (let i = 0; i < 2000; i++) lines.push(`big,h=h${i % 10} v=${i}i ${i}`);
    expect((await writeLp(s.url, lines.join('\n'))).status).toBe(200);
  });
  afterAll(async () => {
    await s.stop();
    s.cleanup();
  });

  it('answers 429 while the only query slot is taken', async () => {
    const { request } = await import('node:http');
    const url = new URL('/api/v1/sql?chunked=true', s.url);
    const auth = 'Basic ' + Buffer.from('root:').toString('base64');
    // A streaming query whose response is never read holds the slot (4 M rows: it stalls on the
    // socket's backpressure; the limits server's 300 ms query timeout would free it first).
    const held = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: { authorization: auth } }, resolve);
      req.on('error', reject);
      req.end('SELECT a.v, b.v FROM big a JOIN big b ON true');
    });
    held.pause();
    try {
      const r = await sql(s, 'SELECT 1');
      expect(r.status).toBe(429);
      expect(r.headers['retry-after']).toBe('1');
      expect(JSON.parse(r.text).error_code).toBe('030024');
    } finally {
      held.destroy();
    }
    // The slot is free again once the held response is gone.
    for (let i = 0; i < 50; i++) {
      const r = await sql(s, 'SELECT 1');
      if (r.status === 200) return;
      await new Promise((done) => setTimeout(done, 20));
    }
    throw new Error('the query slot was not released');
  });

  it('stops the query of a closed connection and frees its slot', async () => {
    const { request } = await import('node:http');
    const auth = 'Basic ' + Buffer.from('root:').toString('base64');
    // 8e9 joined rows: far longer than this test, unless the disconnect stops it.
    const req = request(new URL('/api/v1/sql', s.url), { method: 'POST', headers: { authorization: auth } });
    req.on('error', () => {});
    req.end('SELECT count(*) FROM big a JOIN big b ON true JOIN big c ON true');
    let busy = false;
    for (let i = 0; i < 100 && !busy; i++) {
      busy = (await sql(s, 'SELECT 1')).status === 429;
      if (!busy) await new Promise((done) => setTimeout(done, 10));
    }
    expect(busy).toBe(true);
    req.destroy();
    for (let i = 0; i < 100; i++) {
      const r = await sql(s, 'SELECT 1');
      if (r.status === 200) return;
      expect(r.status).toBe(429);
      await new Promise((done) => setTimeout(done, 20));
    }
    throw new Error('the query of the closed connection kept its slot');
  });
});
