// The times of log documents that carry none (es/_bulk bulk and ndjson bodies without their time
// column): each request gets a base in nanoseconds, and its k-th such document base + k
// (LogOptions.nowNs, host/ingest/log-documents.ts). Documents of one series at one time are one
// row, so giving a request's documents the same "now" kept only the last of them while the reply
// counted every one created; and two requests in the same millisecond overwrote each other.
// Bases follow the wall clock but never fall inside an earlier request's range: a range is the
// body's length in nanoseconds, more than its documents can number (each takes several bytes).
// The clock runs ahead of the wall only while bodies arrive at over a byte a nanosecond.

export class LogClock {
  readonly #nowMs: () => number;
  /** The first nanosecond no request has been given yet. */
  #next = 0n;

  constructor(nowMs: () => number) {
    this.#nowMs = nowMs;
  }

  /** A base for a body of `bodyBytes` bytes: its documents without a time get base, base + 1, ... */
  reserve(bodyBytes: number): bigint {
    const wall = BigInt(Math.trunc(this.#nowMs())) * 1_000_000n;
    const base = wall > this.#next ? wall : this.#next;
    this.#next = base + BigInt(bodyBytes) + 1n;
    return base;
  }
}
