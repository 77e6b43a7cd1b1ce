// The stream a DROP DATABASE left: it saves the catalog, then deletes the stream, then the folder,
// so a crash in between leaves a stream no database names, and its folder. At start, before the
// folder is removed, its stream is deleted, but only when its description carries the token of the
// folder's `wal-stream` (a stream of another data directory is left alone).

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JetStreamLink } from './jetstream-link.js';
import { streamDescription, streamName } from './jetstream-wal.js';

/**
 * Deletes the stream of the dropped database whose folder is `dir` (`<data dir>/db/<id>`) when it
 * is this folder's; returns whether it did. Only folders are looked at, never a list of every
 * stream of the NATS (other servers' included): no folder, no token, nothing of ours to delete.
 */
export async function deleteOrphanStream(link: JetStreamLink, dir: string, id: number): Promise<boolean> {
  let token: string;
  try {
    token = (await readFile(join(dir, 'wal-stream'), 'utf8')).trim();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false; // never had a stream
    throw e;
  }
  const name = streamName(link.prefix, id);
  const info = await link.atStart(`stream info ${name}`, () =>
    link.jsm.streams.info(name).catch((e: { code?: string; api_error?: { err_code?: number } }) => {
      if (e.api_error?.err_code === 10059 || e.code === '404') return undefined;
      throw e;
    }),
  );
  if (info === undefined || info.config.description !== streamDescription(id, token)) return false;
  await link.jsm.streams.delete(name);
  link.logger.info({ stream: name }, 'deleted the WAL stream of a dropped database');
  return true;
}
