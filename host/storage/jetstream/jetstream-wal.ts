// The write-ahead log of one database in a NATS JetStream stream (docs/cluster.md, FORMAT.md §2 "In
// NATS JetStream"): stream `<prefix>_<db id>`, one subject per vnode (`<prefix>.<db id>.<vnode>`),
// the stream sequence as the LSN. A record is acknowledged once JetStream acknowledged each of its
// messages; records reach the memtable in the order they were appended (each with the highest
// sequence of its messages, which is below every sequence of the next record: one connection
// publishes them in order), so a flush's `flushedLsn` covers exactly the records applied before it.
//
// Publishes are pipelined (no wait for an acknowledgement before the next publish): many requests'
// messages are in flight at once, and JetStream's acknowledgements come back in order.

import { randomInt, randomUUID } from 'node:crypto';
import { mkdir, open as openFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DeliverPolicy, type JsMsg, RetentionPolicy, StorageType } from 'nats';
import { bug } from '../../core/errors.js';
import type { Quarantine } from '../fs/index.js';
import {
  type ReplayFn,
  type ReplayReport,
  type VnodeSplit,
  WalFailure,
  type WalHold,
  type WalProblem,
  type WriteLog,
} from '../wal/index.js';
import { RecordType } from '../wal/wal-record.js';
import { decodeJsRecord, encodeJsRecord, jsRecordPayload } from './jetstream-record.js';
import { isTransient, type JetStreamLink, START_RETRY_MS } from './jetstream-link.js';

export interface JetStreamWalOptions {
  link: JetStreamLink;
  dbId: number;
  /** The database's folder, which names its stream in `wal-stream` (streamToken). */
  dir: string;
  /** `tenant.database`, for messages. */
  dbName: string;
  /** Subjects of the stream (`storage.vnodes`). */
  vnodes: number;
  quarantine: Quarantine;
}

/** A JetStream error reply ({"error": {"code", "err_code", "description"}}) or an unusable answer. */
class JetStreamError extends Error {
  readonly code: string;
  constructor(message: string, code: string) {
    super(message);
    this.code = code;
  }
}

const decoder = new TextDecoder();
/** Ties a process's request numbers together across the messages of one request. */
const WRITER = randomInt(2 ** 32);

/** `prefix`: `server.cluster.nats_stream_prefix`, so that servers sharing one NATS keep apart. */
export const streamName = (prefix: string, dbId: number): string => `${prefix}_${dbId}`;
export const vnodeSubject = (prefix: string, dbId: number, vnode: number): string => `${prefix}.${dbId}.${vnode}`;

export class JetStreamWal implements WriteLog {
  readonly #opts: JetStreamWalOptions;
  readonly #stream: string;
  /** The stream's description when this server made or found it (its data directory's token). */
  readonly #description: string;
  report: ReplayReport = { damaged: false };
  /** Settles when the last append has run its callback (or failed): appends apply in order. */
  #tail: Promise<void> = Promise.resolve();
  #request = 0;
  #lastLsn: number;
  #closed = false;
  /** The last append's failure, until an append succeeds again. */
  #failure: WalFailure | undefined;

  private constructor(opts: JetStreamWalOptions, lastLsn: number, description: string) {
    this.#opts = opts;
    this.#stream = streamName(opts.link.prefix, opts.dbId);
    this.#description = description;
    this.#lastLsn = lastLsn;
  }

  get failure(): WalFailure | undefined {
    const down = this.#opts.link.down;
    if (down !== undefined) return this.#failed(down);
    return this.#failure;
  }

