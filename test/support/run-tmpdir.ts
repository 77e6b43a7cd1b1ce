// One temporary folder per test run, made TMPDIR for the run's workers and every process they
// start: what a test leaves behind (a vitest worker that dies skips its afterAll) goes with it.
// A run killed before its teardown leaves its folder; the next run removes it (its owner is dead).

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

const PREFIX = 'sundial-run-';
const OWNER = 'owner.pid';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists, another user's.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid in a run folder's owner file; NaN while there is none. */
function ownerOf(dir: string): number {
  const owner = join(dir, OWNER);
  return existsSync(owner) ? Number(readFileSync(owner, 'utf8')) : Number.NaN;
}

/** Removes `dir` as far as it can: a tmpfs a dead test left mounted in it stays, and so does its folder. */
function remove(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
  } catch (e) {
    process.stderr.write(`test run: could not remove ${dir}: ${(e as Error).message}\n`);
  }
}

/** Makes this run's folder, sets TMPDIR to it, removes those of runs that died; returns the teardown. */
export function useRunTmpdir(base = tmpdir()): () => void {
  // Vitest runs the global setup once a project, in one process: the first one's folder serves all.
  if (basename(base).startsWith(PREFIX) && ownerOf(base) === process.pid) return () => undefined;
  for (const name of readdirSync(base)) {
    if (!name.startsWith(PREFIX)) continue;
    const pid = ownerOf(join(base, name));
    // A folder without its owner file is one being made right now (or a run of the old layout): keep.
    if (Number.isInteger(pid) && pid > 0 && !alive(pid)) remove(join(base, name));
  }
  const dir = mkdtempSync(join(base, PREFIX));
  writeFileSync(join(dir, OWNER), String(process.pid));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    remove(dir);
  };
}
