// Which error a failing scan filter reports. CnosDB pushes the conjuncts of a WHERE that read only
// fields and time into its storage scan (TskvExec evaluates them before DataFusion's FilterExec
// sees a row), so a value that fails there arrives wrapped as "Coordinator: TskvError: Arrow:
// Cast error: ..."; conjuncts that read a tag stay in the FilterExec and fail unwrapped (CnosDB's
// sqlancer cases show both). This engine evaluates every residual conjunct in one pass, so only
// on failure does it work out which group failed first: no cost while nothing fails.

import { UserError } from '../../core/errors.js';
import type { RecordBatch } from '../types/index.js';
import type { TableInfo } from '../catalog.js';
import { columnsOf, conjunction, type LExpr } from '../plan/expr.js';
import type { PlanSchema } from '../plan/plan-schema.js';
import { compileExpr } from './evaluate.js';
import type { ExecContext } from './exec-plan.js';

/** The residual conjuncts CnosDB would evaluate in storage: those reading no tag. */
export function storageConjuncts(residual: readonly LExpr[], table: TableInfo): LExpr[] {
  const kind = new Map(table.columns.map((c) => [c.name, c.kind]));
  return residual.filter((r) => columnsOf(r).every((c) => kind.get(c.name) !== 'tag'));
}

/**
 * Rethrows `error`, the failure of the whole residual predicate on `probe`, as CnosDB would
 * report it: when the storage conjuncts alone fail on the same rows, their error with the
 * storage layer's prefix; otherwise `error` itself.
 */
export async function rethrowScanFilterError(
  error: unknown,
  storage: readonly LExpr[],
  schema: PlanSchema,
  probe: RecordBatch,
  ctx: ExecContext,
): Promise<never> {
  const pred = conjunction(storage);
  if (!(error instanceof UserError) || pred === undefined) throw error;
  const compiled = compileExpr(pred, schema, ctx);
  try {
    if (compiled.needsPrepare) await compiled.prepare(probe);
    compiled.evaluate(probe);
  } catch (inner) {
    if (inner instanceof UserError)
      throw new UserError(inner.kind, `Coordinator: TskvError: ${inner.message}`, { cause: inner });
    throw inner;
  }
  throw error;
}
