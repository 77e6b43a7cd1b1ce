// An execution context for evaluating constant expressions outside a running query (constant
// folding in the optimizer): no catalog, no subqueries, no memory to reserve; the values a
// function builds are checked against the query's memory limit all the same.

import { bug } from '../../core/errors.js';
import type { EngineCatalog } from '../catalog.js';
import type { QuerySession } from '../query.js';
import type { ExecContext } from './exec-plan.js';
import { MemoryPool } from '../memory/index.js';

export function constantContext(nowNs: bigint, memoryLimitBytes = Number.MAX_SAFE_INTEGER): ExecContext {
  const none = (): never => {
    throw bug('constant evaluation reached the catalog or a subquery');
  };
  const memory = new MemoryPool(memoryLimitBytes);
  return {
    catalog: new Proxy({}, { get: none }) as EngineCatalog,
    session: new Proxy({}, { get: none }) as QuerySession,
    memory,
    eval: { nowNs, memory },
    outer: undefined,
    runSubquery: none,
    core: undefined,
    checkAbort: () => undefined,
    maybeYield: async () => undefined,
  };
}
