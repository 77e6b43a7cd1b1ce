// `sundial backup DIR` and `sundial restore DIR` (docs/backup.md): parse their arguments and run
// node/'s backup client and backup directory. A backup talks to a running server (only it can cut
// a consistent checkpoint while it takes writes); a restore works on files alone (the new data
// directory has no server yet).

import { parseArgs } from 'node:util';
import {
  BackupDirError,
  BackupError,
  EXIT_FAILURE,
  notRestorable,
  readBackupManifest,
  restoreBackup,
  runBackup,
  verifyBackup,
} from '../node/index.js';
import { CommandError, UsageError } from './usage.js';

const DEFAULT_URL = 'http://127.0.0.1:8902';

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/**
 * An error of the file system or the network (a full disk, a server gone midway) as the
 * command's failure, exit 1, rather than a crash with a stack; bugs keep theirs.
 */
function asFailure(e: unknown, what: string): unknown {
  if (e instanceof CommandError || !(e instanceof Error) || e.message.startsWith('BUG:')) return e;
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  const detail = cause?.message !== undefined ? `${e.message} (${cause.code ?? cause.message})` : e.message;
  return new CommandError(`${what}: ${detail}`, EXIT_FAILURE);
}

function oneDir(positionals: string[], command: string): string {
  if (positionals.length !== 1)
    throw new UsageError(
      `${command} takes one backup directory, got ${positionals.length}; see sundial ${command} --help`,
    );
  return positionals[0]!;
}

export async function backupCommand(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    options: { url: { type: 'string' }, user: { type: 'string', short: 'u' } },
    strict: true,
    allowPositionals: true,
  });
  const dir = oneDir(positionals, 'backup');
  const url = values.url ?? env.SUNDIAL_URL ?? DEFAULT_URL;
  if (!URL.canParse(url)) throw new UsageError(`invalid --url '${url}' (want a URL like ${DEFAULT_URL})`);
  const started = performance.now();
  try {
    const s = await runBackup(dir, { url, user: values.user ?? 'root', password: env.SUNDIAL_PASSWORD ?? '' });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const lines = [
      `backup ${s.manifest.run} of ${url} at ${s.manifest.time} in ${dir}: ${s.sent} files copied (${mib(s.sentBytes)}), ${s.kept} segment files kept from the previous backup, ${seconds} s`,
    ];
    for (const d of s.manifest.databases) lines.push(`  ${d.tenant}.${d.name}: every write up to WAL record ${d.lsn}`);
    process.stdout.write(lines.join('\n') + '\n');
  } catch (e) {
    if (e instanceof BackupError || e instanceof BackupDirError) throw new CommandError(e.message, EXIT_FAILURE);
    throw asFailure(e, 'the backup failed, the previous one in the directory is kept');
  }
}

export async function restoreCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    options: { 'data-dir': { type: 'string' }, verify: { type: 'boolean' } },
    strict: true,
    allowPositionals: true,
  });
  const dir = oneDir(positionals, 'restore');
  const target = values['data-dir'];
  if (target === undefined && values.verify !== true)
    throw new UsageError('restore needs --data-dir DIR (or --verify alone); see sundial restore --help');
  try {
    if (target !== undefined) {
      const why = await notRestorable(target);
      if (why !== undefined) throw new CommandError(why, EXIT_FAILURE);
    }
    const m = await readBackupManifest(dir);
    const problems = await verifyBackup(dir, m);
    if (problems.length > 0) {
      const lines = problems.map((p) => `  ${p.path} (stored as ${p.stored}): ${p.problem}`);
      throw new CommandError(
        `the backup in ${dir} is damaged; nothing was restored:\n${lines.join('\n')}`,
        EXIT_FAILURE,
      );
    }
    const bytes = m.files.reduce((n, f) => n + f.size, 0);
    if (target === undefined) {
      process.stdout.write(
        `backup ${m.run} in ${dir} (taken ${m.time}) verified: ${m.files.length} files, ${mib(bytes)}, every SHA-256 matches\n`,
      );
      return;
    }
    await restoreBackup(dir, m, target);
    process.stdout.write(
      `restored backup ${m.run} (taken ${m.time}) into ${target}: ${m.files.length} files, ${mib(bytes)}, every SHA-256 checked; start a server on it to replay its WAL tail\n`,
    );
  } catch (e) {
    if (e instanceof BackupDirError) throw new CommandError(e.message, EXIT_FAILURE);
    throw asFailure(e, 'the restore failed');
  }
}
