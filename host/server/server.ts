// The HTTP host: a hapi server with every route of CONTRACT.md under /api/v1, Basic auth,
// response compression, one error mapping, CORS where configured (cors.ts), and a lifecycle
// (starting -> ready -> stopping) in which everything but ping answers 503 while the storage is
// not ready.

import { Readable } from 'node:stream';
import Hapi, { type Request, type ResponseObject, type ResponseToolkit, type ServerRoute } from '@hapi/hapi';
import type { Logger } from 'pino';
import { UserError } from '../core/errors.js';
import { auditDenied } from './audit.js';
import { settingsOf, type Phase, type ServerContext, type ServerSettings } from './context.js';
import { authenticate } from './auth.js';
import { Cors } from './cors.js';
import { registerEncoders } from './compression.js';
import { errorResponse, toUserError } from './errors.js';
import { createListener } from './listener.js';
import { backupRoutes } from './routes/backup.js';
import { esBulkRoutes } from './routes/es-bulk.js';
import { esDocRoutes } from './routes/es-doc.js';
import { esProbeRoutes } from './routes/es-probes.js';
import { exportRoutes } from './routes/export.js';
import { lokiRoutes } from './routes/loki.js';
import { fallbackRoute } from './routes/fallback.js';
import { influxdbQueryRoutes } from './routes/influxdb-query.js';
import { influxdbRoutes } from './routes/influxdb.js';
import { jaegerRoutes } from './routes/jaeger.js';
import { metricsNeedAuth, metricsRoutes } from './routes/metrics.js';
import {
  registerStateMetrics,
  requestContextOf,
  requestLog,
  ServerMetrics,
  withRequestIds,
} from './monitoring/index.js';
import { pingRoutes } from './routes/ping.js';
import { openTsdbRoutes } from './routes/opentsdb.js';
import { otlpRoutes } from './routes/otlp.js';
import { prometheusRoutes } from './routes/prometheus.js';
import { sandboxRoutes } from './routes/sandbox.js';
import { sqlRoutes } from './routes/sql.js';
import { traceRoutes } from './routes/traces.js';
import { writeRoutes } from './routes/write.js';
import type { Services } from './services.js';

/** How long a response waits for the rest of a body it does not need (nginx's lingering_timeout). */
const DISCARD_WAIT_MS = 5000;

/**
 * Reads and drops what a client is still sending once the server has its answer (a 404 or 405, a
 * 401 before the body, a stub, a GET with a body), before the answer goes out. hapi marks a
 * response `Connection: close` while the request's body is still arriving, and a client still
 * writing then gets EPIPE instead of the answer (test/server/routes.test.ts saw it under load).
 * Bounded like nginx's lingering close: at most `capBytes` (the largest body a route takes) and
 * DISCARD_WAIT_MS; past either the connection closes as before. A client that sent `Expect:
 * 100-continue` has not been told to continue, so it sends nothing more.
 */
async function discardUnreadBody(request: Request, capBytes: number): Promise<void> {
  const req = request.raw.req;
  if (req.complete || req.destroyed || req.readableEnded) return;
  if (String(request.headers.expect ?? '').toLowerCase() === '100-continue') return;
  const payload = request.payload as unknown;
  const stream = payload instanceof Readable && !payload.readableEnded && !payload.destroyed ? payload : req;
  await new Promise<void>((resolve) => {
    let bytes = 0;
    const finish = (): void => {
      clearTimeout(timer);
      req.off('data', count);
      resolve();
    };
    const count = (chunk: Buffer): void => {
      bytes += chunk.length;
      if (bytes > capBytes) finish();
    };
    const timer = setTimeout(finish, DISCARD_WAIT_MS);
    req.on('data', count);
    req.once('end', finish);
    req.once('close', finish);
    stream.on('error', finish);
    stream.resume();
  });
}

export class SundialServer {
  readonly hapi: Hapi.Server;
  readonly #ctx: ServerContext;
  #phase: Phase = 'starting';
  #services: Services | undefined;
  /** Responses of the requests that arrived before the shutdown began, until each is sent. */
  readonly #inFlight = new Set<object>();
  readonly #cors: Cors;

