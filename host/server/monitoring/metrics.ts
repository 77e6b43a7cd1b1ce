// The server's counters and histograms for GET /metrics (docs/monitoring.md lists each): the
// events of core/metrics.ts that storage reports where they happen, and the HTTP edge's own.
// One prom-client registry per server, not the library's global one: the query warm-up's scratch
// server counts its requests in a registry of its own that nobody scrapes.

import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Metrics } from '../../core/metrics.js';

/**
 * Request latency, seconds: from half a millisecond (a small write or a point query answers in
 * about that on loopback, docs/performance.md) to the 10-minute query timeout.
 */
const REQUEST_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 600,
];
/** fsync latency, seconds: tens of microseconds on NVMe or tmpfs to the 100 ms of a busy disk and beyond. */
const FSYNC_BUCKETS = [
  0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
];
/** Records per WAL group commit: one per write request waiting for the same fsync. */
const GROUP_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
/** Flushes and compactions, seconds: a tiny memtable to a merge of gigabytes. */
const BACKGROUND_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
/** Peak memory of a query's pool, bytes: 64 KiB to the 512 MiB default limit and beyond. */
const MEMORY_BUCKETS = [65536, 262144, 1048576, 4194304, 16777216, 67108864, 268435456, 536870912, 1073741824];

/**
 * The reasons of a 429 (UserError.reason), present at 0 from the start: the memtables are full
 * (storage.memtable_bytes), the concurrent queries (limits.max_concurrent_queries) or the
 * in-flight write bytes (limits.max_inflight_write_bytes) are at their limit, or a tenant's
 * `_limiter` refused the request.
 */
const LIMIT_REASONS = ['memtable', 'queries', 'write_bytes', 'tenant'];

export interface ServerMetricsOptions {
  /** Also collect prom-client's process and Node.js metrics (process_*, nodejs_*). Default true. */
  processMetrics?: boolean;
}

export class ServerMetrics implements Metrics {
  readonly registry = new Registry();
  readonly #requests: Counter<'route' | 'method' | 'status'>;
  readonly #requestsInFlight: Gauge;
  readonly #requestSeconds: Histogram<'route' | 'method'>;
  readonly #rows: Counter<'format'>;
  readonly #bytes: Counter<'format'>;
  readonly #limited: Counter<'reason'>;
  readonly #diskFull: Counter;
  readonly #fsyncSeconds: Histogram;
  readonly #groupRecords: Histogram;
  readonly #flushSeconds: Histogram<'result'>;
  readonly #compactionSeconds: Histogram<'result'>;
  readonly #skipped: Counter;
  readonly #objectUploads: Counter;
  readonly #objectUploadBytes: Counter;
  readonly #objectUploadSeconds: Histogram;
  readonly #objectDownloads: Counter;
  readonly #objectDownloadBytes: Counter;
  readonly #objectCacheReads: Counter<'result'>;
  readonly #objectRetries: Counter<'op'>;
  readonly #querySeconds: Histogram;
  readonly #queryPeakBytes: Histogram;
  readonly #clusterNodes: Gauge;

