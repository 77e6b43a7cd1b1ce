// The Node HTTP server under hapi, made here for what hapi does not set: how long a client may
// take to send a request's headers (`server.headers_timeout`; Node's 60 s default was enforced
// only by a check every 30 s, so a thousand slowloris connections stayed open for 75 s and more,
// issue 24) and how many connections may be open at once (`server.max_connections`: past it a
// new connection is closed as soon as it is accepted, while the open ones carry on).

import { createServer, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { ServerSettings } from './context.js';

/** The longest wait between two checks of the open connections' deadlines. */
const MAX_CHECK_INTERVAL_MS = 1_000;
/** At most one log line about refused connections per this many milliseconds. */
const DROP_LOG_INTERVAL_MS = 10_000;

/** Whether `host` is a loopback address: only processes of this machine can connect. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export function createListener(config: ServerSettings, logger: Logger): Server {
  const headersTimeoutMs = config['server.headers_timeout'];
  const listener = createServer({
    headersTimeout: headersTimeoutMs,
    // Node's whole-request limit (300 s) stays; it must not be shorter than the headers' limit.
    requestTimeout: Math.max(300_000, headersTimeoutMs),
    // A deadline is enforced when the periodic check sees it passed: check often enough that a
    // connection lives at most a quarter longer than its limit (and at least every second).
    connectionsCheckingInterval: Math.max(50, Math.min(MAX_CHECK_INTERVAL_MS, Math.floor(headersTimeoutMs / 4))),
  });
  // A client too slow with its request gets Node's own answer, 408: hapi's clientError handler
  // (registered after this one) answers 400 to every client error, this one included, unless the
  // socket is already gone, which it is after this (Node writes its 408 and destroys the same way).
  listener.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code !== 'ERR_HTTP_REQUEST_TIMEOUT' || !socket.writable) return;
    socket.write('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    socket.destroy();
  });
  const max = config['server.max_connections'];
  if (max > 0) listener.maxConnections = max;
  let dropped = 0;
  let loggedAt = -Infinity;
  listener.on('drop', () => {
    dropped++;
    const now = Date.now();
    if (now - loggedAt < DROP_LOG_INTERVAL_MS) return;
    logger.warn({ maxConnections: max, dropped }, 'closed new connections: server.max_connections are open');
    loggedAt = now;
    dropped = 0;
  });
  return listener;
}
