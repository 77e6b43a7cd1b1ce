// One process at a time per data directory: the server and library mode take `<data_dir>/LOCK`
// (holding the owner's pid) before opening the storage, because two writers of one WAL and one
// catalog would corrupt both. A lock whose process is gone (kill -9, a crash) is stale and taken
// over; Node has no flock(2), so liveness is `kill(pid, 0)`, with a zombie counted as gone.

import { link, mkdir, open, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { DIR_MODE, FILE_MODE } from './fs-util.js';

export const LOCK_FILE = 'LOCK';

/** Lock files this process holds: a pid equal to ours in one it does not hold is a stale lock of an earlier process (a container's pid 1). */
const held = new Set<string>();

/** The data directory is open in another process, or already in this one. */
export class DataDirLockedError extends Error {
  readonly pid: number;
  constructor(dir: string, pid: number) {
    const who = pid === process.pid ? 'this process already has it open' : `process ${pid} has it open`;
    super(
      `data directory ${dir} is in use: ${who} (${join(dir, LOCK_FILE)}); stop or close that first, or use another directory`,
    );
    this.name = 'DataDirLockedError';
    this.pid = pid;
  }
}

export interface DirLock {
  readonly path: string;
  /** Removes the lock file (if it is still ours); later calls do nothing. */
  release(): Promise<void>;
}

/** Whether process `pid` runs: signal 0 reaches it (EPERM: it runs as another user) and it is not a zombie. */
async function running(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // A killed child not yet reaped still answers signal 0; /proc says Z (Linux only: elsewhere it counts as running).
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  return stat === undefined || !/^\d+ \(.*\) Z/s.test(stat);
}

/** Takes the lock of the data directory `dir` (created if missing); throws DataDirLockedError while another process holds it. */
export async function lockDataDir(dir: string): Promise<DirLock> {
  await mkdir(dir, { recursive: true, mode: DIR_MODE });
  const path = join(dir, LOCK_FILE);
  for (let attempt = 0; ; attempt++) {
    // Written whole under a name of its own, then linked into place (fails if one exists): a lock
    // file is never seen empty, so an empty or garbled one is a leftover.
    const tmp = `${path}.${process.pid}`;
    const fh = await open(tmp, 'w', FILE_MODE);
    try {
      await fh.writeFile(`${process.pid}\n`);
    } finally {
      await fh.close();
    }
    try {
      await link(tmp, path);
      held.add(path);
      let released = false;
      return {
        path,
        release: async () => {
          if (released) return;
          released = true;
          held.delete(path);
          const text = await readFile(path, 'utf8').catch(() => undefined);
          if (text !== undefined && Number.parseInt(text, 10) === process.pid)
            await unlink(path).catch(() => undefined);
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 2) throw e;
    } finally {
      await unlink(tmp).catch(() => undefined);
    }
    const text = await readFile(path, 'utf8').catch(() => '');
    const pid = Number.parseInt(text, 10);
    if (Number.isSafeInteger(pid) && pid > 0) {
      if (pid === process.pid ? held.has(path) : await running(pid)) throw new DataDirLockedError(dir, pid);
    }
    // Stale: its process is gone. (Two processes taking over one stale lock at once may both
    // succeed; starting two servers on one directory after a crash at the same instant is not covered.)
    await unlink(path).catch(() => undefined);
  }
}