  constructor(options: ServerMetricsOptions = {}) {
    const registers = [this.registry];
    this.#requests = new Counter({
      name: 'sundial_http_requests_total',
      help: 'HTTP requests answered, by route, method and status (499: the client went away before the answer).',
      labelNames: ['route', 'method', 'status'],
      registers,
    });
    this.#requestsInFlight = new Gauge({
      name: 'sundial_http_requests_in_flight',
      help: 'HTTP requests whose headers have arrived and whose answer is not sent yet (the scrape itself is one).',
      registers,
    });
    this.#requestSeconds = new Histogram({
      name: 'sundial_http_request_duration_seconds',
      help: "Time from a request's headers to the last byte of its answer.",
      labelNames: ['route', 'method'],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.#rows = new Counter({
      name: 'sundial_written_rows_total',
      help: 'Rows stored by write requests, by body format.',
      labelNames: ['format'],
      registers,
    });
    this.#bytes = new Counter({
      name: 'sundial_written_bytes_total',
      help: 'Body bytes (after decompression) of the write requests stored, by format.',
      labelNames: ['format'],
      registers,
    });
    this.#limited = new Counter({
      name: 'sundial_http_limited_total',
      help: 'Requests answered 429, by the limit reached.',
      labelNames: ['reason'],
      registers,
    });
    this.#diskFull = new Counter({
      name: 'sundial_disk_full_refusals_total',
      help: "Requests refused with 507 because the data directory's file system is full.",
      registers,
    });
    this.#fsyncSeconds = new Histogram({
      name: 'sundial_wal_fsync_duration_seconds',
      help: "Duration of each WAL group commit's fsync.",
      buckets: FSYNC_BUCKETS,
      registers,
    });
    this.#groupRecords = new Histogram({
      name: 'sundial_wal_group_commit_records',
      help: 'Records (write requests) per WAL group commit.',
      buckets: GROUP_BUCKETS,
      registers,
    });
    this.#flushSeconds = new Histogram({
      name: 'sundial_flush_duration_seconds',
      help: 'Memtable flushes to segment files, by result (ok, failed).',
      labelNames: ['result'],
      buckets: BACKGROUND_BUCKETS,
      registers,
    });
    this.#compactionSeconds = new Histogram({
      name: 'sundial_compaction_duration_seconds',
      help: 'Compactions, by result (ok, failed).',
      labelNames: ['result'],
      buckets: BACKGROUND_BUCKETS,
      registers,
    });
    this.#skipped = new Counter({
      name: 'sundial_damaged_segments_skipped_total',
      help: 'Damaged segment files left out of reads (storage.skip_damaged_segments), counted per read.',
      registers,
    });
    this.#querySeconds = new Histogram({
      name: 'sundial_query_duration_seconds',
      help: 'SQL statements from admission to the last byte of the answer (HTTP, InfluxQL and PostgreSQL).',
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.#queryPeakBytes = new Histogram({
      name: 'sundial_query_peak_memory_bytes',
      help: 'The most memory each SQL statement held at once (its pool, limits.query_memory_bytes).',
      buckets: MEMORY_BUCKETS,
      registers,
    });
    this.#objectUploads = new Counter({
      name: 'sundial_object_uploads_total',
      help: 'Segment files uploaded to the object store (storage.object_store).',
      registers,
    });
    this.#objectUploadBytes = new Counter({
      name: 'sundial_object_upload_bytes_total',
      help: 'Bytes of the segment files uploaded to the object store.',
      registers,
    });
    this.#objectUploadSeconds = new Histogram({
      name: 'sundial_object_upload_duration_seconds',
      help: 'Duration of each successful upload of a segment file.',
      buckets: BACKGROUND_BUCKETS,
      registers,
    });
    this.#objectDownloads = new Counter({
      name: 'sundial_object_downloads_total',
      help: 'Byte ranges of evicted segment files fetched from the object store.',
      registers,
    });
    this.#objectDownloadBytes = new Counter({
      name: 'sundial_object_download_bytes_total',
      help: 'Bytes fetched from the object store.',
      registers,
    });
    this.#objectCacheReads = new Counter({
      name: 'sundial_object_cache_reads_total',
      help: 'Reads of segment files through the local object cache, by result (hit, miss).',
      labelNames: ['result'],
      registers,
    });
    this.#objectRetries = new Counter({
      name: 'sundial_object_store_retries_total',
      help: 'Uploads and deletes that failed and are tried again, by operation (upload, delete).',
      labelNames: ['op'],
      registers,
    });
    this.#clusterNodes = new Gauge({
      name: 'sundial_cluster_nodes',
      help: "Live nodes of the cluster, as etcd's membership keys show them (server.cluster; 0 on a single node).",
      registers,
    });
    for (const result of ['hit', 'miss']) this.#objectCacheReads.inc({ result }, 0);
    for (const op of ['upload', 'delete']) this.#objectRetries.inc({ op }, 0);
    for (const reason of LIMIT_REASONS) this.#limited.inc({ reason }, 0);
    for (const result of ['ok', 'failed']) {
      // Both results from the start: a rate() over a series that appears on the first failure misses that failure.
      this.#flushSeconds.zero({ result });
      this.#compactionSeconds.zero({ result });
    }
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  // ---- core/metrics.ts: storage's events.

  walGroupCommitted(records: number, fsyncSeconds: number | undefined): void {
    this.#groupRecords.observe(records);
    if (fsyncSeconds !== undefined) this.#fsyncSeconds.observe(fsyncSeconds);
  }

  flushed(seconds: number, ok: boolean): void {
    this.#flushSeconds.observe({ result: ok ? 'ok' : 'failed' }, seconds);
  }

  compacted(seconds: number, ok: boolean): void {
    this.#compactionSeconds.observe({ result: ok ? 'ok' : 'failed' }, seconds);
  }

  damagedSegmentsSkipped(files: number): void {
    this.#skipped.inc(files);
  }

  objectUploaded(bytes: number, seconds: number): void {
    this.#objectUploads.inc();
    this.#objectUploadBytes.inc(bytes);
    this.#objectUploadSeconds.observe(seconds);
  }

  objectDownloaded(bytes: number): void {
    this.#objectDownloads.inc();
    this.#objectDownloadBytes.inc(bytes);
  }

  objectCacheRead(hit: boolean): void {
    this.#objectCacheReads.inc({ result: hit ? 'hit' : 'miss' });
  }

  objectStoreRetried(op: 'upload' | 'delete'): void {
    this.#objectRetries.inc({ op });
  }

  // ---- The HTTP edge's events.

  /** A request's headers arrived; `requestClosed` when its answer is sent or abandoned. */
  /** server.cluster: the live nodes registered in etcd (node/cluster.ts). */
  clusterNodes(count: number): void {
    this.#clusterNodes.set(count);
  }

  requestOpened(): void {
    this.#requestsInFlight.inc();
  }

  requestClosed(): void {
    this.#requestsInFlight.dec();
  }

  /** A request answered (or abandoned): `route` is the route's path, `status` what was sent. */
  request(route: string, method: string, status: number, seconds: number): void {
    this.#requests.inc({ route, method, status: String(status) });
    this.#requestSeconds.observe({ route, method }, seconds);
  }

  /** A write request stored `rows` rows from `bytes` body bytes in `format`. */
  written(format: string, rows: number, bytes: number): void {
    this.#rows.inc({ format }, rows);
    this.#bytes.inc({ format }, bytes);
  }

  /** A request answered 429 because of `reason` (UserError.reason). */
  limited(reason: string): void {
    this.#limited.inc({ reason });
  }

  /** A request answered 507. */
  diskFull(): void {
    this.#diskFull.inc();
  }

  /** A SQL statement ended after `seconds`, having held at most `peakBytes` (undefined: it had no pool). */
  queryFinished(seconds: number, peakBytes: number | undefined): void {
    this.#querySeconds.observe(seconds);
    if (peakBytes !== undefined) this.#queryPeakBytes.observe(peakBytes);
  }
}
