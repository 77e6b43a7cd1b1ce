// `sundial check --data-dir DIR [--repair]`: checks every checksum of a data directory no server
// has open (node/data-dir-check.ts) and prints a line per problem, named relative to DIR. Exit 1
// when anything was found, repaired or not, so that scripts notice; on a running server, use
// CHECK DATABASE <name> [REPAIR] instead (a repair here would race the server's own writes).

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { checkDataDirectory, DataDirLockedError, EXIT_FAILURE } from '../node/index.js';
import { CommandError, UsageError } from './usage.js';

export async function checkCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { 'data-dir': { type: 'string' }, repair: { type: 'boolean' } },
    strict: true,
    allowPositionals: false,
  });
  const dir = values['data-dir'];
  if (dir === undefined) throw new UsageError('check needs --data-dir DIR; see sundial check --help');
  if (!existsSync(join(dir, 'catalog.json')) && !existsSync(join(dir, 'db')))
    throw new CommandError(`${dir} is not a Sundial data directory (no catalog.json, no db/)`, EXIT_FAILURE);
  let r: Awaited<ReturnType<typeof checkDataDirectory>>;
  try {
    r = await checkDataDirectory(dir, values.repair === true);
  } catch (e) {
    if (e instanceof DataDirLockedError)
      throw new CommandError(`${e.message}; on a running server use CHECK DATABASE <name> [REPAIR]`, EXIT_FAILURE);
    throw e;
  }
  const lines = r.problems.map(
    (p) =>
      `${p.file}${p.offset === null ? '' : ` at ${p.offset}`}: ${p.problem}${p.action === '' ? '' : ` -> ${p.action}`}`,
  );
  const what = `catalog.json, ${r.databases} database${r.databases === 1 ? '' : 's'}, ${r.segmentFiles} segment file${r.segmentFiles === 1 ? '' : 's'}, ${r.walSegments} WAL segment${r.walSegments === 1 ? '' : 's'}`;
  lines.push(
    `checked ${what} in ${dir}: ${r.problems.length === 0 ? 'no problems' : `${r.problems.length} problem${r.problems.length === 1 ? '' : 's'}`}`,
  );
  process.stdout.write(lines.join('\n') + '\n');
  if (r.problems.length > 0) process.exitCode = EXIT_FAILURE;
}
