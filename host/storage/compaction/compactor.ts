// The compaction thread: writes the merged files of compactions (writeCompaction, compaction.ts)
// on a worker thread of its own (compaction-worker.ts), which opens the inputs, merges, encodes
// and fsyncs, and answers with the new file's meta and keys. The server's thread only plans,
// opens the result and commits the manifest. Merging is mostly decoding and encoding: of spans,
// a series each, it was about 15 µs a span of the server's thread, taken from requests (a load
// of 400,000 spans ran 13-23% faster with compaction off), where on a second core it overlaps them.
//
// One job at a time (the storage runs one compaction at a time). The thread starts at the first
// job and is unref'd: an idle server exits without ending it. If it dies, the job fails (the
// compaction is retried at the next tick, as after any failure) and the next job starts a new one;
// if it dies before it is ready (it cannot load its Wasm core), `available` turns false and
// compactions run on the storage's thread from then on.

import { Worker } from 'node:worker_threads';
import { CorruptionError } from '../../core/errors.js';
import type { CompactionJob, CompactionOutput, CompactionThread } from './compaction.js';
import { StaleChange } from '../segment/index.js';

const WORKER_SCRIPT = new URL('./compaction-worker.js', import.meta.url);

export interface CompactionRequest {
  id: number;
  job: CompactionJob;
}

export type CompactionReply =
  | { ready: true }
  | { id: number; ok: true; out: CompactionOutput | undefined }
  | {
      id: number;
      ok: false;
      error: { message: string; stack?: string; corrupt?: { source: string; offset: number; check: string } };
    };

/** What StorageOptions.compactionThread gives the thread. */
export interface CompactionThreadOptions {
  wasm: WebAssembly.Module;
  script?: URL;
}

/** What the worker starts with: the core's compiled module, so that storage needs nothing from node/. */
export interface CompactionWorkerData {
  wasm: WebAssembly.Module;
}

export class Compactor implements CompactionThread {
  readonly #wasm: WebAssembly.Module;
  readonly #script: URL;
  #worker: Worker | undefined;
  #next = 1;
  readonly #pending = new Map<
    number,
    { resolve: (out: CompactionOutput | undefined) => void; reject: (e: Error) => void }
  >();
  #closed = false;
  #failedToStart = false;

  /** `wasm`: the core's compiled module; `script`: the worker's module (tests running the TypeScript sources point it at dist/). */
  constructor(wasm: WebAssembly.Module, script: URL = WORKER_SCRIPT) {
    this.#wasm = wasm;
    this.#script = script;
  }

  /** False once the thread failed to start: compactions then run on the storage's thread. */
  get available(): boolean {
    return !this.#failedToStart;
  }

  /** Writes a job's file on the thread; rejects with a CorruptionError naming a bad input, or the thread's error. */
  run(job: CompactionJob): Promise<CompactionOutput | undefined> {
    if (this.#closed) return Promise.reject(new StaleChange('the storage is closing'));
    const worker = (this.#worker ??= this.#start());
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ id, job } satisfies CompactionRequest);
    });
  }

  #start(): Worker {
    const worker = new Worker(this.#script, { workerData: { wasm: this.#wasm } satisfies CompactionWorkerData });
    worker.unref();
    let ready = false;
    worker.on('message', (reply: CompactionReply) => {
      if ('ready' in reply) {
        ready = true;
        return;
      }
      const p = this.#pending.get(reply.id);
      if (p === undefined) return;
      this.#pending.delete(reply.id);
      if (reply.ok) {
        p.resolve(reply.out);
        return;
      }
      const { message, stack, corrupt } = reply.error;
      const e =
        corrupt !== undefined
          ? new CorruptionError(corrupt.source, corrupt.offset, corrupt.check)
          : new Error(`compaction thread: ${message}`);
      if (corrupt === undefined && stack !== undefined) e.stack = stack;
      p.reject(e);
    });
    const fail = (e: Error): void => {
      if (this.#worker === worker) this.#worker = undefined;
      if (!ready && !this.#closed) this.#failedToStart = true;
      for (const p of this.#pending.values()) p.reject(this.#closed ? new StaleChange('the storage is closing') : e);
      this.#pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`compaction thread exited with code ${code}`)));
    return worker;
  }

  /** Ends the thread; a job in progress fails with StaleChange (its temporary file is removed at the next start). */
  async close(): Promise<void> {
    this.#closed = true;
    const w = this.#worker;
    this.#worker = undefined;
    if (w !== undefined) await w.terminate();
  }
}
