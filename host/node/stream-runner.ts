// The timer of the continuous stream queries (engine/commands/stream-table.ts): every second, one
// turn of every tenant's queries, one turn at a time, each in a session of the database and user
// that registered it, with the tenant's full rights (only owners and admins register them). A
// failing query is logged and tried again at the next turn; stopping waits for the running turn.

import type { Logger } from 'pino';
import { PlanCache } from '../engine/plan-cache.js';
import type { SqlServices } from '../server/index.js';
import type { Storage } from '../storage/index.js';

/** How often the stream queries look for closed windows. */
export const STREAM_TURN_MS = 1000;

export function startStreamRunner(
  storage: Storage,
  sql: SqlServices,
  logger: Logger,
  memoryLimitBytes: number,
): () => Promise<void> {
  const stop = new AbortController();
  const planCache = new PlanCache();
  const engine = sql.engine(planCache);
  let running: Promise<void> | undefined;
  const turn = async (): Promise<void> => {
    for (const tenant of [...storage.catalog.tenants.keys()]) {
      if (stop.signal.aborted) return;
      await engine.runStreams(
        tenant,
        (database, user) => ({
          tenant,
          database,
          user: { name: user, admin: true },
          signal: stop.signal,
          memoryLimitBytes,
          nowNs: BigInt(Date.now()) * 1_000_000n,
        }),
        (stream, queryId, err) =>
          logger.warn({ err, stream, queryId }, 'stream query failed; trying again at the next turn'),
      );
    }
  };
  const timer = setInterval(() => {
    // A turn longer than the period makes the next one wait for the tick after it ends.
    if (running !== undefined) return;
    running = turn()
      .catch((err: unknown) => logger.warn({ err }, 'stream queries turn failed'))
      .finally(() => (running = undefined));
  }, STREAM_TURN_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    stop.abort(new Error('server stopping'));
    await running;
  };
}
