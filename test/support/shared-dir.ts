// Where the workspace's shared fixtures are (`../shared` beside this repository, or
// SUNDIAL_SHARED_DIR): CnosDB's conformance cases, which are AGPL data read in place and never
// copied here. A clone made outside the workspace has none; the tests that read them then skip
// with a warning naming the path they looked at, instead of failing on a missing folder.

import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const REPO = new URL('../..', import.meta.url).pathname;

export const SHARED_DIR = resolve(process.env.SUNDIAL_SHARED_DIR ?? join(REPO, '..', 'shared'));

/** CnosDB's sqllogictest cases, or undefined when the shared folder is absent. */
export const CONFORMANCE_DIR: string | undefined = (() => {
  const dir = join(SHARED_DIR, 'conformance', 'cnosdb');
  if (existsSync(dir)) return dir + '/';
  console.warn(`shared fixtures not found at ${dir} (set SUNDIAL_SHARED_DIR): tests that read CnosDB's cases are skipped`);
  return undefined;
})();
