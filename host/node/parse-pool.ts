// Where write bodies are parsed (`ingest.parse_workers`): in a pool of worker threads, or in the
// server's own thread (0 workers). Decoding and batch building were half or more of the event
// loop's time for spans and JSON logs (bench/RESULTS.md), and that thread also does every
// WAL append and memtable insert, so on a machine with a second core the parse moves there. The
// storage write stays in the server's thread after the parse, so a request is still stored whole
// or not at all, and acknowledged only after its WAL fsync.
//
// A worker takes one job at a time (a job is a whole request body, milliseconds of work, so
// queueing more per worker would gain nothing); jobs wait in one queue for the first idle worker.
// Workers start on demand, up to the pool size, and are kept; with the warm-up on
// (`ingest.parse_warmup`) the server starts them all once it is ready, and each parses generated
// bodies of every format first (ingest/parse-warmup.ts), so that the first requests do not pay
// for loading and compiling the parsers. A worker that dies (out of memory, a native fault) fails
// only the request it was parsing, with a 500, and the next job starts a replacement.

import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { UserError } from '../core/errors.js';
import type { Core } from '../core/wasm.js';
import { LineProtocolScanner } from '../ingest/line-protocol.js';
import { LogScanner } from '../ingest/log-scan.js';
import { runParseJob, type ParseJob, type Parsers, type ParseResult } from '../ingest/parse-jobs.js';
import type { ParseReply, ParseRequest, ParseWorkerData, WarmupReport } from './parse-messages.js';

/** Parsing in the server's thread, synchronously (see runWrite on why not through a promise). */
export class InThreadParsers implements Parsers {
  readonly workers = 0;
  readonly #logs: LogScanner | undefined;
  readonly #lineProtocol: LineProtocolScanner | undefined;

  /**
   * `core`: the server's Wasm core, for the JSON log scanner (without it the reference parses
   * logs) and the line-protocol scanner (with `scanWindowBytes`).
   */
  constructor(core?: Core, scanWindowBytes?: number) {
    this.#logs = core === undefined ? undefined : new LogScanner(core);
    this.#lineProtocol =
      core === undefined ? undefined : new LineProtocolScanner(core, { windowBytes: scanWindowBytes });
  }

  parse(job: ParseJob, body: Uint8Array): ParseResult {
    return runParseJob(job, body, this.#logs, this.#lineProtocol);
  }

  async close(): Promise<void> {}
}

interface Pending {
  id: number;
  job: ParseJob;
  body: Uint8Array;
  resolve: (r: ParseResult) => void;
  reject: (e: unknown) => void;
}

interface Slot {
  worker: Worker;
  /** The worker's threadId, kept for the log (the Worker's reads -1 once it has exited). */
  threadId: number;
  /** The job it is parsing, if any. */
  job: Pending | undefined;
  /** What it threw last, if it died of an uncaught error (reported with its exit). */
  error: Error | undefined;
}

const WORKER_SCRIPT = new URL('./parse-worker.js', import.meta.url);

function shuttingDown(): UserError {
  return new UserError('unavailable', 'server is shutting down', { retryAfterS: 1 });
}

export class ParsePool implements Parsers {
  readonly workers: number;
  readonly #logger: Logger;
  readonly #script: URL;
  readonly #data: ParseWorkerData;
  readonly #slots: Slot[] = [];
  readonly #queue: Pending[] = [];
  #nextId = 1;
  #closed = false;

  /**
   * `warmup`: each worker parses generated bodies before its first job (see the file header).
   * `script`: the worker's module (tests running the TypeScript sources point it at dist/).
   * `scanWindowBytes`: `ingest.scan_window_bytes`, for the workers' line-protocol scanners.
   */
  constructor(
    workers: number,
    logger: Logger,
    options: { warmup?: boolean; script?: URL; scanWindowBytes?: number } = {},
  ) {
    if (!Number.isSafeInteger(workers) || workers < 1)
      throw new Error(`BUG: a parse pool needs at least one worker, got ${workers}`);
    this.workers = workers;
    this.#logger = logger;
    this.#script = options.script ?? WORKER_SCRIPT;
    this.#data = { warmup: options.warmup === true, scanWindowBytes: options.scanWindowBytes };
  }

  /** Worker threads running now (they start on demand, or all at once with startAll). */
  get running(): number {
    return this.#slots.length;
  }

