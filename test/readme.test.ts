// The README is the front door and docs/ the manual: every setting and every error code must be
// listed on its docs page, and every page the README links to must exist.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { envName, flagName, SETTINGS } from '../host/node/config.js';
import { ERRORS } from '../host/core/errors.js';
import { LAUNCH_ENV, LAUNCH_NODE_ARGS } from './support/server.js';

const root = new URL('..', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');
const readme = read('README.md');
const configuration = read('docs/configuration.md');
const errors = read('docs/errors.md');

describe('README', () => {
  it('shows the two commands first', () => {
    expect(readme.indexOf('npm install && npm start')).toBeGreaterThan(0);
    expect(readme.indexOf('npm install && npm start')).toBeLessThan(800);
    expect(readme).toContain('npm test');
  });

  it('stays a front door of at most 150 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(150);
  });

  it('links only to files that exist', () => {
    const links = [...readme.matchAll(/\]\(([^)#]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(5);
    for (const link of links) expect(existsSync(new URL(link, root)), link).toBe(true);
  });
});

describe('README library example', () => {
  it('runs as written, in a program of its own that imports the package by name', () => {
    const block = /## In your own program[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block, 'no ```js block under "## In your own program"').toBeDefined();
    expect(block!.split('\n').filter((l) => l.trim() !== '').length).toBeLessThanOrEqual(10);
    const dir = mkdtempSync(join(tmpdir(), 'sundial-readme-'));
    try {
      // As an installed dependency: node_modules/sundial is the checkout (its package.json `exports`).
      mkdirSync(join(dir, 'node_modules'));
      symlinkSync(new URL('.', root).pathname, join(dir, 'node_modules', 'sundial'), 'dir');
      writeFileSync(join(dir, 'example.mjs'), block!);
      const out = execFileSync(process.execPath, ['example.mjs'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
      expect(out).toBe("[ { host: 'a', usage: 12.5 }, { host: 'b', usage: 40 } ]\n2 rows\n");
      expect(existsSync(join(dir, 'data', 'catalog.json'))).toBe(true);
      expect(existsSync(join(dir, 'data', 'LOCK'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('docs/configuration.md', () => {
  it('documents the environment and node options npm start gives the server, the ones tests and benches start it with', () => {
    const start = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.start!;
    for (const [name, value] of Object.entries(LAUNCH_ENV)) {
      expect(start).toContain(`${name}=\${${name}:-${value}}`);
      expect(configuration).toContain(`\`${name}=${value}\``);
    }
    expect(start).toContain(`node ${LAUNCH_NODE_ARGS.join(' ')} dist/host/cli/main.js serve`);
    for (const arg of LAUNCH_NODE_ARGS) expect(configuration).toContain(`\`${arg}\``);
  });

  for (const s of SETTINGS) {
    it(`lists the setting ${s.key} with its environment variable and flag`, () => {
      const row = configuration.split('\n').find((l) => l.startsWith(`| \`${s.key}\` |`));
      expect(row, `no row for ${s.key}`).toBeDefined();
      expect(row).toContain(`\`${envName(s.key)}\``);
      expect(row).toContain(`\`--${flagName(s.key)}\``);
    });
  }
});

describe('docs/errors.md', () => {
  for (const [kind, e] of Object.entries(ERRORS)) {
    it(`lists error ${e.code} (${kind}) with status ${e.status}`, () => {
      expect(errors).toContain(`| \`${e.code}\` | ${e.status} |`);
    });
  }
});
