// `sundial backup DIR` (docs/backup.md): asks a running server for a checkpoint (POST
// /api/v1/admin/backup, host/server/routes/backup.ts) and stores it in DIR, sending the segment
// files DIR already holds so that the server leaves them out (incremental). DIR's layout:
//
//   backup.json        what the backup holds: every file's path in the data directory, size,
//                      SHA-256, and where it is stored; replaced atomically as the last step
//   data/<path>        segment files, immutable, kept from one run to the next
//   run-<n>/<path>     the catalog, manifests and WAL segments of run n (they change every run)
//
// A run writes only new names, checks every file against the server's SHA-256, fsyncs, then
// replaces backup.json and removes what the new one does not list: interrupted at any point, DIR
// still holds the previous backup whole (and the next run removes the leftovers).

import { createHash } from 'node:crypto';
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import type { Dirent } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  BackupDirError,
  BACKUP_FILE,
  type BackupEntry,
  type BackupManifest,
  readBackupManifest,
  syncDir,
} from './backup-dir.js';

export interface BackupOptions {
  url: string;
  user: string;
  password: string;
}

export interface BackupSummary {
  manifest: BackupManifest;
  /** Files the server sent this run, and their bytes. */
  sent: number;
  sentBytes: number;
  /** Segment files kept from the previous backup. */
  kept: number;
}

/** A server that refused or broke off the backup, or a backup directory that cannot be written. */
export class BackupError extends Error {}

/** Reads lines and byte runs from a response body. */
class FrameReader {
  readonly #it: AsyncIterator<Uint8Array>;
  #buf: Buffer = Buffer.alloc(0);

  constructor(body: AsyncIterable<Uint8Array>) {
    this.#it = body[Symbol.asyncIterator]();
  }

  async #more(): Promise<boolean> {
    const r = await this.#it.next();
    if (r.done === true) return false;
    this.#buf = this.#buf.length === 0 ? Buffer.from(r.value) : Buffer.concat([this.#buf, r.value]);
    return true;
  }

  /** The next line as JSON; undefined at the end of the body. */
  async header(): Promise<Record<string, unknown> | undefined> {
    let nl: number;
    while ((nl = this.#buf.indexOf(0x0a)) < 0) {
      if (!(await this.#more())) {
        if (this.#buf.length === 0) return undefined;
        throw new BackupError('the backup stream ended inside a header');
      }
    }
    const text = this.#buf.subarray(0, nl).toString('utf8');
    this.#buf = this.#buf.subarray(nl + 1);
    return JSON.parse(text) as Record<string, unknown>;
  }

  /** `size` bytes, in pieces, to `sink`. */
  async bytes(size: number, sink: (chunk: Uint8Array) => Promise<void>): Promise<void> {
    let left = size;
    while (left > 0) {
      if (this.#buf.length === 0 && !(await this.#more()))
        throw new BackupError(`the backup stream ended ${left} bytes short of a file`);
      const piece = this.#buf.subarray(0, Math.min(left, this.#buf.length));
      this.#buf = this.#buf.subarray(piece.length);
      left -= piece.length;
      await sink(piece);
    }
  }
}

/** Writes one file of the run durably, hashing it. */
async function receive(reader: FrameReader, path: string, size: number): Promise<string> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const fh = await open(path, 'w', 0o600);
  const hash = createHash('sha256');
  try {
    await reader.bytes(size, async (chunk) => {
      hash.update(chunk);
      await fh.write(chunk);
    });
    await fh.sync();
  } finally {
    await fh.close();
  }
  return hash.digest('hex');
}

async function post(o: BackupOptions, have: ReadonlyArray<{ path: string; identity: string }>): Promise<Response> {
  const url = new URL('/api/v1/admin/backup', o.url);
  const headers = {
    authorization: 'Basic ' + Buffer.from(`${o.user}:${o.password}`).toString('base64'),
    'content-type': 'application/json',
  };
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ have }) });
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    throw new BackupError(`cannot reach ${o.url}: ${cause?.code ?? cause?.message ?? (e as Error).message}`);
  }
  if (!res.ok) {
    const text = await res.text();
    let message = text;
    try {
      const body = JSON.parse(text) as { error_code?: string; error_message?: string };
      if (body.error_message !== undefined) message = `${body.error_code ?? ''} ${body.error_message}`.trim();
    } catch {
      // not CnosDB's JSON error body: show it as it came
    }
    throw new BackupError(`the server refused the backup: ${res.status} ${message}`);
  }
  if (res.body === null) throw new BackupError('the server answered the backup without a body');
  return res;
}

