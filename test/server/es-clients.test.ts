// The Elasticsearch clients and shippers users already run, pointed at `/api/v1/es` unchanged (no
// `table`: the index names the table): the official @elastic/elasticsearch (info, ping, bulk,
// helpers.bulk), pino-elasticsearch, Debian's python3-elasticsearch 7.17, and rsyslog's
// omelasticsearch (Debian rsyslog-elasticsearch), run in the foreground with its own config, pid
// and work directory in a temporary directory. The Debian packages are installed by .ci/run; a
// missing one fails here, naming it. Every stored row and value is read back through /api/v1/sql.

import { execFile, spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client, type errors } from '@elastic/elasticsearch';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, http } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

const run = promisify(execFile);
/** A CommonJS module whose types declare an ES default export: required as it is shipped. */
const pinoElastic = createRequire(import.meta.url)('pino-elasticsearch') as typeof import('pino-elasticsearch').default;
const PASSWORD = 'pw-es';
/** Debian's interpreter: its python3-elasticsearch is installed for it, not for another python3 on PATH. */
const PYTHON = '/usr/bin/python3';
const RSYSLOGD = '/usr/sbin/rsyslogd';
const OMELASTICSEARCH = '/usr/lib/x86_64-linux-gnu/rsyslog/omelasticsearch.so';

let server: TestServer;
let base: string;

/** `statement`'s CSV answer in `db`, as "status body". */
async function sql(statement: string, db = 'public'): Promise<string> {
  const r = await http(server.url, `/api/v1/sql?db=${db}`, {
    body: statement,
    auth: null,
    headers: { authorization: basic('root', PASSWORD) },
  });
  return `${r.status} ${r.text}`;
}

beforeAll(async () => {
  server = await startServer({ inProcess: true, args: ['--root-password', PASSWORD] });
  base = `${server.url}/api/v1/es`;
  expect(await sql('CREATE DATABASE esdb')).toBe('200 ');
}, 60_000);

afterAll(async () => {
  await server?.stop();
  server?.cleanup();
});

describe('@elastic/elasticsearch (the official client)', () => {
  const client = (password = PASSWORD, headers: Record<string, string> = {}) =>
    new Client({ node: base, auth: { username: 'root', password }, headers, maxRetries: 0 });

  it('answers info and ping, and bulk writes into the tables its actions name', async () => {
    const c = client();
    const info = await c.info();
    expect([info.version.number, info.tagline, info.cluster_name]).toEqual([
      '8.19.0',
      'You Know, for Search',
      'sundial',
    ]);
    expect(await c.ping()).toBe(true);
    const r = await c.bulk({
      operations: [
        { index: { _index: 'js_web' } },
        { time: '2024-01-31T12:00:00Z', path: '/a', status: 200, ok: true },
        { create: { _index: 'js_app' } },
        { time: '2024-01-31T12:00:01.5Z', level: 'warn', msg: 'disk at 91%' },
        { index: { _index: 'js_web', _id: 'x1' } },
        { time: '2024-01-31T12:00:02Z', path: '/b', status: 404, ok: false },
      ],
    });
    expect(r.errors).toBe(false);
    expect(r.items.map((i) => Object.entries(i).map(([action, v]) => [action, v._index, v.status]))).toEqual([
      [['index', 'js_web', 201]],
      [['create', 'js_app', 201]],
      [['index', 'js_web', 201]],
    ]);
    expect(await sql('SELECT * FROM js_web ORDER BY time')).toBe(
      '200 time,ok,path,status\n2024-01-31T12:00:00.000000000,true,/a,200.0\n2024-01-31T12:00:02.000000000,false,/b,404.0\n',
    );
    expect(await sql('SELECT * FROM js_app')).toBe(
      '200 time,level,msg\n2024-01-31T12:00:01.500000000,warn,disk at 91%\n',
    );
  });

  it('helpers.bulk: documents into the index of each, a bad one dropped with its error, the rest stored', async () => {
    const docs = Array.from({ length: 40 }, (_, i) => ({
      time: `2024-02-01T00:00:${String(i).padStart(2, '0')}Z`,
      kind: i % 2 === 0 ? 'even' : 'odd',
      n: i,
      tags: { host: `h${i % 3}` },
    }));
    const dropped: Array<{ status: number; error: unknown }> = [];
    const stats = await client().helpers.bulk({
      datasource: [...docs, { time: '2024-02-01T00:01:00Z', kind: 'even', n: null }],
      onDocument: (d) => ({ create: { _index: `js_${d.kind}` } }),
      onDrop: (d) => dropped.push({ status: d.status, error: d.error }),
      flushBytes: 1024,
      refreshOnCompletion: true,
    });
    expect([stats.total, stats.successful, stats.failed]).toEqual([41, 40, 1]);
    // The line is the document's in the request the helper built for it.
    expect(dropped).toEqual([
      {
        status: 400,
        error: {
          type: 'document_parsing_exception',
          reason: expect.stringMatching(/^line \d+: column 'n' is null; null values are not supported$/),
        },
      },
    ]);
    for (const kind of ['even', 'odd']) {
      const want = docs
        .filter((d) => d.kind === kind)
        .map((d) => `${d.time.slice(0, 19)}.000000000,${d.kind},${d.n}.0,${d.tags.host}`);
      expect(await sql(`SELECT time, kind, n, "tags.host" FROM js_${kind} ORDER BY time`)).toBe(
        `200 time,kind,n,tags.host\n${want.join('\n')}\n`,
      );
    }
  });

  it('reports a wrong password, an unknown database and a tenant that is not the user’s as Elasticsearch errors, storing nothing', async () => {
    const bulk = (c: Client) =>
      c.bulk({ operations: [{ index: { _index: 'js_lost' } }, { v: 1 }] }).then(
        () => undefined,
        (e: unknown) => e as errors.ResponseError,
      );
    const cases: Array<[Client, number, string]> = [
      [client('wrong'), 401, 'security_exception'],
      [client(PASSWORD, { db: 'nope' }), 404, 'index_not_found_exception'],
      [client(PASSWORD, { tenant: 'elsewhere' }), 403, 'security_exception'],
    ];
    for (const [c, status, type] of cases) {
      const e = await bulk(c);
      expect([e?.statusCode, (e?.body as { error: { type: string } } | undefined)?.error.type]).toEqual([status, type]);
    }
    expect(await sql('SELECT * FROM js_lost')).toMatch(/^422 .*Table not found/);
  });
});

