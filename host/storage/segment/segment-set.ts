// The segment set of one database as flush and compaction see it (DatabaseStore implements it):
// they change the listed files only through `commit`, never reaching into the database's state.

import type { Logger } from 'pino';
import type { CorruptionError } from '../../core/errors.js';
import type { DatabaseDef } from '../../meta/index.js';
import type { ColumnCodecs } from './column-codecs.js';
import type { FaultPoint } from '../fs/index.js';
import type { SegmentRecord, Tombstone } from './manifest.js';
import type { Memtable } from '../memtable/index.js';
import type { SegmentReader } from './segment-reader.js';
import type { SegmentStore } from './segment-store.js';

/**
 * A segment the manifest lists; `reader` is undefined when the file failed to open. `error` is
 * set once the file is known to be damaged (at open, by a read, by CHECK DATABASE): compaction
 * leaves its partition alone, ping reports it, and with storage.skip_damaged_segments reads skip it.
 */
export interface SegmentSlot {
  record: SegmentRecord;
  reader: SegmentReader | undefined;
  error?: Error;
  /** compaction.ts: the state in which the file was last found to need no cleanup. */
  cleanAt?: string;
}

/** What `commit` changes. */
export interface Change {
  add?: SegmentSlot[];
  remove?: readonly SegmentSlot[];
  flushedLsn?: number;
  expiredBefore?: bigint;
  /** The oldest frozen memtable is now in segments. */
  popFrozen?: boolean;
  /** Fail (StaleChange) unless these are all still listed (a compaction's inputs). */
  require?: readonly SegmentSlot[];
  /** Crash-test point between writing the new manifest and renaming it into place. */
  fault?: FaultPoint;
}

/** A change whose inputs another change removed meanwhile (retention dropped a partition). */
export class StaleChange extends Error {
  override readonly name = 'StaleChange';
}

/**
 * The contract: `slots` is replaced, never mutated, and only by `commit`, so a caller may hold it
 * across an await and compare it with the current one; `tombstones` and `frozen` grow as deletes
 * and writes arrive (copy them to keep a point in time). Changes are serialised: `commit` runs
 * after every earlier one and rejects with StaleChange when a `require`d slot is gone. A new file is written, made durable
 * (`syncSegmentDir` after its rename) and opened (`openSegment`) before the commit that lists it;
 * a file a commit unlisted may be deleted only after that commit resolved.
 */
export interface SegmentSet {
  /** The database: its options (partitioning, precision) and tables (dropped ones are gone). */
  readonly def: DatabaseDef;
  readonly log: Logger;
  readonly codecs: ColumnCodecs;
  /** Where the files are written (at `segmentPath`) and removed. */
  readonly segmentStore: SegmentStore;
  /** The catalog's version: what compaction found clean stays clean until it changes. */
  readonly catalogVersion: number;
  /** Listed files, sorted by minLsn: the order in which their data was written. */
  readonly slots: readonly SegmentSlot[];
  /** Deletes that still hide rows of some listed file or frozen memtable. */
  readonly tombstones: readonly Tombstone[];
  /** Rows before this time are expired (retention); null: none yet. */
  readonly expiredBefore: bigint | null;
  /** Every WAL record up to this LSN is in segment files. */
  readonly flushedLsn: number;
  /** Memtables waiting for their flush, oldest first: flush writes the first one. */
  readonly frozen: readonly Memtable[];
  /** Set once the database closes: background work stops at its next step. */
  readonly closing: boolean;
  /** A file id for a new segment (persisted with the next manifest). */
  allocateFileId(): number;
  segmentPath(fileId: number): string;
  /** Makes the creation, rename or deletion of segment files durable. */
  syncSegmentDir(): Promise<void>;
  /** Opens a segment just written; `keys` as SegmentWriter.finish returned them. */
  openSegment(record: SegmentRecord, keys?: readonly string[]): Promise<SegmentSlot>;
  /** Saves the manifest of the changed set, then switches to it in one synchronous step. */
  commit(change: Change): Promise<void>;
  /** Marks the listed file a read found damaged (`err.source`); whether it was news. */
  markDamaged(err: CorruptionError): boolean;
  /** Deletes the WAL segments whose records are all at or below `lsn` (in segment files now). */
  trimWal(lsn: number): Promise<void>;
}
