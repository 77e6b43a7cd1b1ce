// The times of log documents that carry none (es/_bulk bulk and ndjson bodies without their time
// column): each request gets a base in its database's precision, and its k-th such document
// base + k (LogOptions.now, host/ingest/log-documents.ts). Documents of one series at one time
// are one row, so giving a request's documents the same "now" kept only the last of them while
// the reply counted every one created; and two requests in the same millisecond overwrote each
// other. Bases follow the wall clock but never fall inside an earlier request's range (per
// precision): a range is the body's line count, at least its documents. In a coarse precision
// the documents of a big body spread over as many units (5,000 lines in a millisecond database:
// 5 seconds); the clock runs ahead of the wall only while more lines arrive than units pass.

import { NANOS_PER, type TimeUnit } from '../core/precision.js';

export class LogClock {
  readonly #nowMs: () => number;
  /** Per precision, the first time no request has been given yet. */
  readonly #next = new Map<TimeUnit, bigint>();

  constructor(nowMs: () => number) {
    this.#nowMs = nowMs;
  }

  /** A base in `unit` for a body of up to `documents` documents without a time: base, base + 1, ... */
  reserve(unit: TimeUnit, documents: number): bigint {
    const wall = (BigInt(Math.trunc(this.#nowMs())) * 1_000_000n) / NANOS_PER[unit];
    const next = this.#next.get(unit) ?? 0n;
    const base = wall > next ? wall : next;
    this.#next.set(unit, base + BigInt(documents) + 1n);
    return base;
  }
}

/** Lines in a body (LF-separated; a last line without an LF counts), at least its documents. */
export function lineCount(body: Uint8Array): number {
  let n = 1;
  for (let i = body.indexOf(10); i !== -1; i = body.indexOf(10, i + 1)) n++;
  return n;
}
