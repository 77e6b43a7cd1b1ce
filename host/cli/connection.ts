// The server connection of `sundial import` and `sundial export`: the same flags and defaults as
// `sundial sql` (--url or SUNDIAL_URL, -u, -t, -d, the password from SUNDIAL_PASSWORD), and one
// keep-alive HTTP agent whose sockets the concurrent batches share (a new connection per batch
// costs a handshake and a slow-start each: about 10% of the rate at 5000-line batches).

import { Agent, request, type IncomingMessage } from 'node:http';
import { UsageError } from './usage.js';

export const DEFAULT_URL = 'http://127.0.0.1:8902';

/** parseArgs option declarations of the connection flags. */
export const CONNECTION_OPTIONS = {
  url: { type: 'string' },
  user: { type: 'string', short: 'u' },
  tenant: { type: 'string', short: 't' },
  database: { type: 'string', short: 'd' },
} as const;

export interface Connection {
  url: URL;
  tenant: string;
  database: string;
  authorization: string;
  agent: Agent;
}

export function connectionOf(
  values: { url?: string; user?: string; tenant?: string; database?: string },
  env: NodeJS.ProcessEnv,
  sockets: number,
): Connection {
  const url = values.url ?? env.SUNDIAL_URL ?? DEFAULT_URL;
  if (!URL.canParse(url) || !new URL(url).protocol.startsWith('http:'))
    throw new UsageError(`invalid --url '${url}' (want a URL like ${DEFAULT_URL})`);
  const user = values.user ?? 'root';
  return {
    url: new URL(url),
    tenant: values.tenant ?? 'cnosdb',
    database: values.database ?? 'public',
    authorization: 'Basic ' + Buffer.from(`${user}:${env.SUNDIAL_PASSWORD ?? ''}`).toString('base64'),
    agent: new Agent({ keepAlive: true, maxSockets: sockets }),
  };
}

export interface Reply {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A server that could not be reached, or that closed the connection before answering. */
export class NetworkError extends Error {}

/** The URL of `path` with the connection's tenant and database and `params`. */
export function routeUrl(c: Connection, path: string, params: Record<string, string> = {}): URL {
  const u = new URL(path, c.url);
  u.searchParams.set('tenant', c.tenant);
  u.searchParams.set('db', c.database);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u;
}

/** POSTs `body` and reads the whole (small) reply. */
export function post(
  c: Connection,
  url: URL,
  body: Buffer | string,
  headers: Record<string, string> = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent: c.agent,
        headers: { authorization: c.authorization, 'content-length': String(Buffer.byteLength(body)), ...headers },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts).toString('utf8') }),
        );
        res.on('error', (e) => reject(new NetworkError(e.message)));
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) =>
      reject(new NetworkError(`cannot reach ${c.url.origin}: ${e.code ?? e.message}`)),
    );
    req.end(body);
  });
}

/** POSTs a statement and resolves to the streaming response (any status; the caller reads it). */
export function postStream(
  c: Connection,
  url: URL,
  body: string,
  headers: Record<string, string>,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent: c.agent,
        headers: {
          authorization: c.authorization,
          'content-type': 'text/plain; charset=utf-8',
          'content-length': String(Buffer.byteLength(body)),
          ...headers,
        },
      },
      resolve,
    );
    req.on('error', (e: NodeJS.ErrnoException) =>
      reject(new NetworkError(`cannot reach ${c.url.origin}: ${e.code ?? e.message}`)),
    );
    req.end(body);
  });
}

/** The server's message of a failed reply: `x-sundial-error` (writes) or the JSON body's (SQL). */
export function errorOf(r: Reply): { code: string; message: string } {
  const header = r.headers['x-sundial-error'];
  if (typeof header === 'string') return { code: String(r.headers['x-sundial-error-code'] ?? ''), message: header };
  try {
    const b = JSON.parse(r.body) as { error_code?: string; error_message?: string };
    if (b.error_message !== undefined) return { code: b.error_code ?? '', message: b.error_message };
  } catch {
    // not CnosDB's JSON error body: show it as it came
  }
  return { code: '', message: r.body === '' ? `HTTP ${r.status}` : r.body.slice(0, 200) };
}
