// Where damaged data goes instead of being deleted, and the count of every storage fault found.
// The quarantine folder of the data directory mirrors its tree: damaged bytes of a WAL segment
// become quarantine/db/<id>/wal/<segment>.<start>-<end> (the byte range in the segment), a
// damaged segment file moved aside by CHECK DATABASE ... REPAIR becomes
// quarantine/db/<id>/seg/<file>. Nothing in it is read again; it is for the operator (and for
// bug reports), who deletes it when done.
//
// The counters are the storage's fault record for this run (logged at start, read by a metrics
// endpoint); they only go up.

import { copyFile, link, mkdir, open } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import type { Logger } from 'pino';
import { DIR_MODE, FILE_MODE, fsyncDir } from './fs-util.js';

export const QUARANTINE_DIR = 'quarantine';

export interface FaultCounts {
  /** Damaged byte ranges found in WAL segments (each quarantined). */
  walDamagedRanges: number;
  /** WAL records lost to damage (LSNs missing above what segment files already hold). */
  walRecordsLost: number;
  /** Torn tails cut from the last WAL segment (a crash during a write: nothing acknowledged lost). */
  walTornTails: number;
  /** Records of writes that failed (answered with an error) found in the WAL and not replayed. */
  walFailedWriteRecords: number;
  /** Failed WAL writes or fsyncs (each answered with an error, nothing applied). */
  walWriteFailures: number;
  /** Segment files found damaged (at open, by a query, by CHECK DATABASE). */
  damagedSegmentFiles: number;
  /** Segment files moved to the quarantine folder. */
  quarantinedSegmentFiles: number;
}

export class Quarantine {
  readonly dataDir: string;
  readonly #logger: Logger;
  readonly counts: FaultCounts = {
    walDamagedRanges: 0,
    walRecordsLost: 0,
    walTornTails: 0,
    walFailedWriteRecords: 0,
    walWriteFailures: 0,
    damagedSegmentFiles: 0,
    quarantinedSegmentFiles: 0,
  };

  constructor(dataDir: string, logger: Logger) {
    this.dataDir = dataDir;
    this.#logger = logger;
  }

  /** A path of the data directory as clients and logs see it: relative, with `/`. */
  name(path: string): string {
    return relative(this.dataDir, path).split('\\').join('/');
  }

  /**
   * Copies bytes [start, end) of `source` (a file of the data directory), given as `bytes`, into
   * the quarantine folder, durably. Returns the new file's name relative to the data directory,
   * or undefined when it could not be written (logged; the caller goes on: the source is not
   * deleted because of this).
   */
  async saveBytes(source: string, start: number, end: number, bytes: Uint8Array): Promise<string | undefined> {
    const target = join(this.dataDir, QUARANTINE_DIR, `${this.name(source)}.${start}-${end}`);
    try {
      await mkdir(dirname(target), { recursive: true, mode: DIR_MODE });
      const fh = await open(target, 'w', FILE_MODE);
      try {
        await fh.writeFile(bytes);
        await fh.sync();
      } finally {
        await fh.close();
      }
      await fsyncDir(dirname(target));
      return this.name(target);
    } catch (err) {
      this.#logger.error(
        { err, file: this.name(source), start, end },
        'could not copy damaged bytes to the quarantine folder',
      );
      return undefined;
    }
  }

  /**
   * Puts a file of the data directory into the quarantine folder under its own relative path (a
   * hard link: no copy, no space needed; a copy where links are refused), durably, and returns
   * the new name. The caller then stops using and unlinks the original. A name already taken
   * gets a numbered suffix.
   */
  async keepFile(path: string): Promise<string> {
    const base = join(this.dataDir, QUARANTINE_DIR, this.name(path));
    await mkdir(dirname(base), { recursive: true, mode: DIR_MODE });
    for (let n = 0; ; n++) {
      const target = n === 0 ? base : `${base}.${n}`;
      try {
        await link(path, target);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') continue;
        if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'ENOTSUP') throw e;
        await copyFile(path, target, 1 /* COPYFILE_EXCL */);
      }
      await fsyncDir(dirname(target));
      return this.name(target);
    }
  }
}
