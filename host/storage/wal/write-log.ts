// What a database needs of its write-ahead log, whichever holds it: segment files on the local disk
// (wal.ts) or a NATS JetStream stream (../jetstream/). Both number records by LSN, call back in LSN
// order once a record is durable, and replay from the manifest's flushed LSN on open.

import type { RecordType } from './wal-record.js';

/** Called for every intact record, in LSN order. `payload` is only valid during the call. */
export type ReplayFn = (lsn: number, type: number, payload: Uint8Array) => void;

/** A failed write or fsync of the log, as its appends see it; `code` is the file system's (ENOSPC, EIO). */
export class WalFailure extends Error {
  override readonly name = 'WalFailure';
  readonly code: string | undefined;
  /** The log is a service that cannot be reached (NATS JetStream): a 503, retried by the client. */
  readonly unavailable: boolean;

  constructor(message: string, cause: unknown, unavailable = false) {
    super(message, { cause });
    this.code = (cause as NodeJS.ErrnoException | undefined)?.code;
    this.unavailable = unavailable;
  }
}

/** A defect `verify` (CHECK DATABASE) found in a segment file. */
export interface WalProblem {
  file: string;
  offset: number | null;
  problem: string;
}

/**
 * A backup checkpoint's hold on the log (`Wal.hold`): the segments holding the records after an
 * LSN, as they were when it was taken. Until `release`, no segment is deleted.
 */
export interface WalHold {
  /** The last record that was durable, and so applied, when the hold was taken. */
  lastLsn: number;
  /** Oldest first. `bytes`: the durable length of the segment being written; undefined for a closed segment (all of it). */
  segments: Array<{ path: string; bytes: number | undefined }>;
  release(): void;
}

/** What the replay found, for the database (a flush after damage retires the damaged segments). */
export interface ReplayReport {
  /** Damaged bytes or lost records were found (not just a torn tail). */
  damaged: boolean;
}

/**
 * The payload of one record split by vnode (`storage.vnodes`), for a log with a subject per
 * vnode; each part is a whole payload of the record's type. A log without vnodes ignores it.
 */
export type VnodeSplit = (vnodes: number) => Array<{ vnode: number; parts: readonly Uint8Array[] }>;

export interface WriteLog {
  /** The replay found damage or lost records (the database flushes at once). */
  readonly report: ReplayReport;
  /** Why appends are refused now, or undefined when the log is writable. */
  readonly failure: WalFailure | undefined;
  /**
   * Appends one record; once it is durable `onDurable` runs with its LSN (in LSN order across
   * appends) and the promise resolves; on failure it rejects with a WalFailure and `onDurable`
   * never runs.
   */
  append(
    type: RecordType,
    parts: readonly Uint8Array[],
    onDurable?: (lsn: number) => void,
    split?: VnodeSplit,
  ): Promise<void>;
  /** After a failure: tries to make the log writable again; resolves to whether it is. */
  probe(): Promise<boolean>;
  /** Makes the records appended so far trimmable once flushed. */
  rollover(): Promise<void>;
  /** Lets go of the records with an LSN <= `lsn` (their data is durable in segment files). */
  removeSegmentsBefore(lsn: number): Promise<void>;
  /** Waits until every record appended so far is durable (or failed). */
  sync(): Promise<void>;
  /** A backup's hold on the records after `afterLsn` (checkpoint.ts). */
  hold(afterLsn: number): WalHold;
  /** CHECK DATABASE's look at the log. */
  verify(): Promise<WalProblem[]>;
  close(): Promise<void>;
  /** Deletes the log with the database (DROP DATABASE); after close. */
  destroy(): Promise<void>;
}
