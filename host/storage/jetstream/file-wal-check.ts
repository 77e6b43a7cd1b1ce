// A database whose WAL moves to JetStream must not leave records behind in its WAL files: the
// JetStream replay never reads them, so they would be lost without a word.

import { listSegments, type WalFiles } from '../wal/index.js';
import { walkSegment } from '../wal/wal-scan.js';

/** Throws when `dir` holds WAL records above `afterLsn`; removes the folder when it holds none. */
export async function refuseFileWal(files: WalFiles, dir: string, afterLsn: number, dbName: string): Promise<void> {
  let segments: Array<{ firstLsn: number; path: string }>;
  try {
    segments = await listSegments(files, dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  let records = 0;
  for (const seg of segments) {
    const b = await files.readAll(seg.path);
    const buf = b.byteOffset % 8 === 0 ? b : new Uint8Array(b);
    for (const ev of walkSegment(buf, seg.firstLsn)) if (ev.kind === 'record' && ev.lsn > afterLsn) records++;
  }
  if (records > 0)
    throw new Error(
      `database ${dbName} has ${records} unflushed records in its WAL files (${dir}); start the server once without server.cluster.nats_urls and keep it running past storage.flush_age, so that they are flushed, before moving the WAL to NATS`,
    );
  await files.removeDir(dir);
}
