// The query engine as the HTTP route sees it: SQL text and a session in, a result out. The
// engine parses, plans and executes; the route negotiates the format, streams the batches and
// maps errors (core/errors.ts UserError) to statuses.

import type { RecordBatch, Schema } from './types/index.js';
import type { MemoryPool } from './memory/index.js';
import type { Statement } from './sql/ast.js';
import type { SystemInfo } from './system/system-info.js';

/** The statements on tenants, users, roles and privileges, which the host runs (QuerySession.dcl). */
export type DclStatement = Extract<
  Statement,
  {
    kind:
      | 'createTenant'
      | 'alterTenant'
      | 'dropTenant'
      | 'recoverTenant'
      | 'createUser'
      | 'alterUser'
      | 'dropUser'
      | 'createRole'
      | 'dropRole'
      | 'grant'
      | 'revoke';
  }
>;

const DCL_KINDS: ReadonlySet<string> = new Set([
  'createTenant',
  'alterTenant',
  'dropTenant',
  'recoverTenant',
  'createUser',
  'alterUser',
  'dropUser',
  'createRole',
  'dropRole',
  'grant',
  'revoke',
]);

export function isDcl(s: Statement): s is DclStatement {
  return DCL_KINDS.has(s.kind);
}

/** Who runs a statement, where, and under which limits. */
/** QuerySession.authorize's database for "every database of the tenant" (core/object-names.ts). */
export { ALL_DATABASES } from '../core/object-names.js';

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
   * all: DDL), or on every database of the tenant (ALL_DATABASES: SHOW DATABASES, CREATE
   * DATABASE), and throws the UserError to report otherwise. Absent: everything is allowed.
   */
  authorize?: (database: string, need: 'read' | 'write' | 'all') => void;
  /** The user's role in the tenant (current_role()); absent: none. */
  role?: string;
  /** `@@name` variables by lower-case name (server_version, ...): strings, or bigints (UInt64). */
  variables?: Readonly<Record<string, string | bigint>>;
  /**
   * Runs a DCL statement (tenants, users, members, roles, grants): the host checks the
   * privilege, changes its catalog durably, and throws the UserError to report. Absent: such
   * statements are 010005 not implemented.
   */
  dcl?: (statement: DclStatement) => Promise<void>;
  /** The host's members, roles, queries, users and tenants for the system views (system/system-info.ts). */
  system?: SystemInfo;
  /** A stream query's run (commands/stream-table.ts): the event times its stream tables read. */
  streamRange?: { fromNs: bigint | null; toNs: bigint };
}

export type QueryResult =
  /**
   * A result set: its schema is known before the first batch is pulled. `memory` is the
   * statement's pool: a host that holds formatted bytes of the answer charges them there.
   */
  | { kind: 'rows'; schema: Schema; batches: AsyncIterable<RecordBatch>; memory: MemoryPool }
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
