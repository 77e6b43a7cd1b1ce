// The statements running now, for SHOW QUERIES and information_schema.queries (CnosDB's
// QueryTracker). The SQL route registers each request before it runs and removes it when its
// response has been sent or has failed; the registry only holds what is running.

import type { QueryInfo } from '../engine/system/system-info.js';

/** What the route knows of a statement when it registers it. */
export interface QueryStart {
  text: string;
  user: { id: number; name: string };
  tenant: { id: number; name: string };
  database: string;
}

export interface RunningQuery extends QueryStart {
  readonly id: string;
  readonly startedMs: number;
  /** CnosDB's QueryState names: ACCEPTING until the engine has it, then SCHEDULING. */
  state: string;
  /** Rows of its answer so far, once it has one (monitoring/result-tracking.ts); for the slow-query log. */
  rows: number | undefined;
  /** The HTTP request's id (monitoring/request-id.ts), for the slow-query log; none on the PostgreSQL port. */
  requestId: string | undefined;
  /** Its memory pool, once the engine made it (/metrics: sundial_queries_memory_bytes). */
  memory: { readonly usedBytes: number; readonly peakBytes: number } | undefined;
}

/**
 * Passwords in DCL text (`PASSWORD = '...'`) and the secrets of a CONNECTION or OPTIONS list
 * (`secret_key = '...'`, `token = '...'`) are masked before anyone can list them: when they
 * are listed, not when registered (the case-insensitive scan cost 25 µs a statement, a fiftieth
 * of a short query, for the rare listing).
 */
const PASSWORD = /((?:password|secret_key|\btoken)\s*=?\s*)'(?:[^']|'')*'/gi;

export function maskSecrets(sql: string): string {
  return sql.replace(PASSWORD, "$1'*****'");
}

export class QueryRegistry {
  readonly #running = new Map<string, RunningQuery>();
  readonly #nowMs: () => number;
  #next = 1;

  constructor(nowMs: () => number) {
    this.#nowMs = nowMs;
  }

  /** Registers a statement; call `done` exactly when it is over (success or failure). */
  register(start: QueryStart): { query: RunningQuery; done: () => void } {
    // Written out, not spread: see scanRequest in core/scan.ts (a hidden class per query otherwise).
    const query: RunningQuery = {
      text: start.text,
      user: start.user,
      tenant: start.tenant,
      database: start.database,
      id: String(this.#next++),
      startedMs: this.#nowMs(),
      state: 'ACCEPTING',
      rows: undefined,
      memory: undefined,
      requestId: undefined,
    };
    this.#running.set(query.id, query);
    return { query, done: () => void this.#running.delete(query.id) };
  }

  /** The running statements that `visible` lets through, oldest first. */
  list(visible: (q: RunningQuery) => boolean): QueryInfo[] {
    const now = this.#nowMs();
    const out: QueryInfo[] = [];
    for (const q of this.#running.values()) {
      if (!visible(q)) continue;
      out.push({
        id: q.id,
        type: 'batch',
        text: maskSecrets(q.text),
        userId: String(q.user.id),
        user: q.user.name,
        tenantId: String(q.tenant.id),
        tenant: q.tenant.name,
        database: q.database,
        state: q.state,
        durationS: Math.max(0, now - q.startedMs) / 1000,
        processedCount: 0,
        errorCount: 0,
      });
    }
    return out;
  }

  get size(): number {
    return this.#running.size;
  }

  /** Bytes the running statements' memory pools hold now. */
  get memoryBytes(): number {
    let n = 0;
    for (const q of this.#running.values()) n += q.memory?.usedBytes ?? 0;
    return n;
  }
}
