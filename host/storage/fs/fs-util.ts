// Small durable-filesystem helpers shared by the catalog store, the WAL and segment files, and
// the modes every file and directory of the data directory is created with.

import { open, type FileHandle } from 'node:fs/promises';

/**
 * Mode of every file the storage creates: owner read and write only. The catalog holds password
 * hashes, and the segments and WAL hold every tenant's data; nobody else on the machine needs
 * them. (Applied through the umask, which can only take bits away.)
 */
export const FILE_MODE = 0o600;
/** Mode of every directory the storage creates: owner only. */
export const DIR_MODE = 0o700;

/**
 * fsyncs a directory so that a rename or a newly created file in it survives a crash
 * (ext4 and xfs need this; see the LWN article "Ensuring data reaches disk").
 */
export async function fsyncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Writes `chunks` one after another from `position`: writev may write less than asked (interrupted), so it loops until all is down. */
export async function writeAllAt(fh: FileHandle, chunks: readonly Uint8Array[], position: number): Promise<void> {
  let pos = position;
  let rest = chunks;
  while (rest.length > 0) {
    const { bytesWritten } = await fh.writev(rest, pos);
    pos += bytesWritten;
    let skip = bytesWritten;
    const next: Uint8Array[] = [];
    for (const b of rest) {
      if (skip >= b.length) {
        skip -= b.length;
        continue;
      }
      next.push(skip > 0 ? b.subarray(skip) : b);
      skip = 0;
    }
    rest = next;
  }
}
