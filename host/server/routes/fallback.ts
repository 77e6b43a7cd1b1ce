// Every request no route takes: 405 with Allow when the path exists for other methods, else 404;
// both with an empty body, whatever the body (CONTRACT.md "Server"). The body is never read:
// hapi parses a route's payload before its handler runs, so with its default payload settings
// a POST here of JSON that does not parse, or of a content type hapi has no parser for
// (protobuf, NDJSON), answered 400 or 415, and a body over 1 MiB 413 (issue 25).

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

/**
 * Payload settings of routes that answer without the body: hapi leaves it unread (Node drains
 * it), and reads no Content-Type either (`override`: hapi refuses a multipart type without a
 * boundary with 400 even when it does not parse the body).
 */
export const UNREAD_PAYLOAD = {
  output: 'stream',
  parse: false,
  maxBytes: Number.MAX_SAFE_INTEGER,
  timeout: false,
  override: 'application/octet-stream',
} as const;

export function fallbackRoute(): ServerRoute {
  return {
    method: '*',
    path: '/{any*}',
    options: { payload: UNREAD_PAYLOAD, plugins: { sundial: { auth: false, errors: 'empty' } } },
    handler: (request: Request, h: ResponseToolkit) => {
      const allowed = allowedMethods(request);
      if (allowed.length === 0) return h.response().code(404);
      return h.response().code(405).header('Allow', allowed.join(', '));
    },
  };
}
