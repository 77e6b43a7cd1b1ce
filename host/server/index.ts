// The HTTP edge's public face: the server, its services and their parts, the settings it reads,
// the SQL statement admission it shares with pgwire, and the write path library mode shares.
// Other folders import from here.

export type { ServerSettings } from './context.js';
export { Budget } from './limits.js';
export { LogClock } from './log-clock.js';
export { LokiTables } from './loki-placement.js';
export { ServerMetrics, SlowQueryLog, trackResult } from './monitoring/index.js';
export { QueryRegistry } from './query-registry.js';
export { SundialServer } from './server.js';
export type { Services, SqlServices } from './services.js';
export { lineProtocolParser } from './routes/write.js';
export { admitWrite, storeWrite, type WriteTarget } from './routes/write-pipeline.js';
export { requireOnlyPasswordChange, type RunningStatement, startStatement } from './statement.js';
export { tableInfo } from './table-info.js';
export { TenantLimits } from './tenant-limits.js';
export { ensureUsageSchema, startUsageReporter, USAGE_DATABASE, UsageMetrics } from './usage-metrics.js';