  /** `metrics`: what /metrics serves (node/serve.ts); default a registry of its own (the warm-up's scratch server). */
  constructor(
    config: ServerSettings,
    logger: Logger,
    version: string,
    metrics = new ServerMetrics({ processMetrics: false }),
  ) {
    this.hapi = Hapi.server({
      host: config['server.host'],
      port: config['server.port'],
      // Node's HTTP server with the connection limits (listener.ts), each request with its id (monitoring/request-id.ts).
      listener: withRequestIds(createListener(config, logger)),
      // Every response with a body is compressed when the client asks (CONTRACT.md).
      compression: { minBytes: 1 },
      mime: {
        override: {
          'text/csv': { compressible: true },
          'application/csv': { compressible: true },
          'text/tsv': { compressible: true },
          'text/table': { compressible: true },
          'application/nd-json': { compressible: true },
          'application/x-ndjson': { compressible: true },
          'application/ndjson': { compressible: true },
          'application/vnd.apache.arrow.stream': { compressible: true },
        },
      },
      routes: { response: { emptyStatusCode: 200 } },
      router: { isCaseSensitive: true, stripTrailingSlash: false },
    });
    this.#cors = new Cors(config['server.cors_origins']);
    this.#ctx = {
      config,
      logger,
      version,
      phase: () => this.#phase,
      // While stopping, the requests admitted before the stop still get them: onPreAuth refuses
      // the others.
      services: () => {
        if (this.#services === undefined)
          throw new UserError('unavailable', 'server is starting up', { retryAfterS: 1 });
        return this.#services;
      },
    };
    registerEncoders(this.hapi);
    this.#extensions(metrics);
    registerStateMetrics(metrics, () => (this.#phase === 'ready' ? this.#services : undefined));
    const routes: ServerRoute[] = [
      ...pingRoutes(this.#ctx),
      ...writeRoutes(this.#ctx),
      ...openTsdbRoutes(this.#ctx),
      ...esBulkRoutes(this.#ctx),
      ...esDocRoutes(this.#ctx),
      ...esProbeRoutes(this.#ctx),
      ...lokiRoutes(this.#ctx),
      ...traceRoutes(this.#ctx),
      ...otlpRoutes(this.#ctx),
      ...prometheusRoutes(this.#ctx),
      ...jaegerRoutes(this.#ctx),
      ...sqlRoutes(this.#ctx),
      ...exportRoutes(this.#ctx),
      ...sandboxRoutes(),
      ...influxdbRoutes(this.#ctx),
      ...influxdbQueryRoutes(this.#ctx),
      ...backupRoutes(this.#ctx),
      ...metricsRoutes(metrics, metricsNeedAuth(config['server.metrics_auth'], config['server.host']), () =>
        this.#ctx.services(),
      ),
      fallbackRoute(),
    ];
    this.hapi.route(routes);
    // After the others: a listed path gets its preflight only where the server has a route.
    this.hapi.route(this.#cors.preflightRoutes(this.hapi));
  }

  /** What the routes see: the PostgreSQL port serves from the same services. */
  get context(): ServerContext {
    return this.#ctx;
  }

  get phase(): Phase {
    return this.#phase;
  }

  /** Starts listening (in phase "starting": only ping answers). Returns the base URL. */
  async listen(): Promise<string> {
    await this.hapi.start();
    return `http://${this.hapi.info.host.includes(':') ? `[${this.hapi.info.host}]` : this.hapi.info.host}:${this.hapi.info.port}`;
  }

  /** Makes the services available; the server is ready. */
  ready(services: Services): void {
    this.#services = services;
    this.#phase = 'ready';
  }

  /**
   * Shuts down: while the requests already in flight finish, the listener stays open and every
   * new request is answered 503 (CONTRACT.md: shutting down is 503, as starting up is); then it
   * stops accepting connections and waits for what is left, all within `timeoutMs`.
   */
  async stop(timeoutMs: number): Promise<void> {
    this.#phase = 'stopping';
    const deadline = Date.now() + timeoutMs;
    while (this.#inFlight.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await this.hapi.stop({ timeout: Math.max(0, deadline - Date.now()) });
  }

  #extensions(metrics: ServerMetrics): void {
    const ctx = this.#ctx;

    // Every request in /metrics, once its answer is sent or abandoned (499: the client went away first).
    this.hapi.events.on('response', (request: Request) => {
      const res = request.raw.res;
      const started = requestContextOf(request.raw.req)?.startedMs;
      const seconds = started === undefined ? 0 : (performance.now() - started) / 1000;
      const route = request.route.path === '/{any*}' ? 'unmatched' : request.route.path;
      metrics.request(route, request.method.toUpperCase(), res.headersSent ? res.statusCode : 499, seconds);
    });

    // The requests a shutdown waits for before it closes the listener (stop()), and /metrics'
    // count of requests in flight.
    this.hapi.ext('onRequest', (request: Request, h: ResponseToolkit) => {
      const res = request.raw.res;
      metrics.requestOpened();
      res.once('close', () => metrics.requestClosed());
      if (this.#phase !== 'stopping') {
        this.#inFlight.add(res);
        res.once('close', () => this.#inFlight.delete(res));
      }
      return h.continue;
    });

    // Authenticate before the body is read: an unauthenticated 160 MiB upload costs nothing.
    this.hapi.ext('onPreAuth', async (request: Request, h: ResponseToolkit) => {
      const settings = settingsOf(request);
      // A request whose headers came after the shutdown began is refused; those before it are
      // served whole (and ping says what is going on).
      if (
        this.#phase === 'stopping' &&
        settings.answersWhileStopping !== true &&
        !this.#inFlight.has(request.raw.res)
      ) {
        throw new UserError('unavailable', 'server is shutting down', { retryAfterS: 1 });
      }
      if (settings.auth === false) return h.continue;
      const services = ctx.services();
      request.app.user = await authenticate(
        services.authenticator,
        request.headers.authorization as string | undefined,
      );
      return h.continue;
    });

    this.hapi.ext('onPreResponse', async (request: Request, h: ResponseToolkit) => {
      await discardUnreadBody(request, ctx.config['limits.write_body_bytes']);
      const response = request.response;
      if (!('isBoom' in response) || !response.isBoom) {
        this.#cors.decorate(request, response as ResponseObject);
        return h.continue;
      }
      const err = toUserError(response, ctx.logger, request);
      auditDenied(ctx.logger, request, err);
      if (err.status === 429) metrics.limited(err.reason ?? 'other');
      else if (err.status === 507) metrics.diskFull();
      if (err.status >= 500)
        requestLog(ctx.logger, request).debug(
          { path: request.path, code: err.code, msg: err.message },
          'request failed',
        );
      const style = settingsOf(request).errors;
      const res = errorResponse(h, err, typeof style === 'function' ? style(request) : style);
      this.#cors.decorate(request, res);
      return res;
    });
  }
}