describe('pino-elasticsearch', () => {
  it('ships a logger’s lines into its index, and the bulk helper’s closing refresh succeeds', async () => {
    const stream = pinoElastic({
      index: 'pino_logs',
      node: base,
      auth: { username: 'root', password: PASSWORD },
      esVersion: 8,
      flushBytes: 200,
      flushInterval: 50,
    });
    const errorsSeen: unknown[] = [];
    stream.on('insertError', (e: unknown) => errorsSeen.push(e));
    stream.on('error', (e: unknown) => errorsSeen.push(e));
    const inserted = new Promise<{ total: number; successful: number; failed: number }>((resolve) =>
      stream.on('insert', resolve),
    );
    // pino stamps milliseconds. Documents of one series at one time are kept apart within a bulk
    // request, not across two (docs/logs.md "Known limit"), and the stream may cut a millisecond
    // between two requests, so each line here gets a millisecond of its own.
    const start = Date.now();
    let tick = start;
    const logger = pino({ base: { service: 'shop' }, timestamp: () => `,"time":${tick++}` }, stream);
    for (let i = 0; i < 12; i++) logger.info({ order: i, paid: i % 3 === 0 }, `order ${i} placed`);
    logger.warn({ order: 99 }, 'slow payment');
    stream.end();
    const stats = await inserted;
    expect(errorsSeen).toEqual([]);
    expect([stats.total, stats.successful, stats.failed]).toEqual([13, 13, 0]);
    const r = await http(server.url, '/api/v1/sql?db=public', {
      body: 'SELECT * FROM pino_logs ORDER BY "order"',
      auth: null,
      headers: { authorization: basic('root', PASSWORD), accept: 'application/json' },
    });
    const rows = JSON.parse(r.text) as Array<Record<string, unknown>>;
    expect(rows.map(({ time, ...rest }) => rest)).toEqual([
      ...Array.from({ length: 12 }, (_, i) => ({
        level: 30,
        msg: `order ${i} placed`,
        order: i,
        paid: i % 3 === 0,
        service: 'shop',
      })),
      { level: 40, msg: 'slow payment', order: 99, paid: null, service: 'shop' },
    ]);
    // pino-elasticsearch sends pino's milliseconds as ISO strings.
    const times = rows.map((row) => Date.parse(`${row.time as string}Z`));
    expect(times[0]).toBeGreaterThanOrEqual(start);
    expect(times).toEqual(Array.from({ length: 13 }, (_, i) => times[0]! + i));
  });
});

