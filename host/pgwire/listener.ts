// The PostgreSQL port (`server.pg_port`, off unless set; on `server.host`): accepts connections,
// gives each a process id and secret key (BackendKeyData) under which a CancelRequest, which
// arrives on a connection of its own, finds the statement to stop; and on shutdown ends every
// connection with FATAL 57P01 after the statements in flight, as the HTTP listener waits for its
// requests. Sessions are capped by `server.pg_max_connections` (the HTTP cap does not count them).

import { randomInt } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import type { Logger } from 'pino';
import { PlanCache } from '../engine/plan-cache.js';
import type { ServerSettings, Services } from '../server/index.js';
import { PgAuth } from './auth.js';
import { PgConnection } from './connection.js';
import type { PgContext } from './context.js';

export interface PgListenerOptions {
  config: ServerSettings;
  logger: Logger;
  version: string;
  services(): Services;
  /** Whether an empty password may log in (a loopback listener). */
  allowEmptyPassword: boolean;
}

export class PgListener {
  readonly #server: Server;
  readonly #connections = new Map<number, PgConnection>();
  /** Connections past the cap, until their startup is answered (stop() ends them too). */
  readonly #refused = new Set<Socket>();
  readonly #ctx: PgContext;
  #nextPid = randomInt(1000, 30000);
  #auth: { services: Services; auth: PgAuth } | undefined;

  constructor(opts: PgListenerOptions) {
    this.#ctx = {
      config: opts.config,
      logger: opts.logger,
      version: opts.version,
      planCache: new PlanCache(),
      services: opts.services,
      auth: () => {
        const services = opts.services();
        if (this.#auth?.services !== services)
          this.#auth = { services, auth: new PgAuth(services.authenticator, opts.allowEmptyPassword) };
        return this.#auth.auth;
      },
      cancel: (pid, secret) => {
        const conn = this.#connections.get(pid);
        // A wrong key is ignored without an answer, as PostgreSQL does.
        if (conn !== undefined && conn.secret === secret) conn.cancel();
      },
      unregister: (conn) => {
        if (this.#connections.get(conn.pid) === conn) this.#connections.delete(conn.pid);
      },
    };
    this.#server = createServer((socket: Socket) => this.#accept(socket));
  }

  #accept(socket: Socket): void {
    const pid = this.#nextPid;
    this.#nextPid = this.#nextPid >= 2 ** 31 - 2 ? 1000 : this.#nextPid + 1;
    // Past `server.pg_max_connections` sessions, a connection still gets its startup read (a
    // CancelRequest, which comes on a connection of its own, must reach a busy server) and is then
    // refused with FATAL 53300, as PostgreSQL refuses past max_connections; it is not counted.
    const max = this.#ctx.config['server.pg_max_connections'];
    const refuse = max > 0 && this.#connections.size >= max;
    const conn = new PgConnection(socket, this.#ctx, pid, randomInt(0, 2 ** 31 - 1) | 0, refuse);
    if (!refuse) this.#connections.set(pid, conn);
    else {
      this.#refused.add(socket);
      socket.once('close', () => this.#refused.delete(socket));
    }
  }

  /** Listens on host:port (0: a free port); resolves to the port. */
  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, host, () => {
        this.#server.off('error', reject);
        const address = this.#server.address();
        resolve(typeof address === 'object' && address !== null ? address.port : port);
      });
    });
  }

  /** Stops accepting and ends every connection. */
  async stop(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    for (const conn of [...this.#connections.values()]) conn.terminate();
    for (const socket of [...this.#refused]) socket.destroy();
    await closed;
  }

  get connections(): number {
    return this.#connections.size;
  }
}
