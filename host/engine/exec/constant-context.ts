// An execution context for evaluating constant expressions outside a running query (constant
// folding in the optimizer): no catalog, no subqueries, no memory to reserve.

import { bug } from '../../core/errors.js';
import type { EngineCatalog } from '../catalog.js';
import type { QuerySession } from '../query.js';
import { MemoryPool, type ExecContext } from './exec-plan.js';

export function constantContext(nowNs: bigint): ExecContext {
  const none = (): never => {
    throw bug('constant evaluation reached the catalog or a subquery');
  };
  return {
    catalog: new Proxy({}, { get: none }) as EngineCatalog,
    session: new Proxy({}, { get: none }) as QuerySession,
    memory: new MemoryPool(Number.MAX_SAFE_INTEGER),
    eval: { nowNs },
    outer: undefined,
    runSubquery: none,
    core: undefined,
    checkAbort: () => undefined,
    maybeYield: async () => undefined,
  };
}
