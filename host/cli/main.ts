#!/usr/bin/env node
// The `sundial` command: picks the command from the arguments and runs it; what a command does is
// host/node's (serve: node/serve.ts). With no command, or an option first, it serves, as it did
// before it had commands (scripts and tests start it so). Exit codes: node/exit-codes.ts.
// Only what every command needs is imported here; each command's module is imported when it runs
// (the whole server took 3.4 s to load for `sundial version`), so import nothing heavy above.

import { parseArgs } from 'node:util';
import { EXIT_FAILURE, EXIT_USAGE } from '../node/exit-codes.js';
import { packageVersion } from '../node/package-info.js';
import type { Config } from '../node/config.js';
import { CommandError, UsageError } from './usage.js';

const COMMANDS = ['serve', 'sql', 'import', 'export', 'backup', 'restore', 'check', 'version', 'help'] as const;
type Command = (typeof COMMANDS)[number];

function isCommand(word: string): word is Command {
  return (COMMANDS as readonly string[]).includes(word);
}

/** Whether the arguments hold `long` or `short` before a `--` (where parseArgs stops reading options). */
function asks(args: readonly string[], long: string, short: string): boolean {
  for (const a of args) {
    if (a === '--') return false;
    if (a === long || a === short) return true;
  }
  return false;
}

/** The help of a command; undefined: of `sundial` itself. */
async function helpOf(command: Command | undefined): Promise<string> {
  const { backupHelp, checkHelp, mainHelp, restoreHelp, serveHelp, sqlHelp, versionHelp } = await import('./help.js');
  if (command === 'backup') return backupHelp();
  if (command === 'restore') return restoreHelp();
  if (command === 'check') return checkHelp();
  if (command === 'import' || command === 'export') {
    const { exportHelp, importHelp } = await import('./transfer-help.js');
    return command === 'import' ? importHelp() : exportHelp();
  }
  return command === 'serve'
    ? serveHelp()
    : command === 'sql'
      ? sqlHelp()
      : command === 'version'
        ? versionHelp()
        : mainHelp();
}

async function runServe(args: string[]): Promise<void> {
  // Before anything is compiled (core/v8-typed-arrays.ts), so before the server's modules load.
  (await import('../core/v8-typed-arrays.js')).settleTypedArrayAssumptions();
  const { ConfigError, loadConfig } = await import('../node/config.js');
  let config: Config;
  try {
    config = loadConfig({ argv: args });
  } catch (e) {
    if (e instanceof ConfigError) throw new UsageError(`${e.message}; see sundial serve --help`);
    throw e;
  }
  const { serve } = await import('../node/serve.js');
  await serve(config);
}

async function main(argv: string[]): Promise<void> {
  let command: Command | undefined;
  let args = argv;
  const first = argv[0];
  if (first !== undefined && !first.startsWith('-')) {
    if (!isCommand(first)) throw new UsageError(`unknown command '${first}'; see sundial --help`);
    command = first;
    args = argv.slice(1);
  }
  if (asks(args, '--help', '-h')) {
    // `sundial --help` alone is the command's own help; with other options it is serve's.
    process.stdout.write(await helpOf(command ?? (args.length === 1 ? undefined : 'serve')));
    return;
  }
  if (asks(args, '--version', '-V')) {
    process.stdout.write(`sundial ${packageVersion()}\n`);
    return;
  }
  switch (command) {
    case undefined:
    case 'serve':
      await runServe(args);
      return;
    case 'sql':
      await (await import('./sql.js')).sqlCommand(args, process.env);
      return;
    case 'import':
      await (await import('./import.js')).importCommand(args, process.env);
      return;
    case 'export':
      await (await import('./export.js')).exportCommand(args, process.env);
      return;
    case 'backup':
      await (await import('./backup.js')).backupCommand(args, process.env);
      return;
    case 'restore':
      await (await import('./backup.js')).restoreCommand(args);
      return;
    case 'check':
      await (await import('./check.js')).checkCommand(args);
      return;
    case 'version':
      parseArgs({ args, options: {}, strict: true, allowPositionals: false });
      process.stdout.write(`sundial ${packageVersion()}\n`);
      return;
    case 'help': {
      const { positionals } = parseArgs({ args, options: {}, strict: true, allowPositionals: true });
      if (positionals.length > 1)
        throw new UsageError(`help takes one command, got ${positionals.length}; see sundial --help`);
      const topic = positionals[0];
      if (topic !== undefined && !isCommand(topic))
        throw new UsageError(`unknown command '${topic}'; see sundial --help`);
      process.stdout.write(await helpOf(topic));
      return;
    }
  }
}

/** parseArgs' own errors (unknown option, missing value, unexpected argument) are usage errors. */
function isParseArgsError(err: unknown): err is TypeError {
  return err instanceof TypeError && String((err as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS');
}

main(process.argv.slice(2)).catch(async (err: unknown) => {
  if (err instanceof CommandError || isParseArgsError(err)) {
    process.stderr.write(`sundial: ${err.message}\n`);
    process.exit(err instanceof CommandError ? err.exitCode : EXIT_USAGE);
  }
  const { pino } = await import('pino');
  const logger = pino();
  logger.fatal({ err }, 'startup failed');
  logger.flush();
  process.exit(EXIT_FAILURE);
});
