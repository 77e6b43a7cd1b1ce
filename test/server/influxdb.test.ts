// InfluxDB's routes over raw HTTP against a real server: /ping, /write, /api/v2/write and /query,
// every case checked by its exact status and body, and what it stored (or did not) read back
// through /api/v1/sql. Bad input on every route: malformed bodies, wrong content types, missing
// and wrong credentials, another tenant's database, an unknown database.

import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, http, type HttpOptions } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;

async function sql(statement: string, db = 'idb', tenant = 'cnosdb'): Promise<string> {
  const r = await http(server.url, `/api/v1/sql?db=${db}&tenant=${tenant}`, { body: statement });
  return `${r.status} ${r.text}`;
}

/** The rows of `table` as CSV (`time,...` header first), or the SQL error when it does not exist. */
async function stored(table: string, db = 'idb', tenant = 'cnosdb'): Promise<string> {
  return sql(`SELECT * FROM "${table}" ORDER BY time`, db, tenant);
}

const NO_TABLE = (table: string, db = 'idb', tenant = 'cnosdb'): RegExp =>
  new RegExp(`^422 .*Table not found: \\\\"${tenant}\\.${db}\\.${table}\\\\"`);

beforeAll(async () => {
  server = await startServer({ inProcess: true });
  for (const s of [
    'CREATE DATABASE idb',
    'CREATE TENANT other',
    "CREATE USER alice WITH PASSWORD = 'secret'",
    'ALTER TENANT other ADD USER alice AS owner',
    "CREATE USER reader WITH PASSWORD = 'pw'",
    'ALTER TENANT cnosdb ADD USER reader AS member',
  ]) {
    expect(await sql(s, 'public')).toBe('200 ');
  }
  expect(await sql('CREATE DATABASE odb', 'public', 'other')).toBe('200 ');
}, 60_000);

afterAll(async () => {
  await server?.stop();
  server?.cleanup();
});

describe('GET|HEAD /ping', () => {
  it('answers 204 with the InfluxDB version headers, without credentials', async () => {
    for (const method of ['GET', 'HEAD']) {
      const r = await http(server.url, '/ping', { method, auth: null });
      expect([r.status, r.text, r.headers['x-influxdb-version'], r.headers['x-influxdb-build']]).toEqual([
        204,
        '',
        '1.8.10',
        'OSS',
      ]);
    }
  });

  it('answers 200 with the version as JSON when verbose', async () => {
    const r = await http(server.url, '/ping?verbose=true', { auth: null });
    expect([r.status, r.headers['content-type'], r.text]).toEqual([200, 'application/json', '{"version":"1.8.10"}']);
  });

  it('refuses POST with 405 and Allow', async () => {
    const r = await http(server.url, '/ping', { method: 'POST', auth: null });
    expect([r.status, r.headers.allow]).toEqual([405, 'GET, HEAD']);
  });
});

interface WriteCase {
  name: string;
  path: string;
  body: string | Uint8Array;
  options?: HttpOptions;
  status: number;
  /** The exact JSON error body (a RegExp where it quotes a parser's detail). */
  error?: string | RegExp;
  /** The table the case writes or must not have created, and the expected /api/v1/sql answer. */
  table: string;
  db?: string;
  tenant?: string;
  rows?: string;
}

const u = (extra = ''): string => `u=root&p=${extra}`;

