// A backup directory as `sundial backup` leaves it (backup-client.ts; docs/backup.md): its
// manifest, backup.json, and the checks and copy of `sundial restore`. Every file is checked
// against the SHA-256 the manifest holds before anything is restored, and a restore goes only
// into an empty (or new) data directory: restoring over live files would mix two databases.

import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, open, readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export const BACKUP_FILE = 'backup.json';

export interface BackupEntry {
  /** The file's path in the data directory. */
  path: string;
  kind: 'catalog' | 'manifest' | 'segment' | 'wal';
  size: number;
  sha256: string;
  /** A segment file's identity as the server gives it (its trailer), sent back by the next run. */
  identity?: string;
  /** Where the backup directory holds it, relative to it. */
  stored: string;
  /** The run that copied it. */
  run: number;
}

export interface BackupManifest {
  format: 'sundial-backup';
  version: 1;
  /** Runs into this directory so far (1 for the first). */
  run: number;
  /** When the server took the checkpoint. */
  time: string;
  server: string;
  /** Per database: every WAL record up to `lsn` is in the backup, none after it. */
  databases: Array<{ id: number; tenant: string; name: string; lsn: number; flushedLsn: number }>;
  files: BackupEntry[];
}

/** A backup directory that is missing, unreadable or damaged; `missing`: it holds no backup.json. */
export class BackupDirError extends Error {
  constructor(
    message: string,
    readonly missing = false,
  ) {
    super(message);
  }
}

export async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

export async function readBackupManifest(dir: string): Promise<BackupManifest> {
  const path = join(dir, BACKUP_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new BackupDirError(
      code === 'ENOENT' ? `${dir} holds no backup (no ${BACKUP_FILE})` : `cannot read ${path}: ${(e as Error).message}`,
      code === 'ENOENT',
    );
  }
  let m: BackupManifest;
  try {
    m = JSON.parse(text) as BackupManifest;
  } catch (e) {
    throw new BackupDirError(`${path} is not valid JSON: ${(e as Error).message}`);
  }
  if (m?.format !== 'sundial-backup' || m.version !== 1 || !Array.isArray(m.files))
    throw new BackupDirError(`${path} is not a version 1 Sundial backup manifest`);
  for (const f of m.files) {
    const safe = (p: unknown): boolean =>
      typeof p === 'string' && /^[\w.-]+(\/[\w.-]+)*$/.test(p) && !p.split('/').includes('..');
    if (!safe(f.path) || !safe(f.stored))
      throw new BackupDirError(
        `${path} lists a file with an unsafe path: ${JSON.stringify(f.path)} stored as ${JSON.stringify(f.stored)}`,
      );
  }
  return m;
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** A file of the backup that fails its check, named as the data directory names it. */
export interface BackupProblem {
  path: string;
  stored: string;
  problem: string;
}

/** Checks every file the manifest lists: present, of its size and SHA-256. */
export async function verifyBackup(dir: string, m: BackupManifest): Promise<BackupProblem[]> {
  const out: BackupProblem[] = [];
  for (const f of m.files) {
    const at = join(dir, f.stored);
    const s = await stat(at).catch(() => undefined);
    if (s === undefined || !s.isFile()) {
      out.push({ path: f.path, stored: f.stored, problem: 'missing' });
      continue;
    }
    if (s.size !== f.size) {
      out.push({ path: f.path, stored: f.stored, problem: `${s.size} bytes, the manifest says ${f.size}` });
      continue;
    }
    const sum = await sha256Of(at);
    if (sum !== f.sha256)
      out.push({
        path: f.path,
        stored: f.stored,
        problem: `checksum mismatch: SHA-256 ${sum}, the manifest says ${f.sha256}`,
      });
  }
  return out;
}

/** Whether `dir` can take a restore: missing, or an empty directory. Returns why not, or undefined. */
export async function notRestorable(dir: string): Promise<string | undefined> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ENOTDIR') return `${dir} is not a directory`;
    throw e;
  }
  if (names.length === 0) return undefined;
  const shown = names.sort().slice(0, 3).join(', ') + (names.length > 3 ? ', ...' : '');
  return `the data directory ${dir} is not empty (${names.length} entr${names.length === 1 ? 'y' : 'ies'}: ${shown}); restore only into an empty or new directory`;
}

/**
 * Copies the backup's files into the data directory `target` (checked empty by the caller), the
 * catalog last: a directory without catalog.json is no database to a server, so an interrupted
 * restore cannot be started by mistake. Files 0600, directories 0700, all fsynced.
 */
export async function restoreBackup(dir: string, m: BackupManifest, target: string): Promise<void> {
  await mkdir(target, { recursive: true, mode: 0o700 });
  const ordered = [...m.files.filter((f) => f.kind !== 'catalog'), ...m.files.filter((f) => f.kind === 'catalog')];
  const dirs = new Set<string>([target]);
  for (const f of ordered) {
    const to = join(target, f.path);
    await mkdir(dirname(to), { recursive: true, mode: 0o700 });
    dirs.add(dirname(to));
    await copyFile(join(dir, f.stored), to);
    const fh = await open(to, 'r+');
    try {
      await fh.chmod(0o600);
      await fh.sync();
    } finally {
      await fh.close();
    }
  }
  for (const d of [...dirs].sort((a, b) => b.length - a.length)) await syncDir(d);
}
