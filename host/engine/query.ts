// The query engine as the HTTP route sees it: SQL text and a session in, a result out. The
// engine parses, plans and executes; the route negotiates the format, streams the batches and
// maps errors (core/errors.ts UserError) to statuses.

import type { RecordBatch, Schema } from './batch.js';

/** Who runs a statement, where, and under which limits. */
export interface QuerySession {
  tenant: string;
  /** The database unqualified names resolve in (`db` parameter, default `public`). */
  database: string;
  user: { name: string; admin: boolean };
  /**
   * Aborted on query timeout or when the client goes away; the engine checks it between
   * batches and then throws `signal.reason` (a UserError chosen by the caller).
   */
  signal: AbortSignal;
  /** Bytes the query may hold at once (sort buffers, hash tables); past it UserError queryMemory. */
  memoryLimitBytes: number;
  /** The statement's `now()`, nanoseconds since the epoch, fixed for the whole statement. */
  nowNs: bigint;
  /**
   * Checks that the user may act on a database (read: SELECT, SHOW; write: INSERT, DELETE;
   * all: DDL) and throws the UserError to report otherwise. Absent: everything is allowed.
   */
  authorize?: (database: string, need: 'read' | 'write' | 'all') => void;
}

export type QueryResult =
  /** A result set: its schema is known before the first batch is pulled. */
  | { kind: 'rows'; schema: Schema; batches: AsyncIterable<RecordBatch> }
  /** A statement without a result set (DDL, DCL, DELETE): 200 with an empty body. */
  | { kind: 'done' };

export interface QueryEngine {
  /**
   * Runs one statement (a trailing `;` is fine; several are UserError multiStatement; an empty
   * text is `{ kind: 'done' }`). Planning errors reject the promise; execution errors travel
   * through the batch iterator. Work starts at the first pull (STYLE.md §26).
   */
  run(sql: string, session: QuerySession): Promise<QueryResult>;
}
