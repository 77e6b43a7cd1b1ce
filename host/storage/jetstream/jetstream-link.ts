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
      const jsm = await nc.jetstreamManager({ timeout: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS });
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
