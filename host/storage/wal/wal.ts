// The write-ahead log of one database: append-only segment files in a folder named `wal`, one
// record per acknowledged request, group commit (one fsync covers every record queued while the
// previous fsync ran), replay on open (FORMAT.md §2).
//
// A failed write or fsync answers its group with an error and makes the group's records void:
// the file is cut back to its last durable byte and, after a failed fsync (whose pages the kernel
// may have dropped: PostgreSQL's "fsyncgate"), the log goes on in a new segment whose first LSN is
// the failed group's, which tells replay that the records from that LSN on in the older segment
// are void. Until a probe shows the log writable again, appends are refused (`failure`).
//
// Call order: `Wal.open` (replays through the callback), then `append` any number of times,
// `removeSegmentsBefore` after the data of older records is durable elsewhere, `close` last.

import { join } from 'node:path';
import type { Logger } from 'pino';
import { bug } from '../../core/errors.js';
import type { Metrics } from '../../core/metrics.js';
import { failurePoint, type Quarantine } from '../fs/index.js';
import type { WalFile, WalFiles } from './wal-files.js';
import { walkSegment } from './wal-scan.js';
import {
  type ReplayFn,
  type ReplayReport,
  WalFailure,
  type WalHold,
  type WalProblem,
  type WriteLog,
} from './write-log.js';
import { encodeRecordHeader, encodeSegmentHeader, SEGMENT_HEADER_BYTES, type RecordType } from './wal-record.js';

export interface WalOptions {
  dir: string;
  /** Where the segment files live (wal-files.ts; nodeWalFiles on the file system). */
  files: WalFiles;
  /** Close a segment and start the next once it reaches this size. */
  segmentBytes: number;
  /** fsync before an append resolves. */
  sync: boolean;
  logger: Logger;
  /** Where damaged bytes found by the replay go, and the fault counters; also names files relative to the data directory. */
  quarantine: Quarantine;
  /** After a failure, the least time between two attempts to make the log writable again (default 1 s). */
  probeIntervalMs?: number;
  /** Told each group commit's size and fsync time (default: none). */
  metrics?: Metrics;
}

interface Pending {
  type: RecordType;
  parts: readonly Uint8Array[];
  /** Runs once the record is durable, in LSN order, before the append resolves (the memtable apply). */
  onDurable: ((lsn: number) => void) | undefined;
  resolve: () => void;
  reject: (e: Error) => void;
}

interface Segment {
  firstLsn: number;
  path: string;
}

/** Longest stretch of replay without giving the event loop a turn. */
const REPLAY_SLICE_MS = 20;
/** After a failure, the least time between two attempts to make the log writable again. */
const PROBE_INTERVAL_MS = 1000;
/** Bytes a probe writes (and cuts off again) after a failed write: room for a typical request. */
const PROBE_BYTES = 64 * 1024;

const segmentName = (firstLsn: number): string => String(firstLsn).padStart(20, '0') + '.wal';

export class Wal implements WriteLog {
  readonly #opts: WalOptions;
  #segments: Segment[] = [];
  #fh: WalFile | undefined;
  /** Bytes of the current segment that are durable (records are only ever written after them). */
  #size = 0;
  /** LSN of the next record to reach the file; records get their LSN when their group is written. */
  #nextLsn: number;
  #queue: Pending[] = [];
  #flushing: Promise<void> | undefined;
  /** Set while the log refuses appends after a failed write or fsync. */
  #failure: { error: WalFailure; roll: boolean; triedMs: number } | undefined;
  #probing: Promise<boolean> | undefined;
  #closed = false;
  /** Start a new segment before the next write (so that a flush can trim the old ones). */
  #rollRequested = false;
  /** Settles when the last requested roll has been carried out (or found unneeded, or failed). */
  #rolled: Promise<void> = Promise.resolve();
  #rollDone: (() => void) | undefined;
  report: ReplayReport = { damaged: false };
  /** Checkpoints holding the segments (`hold`), and the trim they put off. */
  #holds = 0;
  #heldTrim: number | undefined;

