// FROM: tables (CTE names first, then `[db.]table` in the catalog), derived tables, nested
// joins, and JOIN ... ON / USING. An ON condition is split into equi-join keys (one side from
// each input) and a residual filter, which is what the hash join needs.

import { UserError } from '../../core/errors.js';
import { notImplemented, planError } from '../errors.js';
import type { LExpr } from '../plan/expr.js';
import { columnsOf, conjunction, splitConjunction } from '../plan/expr.js';
import type { JoinType, LogicalPlan } from '../plan/logical-plan.js';
import { join, projection, subqueryAlias } from '../plan/logical-plan.js';
import type { PlanSchema, PlanField } from '../plan/plan-schema.js';
import type * as ast from '../sql/ast.js';
import { ExprPlanner, type Scope } from './expr-planner.js';
import type { Ctes, StatementPlanner } from './statement-planner.js';

/** Renames the columns of a plan (`AS t (a, b)`, `WITH t (a, b) AS`). */
export function renameColumns(plan: LogicalPlan, names: readonly string[], what: string): LogicalPlan {
  if (names.length === 0) return plan;
  if (names.length > plan.schema.length) {
    throw planError(
      `Source table contains ${plan.schema.length} columns but only ${names.length} names given as column alias for ${what}`,
    );
  }
  const exprs: LExpr[] = plan.schema.fields.map((f, i) => {
    const c: LExpr = { kind: 'column', qualifier: f.qualifier, name: f.name, type: f.type };
    return i < names.length ? { kind: 'alias', expr: c, name: names[i]!, type: f.type } : c;
  });
  return projection(plan, exprs);
}

export function planFrom(
  qp: StatementPlanner,
  from: readonly ast.TableWithJoins[],
  outer: Scope | undefined,
  ctes: Ctes,
): LogicalPlan {
  let plan: LogicalPlan | undefined;
  for (const item of from) {
    const p = planTableWithJoins(qp, item, outer, ctes);
    plan = plan === undefined ? p : join(plan, p, 'CROSS', [], undefined);
  }
  return plan!;
}

function planTableWithJoins(
  qp: StatementPlanner,
  t: ast.TableWithJoins,
  outer: Scope | undefined,
  ctes: Ctes,
): LogicalPlan {
  let plan = planTableFactor(qp, t.relation, outer, ctes);
  for (const j of t.joins) plan = planJoin(qp, plan, j, outer, ctes);
  return plan;
}

function planTableFactor(qp: StatementPlanner, f: ast.TableFactor, outer: Scope | undefined, ctes: Ctes): LogicalPlan {
  switch (f.kind) {
    case 'table': {
      if (f.args !== undefined) throw notImplemented(`table function ${f.name.join('.')}`);
      const cte = f.name.length === 1 ? ctes.get(f.name[0]!) : undefined;
      let plan: LogicalPlan;
      if (cte !== undefined) plan = subqueryAlias(cte, f.alias?.name ?? f.name[0]!);
      else {
        plan = qp.scan(f.name, f.alias?.name);
      }
      return f.alias === undefined ? plan : renameColumns(plan, f.alias.columns, f.alias.name);
    }
    case 'derived': {
      const inner = qp.planQuery(f.query, undefined, ctes);
      if (f.alias === undefined) return inner;
      return subqueryAlias(renameColumns(inner, f.alias.columns, f.alias.name), f.alias.name);
    }
    case 'nestedJoin': {
      const inner = planTableWithJoins(qp, f.join, outer, ctes);
      return f.alias === undefined ? inner : subqueryAlias(inner, f.alias.name);
    }
  }
}

function sideOf(e: LExpr, left: PlanSchema, right: PlanSchema): 'left' | 'right' | 'both' | 'none' {
  let l = false;
  let r = false;
  for (const c of columnsOf(e)) {
    if (left.find(c.qualifier, c.name) >= 0) l = true;
    else if (right.find(c.qualifier, c.name) >= 0) r = true;
  }
  return l && r ? 'both' : l ? 'left' : r ? 'right' : 'none';
}

/** Splits a join condition into equi-join keys and the rest. */
export function splitJoinCondition(
  cond: LExpr,
  left: PlanSchema,
  right: PlanSchema,
): { keys: [LExpr, LExpr][]; rest: LExpr | undefined } {
  const keys: [LExpr, LExpr][] = [];
  const rest: LExpr[] = [];
  for (const c of splitConjunction(cond)) {
    if (c.kind === 'binary' && c.op === '=') {
      const ls = sideOf(c.left, left, right);
      const rs = sideOf(c.right, left, right);
      if (ls === 'left' && rs === 'right') {
        keys.push([c.left, c.right]);
        continue;
      }
      if (ls === 'right' && rs === 'left') {
        keys.push([c.right, c.left]);
        continue;
      }
    }
    rest.push(c);
  }
  return { keys, rest: conjunction(rest) };
}

function planJoin(
  qp: StatementPlanner,
  left: LogicalPlan,
  j: ast.Join,
  outer: Scope | undefined,
  ctes: Ctes,
): LogicalPlan {
  const right = planTableFactor(qp, j.relation, outer, ctes);
  const type: JoinType = j.type;
  if (type === 'CROSS' || (j.on === undefined && j.using === undefined)) {
    if (type !== 'CROSS' && type !== 'INNER') throw planError(`${type} JOIN needs an ON or USING condition`);
    return join(left, right, 'CROSS', [], undefined);
  }
  if (j.using !== undefined) {
    const pairs: [number, number][] = [];
    const keys: [LExpr, LExpr][] = j.using.map((name) => {
      const li = left.schema.resolve(undefined, name);
      const ri = right.schema.resolve(undefined, name);
      pairs.push([li, ri]);
      const col = (f: PlanField): LExpr => ({ kind: 'column', qualifier: f.qualifier, name: f.name, type: f.type });
      const lf = left.schema.field(li);
      const rf = right.schema.field(ri);
      const eq = new ExprPlanner(qp.scope(left.schema.concat(right.schema), outer, ctes, false)).binary(
        '=',
        col(lf),
        col(rf),
      );
      if (eq.kind !== 'binary') throw new UserError('sqlPlan', 'BUG: USING key is not a comparison');
      return [eq.left, eq.right];
    });
    return join(left, right, type, keys, undefined, pairs);
  }
  const combined = left.schema.concat(right.schema);
  const cond = new ExprPlanner(qp.scope(combined, outer, ctes, false)).plan(j.on!);
  if (cond.type.id !== 'Boolean' && cond.type.id !== 'Null')
    throw planError(`Join condition must be boolean, got ${cond.type.id}`);
  const { keys, rest } = splitJoinCondition(cond, left.schema, right.schema);
  return join(left, right, type, keys, rest);
}
