// GET|HEAD /api/v1/ping: liveness and version, no authentication (CONTRACT.md "Ping").

import type { ServerRoute } from '@hapi/hapi';
import type { ServerContext } from '../server.js';
import { jsonBody } from '../json-body.js';

export function pingRoutes(ctx: ServerContext): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/ping',
      options: { plugins: { sundial: { auth: false, errors: 'json' } } },
      handler: (_request, h) => {
        const ready = ctx.phase() === 'ready';
        return jsonBody(h, JSON.stringify({ version: ctx.version, status: ready ? 'healthy' : 'unavailable' }))
          .code(ready ? 200 : 503);
      },
    },
  ];
}
