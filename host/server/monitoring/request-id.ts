// The request id: taken from a sane client `X-Request-Id` or made here, echoed in the response's
// `X-Request-Id`, and put as `reqId` on the lines the server logs about the request
// (docs/monitoring.md). Passed explicitly (requestLog), not through an AsyncLocalStorage: on
// Node 20 that enables promise hooks for every promise of the process, which cost 26 µs of server
// CPU and 44 µs of latency on a 330 µs point query (4 alternated rounds of 6,000 queries).

import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from 'pino';

const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * A client's id is kept when it is a token a log line and a header carry unchanged: 1 to 128
 * letters, digits and `-_.:/+=@` (UUIDs, W3C trace ids, base64, nginx's $request_id). Anything
 * else (spaces, quotes, `;`, control characters, something longer) is replaced by a fresh id
 * rather than cleaned, so that an id never lies.
 */
const SANE_ID = /^[A-Za-z0-9._:/+=@-]{1,128}$/;

/** What the server knows of a request from the moment Node hands it over. */
export interface RequestContext {
  readonly id: string;
  /** performance.now() when Node handed over the request (its headers were read). */
  readonly startedMs: number;
  /** The logger with `reqId`, made when the request first logs. */
  log: Logger | undefined;
}

const byRequest = new WeakMap<IncomingMessage, RequestContext>();

/** The id for a request that sent `header` (a repeated header counts as not sane). */
export function requestIdFor(header: string | string[] | undefined): string {
  return typeof header === 'string' && SANE_ID.test(header) ? header : randomUUID();
}

/** The context of a request, by its Node request object (hapi's `request.raw.req`); none for `inject`ed ones. */
export function requestContextOf(req: IncomingMessage): RequestContext | undefined {
  return byRequest.get(req);
}

/** The id of a request (hapi's Request, or anything with its `raw.req`). */
export function requestIdOf(request: { raw: { req: IncomingMessage } }): string | undefined {
  return byRequest.get(request.raw.req)?.id;
}

/** `logger` with the request's `reqId` on every line (itself for a request without an id). */
export function requestLog(logger: Logger, request: { raw: { req: IncomingMessage } }): Logger {
  const c = byRequest.get(request.raw.req);
  if (c === undefined) return logger;
  return (c.log ??= logger.child({ reqId: c.id }));
}

/**
 * Gives each request of `listener` its id, and sets the response header at once, so that every
 * answer has it, hapi's own 400s and 404s too. Wraps `emit` to run before hapi's own 'request'
 * listener whatever the order of subscription.
 */
export function withRequestIds(listener: Server): Server {
  const emit = listener.emit as (this: Server, event: string | symbol, ...args: unknown[]) => boolean;
  listener.emit = function (this: Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'request') {
      const req = args[0] as IncomingMessage;
      const context: RequestContext = {
        id: requestIdFor(req.headers['x-request-id']),
        startedMs: performance.now(),
        log: undefined,
      };
      byRequest.set(req, context);
      (args[1] as ServerResponse).setHeader(REQUEST_ID_HEADER, context.id);
    }
    return emit.call(this, event, ...args);
  } as Server['emit'];
  return listener;
}
