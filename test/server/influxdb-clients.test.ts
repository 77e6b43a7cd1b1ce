// The InfluxDB clients users already run, pointed at a real server unchanged: node `influx` and
// @influxdata/influxdb-client (dev dependencies), Debian's python3-influxdb and the `influx` CLI of
// influxdb-client (installed by .ci/run; a missing one fails here, naming its package). Every
// write is read back through /api/v1/sql, every value checked.

import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { InfluxDB as InfluxV2, Point, setLogger, type HttpError } from '@influxdata/influxdb-client';
import { FieldType, InfluxDB } from 'influx';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, http } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

const run = promisify(execFile);
const PASSWORD = 'pw-influx';
/** Debian's interpreter: its python3-influxdb is installed for it, not for another python3 on PATH. */
const PYTHON = '/usr/bin/python3';
const INFLUX_CLI = '/usr/bin/influx';

let server: TestServer;
let port: number;

async function sql(statement: string, db: string): Promise<string> {
  const r = await http(server.url, `/api/v1/sql?db=${db}`, {
    body: statement,
    auth: null,
    headers: { authorization: basic('root', PASSWORD) },
  });
  return `${r.status} ${r.text}`;
}

beforeAll(async () => {
  // The v2 client logs every failed write; the failures here are the expected ones.
  setLogger({ error: () => undefined, warn: () => undefined });
  server = await startServer({ inProcess: true, args: ['--root-password', PASSWORD] });
  port = Number(new URL(server.url).port);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  server?.cleanup();
});

