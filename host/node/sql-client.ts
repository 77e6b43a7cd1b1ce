// Runs SQL statements against a Sundial server over HTTP for `sundial sql -e/-f` (docs/cli.md):
// each statement one POST /api/v1/sql (the route takes one), split at top-level `;` by the same
// splitter the PostgreSQL port uses for a simple Query; each answer streamed to `out` as it comes,
// ending with a newline (the text table and JSON arrays come without one, and would run together).
// Stops at the first statement that fails, as psql -v ON_ERROR_STOP=1 does: a script's later
// statements usually depend on the earlier ones.

import type { Writable } from 'node:stream';
import { splitStatements } from '../pgwire/index.js';

/** Output formats and the media type each is asked for with (the route's Accept negotiation). */
export const SQL_FORMATS = { table: 'text/table', csv: 'text/csv', tsv: 'text/tsv', json: 'application/json', ndjson: 'application/x-ndjson' } as const;
export type SqlFormat = keyof typeof SQL_FORMATS;

export interface SqlClientOptions {
  /** The server's base URL, e.g. http://127.0.0.1:8902. */
  url: string;
  user: string;
  password: string;
  tenant: string;
  database: string;
  format: SqlFormat;
}

/** A statement the server refused, or a server that could not be reached. */
export class SqlClientError extends Error {}

/** The statements of a script, without empty ones. */
export function statementsOf(script: string): string[] {
  return splitStatements(script).map((s) => s.text.trim());
}

/** Runs `statements` in order, writing each answer to `out`; throws SqlClientError at the first failure. */
export async function runSql(statements: readonly string[], o: SqlClientOptions, out: Writable): Promise<void> {
  const url = new URL('/api/v1/sql', o.url);
  url.searchParams.set('tenant', o.tenant);
  url.searchParams.set('db', o.database);
  const headers = {
    authorization: 'Basic ' + Buffer.from(`${o.user}:${o.password}`).toString('base64'),
    accept: SQL_FORMATS[o.format],
    'content-type': 'text/plain; charset=utf-8',
  };
  for (const [i, sql] of statements.entries()) {
    let res: Response;
    try {
      res = await fetch(url, { method: 'POST', headers, body: sql });
    } catch (e) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new SqlClientError(`cannot reach ${o.url}: ${cause?.code ?? cause?.message ?? (e as Error).message}`);
    }
    if (!res.ok) {
      const text = await res.text();
      let message = text;
      try {
        const body = JSON.parse(text) as { error_code?: string; error_message?: string };
        if (body.error_message !== undefined) message = `${body.error_code ?? ''} ${body.error_message}`.trim();
      } catch {
        // not CnosDB's JSON error body: show it as it came
      }
      const which = statements.length > 1 ? `statement ${i + 1} of ${statements.length}: ` : '';
      throw new SqlClientError(`${which}${res.status} ${message}`);
    }
    if (res.body === null) continue;
    let last = 0x0a;
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      if (chunk.length === 0) continue;
      last = chunk[chunk.length - 1]!;
      if (!out.write(chunk)) await new Promise((resolve) => out.once('drain', resolve));
    }
    if (last !== 0x0a) out.write('\n');
  }
}
