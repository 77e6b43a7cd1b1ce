// The slow-query log (`log.slow_query`, docs/monitoring.md): one line per SQL statement that ran
// longer than the setting, from its admission to the last byte of its answer, with its text
// (passwords masked), user, tenant, database, rows and time. Written when the statement ends, by
// every front end (HTTP SQL, InfluxQL, PostgreSQL) through statement.ts.

import type { Logger } from 'pino';
import { maskSecrets, type RunningQuery } from '../query-registry.js';

/** Longer statements are cut here in the log line (`statementChars` says how long it was): an INSERT of a million values is not logged whole. */
export const SLOW_QUERY_TEXT_CHARS = 4096;

export class SlowQueryLog {
  readonly #thresholdMs: number;
  readonly #logger: Logger;

  /** `thresholdMs` 0: off. */
  constructor(thresholdMs: number, logger: Logger) {
    this.#thresholdMs = thresholdMs;
    this.#logger = logger;
  }

  /** A statement ended at `nowMs` (the registry's clock); logs it if it was slow. */
  finished(query: RunningQuery, nowMs: number): void {
    const durationMs = nowMs - query.startedMs;
    if (this.#thresholdMs === 0 || durationMs < this.#thresholdMs) return;
    const text = maskSecrets(query.text);
    this.#logger.info(
      {
        statement: text.length > SLOW_QUERY_TEXT_CHARS ? `${text.slice(0, SLOW_QUERY_TEXT_CHARS)}...` : text,
        statementChars: text.length,
        user: query.user.name,
        tenant: query.tenant.name,
        database: query.database,
        rows: query.rows ?? null,
        durationMs,
        peakMemoryBytes: query.memory?.peakBytes ?? null,
        reqId: query.requestId,
      },
      'slow query',
    );
  }
}
