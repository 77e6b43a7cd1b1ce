// `sundial sql`: parses its arguments, reads the statements (-e, -f, or a piped stdin, in the
// order given) and runs them through node's SQL client (node/sql-client.ts). The interactive
// shell of issue 29 is not built yet: on a terminal without -e or -f this is a usage error.

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { EXIT_FAILURE, runSql, SQL_FORMATS, SqlClientError, statementsOf, type SqlFormat } from '../node/index.js';
import { CommandError, UsageError } from './usage.js';

const DEFAULT_URL = 'http://127.0.0.1:8902';

function isFormat(name: string): name is SqlFormat {
  return Object.hasOwn(SQL_FORMATS, name);
}

/** The text of `-f` FILE; `-` is stdin. */
function readScript(path: string): string {
  try {
    return readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${path === '-' ? 'stdin' : path}: ${(e as Error).message}`);
  }
}

export async function sqlCommand(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const { values, tokens } = parseArgs({
    args,
    options: {
      url: { type: 'string' },
      user: { type: 'string', short: 'u' },
      tenant: { type: 'string', short: 't' },
      database: { type: 'string', short: 'd' },
      format: { type: 'string' },
      execute: { type: 'string', short: 'e', multiple: true },
      file: { type: 'string', short: 'f', multiple: true },
    },
    strict: true,
    allowPositionals: false,
    tokens: true,
  });
  const format = values.format ?? 'table';
  if (!isFormat(format)) throw new UsageError(`unknown format '${format}' (want ${Object.keys(SQL_FORMATS).join(', ')}); see sundial sql --help`);
  const url = values.url ?? env.SUNDIAL_URL ?? DEFAULT_URL;
  if (!URL.canParse(url)) throw new UsageError(`invalid --url '${url}' (want a URL like ${DEFAULT_URL})`);

  const statements: string[] = [];
  for (const t of tokens) {
    if (t.kind !== 'option' || t.value === undefined) continue;
    if (t.name === 'execute') statements.push(...statementsOf(t.value));
    if (t.name === 'file') statements.push(...statementsOf(readScript(t.value)));
  }
  if (values.execute === undefined && values.file === undefined) {
    if (process.stdin.isTTY) {
      throw new UsageError('give statements with -e or -f, or pipe them in (the interactive shell is not built yet); see sundial sql --help');
    }
    statements.push(...statementsOf(readScript('-')));
  }

  const options = {
    url,
    user: values.user ?? 'root',
    password: env.SUNDIAL_PASSWORD ?? '',
    tenant: values.tenant ?? 'cnosdb',
    database: values.database ?? 'public',
    format,
  };
  try {
    await runSql(statements, options, process.stdout);
  } catch (e) {
    if (e instanceof SqlClientError) throw new CommandError(e.message, EXIT_FAILURE);
    throw e;
  }
}
