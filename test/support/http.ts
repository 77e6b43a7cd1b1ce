// A raw HTTP client for tests: exact statuses, headers and body bytes, no automatic
// decompression (fetch would undo Content-Encoding and hide what the server sent).

import { request as httpRequest } from 'node:http';

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
}

export interface HttpOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Basic credentials; `null` sends none. Default root with an empty password. */
  auth?: { user: string; password: string } | null;
}

export function basic(user: string, password: string): string {
  return 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');
}

export function http(baseUrl: string, path: string, options: HttpOptions = {}): Promise<HttpResponse> {
  const url = new URL(path, baseUrl);
  const headers: Record<string, string> = { ...options.headers };
  const auth = options.auth === undefined ? { user: 'root', password: '' } : options.auth;
  if (auth !== null && headers.authorization === undefined) headers.authorization = basic(auth.user, auth.password);
  const body = typeof options.body === 'string' ? Buffer.from(options.body) : options.body;
  if (body !== undefined) headers['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: options.method ?? (body === undefined ? 'GET' : 'POST'), headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const b = Buffer.concat(chunks);
          resolve({ status: res.statusCode!, headers: res.headers, body: b, text: b.toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** POST a line-protocol body to /api/v1/write. */
export function writeLp(
  baseUrl: string,
  body: string | Uint8Array,
  query = '',
  options: HttpOptions = {},
): Promise<HttpResponse> {
  return http(baseUrl, `/api/v1/write${query ? '?' + query : ''}`, { ...options, method: 'POST', body });
}
