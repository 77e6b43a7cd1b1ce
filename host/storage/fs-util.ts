// Small durable-filesystem helpers shared by the catalog store, the WAL and segment files.

import { open } from 'node:fs/promises';

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