describe('node influx (InfluxDB 1.x client)', () => {
  const client = (): InfluxDB =>
    new InfluxDB({
      host: '127.0.0.1',
      port,
      database: 'nodedb',
      username: 'root',
      password: PASSWORD,
      schema: [
        {
          measurement: 'cpu',
          fields: { value: FieldType.FLOAT, n: FieldType.INTEGER, s: FieldType.STRING, ok: FieldType.BOOLEAN },
          tags: ['host'],
        },
      ],
    });

  it('creates a database, lists it, writes points (precision n) and queries them back', async () => {
    const c = client();
    const [pong] = await c.ping(5000);
    expect([pong!.online, pong!.version]).toEqual([true, '1.8.10']);
    await c.createDatabase('nodedb');
    expect(await c.getDatabaseNames()).toContain('nodedb');
    await c.writePoints([
      {
        measurement: 'cpu',
        tags: { host: 'a' },
        fields: { value: 1.5, n: 3, s: 'x y', ok: true },
        timestamp: new Date(1_700_000_000_000),
      },
      {
        measurement: 'cpu',
        tags: { host: 'b' },
        fields: { value: 2.5, n: -4, s: 'z', ok: false },
        timestamp: '1700000001000000001',
      },
    ]);
    expect(await sql('SELECT * FROM cpu ORDER BY time', 'nodedb')).toBe(
      '200 time,host,n,ok,s,value\n2023-11-14T22:13:20.000000000,a,3,true,x y,1.5\n2023-11-14T22:13:21.000000001,b,-4,false,z,2.5\n',
    );
    const rows = await c.query<{ host: string; n: number; value: number; s: string; ok: boolean }>('SELECT * FROM cpu');
    expect(
      rows.map((r) => [
        (r as unknown as { time: { toNanoISOString(): string } }).time.toNanoISOString(),
        r.host,
        r.n,
        r.value,
        r.s,
        r.ok,
      ]),
    ).toEqual([
      ['2023-11-14T22:13:20.000000000Z', 'a', 3, 1.5, 'x y', true],
      ['2023-11-14T22:13:21.000000001Z', 'b', -4, 2.5, 'z', false],
    ]);
    const means = await c.query('SELECT mean(value) FROM cpu GROUP BY host');
    expect(means.groups().map((g) => [g.tags.host, (g.rows[0] as unknown as { mean: number }).mean])).toEqual([
      ['a', 1.5],
      ['b', 2.5],
    ]);
  });

  it('reports an unknown database and stores nothing', async () => {
    const c = new InfluxDB({ host: '127.0.0.1', port, database: 'nosuchdb', username: 'root', password: PASSWORD });
    await expect(c.writePoints([{ measurement: 'lost', fields: { v: 1 } }])).rejects.toThrow(
      /404 Not Found error occurred: \{"error":"database not found: \\"nosuchdb\\""\}/,
    );
    await expect(
      new InfluxDB({ host: '127.0.0.1', port, database: 'nodedb', username: 'root', password: 'wrong' }).writePoints([
        { measurement: 'lost', fields: { v: 1 } },
      ]),
    ).rejects.toThrow(/401 Unauthorized error occurred: \{"error":"authorization failed: /);
    expect(await sql('SELECT * FROM lost', 'nodedb')).toMatch(/^422 .*Table not found/);
  });
});

describe('@influxdata/influxdb-client (v2 write API)', () => {
  beforeAll(async () => {
    expect(await sql('CREATE DATABASE v2db', 'public')).toBe('200 ');
  });

  it('writes with a user:password token, org the tenant and bucket the database', async () => {
    const write = new InfluxV2({ url: server.url, token: `root:${PASSWORD}` }).getWriteApi('cnosdb', 'v2db', 'ns');
    write.writePoint(
      new Point('temp')
        .tag('loc', 'x')
        .floatField('v', 21.5)
        .intField('i', 7)
        .stringField('s', 'a,b')
        .timestamp('1700000000000000001'),
    );
    write.writePoint(
      new Point('temp')
        .tag('loc', 'y')
        .floatField('v', -1)
        .intField('i', 8)
        .stringField('s', '')
        .timestamp('1700000000000000002'),
    );
    await write.close();
    expect(await sql('SELECT * FROM temp ORDER BY time', 'v2db')).toBe(
      '200 time,loc,i,s,v\n2023-11-14T22:13:20.000000001,x,7,"a,b",21.5\n2023-11-14T22:13:20.000000002,y,8,,-1.0\n',
    );
  });

  it('gets v2 errors for a wrong token and an unknown bucket, and stores nothing', async () => {
    for (const [token, bucket, status, code] of [
      ['root:wrong', 'v2db', 401, 'unauthorized'],
      [`root:${PASSWORD}`, 'nobucket', 404, 'not found'],
    ] as const) {
      const write = new InfluxV2({ url: server.url, token }).getWriteApi('cnosdb', bucket, 'ns', { maxRetries: 0 });
      write.writePoint(new Point('lost2').floatField('v', 1));
      const err = await write.close().then(
        () => undefined,
        (e: unknown) => e as HttpError,
      );
      expect([err?.statusCode, (err?.json as { code?: string } | undefined)?.code]).toEqual([status, code]);
    }
    expect(await sql('SELECT * FROM lost2', 'v2db')).toMatch(/^422 .*Table not found/);
  });
});

describe('python3-influxdb (Debian)', () => {
  it('creates, lists, writes in batches (expecting 204) and queries', async () => {
    expect(
      existsSync(PYTHON),
      'Debian python3 is missing: apt-get install python3-influxdb (.ci/run installs it)',
    ).toBe(true);
    const probe = await run(PYTHON, ['-c', 'import influxdb'], { timeout: 30_000 }).then(
      () => '',
      (e: Error) => e.message,
    );
    expect(
      probe,
      'the Debian package python3-influxdb is not installed: apt-get install python3-influxdb (.ci/run installs it)',
    ).toBe('');
    const script = `
import json
from influxdb import InfluxDBClient
c = InfluxDBClient(host='127.0.0.1', port=${port}, username='root', password='${PASSWORD}', database='pydb')
c.create_database('pydb')
print(json.dumps([d['name'] for d in c.get_list_database()]))
pts = [{"measurement": "py", "tags": {"host": "h%d" % (i % 2)}, "time": 1700000000000000000 + i, "fields": {"v": i * 1.5, "n": i}} for i in range(5)]
print(c.write_points(pts, batch_size=2))
print(c.write_points([{"measurement": "py2", "time": 1700000000, "fields": {"v": 1.25, "s": "x"}}], time_precision='s'))
print(json.dumps(list(c.query('SELECT * FROM py').get_points())))
print(json.dumps(list(c.query('SELECT mean(v) FROM py GROUP BY host').get_points(tags={"host": "h1"}))))
print(json.dumps(list(c.query('SELECT * FROM py2', epoch='s').get_points())))
try:
    InfluxDBClient(host='127.0.0.1', port=${port}, username='root', password='x', database='pydb').write_points([{"measurement": "lost", "fields": {"v": 1.0}}])
except Exception as e:
    print(type(e).__name__, e.code)
`;
    const { stdout } = await run(PYTHON, ['-c', script], { timeout: 60_000 });
    const lines = stdout.trim().split('\n');
    expect(JSON.parse(lines[0]!)).toContain('pydb');
    expect(lines.slice(1, 3)).toEqual(['True', 'True']);
    expect(JSON.parse(lines[3]!)).toEqual([
      { time: '2023-11-14T22:13:20Z', host: 'h0', n: 0, v: 0 },
      { time: '2023-11-14T22:13:20.000000001Z', host: 'h1', n: 1, v: 1.5 },
      { time: '2023-11-14T22:13:20.000000002Z', host: 'h0', n: 2, v: 3 },
      { time: '2023-11-14T22:13:20.000000003Z', host: 'h1', n: 3, v: 4.5 },
      { time: '2023-11-14T22:13:20.000000004Z', host: 'h0', n: 4, v: 6 },
    ]);
    expect(JSON.parse(lines[4]!)).toEqual([{ time: '1970-01-01T00:00:00Z', mean: 3 }]);
    expect(JSON.parse(lines[5]!)).toEqual([{ time: 1_700_000_000, s: 'x', v: 1.25 }]);
    expect(lines[6]).toBe('InfluxDBClientError 401');
    expect(await sql('SELECT * FROM py ORDER BY time', 'pydb')).toBe(
      '200 time,host,n,v\n2023-11-14T22:13:20.000000000,h0,0,0.0\n2023-11-14T22:13:20.000000001,h1,1,1.5\n2023-11-14T22:13:20.000000002,h0,2,3.0\n2023-11-14T22:13:20.000000003,h1,3,4.5\n2023-11-14T22:13:20.000000004,h0,4,6.0\n',
    );
    expect(await sql('SELECT * FROM py2', 'pydb')).toBe('200 time,s,v\n2023-11-14T22:13:20.000000000,x,1.25\n');
    expect(await sql('SELECT * FROM lost', 'pydb')).toMatch(/^422 .*Table not found/);
  }, 90_000);
});

describe('the influx CLI (Debian influxdb-client)', () => {
  const cli = (...args: string[]): Promise<{ stdout: string; stderr: string }> =>
    run(
      INFLUX_CLI,
      ['-host', '127.0.0.1', '-port', String(port), '-username', 'root', '-password', PASSWORD, ...args],
      { timeout: 60_000 },
    );

  it('executes statements, imports a file and reads it back', async () => {
    expect(
      existsSync(INFLUX_CLI),
      'the influx CLI is missing: apt-get install influxdb-client (.ci/run installs it)',
    ).toBe(true);
    const created = await cli('-execute', 'CREATE DATABASE clidb; SHOW DATABASES');
    expect(created.stdout).toMatch(/name: databases\nname\n----\n(.+\n)*clidb\n/);
    const dir = mkdtempSync(join(tmpdir(), 'sundial-influx-cli-'));
    try {
      const file = join(dir, 'import.txt');
      writeFileSync(
        file,
        [
          '# DDL',
          'CREATE DATABASE clidb2',
          '# DML',
          '# CONTEXT-DATABASE: clidb2',
          '# CONTEXT-RETENTION-POLICY: autogen',
          'cpu,host=a v=1,n=2i 1700000000',
          'cpu,host=b v=2.5,n=3i 1700000001',
          '',
        ].join('\n'),
      );
      const imported = await cli('-import', `-path=${file}`, '-precision=s');
      expect(imported.stdout + imported.stderr).toMatch(
        /Processed 1 commands\n.*Processed 2 inserts\n.*Failed 0 inserts/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(await sql('SELECT * FROM cpu ORDER BY time', 'clidb2')).toBe(
      '200 time,host,n,v\n2023-11-14T22:13:20.000000000,a,2,1.0\n2023-11-14T22:13:21.000000000,b,3,2.5\n',
    );
    const selected = await cli('-database', 'clidb2', '-format', 'json', '-execute', 'SELECT * FROM cpu');
    expect(selected.stdout.trim()).toBe(
      '{"results":[{"series":[{"name":"cpu","columns":["time","host","n","v"],"values":[[1700000000000000000,"a",2,1],[1700000001000000000,"b",3,2.5]]}]}]}',
    );
    const denied = await run(
      INFLUX_CLI,
      [
        '-host',
        '127.0.0.1',
        '-port',
        String(port),
        '-username',
        'root',
        '-password',
        'wrong',
        '-execute',
        'SHOW DATABASES',
      ],
      { timeout: 60_000 },
    ).then(
      () => 'succeeded',
      (e: { stdout: string; stderr: string }) => e.stdout + e.stderr,
    );
    expect(denied).toMatch(/authorization failed/);
  }, 90_000);
});
