// The write formats whose parsing may leave the event loop (host/node/parse-pool.ts), each as a
// job of plain data, so that the very same call runs in the server's thread or in a worker and
// every status, code and message stays the same. Line protocol comes here too, for big bodies
// (with the worker's own Wasm scanner): with many series a body the server's thread, which
// stores every request, limits ingest, and the scan was a good part of its time (bench/RESULTS.md).
// OpenTSDB text stays out. Bulk and NDJSON logs go
// through the Wasm JSON log scanner of the thread's core first (log-scan.ts).
// Node only, as otlp-proto.ts (it reads the OTLP .proto files).

import { bug } from '../core/errors.js';
import type { RequestUnit, TimeUnit } from '../core/precision.js';
import { parseBulk, parseNdjson, type BulkFailure } from './es-bulk.js';
import type { LogOptions } from './log-documents.js';
import type { LogScanner } from './log-scan.js';
import type { SeriesRange, Slot } from './loki-entry-times.js';
import type { LineProtocolScanner } from './line-protocol.js';
import { parseLokiJson, parseLokiProtobuf } from './loki-push.js';
import { parseOpenTsdbJson } from './opentsdb-json.js';
import { decodeOtlpLogsJson, decodeOtlpLogsProtobuf, otlpLogsToBatches } from './otlp-logs.js';
import { decodeOtlpMetricsJson, decodeOtlpMetricsProtobuf, otlpMetricsToBatches } from './otlp-metrics.js';
import { decodeOtlpJson, decodeOtlpProtobuf, otlpTracesToBatches } from './otlp-traces.js';
import { parsePromWrite } from './prometheus-remote.js';

/** What to parse a body as, with the request's options (structured-cloneable: no Sets, no classes). */
export type ParseJob =
  | { format: 'otlp-protobuf' | 'otlp-json'; table: string; dbUnit: TimeUnit }
  | { format: 'otlp-metrics-protobuf' | 'otlp-metrics-json'; dbUnit: TimeUnit }
  /** `nowNs`: the request's clock; `seed`: occupied slots, as for Loki (loki-entry-times.ts). */
  | { format: 'otlp-logs-protobuf' | 'otlp-logs-json'; table: string; dbUnit: TimeUnit; nowNs: bigint; seed?: Slot[] }
  | LogJob
  | { format: 'opentsdb-json'; precision: RequestUnit | undefined; dbUnit: TimeUnit }
  | { format: 'prom-write'; dbUnit: TimeUnit }
  /** LineProtocolOptions: timestamps become ts * tsMultiplier / tsDivisor; `defaultTs` for lines without one. */
  | { format: 'line-protocol'; tsMultiplier: bigint; tsDivisor: bigint; defaultTs: bigint };

/** The log bodies of `/api/v1/es/_bulk` (LogOptions with `tagColumns` as an array). */
export interface LogJob {
  format: 'bulk' | 'ndjson' | 'loki-json' | 'loki-protobuf';
  table: string;
  timeColumn: string;
  /** LogOptions.fallbackTimeColumn. */
  fallbackTimeColumn?: string;
  tagColumns: string[];
  dbUnit: TimeUnit;
  /** LogOptions.now. */
  now: bigint;
  /** Bulk: LogOptions.indexTables. */
  indexTables?: boolean;
  /** Loki: occupied slots the entries must go beside (loki-entry-times.ts). */
  seed?: Slot[];
}

/** Bulk actions in ParseResult.actions, one byte a document. */
export const BULK_ACTION_CODES = ['create', 'index'] as const;

export interface ParseResult {
  /** Encoded write batches (host/storage/FORMAT.md §1), each at byteOffset 0 of its own buffer. */
  batches: Uint8Array[];
  /** Rows in the batches, where the parser counts them (not for ndjson and Loki). */
  rows?: number;
  /** `bulk` only: each document's action as an index into BULK_ACTION_CODES. */
  actions?: Uint8Array;
  /** `bulk` only: BulkResult.tables and BulkResult.failures. */
  tables?: { names: string[]; of: Uint32Array };
  failures?: BulkFailure[];
  /** Loki and OTLP logs: the series and times the rows took. */
  ranges?: SeriesRange[];
  /** OTLP metrics and logs: data points or records left out (OTLP's partial success), and why. */
  rejected?: number;
  rejectedMessage?: string;
}

