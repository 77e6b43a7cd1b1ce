// Object store locations over HTTP (issue 29): COPY INTO both ways and external tables on
// `s3://bucket/path` with CnosDB's CONNECTION options, against s3rver on loopback, and every
// refusal (options, a missing object or bucket, a store that does not answer) with its code.

import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../support/http.js';
import { startS3, type TestS3 } from '../support/s3rver.js';
import { startServer, type TestServer } from '../support/server.js';
import { sqlChecks } from '../support/sql.js';

let server: TestServer;
let s3: TestS3;
let client: S3Client;
beforeAll(async () => {
  s3 = await startS3('bkt');
  client = new S3Client({
    region: 'us-east-1',
    endpoint: s3.url,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  // No storage.external_dir: object stores do not need it.
  server = await startServer({ inProcess: true });
});
afterAll(async () => {
  await server?.stop();
  server?.cleanup();
  client?.destroy();
  await s3?.close();
});

const { csv } = sqlChecks(() => server.url);
const conn = (): string =>
  `CONNECTION = (region = 'us-east-1', endpoint_url = '${s3.url}', access_key_id = 'S3RVER', secret_key = 'S3RVER', virtual_hosted_style = false)`;
const options = (): string =>
  `OPTIONS (region 'us-east-1', endpoint_url '${s3.url}', access_key_id 'S3RVER', secret_key 'S3RVER', virtual_hosted_style 'false')`;

async function keys(prefix: string): Promise<string[]> {
  const out = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }));
  return (out.Contents ?? []).map((o) => o.Key!).sort();
}

async function object(key: string): Promise<string> {
  const out = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
  return new TextDecoder().decode(await out.Body!.transformToByteArray());
}

const ROWS =
  'time,host,usage\n2024-01-01T00:00:00.000000000,h1,1.5\n2024-01-01T00:00:01.000000000,h2,2.5\n2024-01-01T00:00:02.000000000,h1,\n';

