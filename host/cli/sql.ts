// `sundial sql`: parses its arguments, picks the target (a server by URL, or a data directory in
// this process with --data-dir, through library mode) and either runs the statements given (-e,
// -f, or a piped stdin, in the order given) or, on a terminal without them, the interactive shell
// (sql-shell.ts). The password is SUNDIAL_PASSWORD's; on a terminal without it, a server that
// refuses the empty one gets it from a prompt that does not echo (-W asks at once).

import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  EXIT_FAILURE,
  HttpSqlTarget,
  LocalSqlTarget,
  packageVersion,
  runSql,
  SQL_FORMATS,
  SqlClientError,
  type SqlFormat,
  type SqlSession,
  type SqlTarget,
  statementsOf,
} from '../node/index.js';
import { promptPassword } from './password-prompt.js';
import { runShell } from './sql-shell.js';
import { CommandError, UsageError } from './usage.js';

const DEFAULT_URL = 'http://127.0.0.1:8902';
const HISTORY_FILE = '.sundial_history';

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

/** The history file: --history, SUNDIAL_HISTORY, else ~/.sundial_history; '' keeps none. */
function historyFileOf(flag: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const file = flag ?? env.SUNDIAL_HISTORY ?? join(env.HOME ?? homedir(), HISTORY_FILE);
  return file === '' ? undefined : resolve(file);
}

/** The server at `url` with a password that it takes: SUNDIAL_PASSWORD, or the empty one, or one typed at a prompt. */
async function httpTarget(
  url: string,
  user: string,
  session: SqlSession,
  env: NodeJS.ProcessEnv,
  ask: boolean,
): Promise<HttpSqlTarget> {
  const given = env.SUNDIAL_PASSWORD;
  const stdin = process.stdin;
  if (ask && !stdin.isTTY) throw new UsageError('--password prompts on a terminal; without one, set SUNDIAL_PASSWORD');
  if (given !== undefined || !stdin.isTTY) return new HttpSqlTarget(url, user, given ?? '');
  if (!ask && (await new HttpSqlTarget(url, user, '').authenticates(session))) return new HttpSqlTarget(url, user, '');
  const password = await promptPassword(`Password for user ${user}: `, stdin, process.stderr);
  if (password === undefined) throw new CommandError('no password given', EXIT_FAILURE);
  const target = new HttpSqlTarget(url, user, password);
  if (!(await target.authenticates(session)))
    throw new CommandError(`password authentication failed for user "${user}"`, EXIT_FAILURE);
  return target;
}

export async function sqlCommand(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const { values, tokens } = parseArgs({
    args,
    options: {
      url: { type: 'string' },
      'data-dir': { type: 'string' },
      user: { type: 'string', short: 'u' },
      password: { type: 'boolean', short: 'W' },
      tenant: { type: 'string', short: 't' },
      database: { type: 'string', short: 'd' },
      format: { type: 'string' },
      history: { type: 'string' },
      execute: { type: 'string', short: 'e', multiple: true },
      file: { type: 'string', short: 'f', multiple: true },
    },
    strict: true,
    allowPositionals: false,
    tokens: true,
  });
  const format = values.format ?? 'table';
  if (!isFormat(format))
    throw new UsageError(
      `unknown format '${format}' (want ${Object.keys(SQL_FORMATS).join(', ')}); see sundial sql --help`,
    );
  const dataDir = values['data-dir'];
  if (dataDir !== undefined && values.url !== undefined)
    throw new UsageError('give --url or --data-dir, not both; see sundial sql --help');
  if (dataDir !== undefined && (values.user !== undefined || values.password === true)) {
    throw new UsageError(
      '--user and --password do not apply to --data-dir (its statements run as root); see sundial sql --help',
    );
  }
  const url = values.url ?? env.SUNDIAL_URL ?? DEFAULT_URL;
  if (dataDir === undefined && !URL.canParse(url))
    throw new UsageError(`invalid --url '${url}' (want a URL like ${DEFAULT_URL})`);

  const statements: string[] = [];
  for (const t of tokens) {
    if (t.kind !== 'option' || t.value === undefined) continue;
    if (t.name === 'execute') statements.push(...statementsOf(t.value));
    if (t.name === 'file') statements.push(...statementsOf(readScript(t.value)));
  }
  const interactive = values.execute === undefined && values.file === undefined && process.stdin.isTTY === true;
  if (values.execute === undefined && values.file === undefined && !interactive)
    statements.push(...statementsOf(readScript('-')));

  const session: SqlSession = { tenant: values.tenant ?? 'cnosdb', database: values.database ?? 'public', format };
  let target: SqlTarget | undefined;
  try {
    target =
      dataDir === undefined
        ? await httpTarget(url, values.user ?? 'root', session, env, values.password === true)
        : await LocalSqlTarget.open(dataDir);
    if (interactive) {
      await runShell({
        target,
        session,
        historyFile: historyFileOf(values.history, env),
        where: dataDir === undefined ? url : resolve(dataDir),
        version: packageVersion(),
        input: process.stdin,
        output: process.stdout,
        errors: process.stderr,
      });
    } else {
      await runSql(statements, target, session, process.stdout);
    }
  } catch (e) {
    if (e instanceof SqlClientError) throw new CommandError(e.message, EXIT_FAILURE);
    throw e;
  } finally {
    await target?.close();
  }
}
