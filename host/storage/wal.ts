// The write-ahead log of one database: append-only segment files in a folder named `wal`, one
// record per acknowledged request, group commit (one fsync covers every record queued while the
// previous fsync ran), replay on open with the torn tail cut (FORMAT.md §2).
//
// Call order: `Wal.open` (replays through the callback), then `append` any number of times,
// `removeSegmentsBefore` after the data of older records is durable elsewhere, `close` last.

import { mkdir, open, readdir, readFile, rename, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { bug } from '../core/errors.js';
import { DIR_MODE, FILE_MODE, fsyncDir } from './fs-util.js';
import {
  decodeRecord,
  decodeSegmentHeader,
  encodeRecordHeader,
  encodeSegmentHeader,
  isDefect,
  SEGMENT_HEADER_BYTES,
  type RecordType,
} from './wal-record.js';

export interface WalOptions {
  dir: string;
  /** Close a segment and start the next once it reaches this size. */
  segmentBytes: number;
  /** fsync before an append resolves. */
  sync: boolean;
  logger: Logger;
}

/** Called for every intact record, in LSN order. `payload` is only valid during the call. */
export type ReplayFn = (lsn: number, type: number, payload: Uint8Array) => void;

interface Pending {
  buffers: Uint8Array[];
  bytes: number;
  resolve: () => void;
  reject: (e: Error) => void;
}

interface Segment {
  firstLsn: number;
  path: string;
}

/** Longest stretch of replay without giving the event loop a turn. */
const REPLAY_SLICE_MS = 20;

const segmentName = (firstLsn: number): string => String(firstLsn).padStart(20, '0') + '.wal';

export class Wal {
  readonly #opts: WalOptions;
  #segments: Segment[] = [];
  #fh: FileHandle | undefined;
  #size = 0;
  #nextLsn: number;
  /** LSN of the next record to reach the file (records are written in LSN order). */
  #writtenLsn: number;
  #queue: Pending[] = [];
  #flushing: Promise<void> | undefined;
  /** Set after a failed write or fsync: the log can no longer be trusted (see "fsyncgate"). */
  #failed: Error | undefined;
  #closed = false;
  /** Start a new segment before the next write (so that a flush can trim the old ones). */
  #rollRequested = false;
  /** Settles when the last requested roll has been carried out (or found unneeded, or failed). */
  #rolled: Promise<void> = Promise.resolve();
  #rollDone: (() => void) | undefined;

  private constructor(opts: WalOptions, nextLsn: number) {
    this.#opts = opts;
    this.#nextLsn = nextLsn;
    this.#writtenLsn = nextLsn;
  }

  /** LSN the next append will get. */
  get nextLsn(): number {
    return this.#nextLsn;
  }

  /**
   * Opens the log in `dir` (created if missing), replaying every intact record with an LSN
   * above `afterLsn` through `replay`. A torn or corrupt tail is cut and logged; if a defect is
   * found before the last segment, the later segments are moved to `wal/corrupt-<time>/`.
   */
  static async open(opts: WalOptions, afterLsn: number, replay: ReplayFn): Promise<Wal> {
    await mkdir(opts.dir, { recursive: true, mode: DIR_MODE });
    const names = (await readdir(opts.dir)).filter((n) => /^\d{20}\.wal$/.test(n)).sort();
    const segments: Segment[] = names.map((n) => ({ firstLsn: Number(n.slice(0, 20)), path: join(opts.dir, n) }));
    let nextLsn = afterLsn + 1;
    let lastSize = 0;
    let lastYield = performance.now();

    for (let i = 0; i < segments.length; i++) {
      const seg = segments[i]!;
      const buf = await readAligned(seg.path);
      const header = decodeSegmentHeader(buf);
      let offset = SEGMENT_HEADER_BYTES;
      let defect: { offset: number; reason: string } | undefined;
      if (typeof header === 'string') {
        defect = { offset: 0, reason: header };
        offset = 0;
      } else if (header !== seg.firstLsn) {
        defect = { offset: 0, reason: `header says first LSN ${header}, file name says ${seg.firstLsn}` };
        offset = 0;
      }
      let expected = seg.firstLsn;
      while (defect === undefined && offset < buf.length) {
        const r = decodeRecord(buf, offset);
        if (isDefect(r)) {
          defect = r;
          break;
        }
        if (r.lsn !== expected) {
          defect = { offset, reason: `LSN ${r.lsn} where ${expected} was expected` };
          break;
        }
        if (r.lsn > afterLsn) replay(r.lsn, r.type, r.payload);
        expected = r.lsn + 1;
        offset = r.next;
        // Let the event loop in now and then: the server answers 503 (and ping) while it replays
        // a long log, instead of leaving clients hanging until the whole log is applied.
        if (performance.now() - lastYield > REPLAY_SLICE_MS) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          lastYield = performance.now();
        }
      }
      nextLsn = Math.max(nextLsn, expected);
      if (defect !== undefined) {
        const later = segments.splice(i + 1);
        await cutSegment(opts, seg, offset, defect, later);
        if (offset === 0) {
          // Nothing usable in this file: drop it and start a fresh segment below.
          segments.splice(i, 1);
          lastSize = 0;
        } else {
          lastSize = offset;
        }
        break;
      }
      lastSize = buf.length;
    }

    const wal = new Wal(opts, nextLsn);
    wal.#segments = segments;
    const last = segments.at(-1);
    if (last !== undefined && lastSize < opts.segmentBytes) {
      wal.#fh = await open(last.path, 'r+');
      wal.#size = lastSize;
    } else {
      await wal.#startSegment(nextLsn);
    }
    return wal;
  }

  /**
   * Appends one record whose payload is `parts` concatenated. The LSN is assigned now, in call
   * order; the promise resolves once the record is durable (written and, with `sync`, fsynced)
   * and rejects if the log failed. `parts` must not be modified until it settles.
   */
  append(type: RecordType, parts: readonly Uint8Array[]): { lsn: number; durable: Promise<void> } {
    if (this.#closed) return { lsn: -1, durable: Promise.reject(bug('append to a closed WAL')) };
    if (this.#failed) return { lsn: -1, durable: Promise.reject(this.#failed) };
    const lsn = this.#nextLsn++;
    const { header, padding } = encodeRecordHeader(lsn, type, parts);
    const buffers = [header, ...parts];
    if (padding.length > 0) buffers.push(padding);
    let bytes = 0;
    for (const b of buffers) bytes += b.length;
    let resolve!: () => void;
    let reject!: (e: Error) => void;
    const durable = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    this.#queue.push({ buffers, bytes, resolve, reject });
    this.#flushing ??= this.#flush();
    return { lsn, durable };
  }

  /** Writes queued records in LSN order, one write and one fsync per group, until the queue is empty. */
  async #flush(): Promise<void> {
    // Let every append of the current tick join the first group.
    await new Promise<void>((r) => setImmediate(r));
    try {
      while (this.#queue.length > 0 || this.#rollRequested) {
        if (this.#queue.length === 0) {
          // A roll with nothing to write: start the new segment now.
          const done = this.#takeRoll();
          try {
            if (!this.#failed && this.#size > SEGMENT_HEADER_BYTES) await this.#startSegment(this.#writtenLsn);
          } catch (e) {
            this.#fail(e as Error);
          } finally {
            done();
          }
          continue;
        }
        const group = this.#queue;
        this.#queue = [];
        try {
          if (this.#failed) throw this.#failed;
          if (this.#size >= this.#opts.segmentBytes || (this.#rollRequested && this.#size > SEGMENT_HEADER_BYTES)) {
            const done = this.#takeRoll();
            try {
              await this.#startSegment(this.#writtenLsn);
            } finally {
              done();
            }
          }
          const buffers = group.flatMap((p) => p.buffers);
          let bytes = 0;
          for (const p of group) bytes += p.bytes;
          await writeAll(this.#fh!, buffers, this.#size);
          this.#size += bytes;
          this.#writtenLsn += group.length;
          if (this.#opts.sync) await this.#fh!.datasync();
          for (const p of group) p.resolve();
        } catch (e) {
          this.#fail(e as Error);
          for (const p of group) p.reject(this.#failed!);
        }
      }
    } finally {
      this.#flushing = undefined;
    }
  }

  /** Marks the requested roll as being carried out; call the result once it is. */
  #takeRoll(): () => void {
    const done = this.#rollDone ?? (() => undefined);
    this.#rollRequested = false;
    this.#rollDone = undefined;
    return done;
  }

  #fail(err: Error): void {
    if (this.#failed) return;
    this.#failed = new Error(`WAL in ${this.#opts.dir} failed, no further writes are accepted: ${err.message}`, { cause: err });
    this.#opts.logger.fatal({ err, dir: this.#opts.dir }, 'WAL write failed');
  }

  /** Closes the current segment (if any) and starts one whose first record will be `firstLsn`. */
  async #startSegment(firstLsn: number): Promise<void> {
    if (this.#fh) {
      await this.#fh.datasync();
      await this.#fh.close();
    }
    const path = join(this.#opts.dir, segmentName(firstLsn));
    const fh = await open(path, 'w+', FILE_MODE);
    await fh.write(encodeSegmentHeader(firstLsn), 0, SEGMENT_HEADER_BYTES, 0);
    await fh.datasync();
    await fsyncDir(this.#opts.dir);
    this.#fh = fh;
    this.#size = SEGMENT_HEADER_BYTES;
    this.#segments.push({ firstLsn, path });
  }

  /**
   * Closes the current segment (unless it is empty) and starts the next, so that every record
   * appended so far lives in segments `removeSegmentsBefore` can delete once flushed. Resolves
   * when the new segment exists.
   */
  rollover(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    if (!this.#rollRequested) {
      this.#rollRequested = true;
      this.#rolled = new Promise((resolve) => (this.#rollDone = resolve));
    }
    this.#flushing ??= this.#flush();
    return this.#rolled;
  }

  /** Waits until every record appended so far is durable (or the log failed). */
  async sync(): Promise<void> {
    while (this.#flushing) await this.#flushing;
  }

  /**
   * Deletes segments all of whose records have an LSN <= `lsn` (their data is durable
   * elsewhere). The segment being written is never deleted, so a roll requested before the
   * call (a memtable's freeze) is waited for: it closes the segment that holds those records.
   */
  async removeSegmentsBefore(lsn: number): Promise<void> {
    await this.#rolled;
    while (this.#segments.length > 1 && this.#segments[1]!.firstLsn <= lsn + 1) {
      const seg = this.#segments.shift()!;
      await unlink(seg.path);
    }
    await fsyncDir(this.#opts.dir);
  }

  /** Flushes and closes; later appends fail. */
  async close(): Promise<void> {
    await this.sync();
    this.#closed = true;
    if (this.#fh) {
      if (!this.#failed) await this.#fh.datasync();
      await this.#fh.close();
      this.#fh = undefined;
    }
  }
}

/** Reads a whole file into a buffer whose byteOffset is 0, so payloads stay 8-aligned. */
async function readAligned(path: string): Promise<Uint8Array> {
  const b = await readFile(path);
  if (b.byteOffset % 8 === 0) return b;
  const copy = new Uint8Array(b.length);
  copy.set(b);
  return copy;
}

async function writeAll(fh: FileHandle, buffers: Uint8Array[], position: number): Promise<void> {
  let pos = position;
  let rest = buffers;
  // writev may write less than asked (e.g. interrupted); loop until everything is down.
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

async function cutSegment(
  opts: WalOptions,
  seg: Segment,
  offset: number,
  defect: { offset: number; reason: string },
  later: Segment[],
): Promise<void> {
  const fh = await open(seg.path, 'r+');
  try {
    await fh.truncate(offset);
    await fh.datasync();
  } finally {
    await fh.close();
  }
  if (offset === 0) await unlink(seg.path);
  if (later.length === 0) {
    opts.logger.warn({ file: seg.path, offset: defect.offset, reason: defect.reason }, 'WAL: cut the torn tail of the last segment');
  } else {
    const aside = join(opts.dir, `corrupt-${Date.now()}`);
    await mkdir(aside, { recursive: true });
    for (const s of later) await rename(s.path, join(aside, s.path.slice(s.path.lastIndexOf('/') + 1)));
    opts.logger.error(
      { file: seg.path, offset: defect.offset, reason: defect.reason, movedTo: aside, segments: later.length },
      'WAL: corruption before the last segment; cut there and moved the later segments aside',
    );
  }
  await fsyncDir(opts.dir);
}
