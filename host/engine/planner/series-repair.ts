// Planning of CnosDB's data-repair functions (timestamp_repair, value_fill, value_repair): each is
// an aggregate whose result is a whole series, shown as rows of two columns, `time` and the
// call. The call must be a select item of its own (one per query); after the aggregate an
// UnnestSeries node turns its struct of lists into those rows, and the item becomes the two
// columns.

import { planError } from '../errors.js';
import { exprName } from '../plan/expr-display.js';
import type { LExpr } from '../plan/expr.js';
import { unnestSeries, type LogicalPlan } from '../plan/logical-plan.js';
import { SERIES_REPAIR_FUNCTIONS } from '../functions/data-repair-aggregates.js';

interface Item {
  expr: LExpr;
  alias: string | undefined;
}

const isRepair = (e: LExpr): boolean => e.kind === 'aggregate' && SERIES_REPAIR_FUNCTIONS.has(e.fn.name);

/**
 * The position of the select item that is a data-repair call, or undefined when there is none;
 * `aggregates` are all the query's aggregate calls (a repair call among them that is no item of
 * its own is refused, as is a second one).
 */
export function findRepairItem(items: readonly Item[], aggregates: readonly LExpr[]): number | undefined {
  const calls = aggregates.filter(isRepair);
  if (calls.length === 0) return undefined;
  const at = items.flatMap((it, k) => (isRepair(it.expr) ? [k] : []));
  if (calls.length > 1 || at.length !== 1) {
    throw planError(
      `${calls.map(exprName).join(', ')}: a data repair function must be a select item of its own, one per query`,
    );
  }
  return at[0];
}

/**
 * Unnests the repaired series of item `k` (already rebased onto `pre`, the aggregate's output):
 * the item becomes its value column, preceded by a new `time` item. Returns the new input.
 */
export function unnestRepairItem(pre: LogicalPlan, items: Item[], k: number): LogicalPlan {
  const col = items[k]!.expr;
  if (col.kind !== 'column') throw planError(`${exprName(col)} must be a select item of its own`);
  const index = pre.schema.find(col.qualifier, col.name);
  const node = unnestSeries(pre, index);
  const time = node.schema.field(index);
  const value = node.schema.field(index + 1);
  items.splice(
    k,
    1,
    { expr: { kind: 'column', qualifier: time.qualifier, name: time.name, type: time.type }, alias: undefined },
    {
      expr: { kind: 'column', qualifier: value.qualifier, name: value.name, type: value.type },
      alias: items[k]!.alias,
    },
  );
  return node;
}
