// What a connection sees of the PostgreSQL listener and the server: settings, services, the
// shared plan cache, authentication and cancellation. Apart from listener.ts, which creates the
// connections, so that connection.ts need not import it back.

import type { Logger } from 'pino';
import type { PlanCache } from '../engine/plan-cache.js';
import type { ServerSettings, Services } from '../server/index.js';
import type { PgAuth } from './auth.js';

/** What a connection sees of the server. */
export interface PgContext {
  readonly config: ServerSettings;
  readonly logger: Logger;
  readonly version: string;
  readonly planCache: PlanCache;
  /** The services, or a 503 UserError (57P03) while starting or stopping. */
  services(): Services;
  auth(): PgAuth;
  cancel(pid: number, secret: number): void;
  /** Forgets a closed connection (the one registered under its pid). */
  unregister(conn: { readonly pid: number }): void;
}
