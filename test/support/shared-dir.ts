// Where the workspace's shared fixtures are (SUNDIAL_SHARED_DIR, or the nearest `shared` folder
// beside this repository or a folder above it, as for a worktree): CnosDB's conformance cases,
// which are AGPL data read in place and never copied here, and the benchmarks' scripts. A clone made outside the workspace has none; the tests that read them then skip
// with a warning naming the path they looked at, instead of failing on a missing folder.

import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const REPO = new URL('../..', import.meta.url).pathname;

function nearestShared(): string {
  for (let dir = resolve(REPO, '..'); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'shared'))) return join(dir, 'shared');
    if (dirname(dir) === dir) return resolve(REPO, '..', 'shared');
  }
}

export const SHARED_DIR = resolve(process.env.SUNDIAL_SHARED_DIR ?? nearestShared());

/** The benchmarks' shared scripts and query lists (`shared/bench/`). */
export const SHARED_BENCH_DIR = join(SHARED_DIR, 'bench') + '/';

/** CnosDB's sqllogictest cases, or undefined when the shared folder is absent. */
export const CONFORMANCE_DIR: string | undefined = (() => {
  const dir = join(SHARED_DIR, 'conformance', 'cnosdb');
  if (existsSync(dir)) return dir + '/';
  console.warn(
    `shared fixtures not found at ${dir} (set SUNDIAL_SHARED_DIR): tests that read CnosDB's cases are skipped`,
  );
  return undefined;
})();
