// Projection pushdown (DataFusion's OptimizeProjections, the part that matters here): works out
// which columns each node's parents read and narrows table scans to them, so a query reading
// one field of a ten-field table decodes one field. Columns a scan's own predicates need are the
// scan's business (it reads them and drops them after filtering).

import type { LExpr } from '../plan/expr.js';
import { columnsRead, type LogicalPlan } from '../plan/logical-plan.js';
import { PlanSchema } from '../plan/plan-schema.js';
import type { OptimizerRule, RuleResult } from './optimizer-rule.js';

type Required = Set<string>;

function key(qualifier: string | undefined, name: string): string {
  return `${qualifier ?? ''}|${name}`;
}

/** Adds the columns `exprs` read, their subqueries' outer references included (columnsRead). */
function addColumns(req: Required, exprs: readonly LExpr[]): Required {
  for (const e of exprs) for (const c of columnsRead(e)) req.add(key(c.qualifier, c.name));
  return req;
}

/** Every field of a schema as required. */
function all(schema: PlanSchema): Required {
  return new Set(schema.fields.map((f) => key(f.qualifier, f.name)));
}

function prune(plan: LogicalPlan, req: Required): LogicalPlan {
  switch (plan.kind) {
    case 'scan': {
      const projection = plan.table.columns.filter((c) => req.has(key(plan.qualifier, c.name))).map((c) => c.name);
      if (projection.length === plan.projection.length) return plan;
      const fields = projection.map((n) => plan.schema.field(plan.schema.resolve(plan.qualifier, n)));
      return { ...plan, projection, schema: new PlanSchema(fields) };
    }
    case 'projection': {
      const input = prune(plan.input, addColumns(new Set(), plan.exprs));
      // A projection that passes its input's columns through unchanged goes (as in DataFusion).
      const identity =
        plan.exprs.length === input.schema.length &&
        plan.exprs.every((e, i) => {
          const f = input.schema.field(i);
          return e.kind === 'column' && e.name === f.name && (e.qualifier ?? '') === (f.qualifier ?? '');
        });
      return identity ? input : { ...plan, input };
    }
    case 'filter': {
      const input = prune(plan.input, addColumns(new Set(req), [plan.predicate]));
      return { ...plan, input, schema: input.schema };
    }
    case 'aggregate':
      return { ...plan, input: prune(plan.input, addColumns(new Set(), [...plan.groupBy, ...plan.aggregates])) };
    case 'window': {
      const r = new Set(req);
      addColumns(r, plan.windowExprs);
      // The window's input columns pass through; keep those required above.
      const input = prune(plan.input, r);
      return {
        ...plan,
        input,
        schema: new PlanSchema([...input.schema.fields, ...plan.schema.fields.slice(plan.input.schema.length)]),
      };
    }
    case 'sort': {
      const input = prune(
        plan.input,
        addColumns(
          new Set(req),
          plan.orderBy.map((o) => o.expr),
        ),
      );
      return { ...plan, input, schema: input.schema };
    }
    case 'limit': {
      const input = prune(plan.input, req);
      return { ...plan, input, schema: input.schema };
    }
    case 'join': {
      const r = addColumns(new Set(req), [...plan.on.flat(), ...(plan.filter ? [plan.filter] : [])]);
      const left = prune(plan.left, r);
      const right =
        plan.joinType === 'SEMI' || plan.joinType === 'ANTI'
          ? prune(
              plan.right,
              addColumns(
                new Set(),
                plan.on.map(([, x]) => x),
              ),
            )
          : prune(plan.right, r);
      const fields =
        plan.joinType === 'SEMI' || plan.joinType === 'ANTI'
          ? left.schema.fields
          : [...left.schema.fields, ...right.schema.fields];
      const nullable = (f: (typeof fields)[number], side: 'l' | 'r'): typeof f => {
        const outer = plan.joinType === 'FULL' || (side === 'l' ? plan.joinType === 'RIGHT' : plan.joinType === 'LEFT');
        return outer ? { ...f, nullable: true } : f;
      };
      return {
        ...plan,
        left,
        right,
        schema: new PlanSchema(
          plan.joinType === 'SEMI' || plan.joinType === 'ANTI'
            ? left.schema.fields
            : [...left.schema.fields.map((f) => nullable(f, 'l')), ...right.schema.fields.map((f) => nullable(f, 'r'))],
        ),
      };
    }
    case 'subqueryAlias': {
      // Map the alias' required fields to the input's by position; keep the input's shape.
      return { ...plan, input: prune(plan.input, all(plan.input.schema)) };
    }
    case 'union':
      return { ...plan, inputs: plan.inputs.map((i) => prune(i, all(i.schema))) };
    case 'distinct':
      return { ...plan, input: prune(plan.input, all(plan.input.schema)) };
    case 'timeWindow': {
      const input = prune(plan.input, addColumns(new Set(req), [plan.time]));
      return {
        ...plan,
        input,
        schema: new PlanSchema([...input.schema.fields, plan.schema.field(plan.schema.length - 1)]),
      };
    }
    case 'unnestSeries':
    case 'gapFill':
      // Positions index the aggregate's output: keep it whole.
      return { ...plan, input: prune(plan.input, all(plan.input.schema)) };
    case 'externalScan':
    case 'values':
    case 'empty':
      return plan;
  }
}

export const pushDownProjection: OptimizerRule = {
  name: 'push_down_projection',
  rewrite(plan: LogicalPlan): RuleResult {
    const out = prune(plan, all(plan.schema));
    const changed = scanShapes(out) !== scanShapes(plan);
    return { plan: changed ? out : plan, changed };
  },
};

function scanShapes(p: LogicalPlan): string {
  const parts: string[] = [];
  const walk = (n: LogicalPlan): void => {
    if (n.kind === 'scan') parts.push(`${n.qualifier}[${n.projection.join(',')}]`);
    for (const k of n.kind === 'join'
      ? [n.left, n.right]
      : n.kind === 'union'
        ? n.inputs
        : 'input' in n
          ? [n.input]
          : [])
      walk(k);
  };
  walk(p);
  return parts.join(';');
}