describe('python3-elasticsearch 7.17 (Debian)', () => {
  it('verifies the server, pings, and bulk writes with index names; a bad document is an error item', async () => {
    expect(
      existsSync(PYTHON),
      'Debian python3 is missing: apt-get install python3-elasticsearch (.ci/run installs it)',
    ).toBe(true);
    const probe = await run(PYTHON, ['-c', 'import elasticsearch'], { timeout: 30_000 }).then(
      () => '',
      (e: Error) => e.message,
    );
    expect(
      probe,
      'the Debian package python3-elasticsearch is not installed: apt-get install python3-elasticsearch (.ci/run installs it)',
    ).toBe('');
    const script = `
import json, warnings
warnings.simplefilter('error')
from elasticsearch import Elasticsearch, helpers
from elasticsearch.exceptions import AuthenticationException, NotFoundError
es = Elasticsearch(['${base}'], http_auth=('root', '${PASSWORD}'))
print(json.dumps([es.info()['version']['number'], es.ping()]))
docs = [{'_index': 'py_logs' if i % 2 == 0 else 'py_audit', '_source': {'time': '2024-03-01T00:00:%02dZ' % i, 'user': 'u%d' % i, 'n': i}} for i in range(6)]
docs.append({'_index': 'py_logs', '_source': {'time': '2024-03-01T00:01:00Z', 'user': None}})
ok, errs = helpers.bulk(es, docs, raise_on_error=False)
print(json.dumps([ok, [[e['index']['status'], e['index']['error']['type']] for e in errs]]))
try:
    Elasticsearch(['${base}'], http_auth=('root', 'wrong')).bulk(body=[{'index': {'_index': 'py_lost'}}, {'v': 1}])
except AuthenticationException as e:
    print(json.dumps([e.status_code, e.error]))
try:
    es.bulk(body=[{'index': {'_index': 'py_lost'}}, {'v': 1}], headers={'db': 'nope'})
except NotFoundError as e:
    print(json.dumps([e.status_code, e.error]))
`;
    const { stdout } = await run(PYTHON, ['-c', script], { timeout: 60_000 });
    expect(
      stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual([
      ['8.19.0', true],
      [6, [[400, 'document_parsing_exception']]],
      [401, 'security_exception'],
      [404, 'index_not_found_exception'],
    ]);
    expect(await sql('SELECT * FROM py_logs ORDER BY time')).toBe(
      '200 time,n,user\n2024-03-01T00:00:00.000000000,0.0,u0\n2024-03-01T00:00:02.000000000,2.0,u2\n2024-03-01T00:00:04.000000000,4.0,u4\n',
    );
    expect(await sql('SELECT * FROM py_audit ORDER BY time')).toBe(
      '200 time,n,user\n2024-03-01T00:00:01.000000000,1.0,u1\n2024-03-01T00:00:03.000000000,3.0,u3\n2024-03-01T00:00:05.000000000,5.0,u5\n',
    );
    expect(await sql('SELECT * FROM py_lost')).toMatch(/^422 .*Table not found/);
  }, 90_000);
});

describe('rsyslog omelasticsearch (Debian rsyslog-elasticsearch)', () => {
  it('ships the lines of a file in bulk mode into its searchIndex, with no query string', async () => {
    expect(
      existsSync(RSYSLOGD),
      'rsyslogd is missing: apt-get install rsyslog rsyslog-elasticsearch (.ci/run installs them)',
    ).toBe(true);
    expect(
      existsSync(OMELASTICSEARCH),
      'omelasticsearch is missing: apt-get install rsyslog-elasticsearch (.ci/run installs it)',
    ).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'sundial-rsyslog-'));
    const input = join(dir, 'app.log');
    const lines = ['service started', 'user "ann" logged in', 'disk at 91%, rotating', 'ünïcödé line'];
    writeFileSync(input, '');
    writeFileSync(
      join(dir, 'rsyslog.conf'),
      `global(workDirectory="${dir}")
module(load="imfile" mode="polling" PollingInterval="1")
module(load="omelasticsearch")
input(type="imfile" File="${input}" Tag="app:" Severity="warning" Facility="local0")
template(name="doc" type="list" option.jsonf="on") {
  property(outname="time" name="timereported" dateFormat="rfc3339" format="jsonf")
  property(outname="message" name="msg" format="jsonf")
  property(outname="tag" name="syslogtag" format="jsonf")
  property(outname="severity" name="syslogseverity-text" format="jsonf")
}
action(type="omelasticsearch" server="${base}" searchIndex="rsyslog_app" template="doc" bulkmode="on" uid="root" pwd="${PASSWORD}" errorfile="${join(dir, 'errors.json')}" action.resumeInterval="1" action.resumeRetryCount="-1")
`,
    );
    const rsyslogd = spawn(RSYSLOGD, ['-n', '-f', join(dir, 'rsyslog.conf'), '-i', join(dir, 'rsyslogd.pid')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    rsyslogd.stdout.on('data', (c: Buffer) => (output += c.toString()));
    rsyslogd.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<void>((resolve) => rsyslogd.once('exit', () => resolve()));
    try {
      // One line per poll of the file: lines of one series at one time from two requests are one
      // row in Sundial (docs/logs.md "Known limit").
      let got = '';
      for (let n = 1; n <= lines.length; n++) {
        appendFileSync(input, `${lines[n - 1]}\n`);
        for (let waited = 0; waited < 20_000; waited += 100) {
          got = await sql('SELECT message, tag, severity FROM rsyslog_app ORDER BY time');
          if (got.startsWith('200 ') && got.trim().split('\n').length === n + 1) break;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      expect(got, output).toBe(
        `200 message,tag,severity\n${lines.map((l) => `${l.includes(',') || l.includes('"') ? `"${l.replaceAll('"', '""')}"` : l},app:,warning`).join('\n')}\n`,
      );
      expect(existsSync(join(dir, 'errors.json')), output).toBe(false);
    } finally {
      rsyslogd.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
