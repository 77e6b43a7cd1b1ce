// GET|HEAD /api/v1/ping: liveness and version, no authentication (CONTRACT.md "Ping"): 200
// healthy, 200 degraded with a reason while writes are refused or data is damaged (storage.health),
// 503 while starting or stopping.

import type { ServerRoute } from '@hapi/hapi';
import type { ServerContext } from '../context.js';
import { jsonBody } from '../json-body.js';

export function pingRoutes(ctx: ServerContext): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/ping',
      options: { plugins: { sundial: { auth: false, errors: 'json', answersWhileStopping: true } } },
      handler: (_request, h) => {
        if (ctx.phase() !== 'ready')
          return jsonBody(h, JSON.stringify({ version: ctx.version, status: 'unavailable' })).code(503);
        // Degraded is still 200: the server is alive and serves reads (a liveness probe that
        // restarted it would not free disk space); the status and reason say what is wrong.
        const health = ctx.services().storage.health();
        const body =
          health.status === 'healthy'
            ? { version: ctx.version, status: 'healthy' }
            : { version: ctx.version, status: 'degraded', reason: health.reasons.join('; ') };
        return jsonBody(h, JSON.stringify(body)).code(200);
      },
    },
  ];
}
