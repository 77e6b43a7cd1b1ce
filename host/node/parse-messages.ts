// The messages between ParsePool and its workers (parse-pool.ts, parse-worker.ts).

import type { ErrorKind } from '../core/errors.js';
import type { ParseJob, ParseResult } from '../ingest/parse-jobs.js';

export interface ParseRequest {
  id: number;
  job: ParseJob;
  /** The request body; its buffer is transferred to the worker (detached in the server's thread). */
  body: Uint8Array;
}

/** A rejection as data: a UserError has a `kind`; anything else is an internal error. */
export interface ParseFailure {
  kind?: ErrorKind;
  message: string;
  retryAfterS?: number;
  stack?: string;
  threadId?: number;
}

export type ParseReply = { id: number; ok: true; result: ParseResult } | { id: number; ok: false; error: ParseFailure };

/** What a worker started with `workerData.warmup` reports once its warm-up (parse-warmup.ts) ends. */
export interface WarmupReport {
  warmed: true;
  /** Bodies parsed. */
  jobs: number;
  ms: number;
  /** The first warm-up body that failed to parse, if any (a bug: they are generated to parse). */
  error?: string;
}

/** The options a worker starts with (its workerData). */
export interface ParseWorkerData {
  warmup: boolean;
  /** `ingest.scan_window_bytes`, for the worker's line-protocol scanner. */
  scanWindowBytes?: number;
}