describe('COPY INTO and external tables on s3://', () => {
  beforeAll(async () => {
    await csv('CREATE TABLE cpu (usage DOUBLE, TAGS(host))');
    await csv(
      "INSERT INTO cpu (time, host, usage) VALUES ('2024-01-01T00:00:00', 'h1', 1.5), ('2024-01-01T00:00:01', 'h2', 2.5)",
    );
    await http(server.url, '/api/v1/write?db=public', {
      method: 'POST',
      body: 'cpu,host=h1 other=1 1704067202000000000\n',
    });
  });

  it('writes a table to an object, as /api/v1/sql answers CSV', async () => {
    expect(
      await csv(
        `COPY INTO 's3://${s3.bucket}/exact/cpu.csv' FROM (SELECT time, host, usage FROM cpu ORDER BY time) ${conn()} FILE_FORMAT = (TYPE = 'CSV')`,
      ),
    ).toBe('rows\n3\n');
    expect(await object('exact/cpu.csv')).toBe(ROWS);
  });

  it('writes a new object of a fresh name under a prefix each time, and reads them all back', async () => {
    for (let i = 0; i < 2; i++)
      expect(
        await csv(
          `COPY INTO 's3://${s3.bucket}/pq/' FROM (SELECT time, host, usage FROM cpu WHERE usage IS NOT NULL) ${conn()} FILE_FORMAT = (TYPE = 'PARQUET')`,
        ),
      ).toBe('rows\n2\n');
    const written = await keys('pq/');
    expect(written).toHaveLength(2);
    for (const k of written) expect(k).toMatch(/^pq\/\d+-\d+-\d+-[0-9a-f]{8}\.parquet$/);
    await csv('CREATE TABLE back (usage DOUBLE, TAGS(host))');
    expect(await csv(`COPY INTO back FROM 's3://${s3.bucket}/pq/' ${conn()} FILE_FORMAT = (TYPE = 'PARQUET')`)).toBe(
      'rows\n4\n',
    );
    // The same two rows twice: one series, the second file's rows replacing the first's.
    expect(await csv('SELECT time, host, usage FROM back ORDER BY time')).toBe(
      ROWS.split('\n').slice(0, 3).join('\n') + '\n',
    );
  });

  it('reads a CSV object, a key naming its "directory" too, hidden names left out', async () => {
    await client.send(
      new PutObjectCommand({
        Bucket: s3.bucket,
        Key: 'in/a.csv',
        Body: 'time,host,usage\n2024-02-01T00:00:00,h9,9.5\n',
      }),
    );
    await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'in/.hidden.csv', Body: 'not,a,row\n' }));
    await csv('CREATE TABLE from_csv (usage DOUBLE, TAGS(host))');
    expect(await csv(`COPY INTO from_csv(time, host, usage) FROM 's3://${s3.bucket}/in' ${conn()}`)).toBe('rows\n1\n');
    expect(await csv('SELECT host, usage FROM from_csv')).toBe('host,usage\nh9,9.5\n');
  });

  it('serves an external table over a prefix, joinable, its secret never shown', async () => {
    await csv(`CREATE EXTERNAL TABLE cpu_s3 STORED AS PARQUET LOCATION 's3://${s3.bucket}/pq/' ${options()}`);
    expect(await csv('SELECT host, count(*) AS n, sum(usage) AS s FROM cpu_s3 GROUP BY host ORDER BY host')).toBe(
      'host,n,s\nh1,2,3.0\nh2,2,5.0\n',
    );
    expect(await csv('SELECT DISTINCT c.host FROM cpu c JOIN cpu_s3 e ON c.host = e.host ORDER BY c.host')).toBe(
      'host\nh1\nh2\n',
    );
    expect(await csv('DESCRIBE TABLE cpu_s3')).toBe(
      'column_name,data_type\ntime,"Timestamp(Nanosecond, None)"\nhost,Utf8\nusage,Float64\n',
    );
    const views = await csv("SELECT * FROM information_schema.tables WHERE table_name = 'cpu_s3'");
    expect(views).not.toContain('S3RVER');
  });

  it('keeps the table credentials sealed in catalog.json, and opens them after a restart', async () => {
    const catalog = readFileSync(join(server.dataDir, 'catalog.json'), 'utf8');
    expect(catalog).toContain('cpu_s3');
    expect(catalog).not.toContain('S3RVER');
    expect(catalog).toMatch(/"secretKey": ?"sealed:v1:/);
    expect(statSync(join(server.dataDir, 'secret.key')).mode & 0o777).toBe(0o600);
    await server.stop();
    server = await startServer({ dataDir: server.dataDir });
    expect(await csv('SELECT count(*) AS n FROM cpu_s3')).toBe('n\n4\n');
  });

  const refusals: [string, () => string, string, RegExp][] = [
    [
      'no region',
      () => `COPY INTO cpu FROM 's3://bkt/pq/' CONNECTION = (endpoint_url = '${s3.url}')`,
      '010003',
      /^Semantic error: `region` must be initialized$/,
    ],
    [
      'an unknown option',
      () => `COPY INTO cpu FROM 's3://bkt/pq/' CONNECTION = (region = 'x', colour = 'red')`,
      '010003',
      /^Semantic error: Unsupported option \[colour\]$/,
    ],
    [
      'a value of the wrong kind',
      () => `COPY INTO cpu FROM 's3://bkt/pq/' CONNECTION = (region = 1)`,
      '010009',
      /^sql parser error: expected string value, but got 1$/,
    ],
    [
      'no CONNECTION',
      () => "COPY INTO cpu FROM 's3://bkt/pq/'",
      '010003',
      /^Semantic error: `region` must be initialized$/,
    ],
    [
      'a missing object',
      () => `COPY INTO cpu FROM 's3://bkt/nothing.csv' ${conn()}`,
      '010047',
      /^object store error: location 's3:\/\/bkt\/nothing\.csv' not found$/,
    ],
    [
      'a missing bucket',
      () => `COPY INTO cpu FROM 's3://nobucket/x.csv' ${conn()}`,
      '010047',
      /^object store error: 's3:\/\/nobucket\/x\.csv': NoSuchBucket/,
    ],
    [
      'a store that does not answer',
      () =>
        `COPY INTO 's3://bkt/x.csv' FROM cpu CONNECTION = (region = 'us-east-1', endpoint_url = 'http://127.0.0.1:1', access_key_id = 'a', secret_key = 'b', virtual_hosted_style = false)`,
      '010047',
      /^object store error: 's3:\/\/bkt\/x\.csv': /,
    ],
    [
      'an external table over a missing prefix',
      () => `CREATE EXTERNAL TABLE nothing (a BIGINT) STORED AS CSV LOCATION 's3://bkt/none' ${options()}`,
      '010047',
      /not found$/,
    ],
    [
      'a local location without storage.external_dir',
      () => "COPY INTO cpu FROM 'x.csv'",
      '010047',
      /^object store error: local locations need storage\.external_dir, which is not set on this server$/,
    ],
  ];
  for (const [name, sql, code, message] of refusals) {
    it(`refuses ${name}`, async () => {
      const r = await http(server.url, '/api/v1/sql?db=public', { method: 'POST', body: sql() });
      expect(r.status, r.text).toBe(422);
      const body = JSON.parse(r.text) as { error_code: string; error_message: string };
      expect(body.error_code, r.text).toBe(code);
      expect(body.error_message).toMatch(message);
    });
  }
});
