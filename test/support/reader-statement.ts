// Statements sent by a read-only member while a parallel ping checks that the server still
// answers (issue 24: one statement from one reader ended or froze the server for everyone).

import { expect } from 'vitest';
import { http, type HttpResponse } from './http.js';

export const READER = { user: 'reader', password: 'reader-password' } as const;

/** Creates the `reader` user, a member (Read, nothing more) of tenant cnosdb. */
export async function createReader(url: string): Promise<void> {
  for (const sql of [
    `CREATE USER ${READER.user} WITH PASSWORD = '${READER.password}'`,
    `ALTER TENANT cnosdb ADD USER ${READER.user} AS member`,
  ]) {
    const r = await http(url, '/api/v1/sql', { method: 'POST', body: sql });
    expect(r.status, r.text).toBe(200);
  }
}

/** Rejects when `p` has not settled after `ms` (a frozen server answers nothing). */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Sends `sql` as the reader and, right behind it, a ping; the ping must answer 200 within
 * `boundMs` (generous: the point is that it answers at all, not how fast), and so must the
 * statement. Returns the statement's response.
 */
export async function readerStatementWithPing(url: string, sql: string, boundMs = 30_000): Promise<HttpResponse> {
  const statement = within(
    http(url, '/api/v1/sql', { method: 'POST', body: sql, auth: READER }),
    boundMs,
    'the statement',
  );
  // Settle the statement's rejection too, so that a failed ping reports first.
  statement.catch(() => undefined);
  const ping = await within(http(url, '/api/v1/ping', { auth: null }), boundMs, 'ping sent while the statement ran');
  expect(ping.status).toBe(200);
  return statement;
}

/** The error body of a JSON error response. */
export function errorOf(r: HttpResponse): { error_code: string; error_message: string } {
  return JSON.parse(r.text) as { error_code: string; error_message: string };
}
