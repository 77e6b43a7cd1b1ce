// `sundial backup DIR` / `sundial restore DIR` (issue 29) against a real server taking writes:
// the restored copy holds every write acknowledged before the backup and none after it, as whole
// requests; a second run copies only new segment files; a damaged file of the backup is found by
// its checksum and named; a restore goes only into an empty directory; only admins may back up.

import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, writeLp } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

const BIN = new URL('../../bin/sundial.js', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'sundial-backup-'));
const backupDir = join(dir, 'backup');
/** The environment without SUNDIAL_* settings, which would change what the command reads. */
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SUNDIAL_')));
const QUIET = ['--warmup', 'false', '--write-warmup', 'false', '--parse-warmup', 'false'];
/** Rows per write request: a request is stored whole or not at all, so the copy holds multiples of it. */
const ROWS = 40;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the command without blocking this process (the writer keeps writing meanwhile). */
function sundial(args: string[], extraEnv: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, args, { env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

function request(seq: number): string {
  const lines: string[] = [];
  for (let k = 0; k < ROWS; k++) lines.push(`load,k=k${k} seq=${seq}i,pad="${'p'.repeat(64)}" ${seq * ROWS + k + 1}`);
  return lines.join('\n');
}

/** A sequential writer: request n carries seq n; `acked` is the highest acknowledged. */
class Writer {
  next = 0;
  acked = -1;
  #stop = false;
  readonly done: Promise<void>;

  constructor(url: string) {
    this.done = (async () => {
      while (!this.#stop) {
        const seq = this.next++;
        const r = await writeLp(url, request(seq), 'db=public');
        if (r.status !== 200) throw new Error(`write ${seq}: ${r.status} ${String(r.headers['x-sundial-error'])}`);
        this.acked = seq;
      }
    })();
  }

  async until(acked: number): Promise<void> {
    while (this.acked < acked) await new Promise((r) => setTimeout(r, 20));
  }

  async stop(): Promise<void> {
    this.#stop = true;
    await this.done;
  }
}

async function sqlCsv(url: string, sql: string): Promise<string> {
  const r = await http(url, '/api/v1/sql?db=public', { method: 'POST', body: sql, headers: { accept: 'text/csv' } });
  expect(r.status, r.text).toBe(200);
  return r.text;
}

interface Entry {
  path: string;
  kind: string;
  stored: string;
  run: number;
}

function manifest(): { run: number; files: Entry[]; databases: Array<{ name: string; lsn: number }> } {
  return JSON.parse(readFileSync(join(backupDir, 'backup.json'), 'utf8')) as ReturnType<typeof manifest>;
}

let server: TestServer;
beforeAll(async () => {
  // Small flushes and WAL segments, so that flushes, WAL trims and new segment files happen
  // while the backup copies; no compaction, so that the second run finds the first's files.
  server = await startServer({
    args: [...QUIET, '--flush-bytes', '256KiB', '--wal-segment-bytes', '128KiB', '--compaction-fan-in', '64'],
  });
});
afterAll(async () => {
  await server.stop();
  server.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe('sundial backup and restore', () => {
  it('copies every write acknowledged before the backup and none after it, while the server takes writes', async () => {
    const writer = new Writer(server.url);
    try {
      await writer.until(150);
      const before = writer.acked; // acknowledged before the backup was asked for
      const run = await sundial(['backup', backupDir, '--url', server.url]);
      const firstAfter = writer.next; // sent after the backup had finished
      await writer.until(firstAfter + 20);
      expect(run, run.stderr).toMatchObject({ status: 0, stderr: '' });
      expect(run.stdout).toMatch(
        /^backup 1 of http:\/\/127\.0\.0\.1:\d+ at \S+ in .*: \d+ files copied \([\d.]+ MiB\), 0 segment files kept from the previous backup, [\d.]+ s\n/,
      );
      expect(run.stdout).toMatch(/\n {2}cnosdb\.public: every write up to WAL record \d+\n/);
      const m = manifest();
      expect(m.files.filter((f) => f.kind === 'segment').length).toBeGreaterThan(0); // flushed files and a WAL tail both
      expect(m.files.filter((f) => f.kind === 'wal').length).toBeGreaterThan(0);

      const target = join(dir, 'restored');
      const restore = await sundial(['restore', backupDir, '--data-dir', target]);
      expect(restore, restore.stderr).toMatchObject({ status: 0, stderr: '' });
      expect(restore.stdout).toMatch(
        /^restored backup 1 \(taken \S+\) into .*: \d+ files, [\d.]+ MiB, every SHA-256 checked/,
      );
      const copy = await startServer({ dataDir: target, args: QUIET });
      try {
        const [, counts] = (
          await sqlCsv(
            copy.url,
            'SELECT count(*) AS n, count(DISTINCT seq) AS seqs, min(seq) AS lo, max(seq) AS hi FROM load',
          )
        )
          .trim()
          .split('\n');
        const [n, seqs, lo, hi] = counts!.split(',').map(Number);
        // A prefix of the requests in the order they were acknowledged, each whole.
        expect(lo).toBe(0);
        expect(seqs).toBe(hi! + 1);
        expect(n).toBe(seqs! * ROWS);
        expect(hi).toBeGreaterThanOrEqual(before);
        expect(hi).toBeLessThan(firstAfter);
        // Exactly the records up to the checkpoint's LSN: the writer's request n is record n + 1 of public.
        expect(m.databases.find((d) => d.name === 'public')!.lsn).toBe(hi! + 1);
      } finally {
        await copy.stop();
        copy.cleanup();
      }
    } finally {
      await writer.stop();
    }
  });

  it('copies only new segment files on a second run into the same directory', async () => {
    const first = manifest();
    const firstSegments = new Map(first.files.filter((f) => f.kind === 'segment').map((f) => [f.path, f]));
    const inodes = new Map([...firstSegments.values()].map((f) => [f.path, statSync(join(backupDir, f.stored)).ino]));
    // More writes: more flushes, so more segment files, none of the old ones compacted away.
    const writer = new Writer(server.url);
    writer.next = 100_000;
    await writer.until(100_150);
    await writer.stop();

    const run = await sundial(['backup', backupDir, '--url', server.url]);
    expect(run, run.stderr).toMatchObject({ status: 0, stderr: '' });
    const second = manifest();
    expect(second.run).toBe(2);
    const segments = second.files.filter((f) => f.kind === 'segment');
    const kept = segments.filter((f) => firstSegments.has(f.path));
    const copied = segments.filter((f) => !firstSegments.has(f.path));
    expect(kept.length).toBe(firstSegments.size);
    expect(copied.length).toBeGreaterThan(0);
    expect(kept.every((f) => f.run === 1)).toBe(true);
    expect(copied.every((f) => f.run === 2)).toBe(true);
    // The kept files are the same files, not copies.
    for (const f of kept) expect(statSync(join(backupDir, f.stored)).ino).toBe(inodes.get(f.path));
    expect(run.stdout).toContain(`files copied`);
    expect(run.stdout).toContain(`, ${kept.length} segment files kept from the previous backup, `);
    // What the first run alone held is gone: the directory holds one backup.
    expect(existsSync(join(backupDir, 'run-1'))).toBe(false);
    const verify = await sundial(['restore', backupDir, '--verify']);
    expect(verify).toMatchObject({ status: 0, stderr: '' });
    expect(verify.stdout).toMatch(
      /^backup 2 in .* \(taken \S+\) verified: \d+ files, [\d.]+ MiB, every SHA-256 matches\n$/,
    );
  });

  it('finds a damaged file of the backup by its checksum and names it, restoring nothing', async () => {
    const seg = manifest().files.find((f) => f.kind === 'segment')!;
    const at = join(backupDir, seg.stored);
    const bytes = readFileSync(at);
    const damaged = Buffer.from(bytes);
    damaged[Math.floor(damaged.length / 2)]! ^= 0x01;
    writeFileSync(at, damaged);
    try {
      const verify = await sundial(['restore', backupDir, '--verify']);
      expect(verify.status).toBe(1);
      expect(verify.stdout).toBe('');
      expect(verify.stderr).toMatch(
        new RegExp(
          `^sundial: the backup in .* is damaged; nothing was restored:\\n {2}${seg.path} \\(stored as ${seg.stored}\\): checksum mismatch: SHA-256 [0-9a-f]{64}, the manifest says [0-9a-f]{64}\\n$`,
        ),
      );
      const target = join(dir, 'not-restored');
      const restore = await sundial(['restore', backupDir, '--data-dir', target]);
      expect(restore.status).toBe(1);
      expect(restore.stderr).toContain(`${seg.path} (stored as ${seg.stored}): checksum mismatch`);
      expect(existsSync(target)).toBe(false);
    } finally {
      writeFileSync(at, bytes);
    }
  });

  it('restores only into an empty or new directory', async () => {
    const target = join(dir, 'busy');
    mkdirSync(target);
    writeFileSync(join(target, 'catalog.json'), '{}');
    const r = await sundial(['restore', backupDir, '--data-dir', target]);
    expect(r).toEqual({
      status: 1,
      stdout: '',
      stderr: `sundial: the data directory ${target} is not empty (1 entry: catalog.json); restore only into an empty or new directory\n`,
    });
    expect(readFileSync(join(target, 'catalog.json'), 'utf8')).toBe('{}');
    const usage = await sundial(['restore', backupDir]);
    expect(usage).toEqual({
      status: 2,
      stdout: '',
      stderr: 'sundial: restore needs --data-dir DIR (or --verify alone); see sundial restore --help\n',
    });
    const none = await sundial(['restore', join(dir, 'nothing'), '--verify']);
    expect(none).toEqual({
      status: 1,
      stdout: '',
      stderr: `sundial: ${join(dir, 'nothing')} holds no backup (no backup.json)\n`,
    });
  });

  it('lets go of the files it holds when the client goes away mid-backup', async () => {
    const catalog = JSON.parse(readFileSync(join(server.dataDir, 'catalog.json'), 'utf8')) as {
      databases: Array<{ id: number; name: string }>;
    };
    const wal = join(server.dataDir, 'db', String(catalog.databases.find((d) => d.name === 'public')!.id), 'wal');
    // Abandon a backup after its first bytes, then write past several WAL segments (128 KiB) and
    // flush: the trims must not wait for a backup that is gone (a held log kept six segments).
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest(
        new URL('/api/v1/admin/backup', server.url),
        { method: 'POST', headers: { authorization: 'Basic cm9vdDo=' }, agent: false },
        (res) => {
          expect(res.statusCode).toBe(200);
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        },
      );
      req.on('error', (e: NodeJS.ErrnoException) => (e.code === 'ECONNRESET' ? undefined : reject(e)));
      req.end();
    });
    const writer = new Writer(server.url);
    writer.next = 200_000;
    await writer.until(200_080);
    await writer.stop();
    const r = await http(server.url, '/api/v1/sql?db=public', { method: 'POST', body: 'COMPACT DATABASE public' });
    expect(r.status, r.text).toBe(200);
    expect(readdirSync(wal)).toHaveLength(1);
  });

  it('keeps the previous backup whole when the stream breaks off midway, and exits 1 saying so', async () => {
    const before = readFileSync(join(backupDir, 'backup.json'), 'utf8');
    // A stand-in server that announces a file and hangs up inside it, as a server killed midway.
    const fake = createHttpServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/x-sundial-backup' });
        res.write(
          '{"format":"sundial-backup","version":1,"time":"t","databases":[]}\n{"path":"catalog.json","kind":"catalog","size":100}\n0123456789',
        );
        setTimeout(() => res.socket?.destroy(), 50);
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
      const run = await sundial(['backup', backupDir, '--url', url]);
      expect(run.status).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^sundial: the backup failed, the previous one in the directory is kept: .+\n$/);
    } finally {
      fake.close();
    }
    expect(readFileSync(join(backupDir, 'backup.json'), 'utf8')).toBe(before);
    expect(await sundial(['restore', backupDir, '--verify'])).toMatchObject({ status: 0, stderr: '' });
  });

  it('is for admins only: a member gets 422 010004 and the backup directory is left alone', async () => {
    const r = await http(server.url, '/api/v1/sql?db=public', {
      method: 'POST',
      body: "CREATE USER backup_reader WITH PASSWORD = 'pw'",
    });
    expect(r.status, r.text).toBe(200);
    const before = readFileSync(join(backupDir, 'backup.json'), 'utf8');
    const run = await sundial(['backup', backupDir, '--url', server.url, '-u', 'backup_reader'], {
      SUNDIAL_PASSWORD: 'pw',
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^sundial: the server refused the backup: 422 010004 .*maintainer for system/);
    expect(readFileSync(join(backupDir, 'backup.json'), 'utf8')).toBe(before);
    const direct = await http(server.url, '/api/v1/admin/backup', { method: 'POST', body: '{"have": 3}' });
    expect(direct.status).toBe(400);
    expect(JSON.parse(direct.text)).toEqual({
      error_code: '040013',
      error_message: 'the backup request\'s "have" is not an array',
    });
  });
});
