// A small tmpfs for the disk-full tests: a real file system that runs out of space, mounted by the
// test (these machines run the tests as root). `fill` takes its free space with a file of its
// own, `free` gives it back.

import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Tmpfs {
  dir: string;
  /** Writes a filler file until the file system is full; returns its size. */
  fill(): number;
  /** Deletes the filler file. */
  free(): void;
  unmount(): void;
}

/** Mounts a tmpfs of `size` (mount(8) syntax, e.g. "8m") on a new directory, or returns the reason it cannot. */
export function mountTmpfs(size: string): Tmpfs | string {
  const dir = mkdtempSync(join(tmpdir(), 'sundial-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    return `mount -t tmpfs failed: ${(e as Error).message}`;
  }
  const filler = join(dir, 'filler');
  return {
    dir,
    fill() {
      const fd = openSync(filler, 'a');
      const chunk = Buffer.alloc(4096, 0x55);
      let n = 0;
      try {
        for (;;) n += writeSync(fd, chunk);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
      } finally {
        closeSync(fd);
      }
      return n;
    },
    free() {
      rmSync(filler, { force: true });
    },
    unmount() {
      execFileSync('umount', [dir], { stdio: 'pipe' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