  /**
   * Makes the stream if missing, then replays every record after `afterLsn` through `replay`, in
   * sequence order; a request split by vnode is replayed when its last message is read, with that
   * message's sequence, and not at all when a message of it is missing (a write that failed).
   */
  static async open(opts: JetStreamWalOptions, afterLsn: number, replay: ReplayFn): Promise<JetStreamWal> {
    const { link } = opts;
    const log = link.logger;
    const name = streamName(link.prefix, opts.dbId);
    const token = await streamToken(opts.dir);
    const description = streamDescription(opts.dbId, token);
    let info = await link.atStart(`stream info ${name}`, () =>
      link.jsm.streams.info(name).catch((e: { code?: string; api_error?: { err_code?: number } }) => {
        if (e.api_error?.err_code === 10059 || e.code === '404') return undefined;
        throw e;
      }),
    );
    if (info === undefined) {
      info = await link.atStart(`stream add ${name}`, () =>
        link.jsm.streams.add({
          name,
          description,
          subjects: [`${link.prefix}.${opts.dbId}.*`],
          storage: StorageType.File,
          retention: RetentionPolicy.Limits,
          num_replicas: link.replicas,
        }),
      );
      log.info({ db: opts.dbName, stream: name, replicas: link.replicas }, 'made the JetStream stream of the WAL');
    } else if (info.config.description !== description) {
      // Another data directory's stream (another server on the same NATS, or this directory made
      // anew): replaying its records here would mix two databases' data.
      throw new Error(
        `the JetStream stream ${name} at ${link.urls.join(', ')} holds the WAL of another data directory (${info.config.description ?? 'no description'}), not of database ${opts.dbName} here; give each server sharing this NATS its own server.cluster.nats_stream_prefix, or delete the stream if its data is not needed`,
      );
    }
    if (info.state.last_seq < afterLsn) {
      // The stream is younger than the manifest (recreated, or NATS lost its store): new records
      // must get sequences above the flushed ones, or the next replay would skip them.
      log.warn(
        { db: opts.dbName, stream: name, lastSeq: info.state.last_seq, flushedLsn: afterLsn },
        'the WAL stream is behind the manifest; moving its sequence past the flushed records',
      );
      await link.atStart(`stream purge ${name}`, () => link.jsm.streams.purge(name, { seq: afterLsn + 1 }));
      info = await link.atStart(`stream info ${name}`, () => link.jsm.streams.info(name));
      if (info.state.last_seq < afterLsn)
        throw new Error(
          `the JetStream stream ${name} of database ${opts.dbName} ends at sequence ${info.state.last_seq}, below the manifest's flushed ${afterLsn}, and could not be moved past it`,
        );
    }
    const wal = new JetStreamWal(opts, Math.max(afterLsn, info.state.last_seq), description);
    const first = info.state.first_seq;
    const last = info.state.last_seq;
    if (first > afterLsn + 1 && last > afterLsn) {
      // Only this server purges, and only what a manifest marks flushed: the rest was lost in NATS.
      wal.report.damaged = true;
      opts.quarantine.counts.walRecordsLost += first - afterLsn - 1;
      log.error(
        { db: opts.dbName, stream: name, fromLsn: afterLsn + 1, toLsn: first - 1 },
        'WAL: records missing from the JetStream stream (dropped by a limit or an operator); every record after them is replayed',
      );
    }
    if (last > afterLsn) await wal.#replay(Math.max(afterLsn + 1, first), last, replay);
    return wal;
  }

