// `sundial sql -e/-f` against a real server: statements in the order given, one request each,
// answers in the format asked for, the first failure stopping the rest with exit 1.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';

const BIN = new URL('../../bin/sundial.js', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'sundial-sql-'));
/** The environment without SUNDIAL_* settings, which would change what the command reads. */
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SUNDIAL_')));

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ args: ['--warmup', 'false', '--write-warmup', 'false', '--parse-warmup', 'false'] });
});
afterAll(async () => {
  await server.stop();
  server.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function sql(
  args: string[],
  options: { input?: string; env?: Record<string, string> } = {},
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(BIN, ['sql', '--url', server.url, ...args], {
    encoding: 'utf8',
    env: { ...env, ...options.env },
    input: options.input ?? '',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('sundial sql', () => {
  it('runs -e and -f statements in the order given, one answer each', () => {
    const file = join(dir, 'script.sql');
    writeFileSync(
      file,
      "INSERT INTO cli_t (time, host, v) VALUES (1, 'a', 1.5);\n-- a comment; not a statement\nINSERT INTO cli_t (time, host, v) VALUES (2, 'b', 2.5);\n",
    );
    const r = sql([
      '--format',
      'csv',
      '-e',
      'CREATE TABLE cli_t (v DOUBLE, TAGS(host))',
      '-f',
      file,
      '-e',
      'SELECT host, v FROM cli_t ORDER BY time; SELECT count(*) AS n FROM cli_t',
    ]);
    expect(r).toEqual({ status: 0, stdout: 'rows\n1\nrows\n1\nhost,v\na,1.5\nb,2.5\nn\n2\n', stderr: '' });
  });

  const formats: Array<[string, string]> = [
    ['csv', 'host,v\na,1.5\n'],
    ['tsv', 'host\tv\na\t1.5\n'],
    ['ndjson', '{"host":"a","v":1.5}\n'],
    ['json', '[{"host":"a","v":1.5}]\n'],
  ];
  for (const [format, want] of formats) {
    it(`prints answers as ${format}`, () => {
      expect(sql(['--format', format, '-e', "SELECT host, v FROM cli_t WHERE host = 'a'"])).toEqual({
        status: 0,
        stdout: want,
        stderr: '',
      });
    });
  }

  it('prints a text table by default, ending each answer with a newline', () => {
    const r = sql(['-e', "SELECT host FROM cli_t WHERE host = 'a'"]);
    expect([r.status, r.stdout]).toEqual([0, '+------+\n| host |\n+------+\n| a    |\n+------+\n']);
  });

  it('reads the statements from a piped stdin, and the password from SUNDIAL_PASSWORD', () => {
    const r = sql(['--format', 'csv'], { input: 'SELECT count(*) AS n FROM cli_t;', env: { SUNDIAL_PASSWORD: '' } });
    expect(r).toEqual({ status: 0, stdout: 'n\n2\n', stderr: '' });
  });

  it('stops at the first failure with exit 1, naming the statement and the error', () => {
    const r = sql(['--format', 'csv', '-e', 'SELECT count(*) AS n FROM cli_t; SELECT * FROM no_such_table; SELECT 1']);
    expect([r.status, r.stdout]).toEqual([1, 'n\n2\n']);
    expect(r.stderr).toBe(
      'sundial: statement 2 of 3: 422 030019 Meta: Table not found: "cnosdb.public.no_such_table"\n',
    );
  });

  it('exits 1 when the credentials are refused', () => {
    const r = sql(['-u', 'nobody', '-e', 'SELECT 1']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^sundial: 401 /);
  });

  const usage: Array<[string[], RegExp]> = [
    [
      ['--format', 'xml', '-e', 'SELECT 1'],
      /^sundial: unknown format 'xml' \(want table, csv, tsv, json, ndjson\); see sundial sql --help\n$/,
    ],
    [['-f', join(dir, 'missing.sql')], /^sundial: cannot read .*missing\.sql: ENOENT/],
    [['--no-such', 'x'], /^sundial: Unknown option '--no-such'/],
    [['-e'], /^sundial: Option '-e, --execute <value>' argument missing/],
    [['--data-dir', dir, '-e', 'SELECT 1'], /^sundial: give --url or --data-dir, not both; see sundial sql --help\n$/],
    [['-W', '-e', 'SELECT 1'], /^sundial: --password prompts on a terminal; without one, set SUNDIAL_PASSWORD\n$/],
  ];
  for (const [args, message] of usage) {
    it(`exits 2 for ${args.join(' ')}`, () => {
      const r = sql(args);
      expect([r.status, r.stdout]).toEqual([2, '']);
      expect(r.stderr).toMatch(message);
    });
  }
});

it('exits 1 when the server cannot be reached', async () => {
  // A port that was free a moment ago: nothing listens there.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const r = spawnSync(BIN, ['sql', '--url', `http://127.0.0.1:${port}`, '-e', 'SELECT 1'], {
    encoding: 'utf8',
    env,
    timeout: 60_000,
  });
  expect([r.status, r.stdout, r.stderr]).toEqual([
    1,
    '',
    `sundial: cannot reach http://127.0.0.1:${port}: ECONNREFUSED\n`,
  ]);
});

it('runs statements on a data directory in this process with --data-dir, and not on one a server has', async () => {
  const dataDir = join(dir, 'local');
  const run = (args: string[]): { status: number | null; stdout: string; stderr: string } => {
    const r = spawnSync(BIN, ['sql', '--data-dir', dataDir, '--format', 'csv', ...args], {
      encoding: 'utf8',
      env,
      input: '',
      timeout: 60_000,
    });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  expect(
    run(['-e', "CREATE TABLE local_t (v DOUBLE, TAGS(h)); INSERT INTO local_t (time, h, v) VALUES (1, 'a', 2.5)"]),
  ).toEqual({ status: 0, stdout: 'rows\n1\n', stderr: '' });
  expect(run(['-e', 'SELECT h, v FROM local_t; SELECT * FROM nope'])).toEqual({
    status: 1,
    stdout: 'h,v\na,2.5\n',
    stderr: 'sundial: statement 2 of 2: 422 030019 Meta: Table not found: "cnosdb.public.nope"\n',
  });
  expect(run(['-u', 'alice', '-e', 'SELECT 1']).stderr).toBe(
    'sundial: --user and --password do not apply to --data-dir (its statements run as root); see sundial sql --help\n',
  );
  const server = await startServer({
    dataDir,
    args: ['--warmup', 'false', '--write-warmup', 'false', '--parse-warmup', 'false'],
  });
  try {
    const r = run(['-e', 'SELECT 1']);
    expect([r.status, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toBe(
      `sundial: data directory ${dataDir} is in use: process ${server.pid} has it open (${join(dataDir, 'LOCK')}); stop or close that first, or use another directory\n`,
    );
  } finally {
    await server.stop();
  }
});
