// The events that storage (and engine) code counts and times for the server's /metrics endpoint
// (docs/monitoring.md), as calls on one small interface: those layers stay free of prom-client and
// node:*, the server implements it (server/monitoring/metrics.ts), and NO_METRICS drops it all.

/**
 * Receives an event where it happens. Calls are made on hot paths (every WAL group commit):
 * an implementation must be cheap, synchronous, and never throw. Durations are in seconds.
 */
export interface Metrics {
  /**
   * One WAL group commit: `records` records (one per write request) in one write, and the
   * duration of its fsync; undefined when nothing was fsynced (storage.wal_sync off).
   */
  walGroupCommitted(records: number, fsyncSeconds: number | undefined): void;
  /** A memtable flush to segment files ended, written (`ok`) or failed (it is retried later). */
  flushed(seconds: number, ok: boolean): void;
  /** A compaction ended, its merged file committed (`ok`) or failed. */
  compacted(seconds: number, ok: boolean): void;
  /** A read left out `files` damaged segment files (storage.skip_damaged_segments). */
  damagedSegmentsSkipped(files: number): void;
  /** storage.object_store: a segment file of `bytes` uploaded in `seconds`. */
  objectUploaded(bytes: number, seconds: number): void;
  /** storage.object_store: a byte range of `bytes` fetched from the bucket (a cache miss). */
  objectDownloaded(bytes: number): void;
  /** storage.object_store: a read of a segment file served by the local cache (`hit`) or not. */
  objectCacheRead(hit: boolean): void;
  /** storage.object_store: an upload or delete failed and is tried again. */
  objectStoreRetried(op: 'upload' | 'delete'): void;
}

/** Drops every event: tools, tests and the warm-ups' scratch storage. */
export const NO_METRICS: Metrics = {
  walGroupCommitted: () => undefined,
  flushed: () => undefined,
  compacted: () => undefined,
  damagedSegmentsSkipped: () => undefined,
  objectUploaded: () => undefined,
  objectDownloaded: () => undefined,
  objectCacheRead: () => undefined,
  objectStoreRetried: () => undefined,
};
