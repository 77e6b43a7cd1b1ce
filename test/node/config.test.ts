// Configuration sources and their order (defaults < TOML file < environment < flags), value
// syntax, and bad configuration stopping the server at startup with a message naming it.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, SETTINGS } from '../../host/node/config.js';

const dir = mkdtempSync(join(tmpdir(), 'sundial-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function toml(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('loadConfig', () => {
  it('starts from the built-in defaults', () => {
    const c = loadConfig({ argv: [], env: {} });
    for (const s of SETTINGS) expect(c[s.key], s.key).toBe(s.default);
  });

  it('parses with one worker per core but one, at least one, unless told otherwise', () => {
    expect(loadConfig({ argv: [], env: {} })['ingest.parse_workers']).toBe(Math.max(1, availableParallelism() - 1));
    expect(loadConfig({ argv: ['--parse-workers', '0'], env: {} })['ingest.parse_workers']).toBe(0);
    expect(loadConfig({ argv: [], env: { SUNDIAL_PARSE_WORKERS: '3' } })['ingest.parse_workers']).toBe(3);
  });

  it('lets the file override defaults, the environment the file, and flags the environment', () => {
    const file = toml(
      'layers.toml',
      '[server]\nport = 1001\nhost = "127.0.0.2"\n[storage]\ndata_dir = "/from/file"\nwal_sync = false\n',
    );
    const env = { SUNDIAL_PORT: '1002', SUNDIAL_DATA_DIR: '/from/env' };
    const c = loadConfig({ argv: ['--config', file, '--port', '1003'], env });
    expect([c['server.port'], c['storage.data_dir'], c['server.host'], c['storage.wal_sync']]).toEqual([
      1003,
      '/from/env',
      '127.0.0.2',
      false,
    ]);
  });

  it('reads the file named by SUNDIAL_CONFIG', () => {
    const file = toml('env.toml', '[log]\nlog_level = "warn"\n');
    expect(loadConfig({ argv: [], env: { SUNDIAL_CONFIG: file } })['log.log_level']).toBe('warn');
  });

  const values: Array<[string, string, number | boolean]> = [
    ['--write-body-bytes', '1048576', 1048576],
    ['--write-body-bytes', '64MiB', 64 * 1024 * 1024],
    ['--write-body-bytes', '500MB', 500_000_000],
    ['--query-timeout', '30000', 30_000],
    ['--query-timeout', '30s', 30_000],
    ['--query-timeout', '10m', 600_000],
    ['--wal-sync', 'false', false],
    ['--wal-sync', '1', true],
  ];
  for (const [flag, text, want] of values) {
    it(`reads ${flag} ${text}`, () => {
      const c = loadConfig({ argv: [flag, text], env: {} }) as unknown as Record<string, unknown>;
      const key = SETTINGS.find(
        (s) => '--' + s.key.slice(s.key.lastIndexOf('.') + 1).replaceAll('_', '-') === flag,
      )!.key;
      expect(c[key]).toBe(want);
    });
  }

  const bad: Array<[string, () => unknown, RegExp]> = [
    ['an unknown flag', () => loadConfig({ argv: ['--nope', '1'], env: {} }), /nope/],
    [
      'a bad size',
      () => loadConfig({ argv: ['--memtable-bytes', '12 parsecs'], env: {} }),
      /storage\.memtable_bytes from flag --memtable-bytes/,
    ],
    [
      'a bad duration in the environment',
      () => loadConfig({ argv: [], env: { SUNDIAL_QUERY_TIMEOUT: 'soon' } }),
      /limits\.query_timeout from environment variable SUNDIAL_QUERY_TIMEOUT/,
    ],
    ['a port out of range', () => loadConfig({ argv: ['--port', '70000'], env: {} }), /server\.port/],
    ['a bad log level', () => loadConfig({ argv: ['--log-level', 'loud'], env: {} }), /log\.log_level/],
    [
      'an unknown key in the file',
      () => loadConfig({ argv: ['--config', toml('typo.toml', '[server]\nprot = 1\n')], env: {} }),
      /unknown setting\(s\) .*server\.prot/,
    ],
    [
      'a value of the wrong type in the file',
      () => loadConfig({ argv: ['--config', toml('type.toml', '[server]\nport = "x"\n')], env: {} }),
      /server\.port from config file/,
    ],
    [
      'a file that is not TOML',
      () => loadConfig({ argv: ['--config', toml('bad.toml', '[server\n')], env: {} }),
      /cannot read config file/,
    ],
    [
      'a missing file',
      () => loadConfig({ argv: ['--config', join(dir, 'missing.toml')], env: {} }),
      /cannot read config file/,
    ],
  ];
  for (const [name, run, message] of bad) {
    it(`rejects ${name}, naming it`, () => {
      expect(run).toThrow(message);
    });
  }
});

describe('the sundial command', () => {
  it('stops at startup with exit code 2 and a message naming a bad setting', () => {
    const main = new URL('../../dist/host/cli/main.js', import.meta.url).pathname;
    const r = spawnSync(process.execPath, [main, '--data-dir', join(dir, 'data'), '--wal-segment-bytes', 'lots'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^sundial: invalid storage\.wal_segment_bytes from flag --wal-segment-bytes: "lots"/);
  });
});