const writeCases: WriteCase[] = [
  {
    name: 'precision=n with u and p (node influx, python influxdb)',
    path: `/write?db=idb&precision=n&${u()}`,
    body: 'w01,host=a value=1.5,n=3i,s="x",b=true 1700000000123456789\nw01,host=b value=2.5 1700000000000000000',
    options: { auth: null },
    status: 204,
    table: 'w01',
    rows: '200 time,host,b,n,s,value\n2023-11-14T22:13:20.000000000,b,,,,2.5\n2023-11-14T22:13:20.123456789,a,true,3,x,1.5\n',
  },
  {
    name: 'Basic credentials, precision=s, rp ignored',
    path: '/write?db=idb&rp=autogen&precision=s',
    body: 'w02 v=1i 1700000000',
    status: 204,
    table: 'w02',
    rows: '200 time,v\n2023-11-14T22:13:20.000000000,1\n',
  },
  {
    name: 'Token user:password, precision=ms',
    path: '/write?db=idb&precision=ms',
    body: 'w03 v=1 1700000000123',
    options: { auth: null, headers: { authorization: 'Token root:' } },
    status: 204,
    table: 'w03',
    rows: '200 time,v\n2023-11-14T22:13:20.123000000,1.0\n',
  },
  {
    name: 'precision=h',
    path: '/write?db=idb&precision=h',
    body: 'w04 v=1 472222',
    status: 204,
    table: 'w04',
    rows: '200 time,v\n2023-11-14T22:00:00.000000000,1.0\n',
  },
  {
    name: 'precision=m',
    path: '/write?db=idb&precision=m',
    body: 'w05 v=1 28333333',
    status: 204,
    table: 'w05',
    rows: '200 time,v\n2023-11-14T22:13:00.000000000,1.0\n',
  },
  {
    name: 'precision=u',
    path: '/write?db=idb&precision=u',
    body: 'w06 v=1 1700000000123456',
    status: 204,
    table: 'w06',
    rows: '200 time,v\n2023-11-14T22:13:20.123456000,1.0\n',
  },
  {
    name: 'a gzip body',
    path: '/write?db=idb&precision=s',
    body: gzipSync('w07 v=7 1700000000'),
    options: { headers: { 'content-encoding': 'gzip' } },
    status: 204,
    table: 'w07',
    rows: '200 time,v\n2023-11-14T22:13:20.000000000,7.0\n',
  },
  {
    name: 'no db',
    path: '/write?precision=s',
    body: 'w08 v=1 1',
    status: 400,
    error: '{"error":"database is required"}',
    table: 'w08',
  },
  {
    name: 'an unknown database',
    path: '/write?db=nodb',
    body: 'w09 v=1 1',
    status: 404,
    error: '{"error":"database not found: \\"nodb\\""}',
    table: 'w09',
  },
  {
    name: 'a malformed line rejects the whole body',
    path: '/write?db=idb',
    body: 'w10 v=1 1\nw10 v= 2',
    status: 400,
    error: /^\{"error":"unable to parse 'w10 v= 2': line 2, column 7: .*"\}$/,
    table: 'w10',
  },
  {
    name: 'JSON sent as line protocol',
    path: '/write?db=idb',
    body: '{"measurement":"w11","value":1}',
    options: { headers: { 'content-type': 'application/json' } },
    status: 400,
    error: /^\{"error":"unable to parse '\{\\"measurement\\":\\"w11\\",\\"value\\":1\}': line 1, /,
    table: 'w11',
  },
  {
    name: 'a corrupt gzip body',
    path: '/write?db=idb',
    body: Buffer.from('not gzip'),
    options: { headers: { 'content-encoding': 'gzip' } },
    status: 400,
    error: /^\{"error":"cannot decode gzip request body: /,
    table: 'w12',
  },
  {
    name: 'an unknown precision',
    path: '/write?db=idb&precision=d',
    body: 'w13 v=1 1',
    status: 400,
    error: `{"error":"invalid precision 'd': want ns (or n), us (or u), ms, s, m or h"}`,
    table: 'w13',
  },
  {
    name: 'no credentials',
    path: '/write?db=idb',
    body: 'w14 v=1 1',
    options: { auth: null },
    status: 401,
    error:
      '{"error":"unable to parse authentication credentials (missing Authorization header (want Basic credentials))"}',
    table: 'w14',
  },
  {
    name: 'a wrong password in p',
    path: '/write?db=idb&u=root&p=wrong',
    body: 'w15 v=1 1',
    options: { auth: null },
    status: 401,
    error: `{"error":"authorization failed: Access denied for user 'root': username or password invalid"}`,
    table: 'w15',
  },
  {
    name: 'a Token without a colon',
    path: '/write?db=idb',
    body: 'w16 v=1 1',
    options: { auth: null, headers: { authorization: 'Token abc' } },
    status: 401,
    error: '{"error":"unable to parse authentication credentials: want Token user:password"}',
    table: 'w16',
  },
  {
    name: "another tenant's database",
    path: '/write?db=idb&u=alice&p=secret',
    body: 'w17 v=1 1',
    options: { auth: null },
    status: 404,
    error: '{"error":"The tenant cnosdb not found"}',
    table: 'w17',
  },
  {
    name: 'a member without Write',
    path: '/write?db=idb&u=reader&p=pw',
    body: 'w18 v=1 1',
    options: { auth: null },
    status: 403,
    error: '{"error":"Insufficient privileges, expected [Write on database idb of tenant cnosdb]"}',
    table: 'w18',
  },
  {
    name: "its own tenant's database",
    path: '/write?db=odb&tenant=other&precision=s',
    body: 'w19 v=1 1700000000',
    options: { auth: null, headers: { authorization: basic('alice', 'secret') } },
    status: 204,
    table: 'w19',
    db: 'odb',
    tenant: 'other',
    rows: '200 time,v\n2023-11-14T22:13:20.000000000,1.0\n',
  },
  {
    name: 'a type conflict within the body',
    path: '/write?db=idb',
    body: 'w20 v=1i 1\nw20 v=1.5 2',
    status: 400,
    error: /^\{"error":".*column 'v' of table 'w20'.*"\}$/,
    table: 'w20',
  },
  // v2
  {
    name: 'v2: bucket and org, Token credentials',
    path: '/api/v2/write?org=cnosdb&bucket=idb&precision=s',
    body: 'w21,t=x v=2 1700000000',
    options: { auth: null, headers: { authorization: 'Token root:' } },
    status: 204,
    table: 'w21',
    rows: '200 time,t,v\n2023-11-14T22:13:20.000000000,x,2.0\n',
  },
  {
    name: 'v2: a db/rp bucket takes the db part, default precision ns',
    path: '/api/v2/write?bucket=idb/autogen',
    body: 'w22 v=3 1700000000000000001',
    status: 204,
    table: 'w22',
    rows: '200 time,v\n2023-11-14T22:13:20.000000001,3.0\n',
  },
  {
    name: 'v2: org names the tenant',
    path: '/api/v2/write?org=other&bucket=odb&precision=s',
    body: 'w23 v=1 1700000000',
    options: { auth: null, headers: { authorization: 'Token alice:secret' } },
    status: 204,
    table: 'w23',
    db: 'odb',
    tenant: 'other',
    rows: '200 time,v\n2023-11-14T22:13:20.000000000,1.0\n',
  },
  {
    name: 'v2: no bucket',
    path: '/api/v2/write?org=cnosdb',
    body: 'w24 v=1 1',
    status: 400,
    error: '{"code":"invalid","message":"bucket is required"}',
    table: 'w24',
  },
  {
    name: 'v2: an unknown bucket',
    path: '/api/v2/write?bucket=nodb',
    body: 'w25 v=1 1',
    status: 404,
    error: '{"code":"not found","message":"bucket \\"nodb\\" not found"}',
    table: 'w25',
  },
  {
    name: 'v2: a malformed line',
    path: '/api/v2/write?bucket=idb',
    body: 'w26 v=x 1',
    status: 400,
    error: /^\{"code":"invalid","message":"unable to parse 'w26 v=x 1': line 1, column 7: /,
    table: 'w26',
  },
  {
    name: 'v2: no credentials',
    path: '/api/v2/write?bucket=idb',
    body: 'w27 v=1 1',
    options: { auth: null },
    status: 401,
    error:
      '{"code":"unauthorized","message":"unable to parse authentication credentials (missing Authorization header (want Basic credentials))"}',
    table: 'w27',
  },
  {
    name: 'v2: a wrong token',
    path: '/api/v2/write?bucket=idb',
    body: 'w28 v=1 1',
    options: { auth: null, headers: { authorization: 'Token root:nope' } },
    status: 401,
    error: `{"code":"unauthorized","message":"authorization failed: Access denied for user 'root': username or password invalid"}`,
    table: 'w28',
  },
  {
    name: "v2: another tenant's bucket",
    path: '/api/v2/write?org=cnosdb&bucket=idb',
    body: 'w29 v=1 1',
    options: { auth: null, headers: { authorization: 'Token alice:secret' } },
    status: 404,
    error: '{"code":"not found","message":"The tenant cnosdb not found"}',
    table: 'w29',
  },
  {
    name: 'v2: an unknown Content-Encoding',
    path: '/api/v2/write?bucket=idb',
    body: 'w30 v=1 1',
    options: { headers: { 'content-encoding': 'lz4' } },
    status: 400,
    error: `{"code":"invalid","message":"Content-Encoding 'lz4' is not supported; use one of gzip, deflate, br, zstd, identity"}`,
    table: 'w30',
  },
];

describe('POST /write and /api/v2/write', () => {
  for (const c of writeCases) {
    it(`${c.status === 204 ? 'stores' : 'refuses'} ${c.name}`, async () => {
      const r = await http(server.url, c.path, { ...c.options, method: 'POST', body: c.body });
      expect(r.status, r.text).toBe(c.status);
      expect(r.headers['x-influxdb-version']).toBe('1.8.10');
      if (c.status === 204) {
        expect(r.text).toBe('');
        expect(await stored(c.table, c.db, c.tenant)).toBe(c.rows);
      } else {
        expect(r.headers['content-type']).toBe('application/json');
        if (typeof c.error === 'string') expect(r.text).toBe(c.error);
        else expect(r.text).toMatch(c.error!);
        expect(r.headers['x-influxdb-error']).toBeDefined();
        expect(await stored(c.table, c.db, c.tenant)).toMatch(NO_TABLE(c.table, c.db, c.tenant));
      }
    });
  }

  it('refuses a body over the limit with 413 and stores nothing', async () => {
    const small = await startServer({ inProcess: true, args: ['--write-body-bytes', '1000'] });
    try {
      expect((await http(small.url, '/api/v1/sql', { body: 'CREATE DATABASE idb' })).status).toBe(200);
      const body = 'big v=1 1\n'.repeat(200);
      for (const [path, error] of [
        ['/write?db=idb', '{"error":"request body of 2000 bytes exceeds the limit of 1000 bytes"}'],
        [
          '/api/v2/write?bucket=idb',
          '{"code":"request too large","message":"request body of 2000 bytes exceeds the limit of 1000 bytes"}',
        ],
      ] as const) {
        const r = await http(small.url, path, { body });
        expect([r.status, r.text]).toEqual([413, error]);
      }
      expect((await http(small.url, '/api/v1/sql?db=idb', { body: 'SELECT * FROM big' })).status).toBe(422);
    } finally {
      await small.stop();
      small.cleanup();
    }
  }, 60_000);
});

/** GET /query with `q` and other parameters; the answer's status and text. */
async function query(
  q: string,
  params: Record<string, string> = {},
  options: HttpOptions = {},
): Promise<[number, string]> {
  const search = new URLSearchParams({ db: 'iq', ...params, q });
  const r = await http(server.url, `/query?${search.toString()}`, options);
  return [r.status, r.text];
}

describe('GET|POST /query', () => {
  beforeAll(async () => {
    expect(await sql('CREATE DATABASE iq', 'public')).toBe('200 ');
    const lines = [
      'cpu,host=a,region=eu value=1.5,n=3i,s="x",b=true 1700000000',
      'cpu,host=b,region=us value=2.5,n=4i 1700000010',
      'cpu,host=a,region=eu value=3.5 1700000020',
      'mem,host=a used=10i 1700000000',
    ];
    const r = await http(server.url, '/write?db=iq&precision=s', { body: lines.join('\n') });
    expect(r.status).toBe(204);
    expect(await sql('SELECT count(*) FROM cpu', 'iq')).toBe('200 COUNT(UInt8(1))\n3\n');
  });

  const R = (body: string): string => `{"results":[${body}]}\n`;
  const cases: Array<[string, string, Record<string, string>, string]> = [
    [
      'SHOW DATABASES',
      'SHOW DATABASES',
      {},
      R(
        '{"statement_id":0,"series":[{"name":"databases","columns":["name"],"values":[["cluster_schema"],["idb"],["iq"],["public"],["usage_schema"]]}]}',
      ),
    ],
    [
      'SHOW MEASUREMENTS with a regex and LIMIT',
      'SHOW MEASUREMENTS WITH MEASUREMENT =~ /^c/ LIMIT 1',
      {},
      R('{"statement_id":0,"series":[{"name":"measurements","columns":["name"],"values":[["cpu"]]}]}'),
    ],
    [
      'SHOW TAG KEYS',
      'SHOW TAG KEYS',
      {},
      R(
        '{"statement_id":0,"series":[{"name":"cpu","columns":["tagKey"],"values":[["host"],["region"]]},{"name":"mem","columns":["tagKey"],"values":[["host"]]}]}',
      ),
    ],
    [
      'SHOW TAG VALUES WITH KEY IN',
      'SHOW TAG VALUES FROM cpu WITH KEY IN ("host", "region") WHERE region = \'eu\'',
      {},
      R(
        '{"statement_id":0,"series":[{"name":"cpu","columns":["key","value"],"values":[["host","a"],["region","eu"]]}]}',
      ),
    ],
    [
      'SHOW FIELD KEYS with their InfluxDB types',
      'SHOW FIELD KEYS',
      {},
      R(
        '{"statement_id":0,"series":[{"name":"cpu","columns":["fieldKey","fieldType"],"values":[["b","boolean"],["n","integer"],["s","string"],["value","float"]]},{"name":"mem","columns":["fieldKey","fieldType"],"values":[["used","integer"]]}]}',
      ),
    ],
    [
      'SHOW RETENTION POLICIES',
      'SHOW RETENTION POLICIES ON iq',
      {},
      R(
        '{"statement_id":0,"series":[{"columns":["name","duration","shardGroupDuration","replicaN","default"],"values":[["autogen","0s","168h0m0s",1,true]]}]}',
      ),
    ],
    [
      'SHOW SERIES',
      'SHOW SERIES',
      {},
      R(
        '{"statement_id":0,"series":[{"columns":["key"],"values":[["cpu,host=a,region=eu"],["cpu,host=b,region=us"],["mem,host=a"]]}]}',
      ),
    ],
    [
      'SHOW USERS',
      'SHOW USERS',
      {},
      R(
        '{"statement_id":0,"series":[{"columns":["user","admin"],"values":[["alice",false],["reader",false],["root",true]]}]}',
      ),
    ],
    [
      'SELECT * with epoch=ms',
      'SELECT * FROM cpu',
      { epoch: 'ms' },
      R(
        '{"statement_id":0,"series":[{"name":"cpu","columns":["time","b","host","n","region","s","value"],"values":[[1700000000000,true,"a",3,"eu","x",1.5],[1700000010000,null,"b",4,"us",null,2.5],[1700000020000,null,"a",null,"eu",null,3.5]]}]}',
      ),
    ],
    [
      'SELECT * GROUP BY a tag',
      "SELECT * FROM cpu WHERE time > '2023-11-14T22:13:20Z' GROUP BY host",
      {},
      R(
        '{"statement_id":0,"series":[{"name":"cpu","tags":{"host":"a"},"columns":["time","b","n","region","s","value"],"values":[["2023-11-14T22:13:40Z",null,null,"eu",null,3.5]]},{"name":"cpu","tags":{"host":"b"},"columns":["time","b","n","region","s","value"],"values":[["2023-11-14T22:13:30Z",null,4,"us",null,2.5]]}]}',
      ),
    ],
    [
      'an aggregate has the range start as its time',
      'SELECT mean(value), count(value), spread(value) FROM cpu WHERE time > 1700000000s',
      {},
      R(
        '{"statement_id":0,"series":[{"name":"cpu","columns":["time","mean","count","spread"],"values":[["2023-11-14T22:13:20.000000001Z",3,2,1]]}]}',
      ),
    ],
    [
      'a lone selector has its point',
      'SELECT max(value), host FROM cpu',
      {},
      R(
        '{"statement_id":0,"series":[{"name":"cpu","columns":["time","max","host"],"values":[["2023-11-14T22:13:40Z",3.5,"a"]]}]}',
      ),
    ],
    [
      'last() per series',
      'SELECT last(value) FROM cpu GROUP BY host',
      {},
      R(
        '{"statement_id":0,"series":[{"name":"cpu","tags":{"host":"a"},"columns":["time","last"],"values":[["2023-11-14T22:13:40Z",3.5]]},{"name":"cpu","tags":{"host":"b"},"columns":["time","last"],"values":[["2023-11-14T22:13:30Z",2.5]]}]}',
      ),
    ],
    [
      'GROUP BY time fill(null): count shows 0',
      'SELECT mean(value), count(value) FROM cpu WHERE time >= 1700000000000ms AND time <= 1700000040000ms GROUP BY time(20s)',
      {},
      R(
        '{"statement_id":0,"series":[{"name":"cpu","columns":["time","mean","count"],"values":[["2023-11-14T22:13:20Z",2,2],["2023-11-14T22:13:40Z",3.5,1],["2023-11-14T22:14:00Z",null,0]]}]}',
      ),
    ],
    [
      'GROUP BY time with an offset, fill(none)',
      'SELECT mean(value) FROM cpu WHERE time >= 1700000000s AND time < 1700000040s GROUP BY time(15s, 5s) fill(none)',
      {},
      R(
        '{"statement_id":0,"series":[{"name":"cpu","columns":["time","mean"],"values":[["2023-11-14T22:13:20Z",2],["2023-11-14T22:13:35Z",3.5]]}]}',
      ),
    ],
    [
      'fill(previous) per tag',
      'SELECT mean(value) FROM cpu WHERE time >= 1700000000s AND time < 1700000030s GROUP BY time(10s), host fill(previous)',
      {},
      R(
        '{"statement_id":0,"series":[{"name":"cpu","tags":{"host":"a"},"columns":["time","mean"],"values":[["2023-11-14T22:13:20Z",1.5],["2023-11-14T22:13:30Z",1.5],["2023-11-14T22:13:40Z",3.5]]},{"name":"cpu","tags":{"host":"b"},"columns":["time","mean"],"values":[["2023-11-14T22:13:20Z",null],["2023-11-14T22:13:30Z",2.5],["2023-11-14T22:13:40Z",2.5]]}]}',
      ),
    ],
    [
      'fill(linear) and fill(0)',
      "SELECT max(value) FROM cpu WHERE host = 'a' AND time >= 1700000000s AND time < 1700000030s GROUP BY time(10s) fill(linear); SELECT sum(value) FROM cpu WHERE time >= 1700000000s AND time < 1700000040s GROUP BY time(20s) fill(0)",
      { epoch: 's' },
      R(
        '{"statement_id":0,"series":[{"name":"cpu","columns":["time","max"],"values":[[1700000000,1.5],[1700000010,2.5],[1700000020,3.5]]}]},{"statement_id":1,"series":[{"name":"cpu","columns":["time","sum"],"values":[[1700000000,4],[1700000020,3.5]]}]}',
      ),
    ],
    [
      'a bucket without values of the field is no row (fill(none))',
      'SELECT max(n) FROM cpu WHERE time >= 1700000000s AND time < 1700000030s GROUP BY time(10s), host fill(none)',
      {},
      R(
        '{"statement_id":0,"series":[{"name":"cpu","tags":{"host":"a"},"columns":["time","max"],"values":[["2023-11-14T22:13:20Z",3]]},{"name":"cpu","tags":{"host":"b"},"columns":["time","max"],"values":[["2023-11-14T22:13:30Z",4]]}]}',
      ),
    ],
    [
      'ORDER BY time DESC with LIMIT after the fill',
      'SELECT mean(value) FROM cpu WHERE time >= 1700000000s AND time < 1700000040s GROUP BY time(10s) ORDER BY time DESC LIMIT 2',
      {},
      R(
        '{"statement_id":0,"series":[{"name":"cpu","columns":["time","mean"],"values":[["2023-11-14T22:13:50Z",null],["2023-11-14T22:13:40Z",3.5]]}]}',
      ),
    ],
    [
      'tag regexes, !=, OR and math',
      'SELECT value * 2 + 1, value FROM "iq"."autogen"."cpu" WHERE host =~ /^a$/ OR region != \'eu\'',
      {},
      R(
        '{"statement_id":0,"series":[{"name":"cpu","columns":["time","value","value_1"],"values":[["2023-11-14T22:13:20Z",4,1.5],["2023-11-14T22:13:30Z",6,2.5],["2023-11-14T22:13:40Z",8,3.5]]}]}',
      ),
    ],
    [
      'derivative() of buckets, its unit the interval, the bucket before the range read',
      'SELECT derivative(mean(value)) FROM cpu WHERE time >= 1700000010s AND time < 1700000040s GROUP BY time(10s)',
      {},
      R(
        '{"statement_id":0,"series":[{"name":"cpu","columns":["time","derivative"],"values":[["2023-11-14T22:13:30Z",1],["2023-11-14T22:13:40Z",1]]}]}',
      ),
    ],
    [
      'an aggregate beside its non_negative_derivative',
      'SELECT mean(value), non_negative_derivative(mean(value), 1s) FROM cpu WHERE time >= 1700000000s AND time < 1700000040s GROUP BY time(10s)',
      {},
      R(
        '{"statement_id":0,"series":[{"name":"cpu","columns":["time","mean","non_negative_derivative"],"values":[["2023-11-14T22:13:20Z",1.5,null],["2023-11-14T22:13:30Z",2.5,0.1],["2023-11-14T22:13:40Z",3.5,0.1],["2023-11-14T22:13:50Z",null,null]]}]}',
      ),
    ],
    [
      'difference, cumulative_sum and moving_average of raw values',
      'SELECT difference(value), cumulative_sum(value) FROM cpu; SELECT moving_average(value, 2) FROM cpu',
      {},
      R(
        '{"statement_id":0,"series":[{"name":"cpu","columns":["time","difference","cumulative_sum"],"values":[["2023-11-14T22:13:20Z",null,1.5],["2023-11-14T22:13:30Z",1,4],["2023-11-14T22:13:40Z",1,7.5]]}]},{"statement_id":1,"series":[{"name":"cpu","columns":["time","moving_average"],"values":[["2023-11-14T22:13:30Z",2],["2023-11-14T22:13:40Z",3]]}]}',
      ),
    ],
    [
      'SLIMIT and SOFFSET',
      'SELECT value FROM cpu GROUP BY host SLIMIT 1 SOFFSET 1',
      {},
      R(
        '{"statement_id":0,"series":[{"name":"cpu","tags":{"host":"b"},"columns":["time","value"],"values":[["2023-11-14T22:13:30Z",2.5]]}]}',
      ),
    ],
    [
      'a regex measurement',
      'SELECT used FROM /^m/',
      {},
      R(
        '{"statement_id":0,"series":[{"name":"mem","columns":["time","used"],"values":[["2023-11-14T22:13:20Z",10]]}]}',
      ),
    ],
    [
      'an unknown measurement or field: no series',
      'SELECT value FROM nosuch; SELECT nosuch FROM cpu',
      {},
      R('{"statement_id":0},{"statement_id":1}'),
    ],
    [
      'a statement error stops the statements after it',
      'SELECT value FROM cpu GROUP BY time(10s); SHOW DATABASES',
      {},
      R('{"statement_id":0,"error":"GROUP BY requires at least one aggregate function"}'),
    ],
    [
      'an unknown database is a statement error',
      'SELECT * FROM cpu',
      { db: 'nodb' },
      R('{"statement_id":0,"error":"database not found: nodb"}'),
    ],
    ['no db', 'SHOW MEASUREMENTS', { db: '' }, R('{"statement_id":0,"error":"database name required"}')],
    [
      'an unsupported statement',
      "CREATE USER x WITH PASSWORD 'y'",
      {},
      R('{"statement_id":0,"error":"CREATE USER is not supported by Sundial"}'),
    ],
  ];
  for (const [name, q, params, body] of cases) {
    it(`answers ${name}`, async () => {
      expect(await query(q, params)).toEqual([200, body]);
    });
  }

  it('streams chunked answers, one JSON object per line, with partial flags', async () => {
    expect(await query('SELECT value FROM cpu GROUP BY host', { chunked: 'true', chunk_size: '1' })).toEqual([
      200,
      [
        '{"results":[{"statement_id":0,"series":[{"name":"cpu","tags":{"host":"a"},"columns":["time","value"],"values":[["2023-11-14T22:13:20Z",1.5]],"partial":true}],"partial":true}]}',
        '{"results":[{"statement_id":0,"series":[{"name":"cpu","tags":{"host":"a"},"columns":["time","value"],"values":[["2023-11-14T22:13:40Z",3.5]]}],"partial":true}]}',
        '{"results":[{"statement_id":0,"series":[{"name":"cpu","tags":{"host":"b"},"columns":["time","value"],"values":[["2023-11-14T22:13:30Z",2.5]]}]}]}',
        '',
      ].join('\n'),
    ]);
  });

  it('indents with pretty=true', async () => {
    const [status, text] = await query('SHOW MEASUREMENTS', { pretty: 'true' });
    expect(status).toBe(200);
    expect(text).toContain('{\n    "results": [\n        {\n            "statement_id": 0,');
  });

  it('creates and drops databases, idempotently, CREATE with a retention', async () => {
    expect(
      await query(
        'CREATE DATABASE x2 WITH DURATION 7d; CREATE DATABASE x2; SHOW RETENTION POLICIES ON x2',
        {},
        { method: 'POST' },
      ),
    ).toEqual([
      200,
      R(
        '{"statement_id":0},{"statement_id":1},{"statement_id":2,"series":[{"columns":["name","duration","shardGroupDuration","replicaN","default"],"values":[["autogen","168h0m0s","168h0m0s",1,true]]}]}',
      ),
    ]);
    expect(await sql('DESCRIBE DATABASE x2', 'public')).toMatch(/^200 ttl,.*\n7days,/);
    expect(await query('DROP DATABASE x2; DROP DATABASE x2', {}, { method: 'POST' })).toEqual([
      200,
      R('{"statement_id":0},{"statement_id":1}'),
    ]);
    expect(await sql('DESCRIBE DATABASE x2', 'public')).toMatch(/^422 .*Database not found/);
  });

  it('reads q and db from a form body', async () => {
    const r = await http(server.url, '/query', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'db=iq&q=SELECT+used+FROM+mem',
    });
    expect([r.status, r.text]).toEqual([
      200,
      R(
        '{"statement_id":0,"series":[{"name":"mem","columns":["time","used"],"values":[["2023-11-14T22:13:20Z",10]]}]}',
      ),
    ]);
  });

  const refused: Array<[string, () => Promise<[number, string]>, number, string]> = [
    ['no q', () => query('', {}), 400, '{"error":"missing required parameter \\"q\\""}'],
    [
      'a syntax error',
      () => query('SELEC * FROM cpu'),
      400,
      '{"error":"error parsing query: found SELEC, expected SELECT, DELETE, SHOW, CREATE, DROP, EXPLAIN, GRANT, REVOKE, ALTER, SET, KILL at line 1, char 1"}',
    ],
    [
      'an unknown epoch',
      () => query('SHOW DATABASES', { epoch: 'd' }),
      400,
      `{"error":"invalid epoch 'd': want ns (or n), u (or us), ms, s, m or h"}`,
    ],
    [
      'a bad chunk_size',
      () => query('SHOW DATABASES', { chunked: 'true', chunk_size: '0' }),
      400,
      `{"error":"invalid chunk_size '0': want a positive integer"}`,
    ],
    [
      'no credentials',
      () => query('SHOW DATABASES', {}, { auth: null }),
      401,
      '{"error":"unable to parse authentication credentials (missing Authorization header (want Basic credentials))"}',
    ],
    [
      'a wrong password',
      () => query('SHOW DATABASES', { u: 'root', p: 'x' }, { auth: null }),
      401,
      `{"error":"authorization failed: Access denied for user 'root': username or password invalid"}`,
    ],
    [
      "another tenant's database",
      () => query('SELECT * FROM cpu', { u: 'alice', p: 'secret' }, { auth: null }),
      404,
      '{"error":"The tenant cnosdb not found"}',
    ],
    [
      'a JSON body',
      async () => {
        const r = await http(server.url, '/query?db=iq', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"q":"SHOW DATABASES"}',
        });
        return [r.status, r.text];
      },
      400,
      `{"error":"Content-Type 'application/json' is not supported: send the parameters in the URL or as application/x-www-form-urlencoded"}`,
    ],
  ];
  for (const [name, run, status, body] of refused) {
    it(`refuses ${name}`, async () => {
      expect(await run()).toEqual([status, body]);
    });
  }

  it("lets a member read but not drop, and another tenant's user read only its own", async () => {
    expect(await query('SELECT used FROM mem', { u: 'reader', p: 'pw' }, { auth: null })).toEqual([
      200,
      R(
        '{"statement_id":0,"series":[{"name":"mem","columns":["time","used"],"values":[["2023-11-14T22:13:20Z",10]]}]}',
      ),
    ]);
    expect(await query('DROP DATABASE iq', { u: 'reader', p: 'pw' }, { auth: null })).toEqual([
      200,
      R('{"statement_id":0,"error":"Insufficient privileges, expected [Full on database iq of tenant cnosdb]"}'),
    ]);
    expect(await sql('SELECT count(*) FROM mem', 'iq')).toBe('200 COUNT(UInt8(1))\n1\n');
    expect(
      await query('SHOW MEASUREMENTS', { u: 'alice', p: 'secret', tenant: 'other', db: 'odb' }, { auth: null }),
    ).toEqual([
      200,
      R('{"statement_id":0,"series":[{"name":"measurements","columns":["name"],"values":[["w19"],["w23"]]}]}'),
    ]);
  });
});
