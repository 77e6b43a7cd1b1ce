// Self-monitoring (docs/monitoring.md): /metrics' registry and the series read at scrape time,
// request ids on responses and log lines, the slow-query log.

export { ServerMetrics, type ServerMetricsOptions } from './metrics.js';
export { registerStateMetrics, type ScrapedState } from './scrape.js';
export { requestContextOf, requestIdOf, requestLog, withRequestIds } from './request-id.js';
export { SlowQueryLog } from './slow-query.js';
export { trackResult } from './result-tracking.js';
