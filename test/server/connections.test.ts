// Idle and slow connections (issue 24 "Smaller": a thousand slowloris connections stayed open for
// 75 s and more): a connection that does not send its request head within
// `server.headers_timeout` is answered 408 and closed; past `server.max_connections` a new
// connection is closed at once while the requests of the open ones finish.

import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, http } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

interface RawConnection {
  socket: Socket;
  /** Everything the server sent. */
  received(): string;
  /** Resolves once the server has closed the connection (or it failed), with what it sent. */
  closed: Promise<string>;
}

function open(url: string): Promise<RawConnection> {
  const { port, hostname } = new URL(url);
  return new Promise((resolve, reject) => {
    let got = '';
    const socket = connect(Number(port), hostname);
    const closed = new Promise<string>((done) => socket.once('close', () => done(got)));
    socket.on('data', (d: Buffer) => (got += d.toString('latin1')));
    socket.on('error', () => undefined); // a reset is a close here
    socket.once('connect', () => resolve({ socket, received: () => got, closed }));
    socket.once('error', reject);
  });
}

/** Resolves with `p`'s value, or rejects after `ms`: a bound on something that must happen, not a timing. */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    p,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms)),
  ]);
}

describe('server.headers_timeout', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ inProcess: true, args: ['--headers-timeout', '1s'] });
  });
  afterAll(async () => {
    await server.stop();
    server.cleanup();
  });

  it('answers 408 and closes a connection that sends its headers too slowly', async () => {
    const c = await open(server.url);
    c.socket.write('GET /api/v1/ping HTTP/1.1\r\nHost: x\r\n');
    let n = 0;
    // One header line every 200 ms, forever: the request head never completes in time.
    const drip = setInterval(() => c.socket.writable && c.socket.write(`X-Slow-${n++}: y\r\n`), 200);
    try {
      const got = await within(c.closed, 20_000, 'closing the slow connection');
      expect(got).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(n).toBeGreaterThan(2);
    } finally {
      clearInterval(drip);
    }
  });

  it('answers 408 and closes a connection that sends nothing', async () => {
    const c = await open(server.url);
    expect(await within(c.closed, 20_000, 'closing the silent connection')).toMatch(
      /^HTTP\/1\.1 408 Request Timeout\r\n/,
    );
  });

  it('leaves a request that sent its headers in time to finish its body', async () => {
    const c = await open(server.url);
    const body = 'm v=1 1\n';
    c.socket.write(
      `POST /api/v1/write?db=public HTTP/1.1\r\nHost: x\r\nAuthorization: ${basic('root', '')}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    );
    // Past the headers' limit before the body comes: the body is not bound by it.
    await new Promise((r) => setTimeout(r, 1_500));
    c.socket.write(body);
    expect(await within(c.closed, 20_000, 'the write answering')).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
  });
});

describe('server.max_connections', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ inProcess: true, args: ['--max-connections', '4', '--headers-timeout', '60s'] });
  });
  afterAll(async () => {
    await server.stop();
    server.cleanup();
  });

  it('closes new connections past the cap at once, while the open ones finish their requests', async () => {
    // One request under way (headers sent, body not yet) and three idle connections: four open.
    const writer = await open(server.url);
    const body = 'capped v=1 1\n';
    writer.socket.write(
      `POST /api/v1/write?db=public HTTP/1.1\r\nHost: x\r\nAuthorization: ${basic('root', '')}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    );
    const idle = [await open(server.url), await open(server.url), await open(server.url)];
    // The fifth is accepted by the kernel and closed by the server without an answer.
    const fifth = await open(server.url);
    expect(await within(fifth.closed, 20_000, 'closing the fifth connection')).toBe('');
    await expect(http(server.url, '/api/v1/ping', { auth: null })).rejects.toThrow(/ECONNRESET|socket hang up/);
    await server.waitForLog(
      (l) => l.msg === 'closed new connections: server.max_connections are open' && l.maxConnections === 4,
    );
    // The request under way still finishes.
    writer.socket.write(body);
    expect(await within(writer.closed, 20_000, 'the write answering')).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    // Once connections close, new ones are taken again.
    for (const c of idle) c.socket.destroy();
    await within(
      (async () => {
        for (;;) {
          const r = await http(server.url, '/api/v1/ping', { auth: null }).catch(() => undefined);
          if (r?.status === 200) return;
          await new Promise((done) => setTimeout(done, 50));
        }
      })(),
      20_000,
      'a new connection being served',
    );
    expect(
      (await http(server.url, '/api/v1/sql?db=public', { method: 'POST', body: 'SELECT v FROM capped' })).text,
    ).toBe('v\n1.0\n');
  });
});
