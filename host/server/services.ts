// The long-lived objects route handlers use, created once the storage is open (node/services.ts
// builds them). SQL reaches the engine and the catalog through `sql`, wired by the composition, so
// that the HTTP edge and pgwire run statements without knowing how the engine meets the storage.

import type { Core } from '../core/wasm.js';
import type { EngineCatalog } from '../engine/catalog.js';
import type { SqlEngine } from '../engine/engine.js';
import type { PlanCache } from '../engine/plan-cache.js';
import type { DclStatement } from '../engine/query.js';
import type { SystemInfo } from '../engine/system/system-info.js';
import type { LineProtocolScanner } from '../ingest/line-protocol.js';
import type { Parsers } from '../ingest/parse-jobs.js';
import type { Authenticator, TenantDef, UserDef } from '../meta/index.js';
import type { Storage } from '../storage/index.js';
import type { Budget } from './limits.js';
import type { LogClock } from './log-clock.js';
import type { LokiTables } from './loki-placement.js';
import type { QueryRegistry } from './query-registry.js';
import type { TenantLimits } from './tenant-limits.js';
import type { ServerMetrics, SlowQueryLog } from './monitoring/index.js';
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
  /** How SQL statements reach the engine, the DCL and the system views. */
  sql: SqlServices;
}

/** What a SQL statement needs beyond its admission (statement.ts); node/sql-services.ts has them. */
export interface SqlServices {
  /**
   * The engine over the server's storage (cheap: one per statement, sharing `planCache`).
   * `skipped` collects the damaged segment files its reads leave out (storage.skip_damaged_segments).
   */
  engine(planCache: PlanCache, skipped?: Set<string>): SqlEngine;
  /** The engine's catalog of one tenant over the server's storage (InfluxQL reads it directly). */
  catalog(tenant: string): EngineCatalog;
  /** Runs a DCL statement of `user` in the session's tenant `tenant` (QuerySession.dcl). */
  dcl(user: UserDef, tenant: TenantDef, statement: DclStatement): Promise<void>;
  /** The system views as `user` of `tenant` may see them (QuerySession.system). */
  system(user: UserDef, tenant: TenantDef): SystemInfo;
}
