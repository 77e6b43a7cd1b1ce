// CREATE EXTERNAL TABLE over HTTP (issue 29): read-only tables over CSV, NDJSON and Parquet files
// of storage.external_dir, queried and joined with tskv tables, listed and described, kept across
// a restart, dropped without touching their files, and every refusal with its status and code.

import {
  mkdirSync,
  utimesSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { sqlChecks } from '../support/sql.js';

let server: TestServer;
let dir: string;
let outside: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sundial-external-'));
  outside = mkdtempSync(join(tmpdir(), 'sundial-outside-'));
  writeFileSync(join(outside, 'secret.csv'), 'a,b\n1,2\n');
  server = await startServer({ inProcess: true, args: ['--external-dir', dir] });
});
afterAll(async () => {
  await server.stop();
  server.cleanup();
  rmSync(dir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const { csv } = sqlChecks(() => server.url);

async function refused(
  sql: string,
  status: number,
  code: string,
  message: RegExp,
  auth?: { user: string; password: string },
): Promise<void> {
  const r = await http(server.url, '/api/v1/sql?db=public', {
    method: 'POST',
    body: sql,
    ...(auth === undefined ? {} : { auth }),
  });
  expect(r.status, `${sql}: ${r.text}`).toBe(status);
  const body = JSON.parse(r.text) as { error_code: string; error_message: string };
  expect(body.error_code, r.text).toBe(code);
  expect(body.error_message).toMatch(message);
}

const HOSTS_CSV = 'host,region,cores\nh1,eu,4\nh2,us,8\nh3,eu,\n';

describe('external tables over CSV, JSON and Parquet', () => {
  beforeAll(async () => {
    writeFileSync(join(dir, 'hosts.csv'), HOSTS_CSV);
    mkdirSync(join(dir, 'parts'));
    writeFileSync(join(dir, 'parts', 'a.csv'), 'h1;1\nh2;2\n');
    writeFileSync(join(dir, 'parts', 'b.csv'), 'h3;3\n');
    writeFileSync(join(dir, 'parts', '.hidden.csv'), 'hx;9\n');
    writeFileSync(
      join(dir, 'events.json'),
      '{"host":"h1","at":"2024-01-01T00:00:00","n":1,"ok":true}\n{"host":"h2","at":"2024-01-01T00:00:01.5","n":-2}\n',
    );
    await csv('CREATE TABLE cpu (usage DOUBLE, TAGS(host))');
    await csv(
      "INSERT INTO cpu (time, host, usage) VALUES ('2024-01-01T00:00:00', 'h1', 10.5), ('2024-01-01T00:00:00', 'h2', 20.0), ('2024-01-01T00:00:00', 'h4', 1.0)",
    );
  });

  it('reads a CSV file with a header row, declared columns in file order, an empty field NULL', async () => {
    await csv(
      "CREATE EXTERNAL TABLE hosts (host STRING, region STRING, cores BIGINT) STORED AS CSV WITH HEADER ROW LOCATION 'hosts.csv'",
    );
    expect(await csv('SELECT * FROM hosts ORDER BY host')).toBe('host,region,cores\nh1,eu,4\nh2,us,8\nh3,eu,\n');
    expect(await csv('SELECT region, sum(cores) AS c FROM hosts GROUP BY region ORDER BY region')).toBe(
      'region,c\neu,4\nus,8\n',
    );
  });

  it('joins with a tskv table', async () => {
    expect(
      await csv(
        'SELECT cpu.host, hosts.region, cpu.usage FROM cpu JOIN hosts ON cpu.host = hosts.host ORDER BY cpu.host',
      ),
    ).toBe('host,region,usage\nh1,eu,10.5\nh2,us,20.0\n');
    expect(
      await csv(
        'SELECT h.region, avg(c.usage) AS u FROM cpu c LEFT JOIN public.hosts h ON c.host = h.host GROUP BY h.region ORDER BY h.region',
      ),
    ).toBe('region,u\neu,10.5\nus,20.0\n,1.0\n');
  });

  it('infers the columns of a CSV file from its header and values', async () => {
    await csv("CREATE EXTERNAL TABLE hosts_inferred STORED AS CSV WITH HEADER ROW LOCATION 'hosts.csv'");
    expect(await csv('DESCRIBE TABLE hosts_inferred')).toBe(
      'column_name,data_type\nhost,Utf8\nregion,Utf8\ncores,Int64\n',
    );
    expect(await csv("SELECT cores FROM hosts_inferred WHERE host = 'h2'")).toBe('cores\n8\n');
  });

  it('reads every file of a directory but hidden ones, with a delimiter and no header, names column_1...', async () => {
    await csv("CREATE EXTERNAL TABLE parts STORED AS CSV DELIMITER ';' LOCATION 'parts/'");
    expect(await csv('SELECT * FROM parts ORDER BY column_1')).toBe('column_1,column_2\nh1,1\nh2,2\nh3,3\n');
  });

  it('reads files added to the directory after it was created', async () => {
    writeFileSync(join(dir, 'parts', 'c.csv'), 'h5;5\n');
    expect(await csv('SELECT count(*) AS n, sum(column_2) AS s FROM parts')).toBe('n,s\n4,11\n');
  });

  it('reads newline-delimited JSON by key, STORED AS JSON or NDJSON', async () => {
    await csv(
      "CREATE EXTERNAL TABLE events (host STRING, at TIMESTAMP, n BIGINT, ok BOOLEAN) STORED AS NDJSON LOCATION 'events.json'",
    );
    expect(await csv('SELECT * FROM events ORDER BY at')).toBe(
      'host,at,n,ok\nh1,2024-01-01T00:00:00.000000000,1,true\nh2,2024-01-01T00:00:01.500000000,-2,\n',
    );
    await csv("CREATE EXTERNAL TABLE events_inferred STORED AS JSON LOCATION 'events.json'");
    expect(await csv('DESCRIBE TABLE events_inferred')).toBe(
      'column_name,data_type\nat,"Timestamp(Nanosecond, None)"\nhost,Utf8\nn,Int64\nok,Boolean\n',
    );
  });

  it('reads a Parquet file COPY INTO wrote, with its own schema', async () => {
    expect(await csv("COPY INTO 'pq/cpu.parquet' FROM cpu FILE_FORMAT = (TYPE = 'PARQUET')")).toBe('rows\n3\n');
    await csv("CREATE EXTERNAL TABLE cpu_pq STORED AS PARQUET LOCATION 'pq/cpu.parquet'");
    expect(await csv('DESCRIBE TABLE cpu_pq')).toBe(
      'column_name,data_type\ntime,"Timestamp(Nanosecond, None)"\nhost,Utf8\nusage,Float64\n',
    );
    expect(await csv('SELECT * FROM cpu_pq ORDER BY host')).toBe(await csv('SELECT * FROM cpu ORDER BY host'));
  });

  it('is listed by SHOW TABLES and information_schema.tables beside the tskv tables', async () => {
    expect(await csv('SHOW TABLES')).toBe(
      'table_name\ncpu\ncpu_pq\nevents\nevents_inferred\nhosts\nhosts_inferred\nparts\n',
    );
    expect(
      await csv(
        "SELECT table_name, table_engine FROM information_schema.tables WHERE table_database = 'public' ORDER BY table_name",
      ),
    ).toBe(
      'table_name,table_engine\ncpu,TSKV\ncpu_pq,EXTERNAL\nevents,EXTERNAL\nevents_inferred,EXTERNAL\nhosts,EXTERNAL\nhosts_inferred,EXTERNAL\nparts,EXTERNAL\n',
    );
  });

  it('shares its name space with tskv tables, IF NOT EXISTS included', async () => {
    await refused('CREATE TABLE hosts (x DOUBLE)', 422, '030020', /^Meta: Table hosts already exists\.$/);
    await refused(
      "CREATE EXTERNAL TABLE cpu STORED AS CSV LOCATION 'hosts.csv'",
      422,
      '030020',
      /^Meta: Table cpu already exists\.$/,
    );
    await csv("CREATE EXTERNAL TABLE IF NOT EXISTS cpu STORED AS CSV LOCATION 'hosts.csv'");
    await csv('CREATE TABLE IF NOT EXISTS hosts (x DOUBLE)');
    expect(await csv('DESCRIBE TABLE hosts')).toBe('column_name,data_type\nhost,Utf8\nregion,Utf8\ncores,Int64\n');
  });

  it('takes no rows: INSERT, COPY, DELETE, ALTER and line protocol are refused', async () => {
    await refused(
      "INSERT INTO hosts (host) VALUES ('x')",
      422,
      '010005',
      /^This feature is not implemented: the external table public\.hosts in this statement/,
    );
    await refused("COPY INTO hosts FROM 'hosts.csv'", 422, '010005', /external table public\.hosts/);
    await refused('DELETE FROM hosts', 422, '010005', /external table public\.hosts/);
    await refused(
      'ALTER TABLE hosts ADD FIELD x DOUBLE',
      422,
      '010005',
      /^This feature is not implemented: ALTER TABLE of the external table public\.hosts$/,
    );
    const w = await http(server.url, '/api/v1/write?db=public', { method: 'POST', body: 'hosts,host=x v=1 1\n' });
    expect(w.status, w.text).toBe(422);
    expect(w.headers['x-sundial-error-code']).toBe('020010');
    expect(String(w.headers['x-sundial-error'])).toMatch(
      /table 'hosts' of database 'public' is an external or stream table/,
    );
    expect(readFileSync(join(dir, 'hosts.csv'), 'utf8')).toBe(HOSTS_CSV);
  });

  it('is dropped without touching its files', async () => {
    await csv('DROP TABLE hosts_inferred');
    await refused(
      'SELECT * FROM hosts_inferred',
      422,
      '030019',
      /^Meta: Table not found: "cnosdb\.public\.hosts_inferred"$/,
    );
    expect(readFileSync(join(dir, 'hosts.csv'), 'utf8')).toBe(HOSTS_CSV);
    await csv('DROP TABLE IF EXISTS hosts_inferred');
    await csv("CREATE EXTERNAL TABLE hosts_inferred (h STRING) STORED AS CSV WITH HEADER ROW LOCATION 'hosts.csv'");
    await refused(
      'SELECT * FROM hosts_inferred',
      422,
      '010002',
      /incorrect number of fields for line 2, expected 1 got 3/,
    );
    await csv('DROP TABLE hosts_inferred');
  });

  it('answers a file that went missing, or no longer parses, with an error', async () => {
    writeFileSync(join(dir, 'gone.csv'), 'a\n1\n');
    await csv("CREATE EXTERNAL TABLE gone (a BIGINT) STORED AS CSV WITH HEADER ROW LOCATION 'gone.csv'");
    writeFileSync(join(dir, 'gone.csv'), 'a\nx\n');
    await refused(
      'SELECT * FROM gone',
      422,
      '010002',
      /^Arrow: Parser error: Error while parsing value x for column 0 at line 1$/,
    );
    rmSync(join(dir, 'gone.csv'));
    await refused('SELECT * FROM gone', 422, '010047', /^object store error: location 'gone\.csv' not found$/);
  });

  it('answers an unchanged file the same from the parsed-file cache, and reads a changed one again', async () => {
    const file = join(dir, 'cached.csv');
    writeFileSync(file, 'a,b\n1,x\n2,y\n');
    await csv("CREATE EXTERNAL TABLE cached (a BIGINT, b STRING) STORED AS CSV WITH HEADER ROW LOCATION 'cached.csv'");
    for (let i = 0; i < 2; i++) expect(await csv('SELECT * FROM cached ORDER BY a')).toBe('a,b\n1,x\n2,y\n');
    // The same size, a later modification time: the cache must not answer with the old rows.
    writeFileSync(file, 'a,b\n3,z\n4,w\n');
    const later = new Date(Date.now() + 10_000);
    utimesSync(file, later, later);
    expect(await csv('SELECT * FROM cached ORDER BY a')).toBe('a,b\n3,z\n4,w\n');
    expect(await csv("SELECT sum(a) AS s FROM cached WHERE b <> 'z'")).toBe('s\n4\n');
    await csv('DROP TABLE cached');
  });

  it('keeps every definition across a restart', async () => {
    const before = await csv('SHOW TABLES');
    await server.stop();
    server = await startServer({ inProcess: true, dataDir: server.dataDir, args: ['--external-dir', dir] });
    expect(await csv('SHOW TABLES')).toBe(before);
    expect(await csv('SELECT * FROM events ORDER BY at')).toBe(
      'host,at,n,ok\nh1,2024-01-01T00:00:00.000000000,1,true\nh2,2024-01-01T00:00:01.500000000,-2,\n',
    );
    expect(await csv('DESCRIBE TABLE cpu_pq')).toBe(
      'column_name,data_type\ntime,"Timestamp(Nanosecond, None)"\nhost,Utf8\nusage,Float64\n',
    );
  });
});

describe('CREATE EXTERNAL TABLE refusals', () => {
  beforeAll(() => {
    writeFileSync(join(dir, 'ok.csv'), 'a\n1\n');
    symlinkSync(outside, join(dir, 'ext-link-out'));
    mkdirSync(join(dir, 'empty-dir'));
  });

  const cases: [string, string, number, string, RegExp][] = [
    [
      'a path with ..',
      "CREATE EXTERNAL TABLE r STORED AS CSV LOCATION '../secret.csv'",
      422,
      '010047',
      /contains '\.\.'/,
    ],
    [
      'an absolute path outside',
      `CREATE EXTERNAL TABLE r STORED AS CSV LOCATION '/etc/passwd'`,
      422,
      '010047',
      /is outside storage\.external_dir$/,
    ],
    [
      'a link out',
      "CREATE EXTERNAL TABLE r STORED AS CSV LOCATION 'ext-link-out/secret.csv'",
      422,
      '010047',
      /leads out of storage\.external_dir through a symbolic link$/,
    ],
    [
      'a missing location',
      "CREATE EXTERNAL TABLE r (a BIGINT) STORED AS CSV LOCATION 'none.csv'",
      422,
      '010047',
      /^object store error: location 'none\.csv' not found$/,
    ],
    [
      'an empty directory without columns',
      "CREATE EXTERNAL TABLE r STORED AS CSV LOCATION 'empty-dir'",
      422,
      '010001',
      /^Datafusion: Error during planning: No files found at 'empty-dir'/,
    ],
    [
      'an unknown file type',
      "CREATE EXTERNAL TABLE r STORED AS XML LOCATION 'ok.csv'",
      422,
      '010001',
      /^Datafusion: Error during planning: Unknown FileType: XML/,
    ],
    [
      'AVRO',
      "CREATE EXTERNAL TABLE r STORED AS AVRO LOCATION 'ok.csv'",
      422,
      '010005',
      /^This feature is not implemented: external tables STORED AS AVRO$/,
    ],
    [
      'a compression type',
      "CREATE EXTERNAL TABLE r STORED AS CSV COMPRESSION TYPE GZIP LOCATION 'ok.csv'",
      422,
      '010005',
      /COMPRESSION TYPE GZIP/,
    ],
    [
      'PARTITIONED BY',
      "CREATE EXTERNAL TABLE r (a BIGINT) STORED AS CSV PARTITIONED BY (a) LOCATION 'ok.csv'",
      422,
      '010005',
      /PARTITIONED BY/,
    ],
    [
      'a column type the readers lack',
      "CREATE EXTERNAL TABLE r (a DATE) STORED AS CSV LOCATION 'ok.csv'",
      422,
      '010005',
      /^This feature is not implemented: external table column a of type DATE:/,
    ],
    [
      'a column twice',
      "CREATE EXTERNAL TABLE r (a BIGINT, a STRING) STORED AS CSV LOCATION 'ok.csv'",
      422,
      '010001',
      /duplicate unqualified field name a/,
    ],
    [
      'a delimiter of two characters',
      "CREATE EXTERNAL TABLE r STORED AS CSV DELIMITER ';;' LOCATION 'ok.csv'",
      422,
      '010001',
      /^Datafusion: Error during planning: Unsupported delimiter \[;;\]/,
    ],
    [
      'a missing database',
      "CREATE EXTERNAL TABLE nodb.r STORED AS CSV LOCATION 'ok.csv'",
      422,
      '030017',
      /^Meta: Database not found: "nodb"$/,
    ],
    ['no LOCATION', 'CREATE EXTERNAL TABLE r STORED AS CSV', 422, '010009', /Missing LOCATION clause/],
  ];
  for (const [name, sql, status, code, message] of cases) {
    it(`refuses ${name}`, async () => {
      await refused(sql, status, code, message);
    });
  }

  it('created nothing and wrote nothing outside', async () => {
    expect(await csv('SHOW TABLES')).not.toMatch(/^r$/m);
    expect(readdirSync(outside)).toEqual(['secret.csv']);
  });

  it('is for admins and tenant owners only; members with read may query one', async () => {
    await csv("CREATE USER IF NOT EXISTS ext_member WITH PASSWORD = 'pw'");
    await csv("CREATE USER IF NOT EXISTS ext_owner WITH PASSWORD = 'pw'");
    await csv('ALTER TENANT cnosdb ADD USER ext_member AS member');
    await csv('ALTER TENANT cnosdb ADD USER ext_owner AS owner');
    await refused(
      "CREATE EXTERNAL TABLE by_member STORED AS CSV WITH HEADER ROW LOCATION 'ok.csv'",
      422,
      '010004',
      /^Insufficient privileges, expected \[Full on all databases of tenant cnosdb\]$/,
      { user: 'ext_member', password: 'pw' },
    );
    const r = await http(server.url, '/api/v1/sql?db=public', {
      method: 'POST',
      body: "CREATE EXTERNAL TABLE by_owner STORED AS CSV WITH HEADER ROW LOCATION 'ok.csv'",
      auth: { user: 'ext_owner', password: 'pw' },
    });
    expect(r.status, r.text).toBe(200);
    const q = await http(server.url, '/api/v1/sql?db=public', {
      method: 'POST',
      body: 'SELECT a FROM by_owner',
      auth: { user: 'ext_member', password: 'pw' },
    });
    expect(q.status, q.text).toBe(200);
    expect(q.text).toBe('a\n1\n');
  });
});

describe('external tables without storage.external_dir', () => {
  let plain: TestServer;
  beforeAll(async () => {
    plain = await startServer({ inProcess: true });
  });
  afterAll(async () => {
    await plain.stop();
    plain.cleanup();
  });

  it('are refused', async () => {
    const r = await http(plain.url, '/api/v1/sql?db=public', {
      method: 'POST',
      body: "CREATE EXTERNAL TABLE x (a BIGINT) STORED AS CSV LOCATION 'x.csv'",
    });
    expect(r.status).toBe(422);
    expect(JSON.parse(r.text)).toEqual({
      error_code: '010047',
      error_message: 'object store error: local locations need storage.external_dir, which is not set on this server',
    });
  });
});
