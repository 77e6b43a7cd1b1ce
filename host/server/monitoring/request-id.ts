// The request id: taken from a sane client `X-Request-Id` or made here, echoed in the response's
// `X-Request-Id`, and put on every log line the request causes (docs/monitoring.md). The id
// travels in an AsyncLocalStorage entered around Node's 'request' event, before hapi sees the
// request, so that whatever the request's handling calls (storage, engine, parse workers' replies)
// logs with it through the logger's mixin, without a logger passed down to those layers.

import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * A client's id is kept when it is a token a log line and a header carry unchanged: 1 to 128
 * letters, digits and `-_.:/+=@` (UUIDs, W3C trace ids, base64, nginx's $request_id, AWS's
 * `Root=1-...` ids without their `;`). Anything else (spaces, quotes, control characters,
 * something longer) is replaced by a fresh id rather than cleaned, so that an id never lies.
 */
const SANE_ID = /^[A-Za-z0-9._:/+=@-]{1,128}$/;

/** What a request's handling knows of it wherever it runs. */
export interface RequestContext {
  readonly id: string;
  /** performance.now() when Node handed over the request (its headers were read). */
  readonly startedMs: number;
}

const storage = new AsyncLocalStorage<RequestContext>();
const byRequest = new WeakMap<IncomingMessage, RequestContext>();

/** The id for a request that sent `header` (a repeated header counts as not sane). */
export function requestIdFor(header: string | string[] | undefined): string {
  return typeof header === 'string' && SANE_ID.test(header) ? header : randomUUID();
}

/** The context of a request, by its Node request object (hapi's `request.raw.req`). */
export function requestContextOf(req: IncomingMessage): RequestContext | undefined {
  return byRequest.get(req);
}

/** pino's `mixin`: adds `reqId` to every line logged while a request's handling runs. */
export function requestIdMixin(): Record<string, unknown> {
  const c = storage.getStore();
  return c === undefined ? {} : { reqId: c.id };
}

/**
 * Gives each request of `listener` its id: the response header is set at once (so that every
 * answer has it, hapi's own 400s and 404s too) and hapi's handling runs inside the request's
 * context. Wraps `emit` because hapi subscribes its own 'request' listener, which a listener added
 * here could not run inside a context.
 */
export function withRequestIds(listener: Server): Server {
  const emit = listener.emit as (this: Server, event: string | symbol, ...args: unknown[]) => boolean;
  listener.emit = function (this: Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event !== 'request') return emit.call(this, event, ...args);
    const req = args[0] as IncomingMessage;
    const res = args[1] as ServerResponse;
    const context: RequestContext = { id: requestIdFor(req.headers['x-request-id']), startedMs: performance.now() };
    byRequest.set(req, context);
    res.setHeader(REQUEST_ID_HEADER, context.id);
    return storage.run(context, () => emit.call(this, event, ...args));
  } as Server['emit'];
  return listener;
}
