// CORS for pages of other origins (issue 27, `server.cors_origins`; off while it lists none), as
// the Fetch standard has it: a preflight (OPTIONS with Access-Control-Request-Method) on a listed
// route gets 204 with the methods and request headers allowed when its Origin is allowed and no
// CORS header otherwise; every other answer of a listed route, errors included, names the allowed
// Origin and exposes the headers clients read. Listed origins are echoed with credentials allowed
// (a page may send the browser's Basic credentials); `*` allows any origin without credentials,
// as the standard requires. Every answer of a listed route says `Vary: Origin`.

import type { Request, ResponseObject, ResponseToolkit, Server, ServerRoute } from '@hapi/hapi';
import { UNREAD_PAYLOAD } from './routes/fallback.js';

/** The routes pages of allowed origins may call; a route not in the server yet is skipped. */
export const CORS_PATHS: readonly string[] = ['/api/v1/sql', '/api/v1/write', '/api/v1/export'];

/**
 * Request headers a page may send beyond the safelisted ones: credentials, the body's type and
 * encoding, the answer's format, and CONTRACT.md's `tenant`, `db` and `table` headers.
 */
const ALLOW_HEADERS = 'Authorization, Content-Type, Content-Encoding, Accept, Tenant, Db, Table, X-Request-Id';
/** Response headers a page may read beyond the safelisted ones: the error's code and text, warnings, the request id, back-off and the auth scheme. */
const EXPOSE_HEADERS =
  'X-Sundial-Error-Code, X-Sundial-Error, X-Sundial-Warning, X-Request-Id, Retry-After, WWW-Authenticate, Content-Encoding';
/** Seconds a browser may keep a preflight's answer (Chromium caps it at 7200). */
const MAX_AGE_S = 600;

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export class Cors {
  readonly #origins: ReadonlySet<string>;
  readonly #any: boolean;
  /** The listed paths this server has, with their methods. */
  readonly #paths = new Map<string, string[]>();

  constructor(origins: readonly string[]) {
    this.#origins = new Set(origins.filter((o) => o !== '*'));
    this.#any = origins.includes('*');
  }

  get enabled(): boolean {
    return this.#any || this.#origins.size > 0;
  }

  /** The preflight routes of the listed paths `server` has routes for; call after every other route is added. */
  preflightRoutes(server: Server): ServerRoute[] {
    if (!this.enabled) return [];
    const routes: ServerRoute[] = [];
    for (const path of CORS_PATHS) {
      const methods = METHODS.filter((m) => {
        const match = server.match(m === 'HEAD' ? 'GET' : (m as 'GET'), path);
        return match !== null && match.method !== '*';
      });
      if (methods.length === 0) continue;
      this.#paths.set(path, methods);
      routes.push({
        method: 'OPTIONS',
        path,
        options: { payload: UNREAD_PAYLOAD, plugins: { sundial: { auth: false, errors: 'empty' } } },
        handler: (request: Request, h: ResponseToolkit) => this.#preflight(request, h, methods),
      });
    }
    return routes;
  }

  #preflight(request: Request, h: ResponseToolkit, methods: readonly string[]): ResponseObject {
    const res = h
      .response()
      .code(204)
      .header('Allow', [...methods, 'OPTIONS'].join(', '));
    res.vary('origin');
    res.vary('access-control-request-method');
    const allowed = this.#allowedOrigin(request);
    const method = request.headers['access-control-request-method'] as string | undefined;
    if (allowed === undefined || method === undefined || !methods.includes(method)) return res;
    this.#allowOrigin(res, allowed);
    res.header('Access-Control-Allow-Methods', methods.join(', '));
    res.header('Access-Control-Allow-Headers', ALLOW_HEADERS);
    res.header('Access-Control-Max-Age', String(MAX_AGE_S));
    return res;
  }

  /** Adds the CORS headers to an answer of a listed route (not a preflight: that has its own). */
  decorate(request: Request, res: ResponseObject): void {
    if (!this.#paths.has(request.route.path) || request.method === 'options') return;
    res.vary('origin');
    const allowed = this.#allowedOrigin(request);
    if (allowed === undefined) return;
    this.#allowOrigin(res, allowed);
    res.header('Access-Control-Expose-Headers', EXPOSE_HEADERS);
  }

  /** What Access-Control-Allow-Origin says for the request's Origin; undefined: not allowed. */
  #allowedOrigin(request: Request): string | undefined {
    const origin = request.headers.origin as string | undefined;
    if (origin === undefined) return undefined;
    if (this.#origins.has(origin)) return origin;
    return this.#any ? '*' : undefined;
  }

  #allowOrigin(res: ResponseObject, allowed: string): void {
    res.header('Access-Control-Allow-Origin', allowed);
    if (allowed !== '*') res.header('Access-Control-Allow-Credentials', 'true');
  }
}
