// Self-monitoring (docs/monitoring.md): request ids on responses and log lines.

export { requestContextOf, requestIdMixin, withRequestIds } from './request-id.js';
