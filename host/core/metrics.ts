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
}

/** Drops every event: tools, tests and the warm-ups' scratch storage. */
export const NO_METRICS: Metrics = {
  walGroupCommitted: () => undefined,
  flushed: () => undefined,
  compacted: () => undefined,
  damagedSegmentsSkipped: () => undefined,
};