  private constructor(opts: WalOptions, nextLsn: number) {
    this.#opts = opts;
    this.#nextLsn = nextLsn;
  }

  /** LSN the next record written will get. */
  get nextLsn(): number {
    return this.#nextLsn;
  }

  /** Why appends are refused now, or undefined when the log is writable. */
  get failure(): WalFailure | undefined {
    return this.#failure?.error;
  }

  /**
   * Opens the log in `dir` (created if missing), replaying every intact record with an LSN
   * above `afterLsn` through `replay`. Damaged records are skipped, their bytes copied to the
   * quarantine folder and logged, and every intact record after them is replayed; a torn tail
   * of the last segment is cut. Appends go to a new segment when the last one is damaged.
   */
  static async open(opts: WalOptions, afterLsn: number, replay: ReplayFn): Promise<Wal> {
    const files = opts.files;
    await files.makeDir(opts.dir);
    const names = (await files.list(opts.dir)).filter((n) => /^\d{20}\.wal$/.test(n)).sort();
    const segments: Segment[] = names.map((n) => ({ firstLsn: Number(n.slice(0, 20)), path: join(opts.dir, n) }));
    const q = opts.quarantine;
    const log = opts.logger;
    const report: ReplayReport = { damaged: false };
    /** The LSN that should come next (after the last record seen, or the flushed ones). */
    let expected = afterLsn + 1;
    let lastSize = 0;
    let lastDamaged = false;
    let lastYield = performance.now();

    /** Records [from, to] are missing: lost when above afterLsn (the rest is in segment files). */
    const gap = (file: string, at: number | null, from: number, to: number): void => {
      const lo = Math.max(from, afterLsn + 1);
      if (to < lo) return;
      report.damaged = true;
      q.counts.walRecordsLost += to - lo + 1;
      log.error(
        { file, offset: at, fromLsn: lo, toLsn: to, records: to - lo + 1 },
        'WAL: records lost to damage; every intact record after them is replayed',
      );
    };

    for (let i = 0; i < segments.length; i++) {
      const seg = segments[i]!;
      const file = q.name(seg.path);
      const isLast = i === segments.length - 1;
      // Records at or above the next segment's first LSN are void: the log moved on to the next
      // segment after they failed, reusing their LSNs.
      const bound = segments[i + 1]?.firstLsn ?? Infinity;
      const buf = await readAligned(files, seg.path);
      if (seg.firstLsn > expected) gap(file, 0, expected, seg.firstLsn - 1);
      expected = Math.max(expected, seg.firstLsn);
      let size = buf.length;
      let voided = 0;
      for (const ev of walkSegment(buf, seg.firstLsn)) {
        if (ev.kind === 'record') {
          if (ev.lsn >= bound) {
            voided++;
            continue;
          }
          if (ev.lsn > expected) gap(file, ev.offset, expected, ev.lsn - 1);
          if (ev.lsn > afterLsn) replay(ev.lsn, ev.type, ev.payload);
          expected = Math.max(expected, ev.lsn + 1);
          // Let the event loop in now and then: the server answers 503 (and ping) while it
          // replays a long log, instead of leaving clients hanging until the whole log is applied.
          if (performance.now() - lastYield > REPLAY_SLICE_MS) {
            await new Promise<void>((resolve) => setImmediate(resolve));
            lastYield = performance.now();
          }
          continue;
        }
        if (ev.tail && isLast) {
          // A write cut short by a crash: it was never acknowledged. Cut it off so that appends follow the last intact record.
          q.counts.walTornTails++;
          log.warn(
            { file, offset: ev.start, bytes: ev.end - ev.start, reason: ev.reason },
            'WAL: cut the torn tail of the last segment',
          );
          await truncateFile(files, seg.path, ev.start);
          size = ev.start;
          continue;
        }
        if (ev.tail && bound <= expected) {
          // The end of a segment the log left after a failed write: the next segment goes on from
          // the LSN that follows the last intact record here, so nothing is missing.
          log.warn(
            { file, offset: ev.start, bytes: ev.end - ev.start, nextSegmentLsn: bound },
            'WAL: ignored the unreadable end of a segment a failed write left (the next segment goes on from there)',
          );
          continue;
        }
        report.damaged = true;
        if (isLast) lastDamaged = true;
        q.counts.walDamagedRanges++;
        const saved = await q.saveBytes(seg.path, ev.start, ev.end, buf.subarray(ev.start, ev.end));
        log.error(
          { file, start: ev.start, end: ev.end, reason: ev.reason, quarantined: saved },
          'WAL: damaged bytes skipped and copied to the quarantine folder; every intact record after them is replayed',
        );
      }
      if (voided > 0) {
        q.counts.walFailedWriteRecords += voided;
        log.warn(
          { file, records: voided, nextSegmentLsn: bound },
          'WAL: skipped the records of writes that failed (they were answered with an error)',
        );
      }
      if (isLast) lastSize = size;
    }

    const wal = new Wal(opts, expected);
    wal.report = report;
    wal.#segments = segments;
    const last = segments.at(-1);
    if (last !== undefined && lastSize < SEGMENT_HEADER_BYTES) {
      // Not even a header survived (a crash while the segment was created): nothing to keep.
      await files.remove(last.path);
      segments.pop();
    }
    const tail = segments.at(-1);
    if (tail !== undefined && tail === last && !lastDamaged && lastSize < opts.segmentBytes) {
      wal.#fh = await files.openAppend(tail.path);
      wal.#size = lastSize;
    } else {
      try {
        await wal.#startSegment(expected);
      } catch (e) {
        // A full disk at start: the server still comes up and serves reads; writes are refused
        // until a probe makes the segment.
        wal.#fail(e, 'segment', true);
      }
    }
    return wal;
  }

