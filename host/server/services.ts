// The long-lived objects route handlers use, created once the storage is open.

import type { Logger } from 'pino';
import type { Config } from '../cli/config.js';
import type { Core } from '../core/wasm.js';
import { LineProtocolScanner } from '../ingest/line-protocol.js';
import type { Storage } from '../storage/index.js';
import { Authenticator } from './auth.js';
import { Budget } from './limits.js';
import { LogClock } from './log-clock.js';
import { LokiTables } from './loki-placement.js';
import { ServerMetrics, SlowQueryLog } from './monitoring/index.js';
import type { Parsers } from './parse-pool.js';
import { QueryRegistry } from './query-registry.js';
import { TenantLimits } from './tenant-limits.js';
import type { UsageMetrics } from './usage-metrics.js';

export interface Services {
  core: Core;
  storage: Storage;
  authenticator: Authenticator;
  lineProtocol: LineProtocolScanner;
  /** Parses the other write formats, in worker threads or in this one (`ingest.parse_workers`). */
  parsers: Parsers;
  /** Decompressed write bytes being processed. */
  writeBytes: Budget;
  /** SQL requests running. */
  queries: Budget;
  /** Each tenant's request limits (its `_limiter` option). */
  tenantLimits: TenantLimits;
  /** The SQL statements running (SHOW QUERIES). */
  runningQueries: QueryRegistry;
  /** Usage counters, written to usage_schema (usage-metrics.ts). */
  usage: UsageMetrics;
  /** The clock in milliseconds since the epoch. */
  nowMs: () => number;
  /** The times of log documents without one (log-clock.ts). */
  logClock: LogClock;
  /** Where the Loki pushes of each table are being placed and stored (loki-placement.ts). */
  lokiTables: LokiTables;
  /** The counters and histograms of /metrics (monitoring/metrics.ts). */
  metrics: ServerMetrics;
  /** SQL statements slower than `log.slow_query`, logged when they end. */
  slowQueries: SlowQueryLog;
}

/** What the services are built around; the rest comes from `config`. */
export interface ServiceParts {
  core: Core;
  storage: Storage;
  parsers: Parsers;
  usage: UsageMetrics;
  /** Whether a user without a password may log in (a loopback listener, main.ts). */
  allowEmptyPassword: boolean;
  logger: Logger;
  /** The server's metrics (main.ts); default a registry of its own that nobody scrapes (the warm-up's). */
  metrics?: ServerMetrics;
}

/** The services of a server (main.ts), or of the query warm-up's scratch server over its own storage. */
export function createServices(config: Config, parts: ServiceParts): Services {
  const nowMs = Date.now;
  return {
    core: parts.core,
    storage: parts.storage,
    authenticator: new Authenticator(parts.storage.catalog, { allowEmptyPassword: parts.allowEmptyPassword }),
    lineProtocol: new LineProtocolScanner(parts.core, { windowBytes: config['ingest.scan_window_bytes'] }),
    parsers: parts.parsers,
    writeBytes: new Budget(config['limits.max_inflight_write_bytes'], 'in-flight write bytes', 'write_bytes'),
    queries: new Budget(config['limits.max_concurrent_queries'], 'concurrent queries', 'queries'),
    tenantLimits: new TenantLimits(nowMs),
    runningQueries: new QueryRegistry(nowMs),
    usage: parts.usage,
    nowMs,
    logClock: new LogClock(nowMs),
    lokiTables: new LokiTables(),
    metrics: parts.metrics ?? new ServerMetrics({ processMetrics: false }),
    slowQueries: new SlowQueryLog(config['log.slow_query'], parts.logger),
  };
}
