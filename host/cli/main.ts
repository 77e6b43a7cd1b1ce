#!/usr/bin/env node
// The `sundial` command: picks the command from the arguments and runs it; what a command does is
// host/node's (serve: node/serve.ts). With no command, or an option first, it serves, as it did
// before it had commands (scripts and tests start it so). Exit codes: node/exit-codes.ts.
// A command's modules load when it runs: the server's (node/index.ts: storage, engine, hapi) took
// 0.7 s of CPU to load, which every `sundial import` and `sundial sql` paid before it began.

import { parseArgs } from 'node:util';
import { pino, type Logger } from 'pino';
import { settleTypedArrayAssumptions } from '../core/v8-typed-arrays.js';
import { type Config, ConfigError, loadConfig } from '../node/config.js';
import { EXIT_FAILURE, EXIT_USAGE } from '../node/exit-codes.js';
import { packageVersion } from '../node/package-info.js';
import { exportHelp, importHelp } from './transfer-help.js';
import { mainHelp, serveHelp, sqlHelp, versionHelp } from './help.js';
import { CommandError, UsageError } from './usage.js';

const COMMANDS = ['serve', 'sql', 'import', 'export', 'version', 'help'] as const;
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
function helpOf(command: Command | undefined): string {
  if (command === 'import') return importHelp();
  if (command === 'export') return exportHelp();
  return command === 'serve' ? serveHelp() : command === 'sql' ? sqlHelp() : command === 'version' ? versionHelp() : mainHelp();
}

async function runServe(args: string[]): Promise<void> {
  settleTypedArrayAssumptions(); // before anything is compiled: core/v8-typed-arrays.ts
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
    process.stdout.write(helpOf(command ?? (args.length === 1 ? undefined : 'serve')));
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
    case 'version':
      parseArgs({ args, options: {}, strict: true, allowPositionals: false });
      process.stdout.write(`sundial ${packageVersion()}\n`);
      return;
    case 'help': {
      const { positionals } = parseArgs({ args, options: {}, strict: true, allowPositionals: true });
      if (positionals.length > 1) throw new UsageError(`help takes one command, got ${positionals.length}; see sundial --help`);
      const topic = positionals[0];
      if (topic !== undefined && !isCommand(topic)) throw new UsageError(`unknown command '${topic}'; see sundial --help`);
      process.stdout.write(helpOf(topic));
      return;
    }
  }
}

/** parseArgs' own errors (unknown option, missing value, unexpected argument) are usage errors. */
function isParseArgsError(err: unknown): err is TypeError {
  return err instanceof TypeError && String((err as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS');
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof CommandError || isParseArgsError(err)) {
    process.stderr.write(`sundial: ${err.message}\n`);
    process.exit(err instanceof CommandError ? err.exitCode : EXIT_USAGE);
  }
  const logger: Logger = pino();
  logger.fatal({ err }, 'startup failed');
  logger.flush();
  process.exit(EXIT_FAILURE);
});
