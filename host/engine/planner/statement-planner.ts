// What planning a FROM clause (from-planner.ts) or a SELECT block (select-planner.ts) asks of the
// statement's planner. QueryPlanner (query-planner.ts) implements it and calls those files, which
// see it only through this interface, so that the three do not import each other in a circle.

import type { LogicalPlan } from '../plan/logical-plan.js';
import type { PlanSchema } from '../plan/plan-schema.js';
import type * as ast from '../sql/ast.js';
import type { StatementErrors } from './deferred-errors.js';
import type { Scope } from './expr-planner.js';

/** The common table expressions in scope (WITH), by name. */
export type Ctes = ReadonlyMap<string, LogicalPlan>;

export interface StatementPlanner {
  /** A scope over `schema` whose subqueries this planner plans. */
  scope(schema: PlanSchema, outer: Scope | undefined, ctes: Ctes, allowAggregates: boolean): Scope;
  /** A full scan of a table (or a system view) under its qualifier. */
  scan(name: readonly string[], alias: string | undefined): LogicalPlan;
  /** Plans a query nested in the statement (a derived table, a subquery). */
  planQuery(q: ast.Query, outer: Scope | undefined, parentCtes: Ctes): LogicalPlan;
  /** The statement's type errors that are reported only once its plan is built. */
  readonly lateErrors: StatementErrors;
}
