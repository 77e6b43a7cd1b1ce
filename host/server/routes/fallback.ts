// Every request no route takes: 405 with Allow when the path exists for other methods, else 404;
// both with an empty body (CONTRACT.md "Server").

import type { Request, ResponseToolkit, Server, ServerRoute } from '@hapi/hapi';

type MatchMethod = Parameters<Server['match']>[0];

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

function allowedMethods(request: Request): string[] {
  const allowed: string[] = [];
  for (const m of METHODS) {
    const match = request.server.match((m === 'HEAD' ? 'GET' : m) as MatchMethod, request.path);
    if (match !== null && match.method !== '*') allowed.push(m);
  }
  return allowed;
}

export function fallbackRoute(): ServerRoute {
  return {
    method: '*',
    path: '/{any*}',
    options: { plugins: { sundial: { auth: false, errors: 'empty' } } },
    handler: (request: Request, h: ResponseToolkit) => {
      const allowed = allowedMethods(request);
      if (allowed.length === 0) return h.response().code(404);
      return h.response().code(405).header('Allow', allowed.join(', '));
    },
  };
}
