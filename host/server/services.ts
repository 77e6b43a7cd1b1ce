// The long-lived objects route handlers use, created once the storage is open.

import type { Core } from '../core/wasm.js';
import type { LineProtocolScanner } from '../ingest/line-protocol.js';
import type { Storage } from '../storage/storage.js';
import type { Authenticator } from './auth.js';
import type { Budget } from './limits.js';
import type { Parsers } from './parse-pool.js';
import type { QueryRegistry } from './query-registry.js';
import type { TenantLimits } from './tenant-limits.js';
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
}
