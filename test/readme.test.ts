// The README is the user's manual: every setting and every error code must be listed in it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { envName, flagName, SETTINGS } from '../host/cli/config.js';
import { ERRORS } from '../host/core/errors.js';
import { LAUNCH_ENV } from './support/server.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('shows the two commands first', () => {
    expect(readme.indexOf('npm install && npm start')).toBeGreaterThan(0);
    expect(readme.indexOf('npm install && npm start')).toBeLessThan(800);
    expect(readme).toContain('npm test');
  });

  it('documents the environment npm start gives the server, the one tests and benches start it with', () => {
    const start = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> }).scripts.start!;
    for (const [name, value] of Object.entries(LAUNCH_ENV)) {
      expect(start).toContain(`${name}=\${${name}:-${value}}`);
      expect(readme).toContain(`\`${name}=${value}\``);
    }
  });

  for (const s of SETTINGS) {
    it(`lists the setting ${s.key} with its environment variable and flag`, () => {
      const row = readme.split('\n').find((l) => l.startsWith(`| \`${s.key}\` |`));
      expect(row, `no README row for ${s.key}`).toBeDefined();
      expect(row).toContain(`\`${envName(s.key)}\``);
      expect(row).toContain(`\`--${flagName(s.key)}\``);
    });
  }

  for (const [kind, e] of Object.entries(ERRORS)) {
    it(`lists error ${e.code} (${kind}) with status ${e.status}`, () => {
      expect(readme).toContain(`| \`${e.code}\` | ${e.status} |`);
    });
  }
});
