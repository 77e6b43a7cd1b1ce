// The contract between a result writer and the HTTP route that streams its bytes.

import type { RecordBatch } from '../types/index.js';

/**
 * Incremental writer of one result set. Call `write` once per batch in order, then `end` once;
 * nothing after `end`. Every returned array is new and owned by the caller (it may be queued
 * on a socket while the next batch is written).
 */
export interface ResultWriter {
  /** Bytes for one batch; the first call also emits what precedes the rows (CSV header, '['). */
  write(batch: RecordBatch): Uint8Array;
  /** Bytes that end the result (the header alone for zero-row CSV/TSV, '[]' or ']' for JSON, the whole table for text/table). */
  end(): Uint8Array;
}