  /** Starts every worker the pool may have, ahead of the first job (with the warm-up, to warm them). */
  startAll(): void {
    while (!this.#closed && this.#slots.length < this.workers) this.#start();
  }

  parse(job: ParseJob, body: Uint8Array): Promise<ParseResult> {
    if (this.#closed) return Promise.reject(shuttingDown());
    return new Promise((resolve, reject) => {
      this.#queue.push({ id: this.#nextId++, job, body, resolve, reject });
      this.#pump();
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const p of this.#queue.splice(0)) p.reject(shuttingDown());
    const count = this.#slots.length;
    // terminate() resolves once the thread has stopped; its 'exit' handler fails a job it held.
    await Promise.all(this.#slots.map((s) => s.worker.terminate()));
    this.#logger.info({ workers: count }, 'parse workers stopped');
  }

  /** Hands queued jobs to idle workers, starting workers up to the pool size. */
  #pump(): void {
    while (this.#queue.length > 0) {
      let slot = this.#slots.find((s) => s.job === undefined);
      if (slot === undefined) {
        if (this.#slots.length >= this.workers) return;
        slot = this.#start();
      }
      const p = this.#queue.shift()!;
      slot.job = p;
      const body = ownBuffer(p.body);
      const request: ParseRequest = { id: p.id, job: p.job, body };
      slot.worker.ref(); // a parse in flight keeps the process alive; an idle worker does not
      slot.worker.postMessage(request, [body.buffer as ArrayBuffer]);
    }
  }

  #start(): Slot {
    const worker = new Worker(this.#script, { workerData: this.#data });
    // Idle (warming up included), a worker does not keep the process alive; see #pump.
    worker.unref();
    const slot: Slot = { worker, threadId: worker.threadId, job: undefined, error: undefined };
    this.#slots.push(slot);
    this.#logger.info({ threadId: slot.threadId }, 'parse worker started');
    worker.on('message', (reply: ParseReply | WarmupReport) =>
      'warmed' in reply ? this.#warmed(slot, reply) : this.#finish(slot, reply),
    );
    // A reply that cannot be deserialized would leave its request waiting forever: end the
    // worker instead, which fails that request and starts a replacement on the next job.
    worker.on('messageerror', (err) => {
      slot.error = err;
      void worker.terminate();
    });
    worker.on('error', (err) => (slot.error = err));
    worker.on('exit', (code) => this.#exited(slot, code));
    return slot;
  }

  #warmed(slot: Slot, report: WarmupReport): void {
    if (report.error === undefined)
      this.#logger.info({ threadId: slot.threadId, jobs: report.jobs, ms: report.ms }, 'parse worker warmed up');
    else
      this.#logger.error(
        { threadId: slot.threadId, jobs: report.jobs, ms: report.ms, error: report.error },
        'BUG: a parse warm-up body failed to parse',
      );
  }

  #finish(slot: Slot, reply: ParseReply): void {
    const p = slot.job;
    if (p === undefined || p.id !== reply.id) {
      this.#logger.error(
        { threadId: slot.threadId, id: reply.id },
        'BUG: a parse worker answered a job it was not given',
      );
      return;
    }
    slot.job = undefined;
    slot.worker.unref();
    if (reply.ok) p.resolve(reply.result);
    else if (reply.error.kind !== undefined)
      p.reject(new UserError(reply.error.kind, reply.error.message, { retryAfterS: reply.error.retryAfterS }));
    else {
      // Not the client's fault: the route's error mapping logs it and answers 500.
      const err = new Error(reply.error.message);
      if (reply.error.stack !== undefined) err.stack = reply.error.stack;
      p.reject(err);
    }
    this.#pump();
  }

  #exited(slot: Slot, code: number): void {
    this.#slots.splice(this.#slots.indexOf(slot), 1);
    const p = slot.job;
    slot.job = undefined;
    if (this.#closed) {
      p?.reject(shuttingDown());
      return;
    }
    const threadId = slot.threadId;
    this.#logger.error(
      { threadId, code, err: slot.error, parsing: p !== undefined },
      'parse worker exited; the next job starts another',
    );
    p?.reject(
      new Error(
        `parse worker ${threadId} exited with code ${code} while parsing this request${slot.error === undefined ? '' : `: ${slot.error.message}`}`,
        { cause: slot.error },
      ),
    );
    this.#pump();
  }
}

/**
 * `body` itself when it alone owns its buffer, so that the buffer is moved to the worker, not
 * copied: Node's HTTP parser copies each body chunk into a buffer of its own, and a body of
 * several chunks or a decompressed one is a fresh allocation. Otherwise (a view into a larger
 * buffer, such as Node's shared pool of small Buffers) a copy.
 */
function ownBuffer(body: Uint8Array): Uint8Array {
  if (body.byteOffset === 0 && body.byteLength === body.buffer.byteLength && body.buffer instanceof ArrayBuffer)
    return body;
  return new Uint8Array(body);
}
