// The logical plan as indented text, one node per line, children two spaces deeper: the
// `logical_plan` of EXPLAIN and the form planner tests compare. Wording follows DataFusion's
// `display_indent` (`Projection: ...`, `Filter: ...`, `TableScan: t projection=[...]`).

import { exprDisplay } from './expr-display.js';
import type { SortExpr } from './expr.js';
import type { LogicalPlan } from './logical-plan.js';
import { inputsOf } from './logical-plan.js';

function sortText(o: SortExpr): string {
  return `${exprDisplay(o.expr)} ${o.asc ? 'ASC' : 'DESC'} ${o.nullsFirst ? 'NULLS FIRST' : 'NULLS LAST'}`;
}

const JOIN_NAMES = {
  INNER: 'Inner',
  LEFT: 'Left',
  RIGHT: 'Right',
  FULL: 'Full',
  CROSS: 'Cross',
  SEMI: 'LeftSemi',
  ANTI: 'LeftAnti',
} as const;

/** One line describing `p` without its inputs. */
export function nodeText(p: LogicalPlan): string {
  switch (p.kind) {
    case 'scan': {
      let text = `TableScan: ${p.qualifier} projection=[${p.projection.join(', ')}]`;
      if (p.filters.length > 0) text += `, full_filters=[${p.filters.map(exprDisplay).join(', ')}]`;
      if (p.fetch !== undefined) text += `, fetch=${p.fetch}`;
      return text;
    }
    case 'externalScan':
      return `TableScan: ${p.qualifier} projection=[${p.table.columns.map((c) => c.name).join(', ')}]`;
    case 'values':
      return `Values: ${p.rows.map((r) => `(${r.map(exprDisplay).join(', ')})`).join(', ')}`;
    case 'empty':
      return 'EmptyRelation';
    case 'projection':
      return `Projection: ${p.exprs.map(exprDisplay).join(', ')}`;
    case 'filter':
      return `Filter: ${exprDisplay(p.predicate)}`;
    case 'aggregate':
      if (p.groupingSets !== undefined) {
        const sets = p.groupingSets
          .map((set) => `(${set.map((i) => exprDisplay(p.groupBy[i]!)).join(', ')})`)
          .join(', ');
        return `Aggregate: groupBy=[[GROUPING SETS (${sets})]], aggr=[[${p.aggregates.map(exprDisplay).join(', ')}]]`;
      }
      return `Aggregate: groupBy=[[${p.groupBy.map(exprDisplay).join(', ')}]], aggr=[[${p.aggregates.map(exprDisplay).join(', ')}]]`;
    case 'window':
      return `WindowAggr: windowExpr=[[${p.windowExprs.map(exprDisplay).join(', ')}]]`;
    case 'sort':
      return `Sort: ${p.orderBy.map(sortText).join(', ')}${p.fetch === undefined ? '' : `, fetch=${p.fetch}`}`;
    case 'limit':
      return `Limit: skip=${p.skip}, fetch=${p.fetch === undefined ? 'None' : p.fetch}`;
    case 'join': {
      if (p.joinType === 'CROSS' || (p.on.length === 0 && p.filter === undefined && p.joinType === 'INNER'))
        return 'CrossJoin:';
      const keys = p.on.map(([l, r]) => `${exprDisplay(l)} = ${exprDisplay(r)}`).join(', ');
      return `${JOIN_NAMES[p.joinType]} Join: ${keys}${p.filter === undefined ? '' : `${keys ? ' ' : ''}Filter: ${exprDisplay(p.filter)}`}`;
    }
    case 'union':
      return 'Union';
    case 'distinct':
      return 'Distinct:';
    case 'subqueryAlias':
      return `SubqueryAlias: ${p.alias}`;
    case 'timeWindow':
      return `TimeWindow: time=${exprDisplay(p.time)}, window=${p.windowNs}ns, slide=${p.slideNs}ns, origin=${p.originNs}ns`;
    case 'unnestSeries':
      return `UnnestSeries: ${p.input.schema.field(p.column).name}`;
    case 'gapFill': {
      const f = p.schema.fields;
      const fills = p.fills.map((c) => `${c.strategy}(${f[c.source]!.name})`);
      return `GapFill: keys=[${p.keys.map((i) => f[i]!.name).join(', ')}], time=${f[p.time]!.name}, range=[${p.firstNs ?? 'first point'}ns, ${p.lastNs}ns], slide=${p.slideNs}ns${fills.length > 0 ? `, fill=[${fills.join(', ')}]` : ''}`;
    }
  }
}

/** The whole tree, one line per node; no trailing newline. */
export function displayPlan(p: LogicalPlan): string {
  const lines: string[] = [];
  const walk = (node: LogicalPlan, depth: number): void => {
    lines.push(`${'  '.repeat(depth)}${nodeText(node)}`);
    for (const child of inputsOf(node)) walk(child, depth + 1);
  };
  walk(p, 0);
  return lines.join('\n');
}