  /**
   * Replays messages `from`..`to` in batches of an ordered consumer's fetch. Each wait for NATS has
   * a deadline: during a NATS leader election a consumer created at the wrong moment can deliver
   * nothing, ever (issue 31's three-server test hung so in one run of three with `consume()`), so a
   * batch that stalls is dropped and a new consumer starts at the next sequence, until
   * START_RETRY_MS has passed without progress.
   */
  async #replay(from: number, to: number, replay: ReplayFn): Promise<void> {
    const { link } = this.#opts;
    const open = new Map<string, { parts: Uint8Array[]; got: number; type: number }>();
    let skipped = 0;
    const apply = (m: JsMsg): void => {
      const h = decodeJsRecord(m.data);
      if (typeof h === 'string') {
        skipped++;
        link.logger.error(
          { db: this.#opts.dbName, seq: m.seq, problem: h },
          'WAL: skipped a message that is no record',
        );
      } else if (h.parts === 1) {
        replay(m.seq, h.type, jsRecordPayload(m.data));
      } else {
        const key = `${h.writer}:${h.request}`;
        let r = open.get(key);
        if (r === undefined) {
          r = { parts: new Array<Uint8Array>(h.parts), got: 0, type: h.type };
          open.set(key, r);
        }
        if (r.parts[h.index] === undefined) r.got++;
        r.parts[h.index] = jsRecordPayload(m.data);
        if (r.got === h.parts) {
          open.delete(key);
          // Every part of a delete carries the whole delete (it goes to every vnode): apply it once.
          const payloads = r.type === RecordType.Delete ? r.parts.slice(0, 1) : r.parts;
          for (const p of payloads) replay(m.seq, r.type, p);
        }
      }
    };
    let next = from;
    let progressAt = Date.now();
    for (let pauseMs = 250; next <= to; pauseMs = Math.min(pauseMs * 2, 2000)) {
      const before = next;
      let stall: unknown;
      try {
        const consumer = await link.atStart(`consumer of ${this.#stream}`, () =>
          link.nc
            .jetstream({ timeout: link.timeoutMs })
            .consumers.get(this.#stream, { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: next }),
        );
        for (;;) {
          const batch = await deadline(
            consumer.fetch({ max_messages: 1024, expires: FETCH_EXPIRES_MS }),
            STALL_MS,
            'a fetch',
          );
          const messages = batch[Symbol.asyncIterator]() as AsyncIterator<JsMsg>;
          let n = 0;
          try {
            for (;;) {
              const r = await deadline(messages.next(), STALL_MS, 'a message');
              if (r.done === true) break;
              n++;
              apply(r.value);
              next = r.value.seq + 1;
              if (r.value.seq >= to) break;
            }
          } finally {
            batch.stop();
          }
          if (next > to || n === 0) break;
        }
      } catch (e) {
        if (!(e instanceof NatsStall) && !isTransient(e)) throw e;
        stall = e;
      }
      if (next > to) break;
      if (next > before) progressAt = Date.now();
      if (Date.now() - progressAt > START_RETRY_MS) {
        throw new Error(
          `WAL: the JetStream stream ${this.#stream} stopped delivering at sequence ${next} of ${to} (${String(stall ?? 'no messages')})`,
        );
      }
      link.logger.warn(
        { db: this.#opts.dbName, stream: this.#stream, seq: next, to, err: stall, retryInMs: pauseMs },
        'WAL: the JetStream replay stalled (a leader election?); starting a new consumer',
      );
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
    if (open.size > 0 || skipped > 0) {
      this.#opts.quarantine.counts.walFailedWriteRecords += open.size;
      link.logger.warn(
        { db: this.#opts.dbName, requests: open.size },
        'WAL: skipped the parts of requests that failed (not every vnode acknowledged them; they were answered with an error)',
      );
    }
  }

  append(
    type: RecordType,
    parts: readonly Uint8Array[],
    onDurable?: (lsn: number) => void,
    split?: VnodeSplit,
  ): Promise<void> {
    if (this.#closed) return Promise.reject(bug('append to a closed WAL'));
    const { link, dbId, vnodes } = this.#opts;
    if (link.down !== undefined) return Promise.reject(this.#failed(link.down));
    const request = ++this.#request;
    const divided = vnodes > 1 && split !== undefined ? split(vnodes) : [];
    const shares = divided.length > 0 ? divided : [{ vnode: 0, parts }];
    const acks = shares.map((s, index) =>
      this.#publish(
        vnodeSubject(link.prefix, dbId, s.vnode),
        encodeJsRecord({ type, parts: shares.length, index, writer: WRITER, request }, s.parts),
      ),
    );
    const all = Promise.all(acks);
    // Handled through `turn`, but only once the records before it settle: a publish that fails
    // sooner (no stream leader after a NATS failover) was an unhandled rejection meanwhile, which
    // ends a Node process (issue 31's three-server test lost its server so, now and then).
    all.catch(() => undefined);
    const turn = this.#tail.then(() =>
      all.then(
        (seqs) => {
          const lsn = Math.max(...seqs);
          if (lsn <= this.#lastLsn) throw bug(`JetStream sequence ${lsn} after ${this.#lastLsn} in ${this.#stream}`);
          this.#lastLsn = lsn;
          this.#failure = undefined;
          onDurable?.(lsn);
        },
        (e: unknown) => {
          throw (this.#failure = this.#failed(e));
        },
      ),
    );
    this.#tail = turn.catch(() => undefined);
    return turn;
  }

  async #publish(subject: string, data: Uint8Array): Promise<number> {
    const reply = await this.#opts.link.nc.request(subject, data, { timeout: this.#opts.link.timeoutMs });
    let ack: { seq?: number; error?: { code?: number; err_code?: number; description?: string } };
    try {
      ack = JSON.parse(decoder.decode(reply.data)) as typeof ack;
    } catch {
      throw new JetStreamError(`JetStream answered a publish to ${subject} with no acknowledgement`, 'BADACK');
    }
    if (ack.error !== undefined)
      throw new JetStreamError(
        `JetStream refused a publish to ${subject}: ${ack.error.description ?? 'error'} (${ack.error.err_code ?? ack.error.code})`,
        String(ack.error.code ?? 'ERROR'),
      );
    if (typeof ack.seq !== 'number')
      throw new JetStreamError(`JetStream acknowledged ${subject} without a sequence`, 'BADACK');
    return ack.seq;
  }

  #failed(cause: unknown): WalFailure {
    const where = this.#opts.link.urls.join(', ');
    return new WalFailure(
      `the write-ahead log of database ${this.#opts.dbName} in NATS JetStream at ${where} is unavailable (${(cause as Error).message}); nothing of the request was stored`,
      cause,
      true,
    );
  }

  probe(): Promise<boolean> {
    return Promise.resolve(this.failure === undefined);
  }

  rollover(): Promise<void> {
    return Promise.resolve();
  }

  /** Lets JetStream drop the records up to `lsn` (their rows are in segment files); retried by the next flush if NATS is down. */
  async removeSegmentsBefore(lsn: number): Promise<void> {
    if (this.#closed) return;
    try {
      await this.#opts.link.jsm.streams.purge(this.#stream, { seq: lsn + 1 });
    } catch (err) {
      this.#opts.link.logger.warn(
        { err, db: this.#opts.dbName, lsn },
        'WAL: purging flushed records from JetStream failed',
      );
    }
  }

  sync(): Promise<void> {
    return this.#tail;
  }

  /**
   * The log is not in the data directory: a backup holds no WAL segments, only what is flushed
   * (Storage.checkpoint flushes first), so its last record is `afterLsn`, the flushed one.
   */
  hold(afterLsn: number): WalHold {
    return { lastLsn: afterLsn, segments: [], release: () => undefined };
  }

  /**
   * CHECK DATABASE's look at the stream: it exists, carries this data directory's token, and has
   * not lost records this server appended (its last sequence is not below the last acknowledged
   * one, which is at least the manifest's flushed one). `file` names the stream.
   */
  async verify(): Promise<WalProblem[]> {
    const { link } = this.#opts;
    const file = `JetStream stream ${this.#stream}`;
    let info: Awaited<ReturnType<typeof link.jsm.streams.info>>;
    try {
      info = await link.jsm.streams.info(this.#stream);
    } catch (e) {
      const err = e as { code?: string; api_error?: { err_code?: number }; message?: string };
      const missing = err.api_error?.err_code === 10059 || err.code === '404';
      return [
        {
          file,
          offset: null,
          problem: missing
            ? `the stream does not exist at ${link.urls.join(', ')} (deleted, or NATS lost its store): the records not yet flushed are lost, and writes fail until a restart makes it again`
            : `cannot read the stream at ${link.urls.join(', ')}: ${err.message ?? String(e)}`,
        },
      ];
    }
    const problems: WalProblem[] = [];
    if (info.config.description !== this.#description)
      problems.push({
        file,
        offset: null,
        problem: `the stream belongs to another data directory (${info.config.description ?? 'no description'}), not to this one (${this.#description})`,
      });
    else if (info.state.last_seq < this.#lastLsn)
      problems.push({
        file,
        offset: null,
        problem: `the stream ends at sequence ${info.state.last_seq}, behind the last acknowledged ${this.#lastLsn}: NATS lost records`,
      });
    return problems;
  }

  async close(): Promise<void> {
    await this.sync();
    this.#closed = true;
  }

  async destroy(): Promise<void> {
    await this.#opts.link.jsm.streams.delete(this.#stream).catch((e: { api_error?: { err_code?: number } }) => {
      if (e.api_error?.err_code !== 10059) throw e;
    });
  }
}

/** The stream's description: ties it to the database folder whose `wal-stream` holds `token`. */
export const streamDescription = (dbId: number, token: string): string =>
  `sundial WAL of database ${dbId}, data directory token ${token}`;

/**
 * The random token that ties the database's folder to its stream (in the stream's description),
 * made on first use: `<dir>/wal-stream`, written and fsynced before the stream is made.
 */
async function streamToken(dir: string): Promise<string> {
  const path = join(dir, 'wal-stream');
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const token = randomUUID();
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const fh = await openFile(path, 'wx', 0o600);
  try {
    await fh.writeFile(token + '\n');
    await fh.datasync();
  } finally {
    await fh.close();
  }
  const d = await openFile(dir, 'r');
  try {
    await d.sync();
  } finally {
    await d.close();
  }
  return token;
}

/** How long a replay fetch asks JetStream to wait for messages before it answers with fewer. */
const FETCH_EXPIRES_MS = 2000;
/** How long a replay waits for a fetch or a message before it takes the consumer for stalled. */
const STALL_MS = 6000;

class NatsStall extends Error {}

/** `p`, or a NatsStall after `ms` (the pending wait is abandoned; its batch is stopped by the caller). */
function deadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new NatsStall(`no answer to ${what} in ${ms} ms`)), ms);
  });
  return Promise.race([p, stalled]).finally(() => clearTimeout(timer));
}
