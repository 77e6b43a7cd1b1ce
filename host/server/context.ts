// What route handlers see of the server: its context (settings, logger, lifecycle, services),
// their own settings, and the request's authenticated user. Apart from server.ts, which imports
// every route, so that routes need not import it back.

import type { Request } from '@hapi/hapi';
import type { Logger } from 'pino';
import type { UserDef } from '../meta/index.js';
import type { ErrorStyle } from './errors.js';
import type { Services } from './services.js';

/**
 * The settings the front ends (HTTP here, pgwire) read, by their keys in the configuration table;
 * the composition (node/config.ts) declares and loads them all and hands its Config, which has
 * these, to the server.
 */
export interface ServerSettings {
  readonly 'server.host': string;
  readonly 'server.port': number;
  readonly 'server.headers_timeout': number;
  readonly 'server.max_connections': number;
  readonly 'server.pg_max_connections': number;
  readonly 'limits.write_body_bytes': number;
  readonly 'limits.sql_body_bytes': number;
  readonly 'limits.query_timeout': number;
  readonly 'limits.query_memory_bytes': number;
  readonly 'ingest.loki_tenant': string;
  readonly 'ingest.loki_database': string;
  readonly 'ingest.loki_table': string;
  readonly 'otlp.traces_table': string;
  readonly 'otlp.logs_table': string;
  readonly 'server.metrics_auth': string;
  /** Origins whose pages may call the CORS routes (cors.ts); none: CORS off. */
  readonly 'server.cors_origins': readonly string[];
}

export type Phase = 'starting' | 'ready' | 'stopping';

/** What route handlers see of the server. */
export interface ServerContext {
  readonly config: ServerSettings;
  readonly logger: Logger;
  readonly version: string;
  phase(): Phase;
  /** The services, or a 503 UserError while starting or stopping. */
  services(): Services;
}

/** Per-route settings read by the server's extensions (route.options.plugins.sundial). */
export interface RouteSettings {
  /** Whether the route needs Basic credentials (default true). */
  auth?: boolean;
  /** Whether the route answers requests that arrive while the server stops (ping); others get 503. */
  answersWhileStopping?: boolean;
  /**
   * How errors are reported: empty body (write routes), JSON body, a foreign server's shape; or
   * chosen per request (the Elasticsearch bulk route answers CnosDB's callers as CnosDB does).
   */
  errors: ErrorStyle | ((request: Request) => ErrorStyle);
}

declare module '@hapi/hapi' {
  interface PluginSpecificConfiguration {
    sundial?: RouteSettings;
  }
  interface RequestApplicationState {
    user?: UserDef;
  }
}

export function settingsOf(request: Request): RouteSettings {
  return request.route.settings.plugins?.sundial ?? { errors: 'json' };
}

/** The authenticated user of a request (set by the onPreAuth extension). */
export function userOf(request: Request): UserDef {
  const u = request.app.user;
  if (u === undefined) throw new Error('BUG: route without authentication asked for the user');
  return u;
}
