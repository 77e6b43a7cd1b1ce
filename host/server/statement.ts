// One SQL statement's admission and session, shared by every front end that runs SQL (the HTTP
// route `/api/v1/sql`, the PostgreSQL port): the concurrent-query budget and the tenant's limits
// (429 / 030024), the query registry (SHOW QUERIES), the query timeout (010010), and the
// QuerySession with every privilege checked through meta/access.ts. The caller aborts `abort` on its
// own events (a client that goes away, a cancel request) and calls `done` exactly once.

import { UserError } from '../core/errors.js';
import type { QuerySession } from '../engine/query.js';
import { parseStatements } from '../engine/sql/parser.js';
import { requirePasswordChanged, requirePrivilege, roleIn, type TenantDef, type UserDef } from '../meta/index.js';
import type { ServerSettings } from './context.js';
import type { RunningQuery } from './query-registry.js';
import type { Services } from './services.js';
import { NODE_ID as USAGE_NODE_ID } from './usage-metrics.js';

/** CnosDB's `@@` variables that are not per-statement: node and cluster of a single server. */
const CLUSTER_NAME = 'sundial';
const DEPLOYMENT_MODE = 'singleton';
const NODE_ID = BigInt(USAGE_NODE_ID);

/** A user who must change the password may run only `ALTER USER <self> SET PASSWORD = ...`. */
export function requireOnlyPasswordChange(sql: string, user: UserDef): void {
  const statements = parseStatements(sql);
  const s = statements[0];
  if (
    statements.length === 1 &&
    s?.kind === 'alterUser' &&
    s.name === user.name &&
    s.action.kind === 'set' &&
    s.action.option.name.toLowerCase() === 'password'
  )
    return;
  requirePasswordChanged(user);
}

/** What a front end tells about the statement it starts. */
export interface StatementStart {
  user: UserDef;
  tenant: TenantDef;
  database: string;
  sql: string;
  /** The usage counters' `api` label: 'api/v1/sql', 'pg'. */
  api: string;
  /** Bytes the statement arrived in (the usage counters' bytes in). */
  bytesIn: number;
}

export interface RunningStatement {
  session: QuerySession;
  /** Abort it with the UserError the statement must fail with; the timeout aborts with 010010. */
  abort: AbortController;
  query: RunningQuery;
  /** Releases the budgets and the registry entry and counts the bytes sent; later calls do nothing. */
  done(bytesOut: number): void;
}

/**
 * Admits one statement: throws 429 (030024) past the concurrent-query budget or the tenant's
 * limits, else registers it and arms the query timeout. Membership and a pending password change
 * are the caller's to check first (requireMembership, requireOnlyPasswordChange).
 */
export function startStatement(
  config: ServerSettings,
  version: string,
  s: Services,
  start: StatementStart,
): RunningStatement {
  const { user, tenant: t, database, sql } = start;
  const release = s.queries.acquire(1);
  let releaseTenant: () => void;
  try {
    releaseTenant = s.tenantLimits.admitQuery(t);
  } catch (e) {
    release();
    throw e;
  }
  const running = s.runningQueries.register({
    text: sql,
    user: { id: user.id, name: user.name },
    tenant: { id: t.id, name: t.name },
    database,
  });
  const abort = new AbortController();
  const timer = setTimeout(
    () => abort.abort(new UserError('queryTimeout', 'query timeout')),
    config['limits.query_timeout'],
  );
  // The timeout alone keeps no process alive: a library-mode program (node/library.ts) that stops
  // pulling a result without return() would otherwise wait out limits.query_timeout at exit.
  timer.unref();
  let finished = false;
  const session: QuerySession = {
    tenant: t.name,
    database,
    user: { name: user.name, admin: user.admin },
    signal: abort.signal,
    memoryLimitBytes: config['limits.query_memory_bytes'],
    nowNs: BigInt(Math.trunc(s.nowMs())) * 1_000_000n,
    authorize: (db, need) => requirePrivilege(user, t, db, need),
    // CnosDB answers NULL for root, whose rights are an admin's, not a role's. (Not a
    // conditional spread: that gave every session a hidden class of its own, core/scan.ts.)
    role: user.admin ? undefined : roleIn(user, t),
    variables: {
      server_version: version,
      cluster_name: CLUSTER_NAME,
      deployment_mode: DEPLOYMENT_MODE,
      node_id: NODE_ID,
    },
    dcl: (statement) => s.sql.dcl(user, t, statement),
    system: s.sql.system(user, t),
  };
  return {
    session,
    abort,
    query: running.query,
    done: (bytesOut) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      release();
      releaseTenant();
      running.done();
      const endMs = s.nowMs();
      s.slowQueries.finished(running.query, endMs);
      s.metrics.queryFinished((endMs - running.query.startedMs) / 1000, running.query.memory?.peakBytes);
      s.tenantLimits.chargeDataOut(t, bytesOut);
      s.usage.query({ api: start.api, tenant: t.name, database, user: user.name }, start.bytesIn, bytesOut);
    },
  };
}
