// What a front end tells the query registry about a statement's result as it streams: its memory
// pool (for /metrics) and the rows it has produced (for the slow-query log).

import type { RecordBatch } from '../../engine/types/index.js';
import type { QueryResult } from '../../engine/query.js';
import type { RunningQuery } from '../query-registry.js';

/** The result's batches, counted into `query.rows` as they are pulled; `query.memory` is its pool. */
export function trackResult(
  query: RunningQuery,
  result: Extract<QueryResult, { kind: 'rows' }>,
): AsyncIterator<RecordBatch> {
  query.memory = result.memory;
  query.rows = 0;
  const it = result.batches[Symbol.asyncIterator]();
  return {
    next: async () => {
      const r = await it.next();
      if (r.done !== true) query.rows! += r.value.length;
      return r;
    },
    return: async (value?: unknown) => (it.return === undefined ? { done: true, value: undefined } : it.return(value)),
  };
}