/** Every file under `dir` (relative paths with `/`). */
async function walk(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  let entries: Dirent[];
  try {
    entries = await readdir(join(dir, prefix), { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return out;
    throw e;
  }
  for (const e of entries) {
    const rel = prefix === '' ? e.name : `${prefix}/${e.name}`;
    if (e.isDirectory()) out.push(...(await walk(dir, rel)));
    else out.push(rel);
  }
  return out;
}

/** Removes what a backup directory holds besides `keep` (a previous run's files, an interrupted run's). */
async function removeUnlisted(dir: string, keep: ReadonlySet<string>): Promise<void> {
  for (const top of await readdir(dir)) {
    if (top === BACKUP_FILE) continue;
    if (top !== 'data' && !/^run-\d+$/.test(top)) continue; // not ours: left alone
    const files = await walk(dir, top);
    if (top.startsWith('run-') && !files.some((f) => keep.has(f))) {
      await rm(join(dir, top), { recursive: true, force: true });
      continue;
    }
    for (const f of files) if (!keep.has(f)) await rm(join(dir, f), { force: true });
  }
}

export async function runBackup(dir: string, o: BackupOptions): Promise<BackupSummary> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const previous = await readBackupManifest(dir).catch((e: unknown) => {
    if (e instanceof BackupDirError && e.missing) return undefined;
    throw e;
  });
  const run = (previous?.run ?? 0) + 1;
  const runDir = `run-${run}`;
  // An interrupted run left its directory behind: start it over.
  await rm(join(dir, runDir), { recursive: true, force: true });
  const old = new Map((previous?.files ?? []).map((f) => [f.path, f]));
  const have = [...old.values()]
    .filter((f) => f.identity !== undefined)
    .map((f) => ({ path: f.path, identity: f.identity! }));

  const res = await post(o, have);
  const reader = new FrameReader(res.body as AsyncIterable<Uint8Array>);
  const start = await reader.header();
  if (start?.format !== 'sundial-backup' || start.version !== 1)
    throw new BackupError(`the server's answer is not a version 1 backup stream: ${JSON.stringify(start)}`);
  const files: BackupEntry[] = [];
  const taken = new Set((previous?.files ?? []).map((f) => f.stored));
  let sentBytes = 0;
  let kept = 0;
  let end: Record<string, unknown> | undefined;
  for (;;) {
    const h = await reader.header();
    if (h === undefined)
      throw new BackupError(
        'the backup stream ended before its end record (the server log says why); the previous backup is kept',
      );
    if (h.end === true) {
      end = h;
      break;
    }
    const path = String(h.path);
    const kind = String(h.kind) as BackupEntry['kind'];
    const size = Number(h.size);
    const identity = typeof h.identity === 'string' ? h.identity : undefined;
    if (!/^[\w.-]+(\/[\w.-]+)*$/.test(path) || path.split('/').includes('..'))
      throw new BackupError(`the server sent a file with an unsafe path: ${JSON.stringify(path)}`);
    if (h.kept === true) {
      const prev = old.get(path);
      if (prev === undefined) throw new BackupError(`the server kept ${path}, which the previous backup does not hold`);
      files.push(prev);
      kept++;
      continue;
    }
    // Segment files go to data/ to be kept by later runs, unless the name is taken (by another
    // file of the same name from another server): then to this run's folder, as every other file.
    const shared = `data/${path}`;
    const stored = kind === 'segment' && !taken.has(shared) ? shared : `${runDir}/${path}`;
    const sha256 = await receive(reader, join(dir, stored), size);
    sentBytes += size;
    files.push({ path, kind, size, sha256, ...(identity === undefined ? {} : { identity }), stored, run });
  }
  const sums = (end.sha256 ?? {}) as Record<string, string>;
  for (const f of files) {
    if (f.run !== run) continue;
    if (sums[f.path] !== f.sha256)
      throw new BackupError(
        `${f.path}: received with SHA-256 ${f.sha256}, the server sent ${sums[f.path] ?? 'none'}; the previous backup is kept`,
      );
  }
  for (const d of new Set(files.filter((f) => f.run === run).map((f) => dirname(join(dir, f.stored)))))
    await syncDir(d);

  const manifest: BackupManifest = {
    format: 'sundial-backup',
    version: 1,
    run,
    time: String(start.time),
    server: o.url,
    databases: start.databases as BackupManifest['databases'],
    files,
  };
  const tmp = join(dir, `${BACKUP_FILE}.tmp`);
  const fh = await open(tmp, 'w', 0o600);
  try {
    await fh.writeFile(JSON.stringify(manifest, null, 1) + '\n');
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, join(dir, BACKUP_FILE));
  await syncDir(dir);
  await removeUnlisted(dir, new Set(files.map((f) => f.stored)));
  return { manifest, sent: files.length - kept, sentBytes, kept };
}
