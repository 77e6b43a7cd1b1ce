// The `sundial` command as a user runs it: bin/sundial.js (package.json "bin") spawned as a
// program, and `npx sundial` from the checkout. Help and version on every command, serve's flags
// generated from the settings table, and the exit codes scripts rely on (0, 1, 2).

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envName, flagName, SETTINGS } from '../../host/node/config.js';
import { http } from '../support/http.js';
import { startServer } from '../support/server.js';

const root = new URL('../..', import.meta.url).pathname;
const BIN = join(root, 'bin', 'sundial.js');
const VERSION = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
const dir = mkdtempSync(join(tmpdir(), 'sundial-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The environment without SUNDIAL_* settings, which would change what the command reads. */
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SUNDIAL_')));

function sundial(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(BIN, args, { encoding: 'utf8', env, timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('sundial --version', () => {
  for (const args of [
    ['--version'],
    ['-V'],
    ['version'],
    ['serve', '--version'],
    ['serve', '-V'],
    ['sql', '--version'],
    ['--port', '0', '--version'],
  ]) {
    it(`prints the package's version for ${args.join(' ')}`, () => {
      expect(sundial(...args)).toEqual({ status: 0, stdout: `sundial ${VERSION}\n`, stderr: '' });
    });
  }

  it('runs from the checkout as npx sundial', () => {
    // The user's npx, not the older npm some dependency installs in node_modules/.bin (which
    // `npx vitest` puts first on PATH); offline, so that a miss fails instead of installing.
    const path = (env.PATH ?? '')
      .split(':')
      .filter((p) => !p.includes('node_modules/.bin'))
      .join(':');
    const r = spawnSync('npx', ['sundial', '--version'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...env, PATH: path, npm_config_offline: 'true' },
      timeout: 60_000,
    });
    expect([r.status, r.stdout, r.stderr]).toEqual([0, `sundial ${VERSION}\n`, '']);
  });
});

describe('sundial --help', () => {
  const cases: Array<[string, string[], string]> = [
    ['the command', ['--help'], 'Usage: sundial [command] [options]\n'],
    ['the command', ['-h'], 'Usage: sundial [command] [options]\n'],
    ['the command', ['help'], 'Usage: sundial [command] [options]\n'],
    ['the command', ['help', 'help'], 'Usage: sundial [command] [options]\n'],
    ['serve', ['serve', '--help'], 'Usage: sundial serve [options]\n'],
    ['serve', ['serve', '-h'], 'Usage: sundial serve [options]\n'],
    ['serve', ['help', 'serve'], 'Usage: sundial serve [options]\n'],
    ['serve', ['--port', '0', '--help'], 'Usage: sundial serve [options]\n'],
    ['sql', ['sql', '--help'], 'Usage: sundial sql [options] [-e STATEMENT]... [-f FILE]...\n'],
    ['sql', ['help', 'sql'], 'Usage: sundial sql [options] [-e STATEMENT]... [-f FILE]...\n'],
    ['version', ['version', '--help'], 'Usage: sundial version\n'],
    ['version', ['help', 'version'], 'Usage: sundial version\n'],
  ];
  for (const [what, args, first] of cases) {
    it(`prints the help of ${what} for ${args.join(' ')}, in 80 columns`, () => {
      const r = sundial(...args);
      expect([r.status, r.stderr, r.stdout.slice(0, first.length)]).toEqual([0, '', first]);
      expect(r.stdout.split('\n').filter((l) => l.length > 80)).toEqual([]);
    });
  }

  it('lists every command and the exit codes', () => {
    const { stdout } = sundial('--help');
    for (const text of [
      '\n  serve ',
      '\n  sql ',
      '\n  version ',
      '\n  help ',
      '\n  0  done',
      '\n  1  runtime failure',
      '\n  2  usage error',
    ])
      expect(stdout).toContain(text);
  });

  it("lists every setting of the table as serve's flag, with its key, variable and default", () => {
    const { stdout } = sundial('serve', '--help');
    const flags = [...stdout.matchAll(/^ {2}(-h, |-V, )?--([a-z0-9-]+)/gm)].map((m) => m[2]);
    expect(flags).toEqual(['config', ...SETTINGS.map((s) => flagName(s.key)), 'help', 'version']);
    const text = stdout.replace(/\n +/g, ' ');
    for (const s of SETTINGS) expect(text, s.key).toContain(`[${s.key}; ${envName(s.key)}; default `);
    expect(text).toContain('[storage.wal_segment_bytes; SUNDIAL_WAL_SEGMENT_BYTES; default 64MiB]');
    expect(text).toContain('[limits.query_timeout; SUNDIAL_QUERY_TIMEOUT; default 10m]');
    expect(text).toContain('[server.pg_port; SUNDIAL_PG_PORT; default off]');
  });
});

describe('usage errors exit 2', () => {
  const cases: Array<[string[], RegExp]> = [
    [['frobnicate'], /^sundial: unknown command 'frobnicate'; see sundial --help\n$/],
    [['help', 'frobnicate'], /^sundial: unknown command 'frobnicate'; see sundial --help\n$/],
    [['help', 'serve', 'version'], /^sundial: help takes one command, got 2; see sundial --help\n$/],
    [['version', 'extra'], /^sundial: Unexpected argument 'extra'/],
    [['version', '--port', '1'], /^sundial: Unknown option '--port'/],
    [['serve', '--no-such-setting', '1'], /^sundial: Unknown option '--no-such-setting'.*see sundial serve --help\n$/s],
    [['serve', 'extra'], /^sundial: Unexpected argument 'extra'/],
    [['serve', '--port'], /^sundial: Option '--port <value>' argument missing/],
    [
      ['serve', '--port', 'eighty'],
      /^sundial: invalid server\.port from flag --port: "eighty" \(want a non-negative integer\); see sundial serve --help\n$/,
    ],
    [
      ['--wal-sync', 'maybe'],
      /^sundial: invalid storage\.wal_sync from flag --wal-sync: "maybe" \(want true or false\)/,
    ],
    [
      ['serve', '--config', '/nonexistent/sundial.toml'],
      /^sundial: cannot read config file \/nonexistent\/sundial\.toml: /,
    ],
  ];
  for (const [args, message] of cases) {
    it(`for ${args.join(' ')}`, () => {
      const r = sundial(...args);
      expect([r.status, r.stdout]).toEqual([2, '']);
      expect(r.stderr).toMatch(message);
    });
  }
});

describe('sundial serve', () => {
  let taken: Server;
  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

  it('serves until SIGTERM, then exits 0', async () => {
    const server = await startServer({
      main: BIN,
      command: ['serve'],
      args: ['--warmup', 'false', '--write-warmup', 'false', '--parse-warmup', 'false'],
    });
    try {
      const r = await http(server.url, '/api/v1/ping');
      expect([r.status, JSON.parse(r.body.toString()).status]).toEqual([200, 'healthy']);
      expect(await server.stop()).toBe(0);
    } finally {
      server.cleanup();
    }
  });

  it('exits 1 when it cannot start: its port is taken', () => {
    const port = (taken.address() as { port: number }).port;
    const r = sundial(
      'serve',
      '--port',
      String(port),
      '--data-dir',
      join(dir, 'taken'),
      '--log-level',
      'fatal',
      '--warmup',
      'false',
    );
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/"msg":"startup failed"/);
    expect(r.stdout).toMatch(/EADDRINUSE/);
  });
});
