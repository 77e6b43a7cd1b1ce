// Runs SQL statements for `sundial sql` (docs/cli.md) against a target: a server over HTTP, each
// statement one POST /api/v1/sql (the route takes one), or a data directory in this process through
// library mode (sql-local.ts). Scripts are split at top-level `;` by the same splitter the
// PostgreSQL port uses for a simple Query; each answer is streamed to `out` as it comes, ending
// with a newline (the text table and JSON arrays come without one, and would run together). A
// script stops at the first statement that fails, as psql -v ON_ERROR_STOP=1 does: its later
// statements usually depend on the earlier ones.

import type { Writable } from 'node:stream';
import { splitStatements } from '../pgwire/index.js';

/** Output formats and the media type each is asked for with (the route's Accept negotiation). */
export const SQL_FORMATS = {
  table: 'text/table',
  csv: 'text/csv',
  tsv: 'text/tsv',
  json: 'application/json',
  ndjson: 'application/x-ndjson',
} as const;
export type SqlFormat = keyof typeof SQL_FORMATS;

/** Where and how a statement runs; the shell changes it with \c, \tenant and \format. */
export interface SqlSession {
  tenant: string;
  database: string;
  format: SqlFormat;
}

/** A statement the server refused, a server that could not be reached, or a statement cancelled. */
export class SqlClientError extends Error {}

/** The server could not be reached: about no statement in particular. */
export class UnreachableError extends SqlClientError {}

/** What runs statements: a server (HttpSqlTarget) or a data directory in this process (LocalSqlTarget). */
export interface SqlTarget {
  /**
   * Runs one statement in `session`, writing its answer to `out`; rejects with SqlClientError
   * when it is refused, and when `signal` aborts it (the server stops it too).
   */
  run(sql: string, session: SqlSession, out: Writable, signal?: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

/** The statements of a script, without empty ones. */
export function statementsOf(script: string): string[] {
  return splitStatements(script).map((s) => s.text.trim());
}

/** Writes `chunk` to `out`, waiting for it to drain when its buffer is full. */
async function writeTo(out: Writable, chunk: Uint8Array | string): Promise<void> {
  if (!out.write(chunk)) await new Promise((resolve) => out.once('drain', resolve));
}

/** Copies an answer's bytes to `out`, ending with a newline. */
export async function copyAnswer(chunks: AsyncIterable<Uint8Array>, out: Writable): Promise<void> {
  let last = 0x0a;
  for await (const chunk of chunks) {
    if (chunk.length === 0) continue;
    last = chunk[chunk.length - 1]!;
    await writeTo(out, chunk);
  }
  if (last !== 0x0a) await writeTo(out, '\n');
}

/** A server at `url` (e.g. http://127.0.0.1:8902), as `user` with `password`. */
export class HttpSqlTarget implements SqlTarget {
  readonly url: string;
  readonly #authorization: string;

  constructor(url: string, user: string, password: string) {
    this.url = url;
    this.#authorization = 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');
  }

  async #post(sql: string, session: SqlSession, signal?: AbortSignal): Promise<Response> {
    const url = new URL('/api/v1/sql', this.url);
    url.searchParams.set('tenant', session.tenant);
    url.searchParams.set('db', session.database);
    const headers = {
      authorization: this.#authorization,
      accept: SQL_FORMATS[session.format],
      'content-type': 'text/plain; charset=utf-8',
    };
    try {
      return await fetch(url, { method: 'POST', headers, body: sql, ...(signal === undefined ? {} : { signal }) });
    } catch (e) {
      if (signal?.aborted === true) throw new SqlClientError('canceled');
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new UnreachableError(`cannot reach ${this.url}: ${cause?.code ?? cause?.message ?? (e as Error).message}`);
    }
  }

  /**
   * Whether the credentials are good: an empty statement, which the route authenticates and runs
   * nothing for. Resolves false on 401; rejects when the server cannot be reached.
   */
  async authenticates(session: SqlSession): Promise<boolean> {
    const res = await this.#post('', session);
    await res.arrayBuffer();
    return res.status !== 401;
  }

  async run(sql: string, session: SqlSession, out: Writable, signal?: AbortSignal): Promise<void> {
    const res = await this.#post(sql, session, signal);
    if (!res.ok) throw new SqlClientError(`${res.status} ${errorText(await res.text())}`);
    if (res.body === null) return;
    try {
      await copyAnswer(res.body as AsyncIterable<Uint8Array>, out);
    } catch (e) {
      if (signal?.aborted === true) throw new SqlClientError('canceled');
      throw e;
    }
  }

  async close(): Promise<void> {}
}

/** CnosDB's JSON error body as `code message`; any other body as it came. */
function errorText(text: string): string {
  try {
    const body = JSON.parse(text) as { error_code?: string; error_message?: string };
    if (body.error_message !== undefined) return `${body.error_code ?? ''} ${body.error_message}`.trim();
  } catch {
    // not CnosDB's JSON error body: show it as it came
  }
  return text;
}

/** Runs `statements` in order, writing each answer to `out`; throws SqlClientError at the first failure. */
export async function runSql(
  statements: readonly string[],
  target: SqlTarget,
  session: SqlSession,
  out: Writable,
): Promise<void> {
  for (const [i, sql] of statements.entries()) {
    try {
      await target.run(sql, session, out);
    } catch (e) {
      if (!(e instanceof SqlClientError) || e instanceof UnreachableError || statements.length === 1) throw e;
      throw new SqlClientError(`statement ${i + 1} of ${statements.length}: ${e.message}`);
    }
  }
}
