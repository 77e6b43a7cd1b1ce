// The server's one connection to NATS (`server.cluster.nats_urls`), shared by the JetStream WALs
// of every database. It reconnects forever; while it is disconnected the WALs refuse appends at
// once (503) instead of letting each write wait for its publish to time out.

import type { Logger } from 'pino';
import { connect, type JetStreamManager, type NatsConnection } from 'nats';

export interface JetStreamLinkOptions {
  urls: readonly string[];
  /** Stream replicas (`server.cluster.nats_replicas`): 3 across a three-server NATS cluster. */
  replicas: number;
  /** Names this server's streams and subjects (`server.cluster.nats_stream_prefix`): servers sharing a NATS differ in it. */
  prefix?: string;
  logger: Logger;
  /** How long a publish waits for JetStream's acknowledgement before the write fails. */
  timeoutMs?: number;
}

const CONNECT_TIMEOUT_MS = 3000;
const DEFAULT_TIMEOUT_MS = 5000;
/**
 * How long a request at start is retried while JetStream answers "not now". After a NATS server
 * of a cluster is lost, the streams it led (and the meta group) elect a new leader; until then a
 * stream's requests time out (5 s each), which under load outlasted one try (issue 31's
 * three-server test failed its restart so).
 */
export const START_RETRY_MS = 60_000;

/**
 * A JetStream answer that means "not now": no answer, or "temporarily unavailable" (no leader
 * yet). Not "no responders" (503): that is a NATS without JetStream, which waiting does not mend.
 */
export function isTransient(e: unknown): boolean {
  const err = e as { code?: string; api_error?: { err_code?: number } };
  return err.code === 'TIMEOUT' || err.api_error?.err_code === 10008;
}

/** `request`, retried with a pause while it fails transiently, for up to START_RETRY_MS; each retry logged. */
async function retryTransient<T>(logger: Logger, what: string, request: () => Promise<T>): Promise<T> {
  const until = Date.now() + START_RETRY_MS;
  for (let pauseMs = 250; ; pauseMs = Math.min(pauseMs * 2, 2000)) {
    try {
      return await request();
    } catch (e) {
      if (!isTransient(e) || Date.now() + pauseMs > until) throw e;
      logger.warn({ err: e, what, retryInMs: pauseMs }, 'JetStream did not answer (a leader election?); retrying');
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }
}

export class JetStreamLink {
  readonly nc: NatsConnection;
  readonly jsm: JetStreamManager;
  readonly urls: readonly string[];
  readonly replicas: number;
  readonly prefix: string;
  readonly timeoutMs: number;
  readonly logger: Logger;
  /** Set while the connection is down (between NATS's disconnect and reconnect events). */
  down: Error | undefined;

  private constructor(opts: JetStreamLinkOptions, nc: NatsConnection, jsm: JetStreamManager) {
    this.nc = nc;
    this.jsm = jsm;
    this.urls = opts.urls;
    this.replicas = opts.replicas;
    this.prefix = opts.prefix ?? 'sundial';
    this.logger = opts.logger;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    void this.#watch();
  }

  /** Connects and checks that JetStream answers; an error names the URLs (the server does not start). */
  static async connect(opts: JetStreamLinkOptions): Promise<JetStreamLink> {
    const where = opts.urls.join(', ');
    let nc: NatsConnection;
    try {
      nc = await connect({
        servers: [...opts.urls],
        name: 'sundial',
        timeout: CONNECT_TIMEOUT_MS,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 250,
        pingInterval: 5000,
      });
    } catch (e) {
      throw new Error(`cannot connect to NATS at ${where} (server.cluster.nats_urls): ${(e as Error).message}`, {
        cause: e,
      });
    }
    try {
      // (its account-info request needs the meta leader, which a new or just-broken cluster lacks a while)
      const jsm = await retryTransient(opts.logger, 'JetStream account info', () =>
        nc.jetstreamManager({ timeout: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS }),
      );
      opts.logger.info({ nats: where, server: nc.info?.server_name }, 'connected to NATS JetStream (the WAL)');
      return new JetStreamLink(opts, nc, jsm);
    } catch (e) {
      await nc.close().catch(() => undefined);
      throw new Error(
        `NATS at ${where} (server.cluster.nats_urls) does not answer JetStream requests; is it started with -js? (${(e as Error).message})`,
        { cause: e },
      );
    }
  }

  /**
   * A JetStream request made at start (stream info, add, purge, consumer): retried with a pause
   * while the answer means "not now" (transient), for up to START_RETRY_MS, each retry logged.
   */
  atStart<T>(what: string, request: () => Promise<T>): Promise<T> {
    return retryTransient(this.logger, what, request);
  }

  async #watch(): Promise<void> {
    for await (const s of this.nc.status()) {
      if (s.type === 'disconnect') {
        this.down ??= new Error(`disconnected from NATS at ${String(s.data)}`);
        this.logger.error({ nats: s.data }, 'lost the connection to NATS; writes are refused until it is back');
      } else if (s.type === 'reconnect') {
        this.down = undefined;
        this.logger.info({ nats: s.data }, 'reconnected to NATS; writes are accepted');
      }
    }
  }

  async close(): Promise<void> {
    await this.nc.drain().catch(() => this.nc.close());
  }
}
