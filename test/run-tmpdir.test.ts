// The tests' temporary folders (test/support/run-tmpdir.ts): this worker's TMPDIR is its run's
// folder, owned by the live vitest process, so a dead worker's leftovers go with the run; and a
// run that died before its teardown has its folder removed by the next run's setup.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useRunTmpdir } from './support/run-tmpdir.js';

describe("the run's temporary folder", () => {
  it('is TMPDIR of this worker and of the processes it starts, owned by a live process', () => {
    const dir = tmpdir();
    expect(basename(dir)).toMatch(/^sundial-run-/);
    const owner = Number(readFileSync(join(dir, 'owner.pid'), 'utf8'));
    expect(() => process.kill(owner, 0)).not.toThrow();
    const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(require("node:os").tmpdir())'], {
      encoding: 'utf8',
    });
    expect(child.stdout).toBe(dir);
  });

  describe('setup and teardown', () => {
    const base = mkdtempSync(join(tmpdir(), 'base-'));
    afterAll(() => rmSync(base, { recursive: true, force: true }));
    const run = (name: string, owner: number | undefined): void => {
      mkdirSync(join(base, name, 'sundial-test-left'), { recursive: true });
      if (owner !== undefined) writeFileSync(join(base, name, 'owner.pid'), String(owner));
    };

    it('removes the folders of dead runs, keeps live and unowned ones, and removes its own at the end', () => {
      const dead = spawnSync(process.execPath, ['-e', '']).pid!;
      run('sundial-run-dead', dead);
      run('sundial-run-live', process.pid);
      run('sundial-run-making', undefined);
      run('other-dead', dead);
      const before = process.env.TMPDIR;
      const teardown = useRunTmpdir(base);
      let own: string;
      try {
        own = process.env.TMPDIR!;
        expect(dirname(own)).toBe(base);
        expect(readFileSync(join(own, 'owner.pid'), 'utf8')).toBe(String(process.pid));
        expect(readdirSync(base).sort()).toEqual(
          ['other-dead', 'sundial-run-live', 'sundial-run-making', basename(own)].sort(),
        );
        mkdirSync(join(own, 'sundial-test-left'));
      } finally {
        teardown();
      }
      expect(process.env.TMPDIR).toBe(before);
      expect(existsSync(own)).toBe(false);
    });
  });
});