  /**
   * Appends one record whose payload is `parts` concatenated. Records are written in call order
   * and get their LSN then. Once the record is durable (written and, with `sync`, fsynced),
   * `onDurable` runs with its LSN, in LSN order across appends, and then the promise resolves;
   * if the write fails the promise rejects with a WalFailure and `onDurable` never runs.
   * `parts` must not be modified until it settles.
   */
  append(type: RecordType, parts: readonly Uint8Array[], onDurable?: (lsn: number) => void): Promise<void> {
    if (this.#closed) return Promise.reject(bug('append to a closed WAL'));
    return new Promise<void>((resolve, reject) => {
      const p: Pending = { type, parts, onDurable, resolve, reject };
      if (this.#failure === undefined) return this.#enqueue(p);
      // Refused while the log is failed, unless a probe (at most one a PROBE_INTERVAL_MS, shared
      // by the appends that arrive meanwhile) finds it writable again.
      void this.probe().then((ok) =>
        ok && !this.#closed ? this.#enqueue(p) : reject(this.#failure?.error ?? bug('append to a closed WAL')),
      );
    });
  }

  #enqueue(p: Pending): void {
    this.#queue.push(p);
    this.#flushing ??= this.#flush();
  }

  /**
   * After a failure: tries to make the log writable again, at most once a PROBE_INTERVAL_MS (the
   * storage's maintenance calls it every second, appends when they arrive). After a failed
   * fsync it starts a new segment; after a failed write it writes PROBE_BYTES of zeros where the
   * next record goes, fsyncs and cuts them off again. Resolves to whether the log is writable.
   */
  probe(): Promise<boolean> {
    const f = this.#failure;
    if (f === undefined) return Promise.resolve(true);
    if (this.#probing !== undefined) return this.#probing;
    if (
      performance.now() - f.triedMs < (this.#opts.probeIntervalMs ?? PROBE_INTERVAL_MS) ||
      this.#flushing !== undefined
    )
      return Promise.resolve(false);
    const run = (async () => {
      try {
        if (f.roll) {
          await this.#startSegment(this.#nextLsn, false);
        } else {
          const fh = this.#fh!;
          await fh.write([new Uint8Array(PROBE_BYTES)], this.#size);
          await fh.datasync();
          await fh.truncate(this.#size);
          await fh.datasync();
        }
        this.#failure = undefined;
        this.#opts.logger.info(
          { dir: this.#opts.quarantine.name(this.#opts.dir) },
          'WAL writable again; writes are accepted',
        );
        return true;
      } catch (err) {
        if (!f.roll) f.roll = !(await this.#cutBack());
        f.triedMs = performance.now();
        this.#opts.logger.debug({ err }, 'WAL still not writable');
        return false;
      } finally {
        this.#probing = undefined;
      }
    })();
    this.#probing = run;
    return run;
  }

  /** Writes queued records in order, one write and one fsync per group, until the queue is empty. */
  async #flush(): Promise<void> {
    // Let every append of the current tick join the first group.
    await new Promise<void>((r) => setImmediate(r));
    try {
      while (this.#queue.length > 0 || this.#rollRequested) {
        if (this.#failure !== undefined) {
          // Appends queued behind a failed group: refused, as the ones after them until a probe succeeds.
          const refused = this.#queue;
          this.#queue = [];
          for (const p of refused) p.reject(this.#failure.error);
          this.#takeRoll()();
          break;
        }
        if (this.#queue.length === 0) {
          // A roll with nothing to write: start the new segment now.
          const done = this.#takeRoll();
          try {
            if (this.#size > SEGMENT_HEADER_BYTES) await this.#startSegment(this.#nextLsn);
          } catch (e) {
            this.#fail(e, 'segment', true);
          } finally {
            done();
          }
          continue;
        }
        const group = this.#queue;
        this.#queue = [];
        if (this.#size >= this.#opts.segmentBytes || (this.#rollRequested && this.#size > SEGMENT_HEADER_BYTES)) {
          const done = this.#takeRoll();
          try {
            await this.#startSegment(this.#nextLsn);
          } catch (e) {
            this.#fail(e, 'segment', true);
            for (const p of group) p.reject(this.#failure!.error);
            continue;
          } finally {
            done();
          }
        }
        await this.#writeGroup(group);
      }
    } finally {
      this.#flushing = undefined;
    }
  }

  /** Writes one group at the end of the current segment, fsyncs, then runs its callbacks in LSN order. */
  async #writeGroup(group: Pending[]): Promise<void> {
    const first = this.#nextLsn;
    const buffers: Uint8Array[] = [];
    let bytes = 0;
    for (let i = 0; i < group.length; i++) {
      const p = group[i]!;
      const { header, padding } = encodeRecordHeader(first + i, p.type, p.parts);
      buffers.push(header, ...p.parts);
      bytes += header.length;
      for (const part of p.parts) bytes += part.length;
      if (padding.length > 0) {
        buffers.push(padding);
        bytes += padding.length;
      }
    }
    const fh = this.#fh!;
    let step: 'write' | 'fsync' = 'write';
    try {
      failurePoint('wal:write');
      await fh.write(buffers, this.#size);
      step = 'fsync';
      let fsyncSeconds: number | undefined;
      if (this.#opts.sync) {
        failurePoint('wal:fsync');
        const started = performance.now();
        await fh.datasync();
        fsyncSeconds = (performance.now() - started) / 1000;
      }
      this.#opts.metrics?.walGroupCommitted(group.length, fsyncSeconds);
    } catch (e) {
      // None of the group was acknowledged or applied: cut it off the file (and after a failed
      // fsync, go on in a new segment), so that no restart replays it.
      const cut = await this.#cutBack();
      this.#fail(e, step, step === 'fsync' || !cut);
      for (const p of group) p.reject(this.#failure!.error);
      return;
    }
    this.#size += bytes;
    this.#nextLsn = first + group.length;
    for (let i = 0; i < group.length; i++) {
      const p = group[i]!;
      try {
        p.onDurable?.(first + i);
        p.resolve();
      } catch (e) {
        p.reject(e as Error); // a bug in the callback: the record is durable, so a restart applies it
      }
    }
  }

  /** Truncates the current segment to its durable size and fsyncs; false when that failed too. */
  async #cutBack(): Promise<boolean> {
    try {
      await this.#fh!.truncate(this.#size);
      await this.#fh!.datasync();
      return true;
    } catch {
      return false;
    }
  }

  /** Marks the requested roll as being carried out; call the result once it is. */
  #takeRoll(): () => void {
    const done = this.#rollDone ?? (() => undefined);
    this.#rollRequested = false;
    this.#rollDone = undefined;
    return done;
  }

  /** Enters the failed state; `roll`: the current segment cannot be trusted, the log goes on in a new one. */
  #fail(err: unknown, step: 'write' | 'fsync' | 'segment', roll: boolean): void {
    const dir = this.#opts.quarantine.name(this.#opts.dir);
    const code = (err as NodeJS.ErrnoException).code;
    const error = new WalFailure(
      `WAL ${step} in ${dir} failed (${code ?? (err as Error).message}); writes are refused until it is writable again`,
      err,
    );
    this.#opts.quarantine.counts.walWriteFailures++;
    if (this.#failure === undefined)
      this.#opts.logger.error(
        { err, dir, step, nextLsn: this.#nextLsn, roll },
        'WAL write failed; the writes of the group were answered with an error and cut off the log',
      );
    this.#failure = { error, roll: roll || (this.#failure?.roll ?? false), triedMs: performance.now() };
  }

  /**
   * Starts a segment whose first record will be `firstLsn` and makes it current; the old one is
   * closed (fsynced first when `syncOld`). If the new one cannot be made, the old one stays
   * current and nothing of the new one is left behind.
   */
  async #startSegment(firstLsn: number, syncOld = true): Promise<void> {
    const path = join(this.#opts.dir, segmentName(firstLsn));
    const old = this.#fh;
    if (this.#segments.at(-1)?.path === path) {
      // The last segment holds no intact record (a failure on its first group, or damage found
      // by the replay, whose bytes are in the quarantine folder by now): start it over.
      await old?.close().catch(() => undefined);
      this.#fh = undefined;
      this.#segments.pop();
      await this.#opts.files.remove(path).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'ENOENT') throw e;
      });
    } else if (old !== undefined && syncOld) {
      await old.datasync();
    }
    const files = this.#opts.files;
    let fh: WalFile | undefined;
    try {
      fh = await files.create(path);
      failurePoint('wal:segment');
      await fh.write([encodeSegmentHeader(firstLsn)], 0);
      await fh.datasync();
      await files.syncDir(this.#opts.dir);
    } catch (e) {
      await fh?.close().catch(() => undefined);
      await files.remove(path).catch(() => undefined);
      throw e;
    }
    if (this.#fh !== undefined) await this.#fh.close().catch(() => undefined);
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

  /** Waits until every record appended so far is durable (or failed). */
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
    if (this.#holds > 0) {
      // A backup is copying the segments: the trim runs when the last hold is released.
      this.#heldTrim = Math.max(this.#heldTrim ?? 0, lsn);
      return;
    }
    while (this.#segments.length > 1 && this.#segments[1]!.firstLsn <= lsn + 1) {
      const seg = this.#segments.shift()!;
      await this.#opts.files.remove(seg.path);
    }
    await this.#opts.files.syncDir(this.#opts.dir);
  }

  /**
   * Holds the segments that hold records after `afterLsn` (every record the manifest's files do
   * not), up to the last durable record: the WAL tail of a backup's checkpoint. Synchronous, so
   * that the hold, the database's manifest and every other database's hold describe one instant.
   * Trims wait until `release`; a closed segment never changes again, and the one being written
   * only grows past the durable length noted here.
   */
  hold(afterLsn: number): WalHold {
    this.#holds++;
    const segments: WalHold['segments'] = [];
    const all = this.#segments;
    for (let i = 0; i < all.length; i++) {
      const next = all[i + 1];
      if (next !== undefined && next.firstLsn <= afterLsn + 1) continue; // all of its records are in segment files
      segments.push({
        path: all[i]!.path,
        bytes: next === undefined && this.#fh !== undefined ? this.#size : undefined,
      });
    }
    let released = false;
    return {
      lastLsn: this.#nextLsn - 1,
      segments,
      release: () => {
        if (released) return;
        released = true;
        if (--this.#holds > 0 || this.#heldTrim === undefined || this.#closed) return;
        const lsn = this.#heldTrim;
        this.#heldTrim = undefined;
        this.removeSegmentsBefore(lsn).catch((err: unknown) =>
          this.#opts.logger.error({ err }, 'WAL: removing flushed segments failed'),
        );
      },
    };
  }

  /**
   * Checks every segment file (CHECK DATABASE): headers, checksums, LSN order; the current one up
   * to its durable size. Records of failed writes that a later segment voids are not problems.
   */
  async verify(): Promise<WalProblem[]> {
    return verifySegments(this.#opts.files, [...this.#segments], this.#size, (path) =>
      this.#opts.quarantine.name(path),
    );
  }

  /** Deletes the segment files (DROP DATABASE), after `close`. */
  async destroy(): Promise<void> {
    await this.#opts.files.removeDir(this.#opts.dir);
  }

  /** Flushes and closes; later appends fail. */
  async close(): Promise<void> {
    await this.sync();
    this.#closed = true;
    if (this.#fh) {
      if (this.#failure === undefined) await this.#fh.datasync();
      await this.#fh.close();
      this.#fh = undefined;
    }
  }
}

/** The segment files of a log folder, oldest first (`sundial check` reads a log no server has open). */
export async function listSegments(files: WalFiles, dir: string): Promise<Array<{ firstLsn: number; path: string }>> {
  const names = (await files.list(dir)).filter((n) => /^\d{20}\.wal$/.test(n)).sort();
  return names.map((n) => ({ firstLsn: Number(n.slice(0, 20)), path: join(dir, n) }));
}

/**
 * Checks segment files (CHECK DATABASE, `sundial check`): headers, checksums, LSN order; the
 * last one up to `durable` bytes when given (the live log's). Records of failed writes that a
 * later segment voids are not problems; `name` gives a file's name as reports show it.
 */
export async function verifySegments(
  files: WalFiles,
  segments: ReadonlyArray<{ firstLsn: number; path: string }>,
  durable: number | undefined,
  name: (path: string) => string,
): Promise<WalProblem[]> {
  const out: WalProblem[] = [];
  let expected: number | undefined;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    const file = name(seg.path);
    let buf: Uint8Array;
    try {
      buf = await readAligned(files, seg.path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue; // trimmed meanwhile
      throw e;
    }
    if (i === segments.length - 1 && durable !== undefined) buf = buf.subarray(0, durable);
    const bound = segments[i + 1]?.firstLsn ?? Infinity;
    if (expected !== undefined && seg.firstLsn > expected)
      out.push({ file, offset: 0, problem: `LSN ${expected} to ${seg.firstLsn - 1} missing before this segment` });
    expected = seg.firstLsn;
    for (const ev of walkSegment(buf, seg.firstLsn)) {
      if (ev.kind === 'record') {
        if (ev.lsn >= bound) continue;
        if (ev.lsn > expected)
          out.push({ file, offset: ev.offset, problem: `LSN ${expected} to ${ev.lsn - 1} missing` });
        expected = ev.lsn + 1;
      } else if (!(ev.tail && bound <= expected)) {
        // (The live log's is checked to its durable size: a tail there is damage too.)
        const torn =
          ev.tail && bound === Infinity && durable === undefined
            ? '; a torn tail (a write a crash cut short, never acknowledged): the next start cuts it'
            : '';
        out.push({ file, offset: ev.start, problem: `bytes ${ev.start} to ${ev.end}: ${ev.reason}${torn}` });
      }
    }
  }
  return out;
}

/** Reads a whole file into a buffer whose byteOffset is 0, so payloads stay 8-aligned. */
async function readAligned(files: WalFiles, path: string): Promise<Uint8Array> {
  const b = await files.readAll(path);
  if (b.byteOffset % 8 === 0) return b;
  const copy = new Uint8Array(b.length);
  copy.set(b);
  return copy;
}

async function truncateFile(files: WalFiles, path: string, size: number): Promise<void> {
  const fh = await files.openAppend(path);
  try {
    await fh.truncate(size);
    await fh.datasync();
  } finally {
    await fh.close();
  }
}
