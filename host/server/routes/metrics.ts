// GET /metrics: the server's metrics in Prometheus' text exposition format 0.0.4
// (docs/monitoring.md). Credentials as `server.metrics_auth` says: with `auto` (the default) none
// while the server listens on a loopback address, where only local processes reach it, and an
// admin's otherwise, since the series name every tenant's databases. 503 while starting or
// stopping, as every route but ping. Takes what it needs, not the ServerContext: server.ts
// imports the routes.

import type { ServerRoute } from '@hapi/hapi';
import { requireSystemMaintainer } from '../../meta/index.js';
import { isLoopbackHost } from '../listener.js';
import type { ServerMetrics } from '../monitoring/index.js';

/** Whether scrapes need an admin's Basic credentials, by `server.metrics_auth` and `server.host`. */
export function metricsNeedAuth(setting: string, host: string): boolean {
  return setting === 'on' || (setting === 'auto' && !isLoopbackHost(host));
}

/** `ready` throws the 503 while the server is not ready (ServerContext.services). */
export function metricsRoutes(metrics: ServerMetrics, auth: boolean, ready: () => unknown): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/metrics',
      options: { plugins: { sundial: { auth, errors: 'json' } } },
      handler: async (request, h) => {
        ready();
        if (auth) {
          const user = request.app.user;
          if (user === undefined) throw new Error('BUG: /metrics with authentication has no user');
          requireSystemMaintainer(user);
        }
        const text = await metrics.registry.metrics();
        return h.response(text).type('text/plain; version=0.0.4').charset('utf-8');
      },
    },
  ];
}
