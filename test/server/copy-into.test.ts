// COPY INTO over HTTP (issue 29, "Data in and out in SQL"): real files in a temporary
// storage.external_dir, every row and type read back, and every refusal (paths, privileges, bad
// options) with its status and code.

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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
  writeFileSync(
    join(outside, 'secret.csv'),
    'time,tag1,tag2,bigint_c,string_c,ubigint_c,boolean_c,double_c\n2022-01-01 00:00:00,a,b,1,s,1,true,1.0\n',
  );
  server = await startServer({ inProcess: true, args: ['--external-dir', dir] });
});
afterAll(async () => {
  await server.stop();
  server.cleanup();
  rmSync(dir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const { csv, fails } = sqlChecks(() => server.url);

/** CnosDB's full_data_type.csv (its copy_into_table.slt), plus a row of NULLs and a quoted delimiter. */
const FULL_CSV =
  'time,tag1,tag2,bigint_c,string_c,ubigint_c,boolean_c,double_c\n' +
  '2022-12-22 09:26:56,tt1,tt2,-512512,hello word,512,true,1.11\n' +
  '2022-12-22T09:26:57.000000001Z,tt1,,9223372036854775807,"a, ""quoted"" one",18446744073709551615,FALSE,-2.5e-7\n' +
  '2022-12-22 09:26:58,tt3,tt4,,,,,\n';
const FULL_ROWS =
  'time,tag1,tag2,bigint_c,string_c,ubigint_c,boolean_c,double_c\n' +
  '2022-12-22T09:26:56.000000000,tt1,tt2,-512512,hello word,512,true,1.11\n' +
  '2022-12-22T09:26:57.000000001,tt1,,9223372036854775807,"a, ""quoted"" one",18446744073709551615,false,-2.5e-7\n';
const TABLE =
  '(bigint_c BIGINT, string_c STRING, ubigint_c BIGINT UNSIGNED, boolean_c BOOLEAN, double_c DOUBLE, TAGS(tag1, tag2))';
const ALL = 'SELECT * FROM %t ORDER BY time';
const all = (t: string): Promise<string> => csv(ALL.replace('%t', t));

function filesIn(sub: string): string[] {
  return readdirSync(join(dir, sub)).sort();
}

describe('COPY INTO a table', () => {
  beforeAll(async () => {
    writeFileSync(join(dir, 'full.csv'), FULL_CSV);
    await csv(`CREATE TABLE full_t ${TABLE}`);
  });

  it('stores nothing of a file when one of its rows has no field value, as INSERT', async () => {
    await fails(
      "COPY INTO full_t FROM 'full.csv' FILE_FORMAT = (TYPE = 'CSV')",
      422,
      /^Coordinator: Fields can't be empty$/,
    );
    expect(await csv('SELECT count(*) FROM full_t')).toBe('COUNT(UInt8(1))\n0\n');
  });

  it('stores every row and type of a file whose rows all have a field', async () => {
    writeFileSync(join(dir, 'two.csv'), FULL_CSV.split('\n').slice(0, 3).join('\n') + '\n');
    await csv(`CREATE TABLE two_t ${TABLE}`);
    expect(await csv("COPY INTO two_t FROM 'two.csv' FILE_FORMAT = (TYPE = 'CSV')")).toBe('rows\n2\n');
    expect(await all('two_t')).toBe(FULL_ROWS);
  });

  it('matches a column list to the file, and names the bad value, column and line without it', async () => {
    await csv(
      `CREATE TABLE v2 (string_c STRING, bigint_c BIGINT, boolean_c BOOLEAN, ubigint_c BIGINT UNSIGNED, double_c DOUBLE, TAGS(tag1, tag2))`,
    );
    await fails(
      "COPY INTO v2 FROM 'two.csv' FILE_FORMAT = (TYPE = 'CSV')",
      422,
      /^Arrow: Parser error: Error while parsing value hello word for column 4 at line 1$/,
    );
    const r = await http(server.url, '/api/v1/sql?db=public', { method: 'POST', body: "COPY INTO v2 FROM 'two.csv'" });
    expect(JSON.parse(r.text).error_code).toBe('010002');
    expect(
      await csv(
        "COPY INTO v2(time, tag1, tag2, bigint_c, string_c, ubigint_c, boolean_c, double_c) FROM 'two.csv' FILE_FORMAT = (TYPE = 'CSV')",
      ),
    ).toBe('rows\n2\n');
    expect(
      await csv('SELECT time, tag1, tag2, bigint_c, string_c, ubigint_c, boolean_c, double_c FROM v2 ORDER BY time'),
    ).toBe(FULL_ROWS);
  });

  it('reads newline-delimited JSON by key, in any key order, a missing key NULL', async () => {
    writeFileSync(
      join(dir, 'rows.json'),
      '{"double_c":0.5,"time":"2023-01-01T00:00:00","tag1":"j","bigint_c":-3,"string_c":"x","ubigint_c":3,"boolean_c":true}\n\n' +
        '{"tag2":"k","time":"2023-01-01T00:00:01.5","bigint_c":4}\n',
    );
    await csv(`CREATE TABLE json_t ${TABLE}`);
    expect(await csv("COPY INTO json_t FROM 'rows.json' FILE_FORMAT = (TYPE = 'JSON')")).toBe('rows\n2\n');
    expect(await all('json_t')).toBe(
      'time,tag1,tag2,bigint_c,string_c,ubigint_c,boolean_c,double_c\n' +
        '2023-01-01T00:00:00.000000000,j,,-3,x,3,true,0.5\n' +
        '2023-01-01T00:00:01.500000000,,k,4,,,,\n',
    );
  });

  it('reads every file of a directory, and takes a file:// URL or an absolute path inside the directory', async () => {
    mkdirSync(join(dir, 'many'));
    writeFileSync(join(dir, 'many', 'a.csv'), 'h\n2024-01-01 00:00:00,x,y,1,a,1,true,1.0\n');
    writeFileSync(join(dir, 'many', 'b.csv'), 'h\n2024-01-01 00:00:01,x,y,2,b,2,false,2.0\n');
    writeFileSync(join(dir, 'many', '.hidden.csv'), 'not,read\n');
    await csv(`CREATE TABLE many_t ${TABLE}`);
    expect(await csv("COPY INTO many_t FROM 'many/'")).toBe('rows\n2\n');
    expect(await csv(`COPY INTO many_t FROM 'file://${join(dir, 'many', 'a.csv')}'`)).toBe('rows\n1\n');
    expect(await csv(`COPY INTO many_t FROM '${join(dir, 'many')}'`)).toBe('rows\n2\n');
    // The same points again overwrite, as writes do: 2 points.
    expect(await csv('SELECT count(*), sum(bigint_c) FROM many_t')).toBe('COUNT(UInt8(1)),SUM(many_t.bigint_c)\n2,3\n');
  });

  it('takes DELIMITER and WITH_HEADER, and auto_infer_schema needs as many file columns as table columns', async () => {
    writeFileSync(join(dir, 'semi.csv'), '2024-02-01 00:00:00;p;q;7;semi;7;true;7.5\n');
    await csv(`CREATE TABLE semi_t ${TABLE}`);
    expect(
      await csv("COPY INTO semi_t FROM 'semi.csv' FILE_FORMAT = (TYPE = 'CSV', DELIMITER = ';', WITH_HEADER = false)"),
    ).toBe('rows\n1\n');
    expect(await all('semi_t')).toBe(
      'time,tag1,tag2,bigint_c,string_c,ubigint_c,boolean_c,double_c\n2024-02-01T00:00:00.000000000,p,q,7,semi,7,true,7.5\n',
    );
    writeFileSync(join(dir, 'few.json'), '{"time":"2024-02-01T00:00:00","tag1":"p","bigint_c":1}\n');
    await fails(
      "COPY INTO semi_t FROM 'few.json' FILE_FORMAT = (TYPE = 'JSON') COPY_OPTIONS = (auto_infer_schema = true)",
      422,
      /^Semantic error: Insert columns and Source columns not match$/,
    );
  });
});

describe('COPY INTO a location', () => {
  beforeAll(async () => {
    await csv(`CREATE TABLE src ${TABLE}`);
    writeFileSync(join(dir, 'src.csv'), FULL_CSV.split('\n').slice(0, 3).join('\n') + '\n');
    expect(await csv("COPY INTO src FROM 'src.csv'")).toBe('rows\n2\n');
  });

  it('writes CSV and JSON files that hold what the SQL route answers', async () => {
    expect(await csv("COPY INTO 'out/csv/' FROM (SELECT * FROM src ORDER BY time) FILE_FORMAT = (TYPE = 'CSV')")).toBe(
      'rows\n2\n',
    );
    const [name] = filesIn('out/csv');
    expect(name).toMatch(/\.csv$/);
    expect(readFileSync(join(dir, 'out/csv', name!), 'utf8')).toBe(FULL_ROWS);
    expect(
      await csv(
        "COPY INTO 'out/one.json' FROM (SELECT time, tag1, bigint_c FROM src ORDER BY time) FILE_FORMAT = (TYPE = 'JSON')",
      ),
    ).toBe('rows\n2\n');
    expect(readFileSync(join(dir, 'out/one.json'), 'utf8')).toBe(
      '{"time":"2022-12-22T09:26:56","tag1":"tt1","bigint_c":-512512}\n{"time":"2022-12-22T09:26:57.000000001","tag1":"tt1","bigint_c":9223372036854775807}\n',
    );
    expect(
      await csv(
        "COPY INTO 'out/nohead.csv' FROM (SELECT tag1, double_c FROM src ORDER BY time) FILE_FORMAT = (TYPE = 'CSV', DELIMITER = '|', WITH_HEADER = false)",
      ),
    ).toBe('rows\n2\n');
    expect(readFileSync(join(dir, 'out/nohead.csv'), 'utf8')).toBe('tt1|1.11\ntt1|-2.5e-7\n');
  });

  it('writes a new file per statement into a directory', async () => {
    await csv("COPY INTO 'out/twice/' FROM src FILE_FORMAT = (TYPE = 'JSON')");
    await csv("COPY INTO 'out/twice/' FROM src FILE_FORMAT = (TYPE = 'JSON')");
    expect(filesIn('out/twice')).toHaveLength(2);
  });

  it('round-trips every type through Parquet, CSV and JSON', async () => {
    for (const type of ['PARQUET', 'CSV', 'JSON']) {
      const t = `back_${type.toLowerCase()}`;
      expect(await csv(`COPY INTO 'rt/${type}/' FROM src FILE_FORMAT = (TYPE = '${type}')`)).toBe('rows\n2\n');
      await csv(`CREATE TABLE ${t} ${TABLE}`);
      expect(await csv(`COPY INTO ${t} FROM 'rt/${type}/' FILE_FORMAT = (TYPE = '${type}')`), type).toBe('rows\n2\n');
      expect(await all(t), type).toBe(FULL_ROWS);
    }
    // A Parquet file carries its schema: auto_infer_schema reads it as it is.
    await csv(`CREATE TABLE back_infer ${TABLE}`);
    expect(
      await csv(
        "COPY INTO back_infer FROM 'rt/PARQUET/' FILE_FORMAT = (TYPE = 'PARQUET') COPY_OPTIONS = (auto_infer_schema = true)",
      ),
    ).toBe('rows\n2\n');
    expect(await all('back_infer')).toBe(FULL_ROWS);
  });
});

describe('COPY INTO refusals', () => {
  beforeAll(async () => {
    await csv(`CREATE TABLE guard ${TABLE}`);
    symlinkSync(outside, join(dir, 'link-out'));
    symlinkSync(join(outside, 'secret.csv'), join(dir, 'secret-link.csv'));
    mkdirSync(join(dir, 'linkdir'));
    symlinkSync(join(outside, 'secret.csv'), join(dir, 'linkdir', 'x.csv'));
  });

  const cases: [string, string, number, string, RegExp][] = [
    [
      'a path with ..',
      "COPY INTO guard FROM '../x.csv'",
      422,
      '010047',
      /^object store error: location '\.\.\/x\.csv' contains '\.\.'/,
    ],
    ['.. inside a path', "COPY INTO guard FROM 'a/../../x.csv'", 422, '010047', /contains '\.\.'/],
    [
      'an absolute path outside',
      "COPY INTO guard FROM '/etc/passwd'",
      422,
      '010047',
      /^object store error: location '\/etc\/passwd' is outside storage\.external_dir$/,
    ],
    [
      'a directory link out',
      "COPY INTO guard FROM 'link-out/secret.csv'",
      422,
      '010047',
      /leads out of storage\.external_dir through a symbolic link$/,
    ],
    [
      'a file link out',
      "COPY INTO guard FROM 'secret-link.csv'",
      422,
      '010047',
      /leads out of storage\.external_dir through a symbolic link$/,
    ],
    [
      'a link out inside a listed directory',
      "COPY INTO guard FROM 'linkdir'",
      422,
      '010047',
      /^object store error: location 'linkdir\/x\.csv' leads out/,
    ],
    [
      'writing through a link out',
      "COPY INTO 'link-out/new.csv' FROM guard",
      422,
      '010047',
      /leads out of storage\.external_dir through a symbolic link$/,
    ],
    [
      'a missing file',
      "COPY INTO guard FROM 'missing.csv'",
      422,
      '010047',
      /^object store error: location 'missing\.csv' not found$/,
    ],
    [
      'another URL scheme',
      "COPY INTO guard FROM 'gcs://bucket/x.csv'",
      422,
      '010047',
      /^object store error: Unsupported url schema \[gcs\]$/,
    ],
    [
      'an unknown file type',
      "COPY INTO guard FROM 'full.csv' FILE_FORMAT = (TYPE = 'XML')",
      422,
      '010003',
      /^Semantic error: Unknown FileType: XML, only support AVRO \| PARQUET \| CSV \| JSON$/,
    ],
    [
      'an unknown format option',
      "COPY INTO guard FROM 'full.csv' FILE_FORMAT = (TYPE = 'CSV', QUOTE = 'x')",
      422,
      '010003',
      /^Semantic error: Unsupported option \[quote\]$/,
    ],
    [
      'an unknown copy option',
      "COPY INTO guard FROM 'full.csv' COPY_OPTIONS = (on_error = 'continue')",
      422,
      '010003',
      /^Semantic error: Unsupported option \[on_error\]$/,
    ],
    [
      'a delimiter of two characters',
      "COPY INTO guard FROM 'full.csv' FILE_FORMAT = (DELIMITER = ';;')",
      422,
      '010009',
      /^sql parser error: expected char value, but got ';;'$/,
    ],
    [
      'WITH_HEADER as a string',
      "COPY INTO guard FROM 'full.csv' FILE_FORMAT = (WITH_HEADER = 'yes')",
      422,
      '010009',
      /^sql parser error: expected boolean value, but got 'yes'$/,
    ],
    [
      'AVRO',
      "COPY INTO guard FROM 'full.csv' FILE_FORMAT = (TYPE = 'AVRO')",
      422,
      '010005',
      /^This feature is not implemented: COPY of AVRO files$/,
    ],
    ['a table that does not exist', "COPY INTO nowhere FROM 'full.csv'", 422, '030019', /Table not found/],
    [
      'a column the table lacks',
      "COPY INTO guard(time, nope) FROM 'full.csv'",
      422,
      '010044',
      /^Semantic error: Insert column 'nope' does not exist in target table/,
    ],
    [
      'FROM without a location',
      'COPY INTO guard FROM guard2',
      422,
      '010009',
      /Expected a string literal, found: guard2/,
    ],
  ];
  for (const [name, sql, status, code, message] of cases) {
    it(`refuses ${name}`, async () => {
      const r = await http(server.url, '/api/v1/sql?db=public', { method: 'POST', body: sql });
      expect(r.status, r.text).toBe(status);
      const body = JSON.parse(r.text) as { error_code: string; error_message: string };
      expect(body.error_code).toBe(code);
      expect(body.error_message).toMatch(message);
    });
  }

  it('leaves out nothing and writes nothing outside when refused', () => {
    expect(readdirSync(outside)).toEqual(['secret.csv']);
  });

  it('is for admins and tenant owners only, whatever they may do on the table', async () => {
    await csv("CREATE USER IF NOT EXISTS copy_member WITH PASSWORD = 'pw'");
    await csv("CREATE USER IF NOT EXISTS copy_owner WITH PASSWORD = 'pw'");
    await csv('ALTER TENANT cnosdb ADD USER copy_member AS member');
    await csv('ALTER TENANT cnosdb ADD USER copy_owner AS owner');
    await csv('CREATE ROLE IF NOT EXISTS copy_writer INHERIT member');
    await csv('GRANT ALL ON DATABASE public TO ROLE copy_writer');
    await csv("CREATE USER IF NOT EXISTS copy_granted WITH PASSWORD = 'pw'");
    await csv('ALTER TENANT cnosdb ADD USER copy_granted AS copy_writer');
    for (const user of ['copy_member', 'copy_granted']) {
      for (const sql of ["COPY INTO guard FROM 'two.csv'", "COPY INTO 'out/by-member.csv' FROM guard"]) {
        const r = await http(server.url, '/api/v1/sql?db=public', {
          method: 'POST',
          body: sql,
          auth: { user, password: 'pw' },
        });
        expect(r.status, `${user}: ${sql}: ${r.text}`).toBe(422);
        expect(JSON.parse(r.text)).toEqual({
          error_code: '010004',
          error_message: 'Insufficient privileges, expected [Full on all databases of tenant cnosdb]',
        });
      }
    }
    const r = await http(server.url, '/api/v1/sql?db=public', {
      method: 'POST',
      body: "COPY INTO guard FROM 'two.csv'",
      auth: { user: 'copy_owner', password: 'pw' },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.text).toBe('rows\n2\n');
  });
});

describe('COPY INTO without storage.external_dir', () => {
  let plain: TestServer;
  beforeAll(async () => {
    plain = await startServer({ inProcess: true });
  });
  afterAll(async () => {
    await plain.stop();
    plain.cleanup();
  });

  it('is refused, for reading and for writing', async () => {
    await http(plain.url, '/api/v1/sql?db=public', { method: 'POST', body: `CREATE TABLE t ${TABLE}` });
    for (const sql of ["COPY INTO t FROM 'x.csv'", "COPY INTO 'x.csv' FROM t"]) {
      const r = await http(plain.url, '/api/v1/sql?db=public', { method: 'POST', body: sql });
      expect(r.status).toBe(422);
      expect(JSON.parse(r.text)).toEqual({
        error_code: '010047',
        error_message: 'object store error: local locations need storage.external_dir, which is not set on this server',
      });
    }
  });
});

describe('COPY INTO within limits.query_memory_bytes', () => {
  const LIMIT = 1024 * 1024;
  let small: TestServer;
  let smallDir: string;
  const q = (sql: string) => http(small.url, '/api/v1/sql?db=public', { method: 'POST', body: sql });
  beforeAll(async () => {
    smallDir = mkdtempSync(join(tmpdir(), 'sundial-external-small-'));
    small = await startServer({
      inProcess: true,
      args: ['--external-dir', smallDir, '--query-memory-bytes', String(LIMIT)],
    });
    // 3 MB of CSV: three times the limit before it is even parsed.
    const line = (i: number): string =>
      `2024-01-01T00:00:${String(i % 60).padStart(2, '0')}.${String(i).padStart(9, '0')},h${i % 10},${'x'.repeat(40)},${i}\n`;
    writeFileSync(
      join(smallDir, 'big.csv'),
      'time,host,note,n\n' + Array.from({ length: 40_000 }, (_, i) => line(i)).join(''),
    );
    writeFileSync(
      join(smallDir, 'small.csv'),
      'time,host,note,n\n' + Array.from({ length: 500 }, (_, i) => line(i)).join(''),
    );
    expect((await q('CREATE TABLE m (note STRING, n BIGINT, TAGS(host))')).status).toBe(200);
    // 20,000 rows of 64-character notes: about 1.5 MB held as batches.
    const lp = Array.from(
      { length: 20_000 },
      (_, i) => `wide,host=h${i % 10} note="${'y'.repeat(64)}",n=${i}i ${1_700_000_000_000_000_000n + BigInt(i)}`,
    ).join('\n');
    expect((await http(small.url, '/api/v1/write?db=public', { method: 'POST', body: lp })).status).toBe(200);
  });
  afterAll(async () => {
    await small.stop();
    small.cleanup();
    rmSync(smallDir, { recursive: true, force: true });
  });

  it('reads a file within the limit', async () => {
    const r = await q("COPY INTO m(time, host, note, n) FROM 'small.csv'");
    expect(r.status, r.text).toBe(200);
    expect(r.text).toBe('rows\n500\n');
  });

  it('refuses a file bigger than the limit with 010011, storing nothing of it', async () => {
    const r = await q("COPY INTO m(time, host, note, n) FROM 'big.csv'");
    expect(r.status, r.text).toBe(422);
    expect(JSON.parse(r.text)).toMatchObject({
      error_code: '010011',
      error_message: expect.stringMatching(
        /^query memory limit exceeded: reading big\.csv needs \d+ bytes, the limit is 1048576 bytes/,
      ),
    });
    expect((await q('SELECT count(*) AS n FROM m')).text).toBe('n\n500\n');
  });

  it('refuses a result bigger than the limit with 010011, writing no file', async () => {
    expect((await q('SELECT count(*) AS n FROM wide')).text).toBe('n\n20000\n');
    const r = await q("COPY INTO 'out/' FROM wide FILE_FORMAT = (TYPE = 'CSV')");
    expect(r.status, r.text).toBe(422);
    expect(JSON.parse(r.text)).toMatchObject({
      error_code: '010011',
      error_message: expect.stringMatching(/^query memory limit exceeded: COPY INTO 'out\/' needs \d+ bytes/),
    });
    expect(readdirSync(smallDir)).not.toContain('out');
    const ok = await q("COPY INTO 'out/' FROM (SELECT * FROM wide LIMIT 1000) FILE_FORMAT = (TYPE = 'CSV')");
    expect(ok.status, ok.text).toBe(200);
    expect(ok.text).toBe('rows\n1000\n');
  });

  it('refuses an external table file bigger than the limit with 010011', async () => {
    expect(
      (
        await q(
          "CREATE EXTERNAL TABLE big (time TIMESTAMP, host STRING, note STRING, n BIGINT) STORED AS CSV WITH HEADER ROW LOCATION 'big.csv'",
        )
      ).status,
    ).toBe(200);
    const r = await q('SELECT count(*) FROM big');
    expect(r.status, r.text).toBe(422);
    expect(JSON.parse(r.text).error_code).toBe('010011');
  });
});
