// DELETE FROM t [WHERE ...]: rows of the series the tag predicates select, within the time
// bounds. Like CnosDB, a predicate on a field is not supported (storage deletes by series and
// time range, not by value), and neither is a time predicate that is not a range.

import type { ExecContext } from '../exec/exec-plan.js';
import { analyzeScanPredicates, seriesFilter } from '../exec/scan-predicates.js';
import { datafusionNotImplemented, notImplemented } from '../errors.js';
import { columnsOf, transformExpr, visitExpr, type LExpr } from '../plan/expr.js';
import type { BinaryOperator } from '../types/index.js';
import { PlanSchema, type PlanField } from '../plan/plan-schema.js';
import { ExprPlanner } from '../planner/expr-planner.js';
import type { QueryPlanner } from '../planner/query-planner.js';
import type * as ast from '../sql/ast.js';

export async function deleteRows(qp: QueryPlanner, ctx: ExecContext, s: ast.Delete): Promise<void> {
  await prepareDelete(qp, ctx, s)();
}

export interface PrepareDeleteOptions {
  /**
   * Accept operands computed from tags (`t0 || 'x' = 'ax'`), which CnosDB's DELETE refuses but its
   * UPDATE of tags takes in its WHERE; the series filter evaluates them like any tag predicate.
   */
  computedTags?: boolean;
}

/**
 * Plans and checks a DELETE without touching storage; the returned function deletes. UPDATE of
 * tags prepares its DELETE before its first write, so that a DELETE that cannot run never leaves
 * the copied series behind.
 */
export function prepareDelete(
  qp: QueryPlanner,
  ctx: ExecContext,
  s: ast.Delete,
  options: PrepareDeleteOptions = {},
): () => Promise<void> {
  const { database, table } = qp.resolveTable(s.table, 'write');
  const qualifier = s.table.join('.');
  // DataFusion plans DELETE's predicate over the table's unqualified schema ("No field named x.
  // Valid fields are time, t0, ..."); the scan below still reads qualified columns.
  const fields: PlanField[] = table.columns.map((c) => ({
    qualifier: undefined,
    name: c.name,
    type: c.type,
    nullable: true,
  }));
  const filters = [];
  if (s.where !== undefined) {
    const unqualified = new ExprPlanner(qp.scope(new PlanSchema(fields), undefined, new Map(), false)).plan(s.where);
    for (const c of columnsOf(unqualified)) {
      if (table.columns.find((x) => x.name === c.name)?.kind === 'field') {
        throw notImplemented('Filtering on the field column on the tskv table in delete statement');
      }
    }
    if (options.computedTags !== true) checkDeleteOperators(unqualified);
    filters.push(transformExpr(unqualified, (e) => (e.kind === 'column' ? { ...e, qualifier } : e)));
  }
  const preds = analyzeScanPredicates(filters, table, ctx);
  if (preds.empty) return async () => undefined;
  if (preds.residual.length > 0) throw notImplemented('DELETE with a time predicate other than a range');
  const filter = seriesFilter(preds.tagPredicates, table, qualifier, ctx);
  return () =>
    ctx.catalog.delete(database, table.name, {
      ...(filter === undefined ? {} : { seriesFilter: filter }),
      ...(preds.minTime === undefined ? {} : { minTime: preds.minTime }),
      ...(preds.maxTime === undefined ? {} : { maxTime: preds.maxTime }),
    });
}

/**
 * CnosDB turns DELETE's (simplified) predicate into a domain per column: comparisons, IN,
 * BETWEEN and their AND / OR / NOT. An operand computed from a column fails ("operator || in
 * delete statement"); constant arithmetic such as now() - INTERVAL '1 hour' is folded first.
 */
const COMPUTING = new Set<BinaryOperator>(['+', '-', '*', '/', '%', '||', '&', '|', '^', '<<', '>>']);

function checkDeleteOperators(pred: LExpr): void {
  visitExpr(pred, (e) => {
    if (e.kind !== 'binary' || !COMPUTING.has(e.op)) return;
    if (columnsOf(e).length > 0) throw datafusionNotImplemented(`operator ${e.op} in delete statement`);
  });
}