/**
 * Where write bodies are parsed (`ingest.parse_workers`): in worker threads (ParsePool) or in
 * the server's own thread (InThreadParsers).
 */
export interface Parsers {
  /** Worker threads (0: the server's thread parses). */
  readonly workers: number;
  /**
   * Parses `body` as `job` says; throws (in the server's thread) or rejects (in a worker) with
   * the UserError the format's parser throws. The caller must not read `body` afterwards: its
   * buffer may have been handed to a worker.
   */
  parse(job: ParseJob, body: Uint8Array): ParseResult | Promise<ParseResult>;
  /** Stops the workers; jobs still waiting or running fail with 503. */
  close(): Promise<void>;
}

/**
 * Parses `body` as `job` says. Throws UserError for a bad body, as the format's parser does.
 * `logs`, the Wasm core's JSON log scanner of this thread, is the fast path for bulk and NDJSON;
 * `lineProtocol`, the line-protocol scanner of this thread's core, is needed for line protocol.
 */
export function runParseJob(
  job: ParseJob,
  body: Uint8Array,
  logs?: LogScanner,
  lineProtocol?: LineProtocolScanner,
): ParseResult {
  switch (job.format) {
    case 'line-protocol':
      if (lineProtocol === undefined) throw bug('a line-protocol parse job without a scanner');
      return { batches: lineProtocol.scan(body, job) };
    case 'otlp-protobuf':
    case 'otlp-json': {
      const message = job.format === 'otlp-json' ? decodeOtlpJson(body) : decodeOtlpProtobuf(body);
      const out = otlpTracesToBatches(message, { table: job.table, dbUnit: job.dbUnit });
      return { batches: out.batches, rows: out.spans };
    }
    case 'otlp-metrics-protobuf':
    case 'otlp-metrics-json': {
      const message =
        job.format === 'otlp-metrics-json' ? decodeOtlpMetricsJson(body) : decodeOtlpMetricsProtobuf(body);
      return otlpMetricsToBatches(message, { dbUnit: job.dbUnit });
    }
    case 'otlp-logs-protobuf':
    case 'otlp-logs-json': {
      const message = job.format === 'otlp-logs-json' ? decodeOtlpLogsJson(body) : decodeOtlpLogsProtobuf(body);
      return otlpLogsToBatches(message, { table: job.table, dbUnit: job.dbUnit, nowNs: job.nowNs }, job.seed);
    }
    case 'bulk': {
      const out = parseBulk(body, logOptions(job), logs);
      const actions = new Uint8Array(out.actions.length);
      for (let i = 0; i < actions.length; i++) actions[i] = out.actions[i] === 'create' ? 0 : 1;
      const result: ParseResult = {
        batches: out.batches,
        rows: out.actions.length - (out.failures?.length ?? 0),
        actions,
      };
      if (out.tables !== undefined) result.tables = out.tables;
      if (out.failures !== undefined) result.failures = out.failures;
      return result;
    }
    case 'ndjson':
      return { batches: parseNdjson(body, logOptions(job), logs) };
    case 'loki-json':
      return parseLokiJson(body, logOptions(job), job.seed);
    case 'loki-protobuf':
      return parseLokiProtobuf(body, logOptions(job), job.seed);
    case 'opentsdb-json': {
      const out = parseOpenTsdbJson(body, { precision: job.precision, dbUnit: job.dbUnit });
      return { batches: out.batches, rows: out.points };
    }
    case 'prom-write': {
      const out = parsePromWrite(body, job.dbUnit);
      return { batches: out.batches, rows: out.samples };
    }
  }
}

function logOptions(job: LogJob): LogOptions {
  return {
    table: job.table,
    indexTables: job.indexTables,
    timeColumn: job.timeColumn,
    fallbackTimeColumn: job.fallbackTimeColumn,
    tagColumns: new Set(job.tagColumns),
    dbUnit: job.dbUnit,
    now: job.now,
  };
}
