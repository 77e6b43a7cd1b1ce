// Builds the services of a server (main.ts), or of the query warm-up's scratch server over its own
// storage, from the configuration and the parts made before them.

import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Core } from '../core/wasm.js';
import { LineProtocolScanner } from '../ingest/line-protocol.js';
import type { Parsers } from '../ingest/parse-jobs.js';
import { Authenticator } from '../meta/index.js';
import type { Storage } from '../storage/index.js';
import {
  Budget,
  LogClock,
  LokiTables,
  QueryRegistry,
  ServerMetrics,
  type Services,
  SlowQueryLog,
  TenantLimits,
  type UsageMetrics,
} from '../server/index.js';
import { sqlServices } from './sql-services.js';
import type { SecretBox } from './secret-box.js';

/** What the services are built around; the rest comes from `config`. */
export interface ServiceParts {
  core: Core;
  storage: Storage;
  parsers: Parsers;
  usage: UsageMetrics;
  /** Whether a user without a password may log in (a loopback listener, serve.ts). */
  allowEmptyPassword: boolean;
  logger: Logger;
  /** Seals the secrets the catalog keeps (secret-box.ts). */
  secrets: SecretBox;
  /** The server's metrics (serve.ts); default a registry of its own that nobody scrapes (the warm-up's). */
  metrics?: ServerMetrics;
}

export function createServices(config: Config, parts: ServiceParts): Services {
  const nowMs = Date.now;
  const authenticator = new Authenticator(parts.storage.catalog, { allowEmptyPassword: parts.allowEmptyPassword });
  const runningQueries = new QueryRegistry(nowMs);
  return {
    core: parts.core,
    storage: parts.storage,
    authenticator,
    lineProtocol: new LineProtocolScanner(parts.core, { windowBytes: config['ingest.scan_window_bytes'] }),
    parsers: parts.parsers,
    writeBytes: new Budget(config['limits.max_inflight_write_bytes'], 'in-flight write bytes', 'write_bytes'),
    queries: new Budget(config['limits.max_concurrent_queries'], 'concurrent queries', 'queries'),
    tenantLimits: new TenantLimits(nowMs),
    runningQueries,
    usage: parts.usage,
    nowMs,
    logClock: new LogClock(nowMs),
    lokiTables: new LokiTables(),
    metrics: parts.metrics ?? new ServerMetrics({ processMetrics: false }),
    slowQueries: new SlowQueryLog(config['log.slow_query'], parts.logger),
    sql: sqlServices(
      parts.core,
      parts.storage,
      parts.usage,
      authenticator,
      runningQueries,
      parts.secrets,
      config['storage.external_dir'],
    ),
  };
}
