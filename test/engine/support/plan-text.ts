// Plans a query on a test database and prints its plan, for comparing plans as text.

import { displayPlan } from '../../../host/engine/plan/plan-display.js';
import { QueryPlanner } from '../../../host/engine/planner/query-planner.js';
import { parseStatement } from '../../../host/engine/sql/parser.js';
import { optimizePlan } from '../../../host/engine/optimizer/index.js';
import { optimize, type OptimizerRule } from '../../../host/engine/optimizer/optimizer-rule.js';
import type { Query } from '../../../host/engine/sql/ast.js';
import { TEST_NOW_NS, type TestDb } from './run-sql.js';

/** The plan of `sql` before optimization. */
export function initialPlan(db: TestDb, sql: string): string {
  const q = parseStatement(sql) as Query;
  const qp = new QueryPlanner({ catalog: db.catalog, tenant: 'cnosdb', database: 'public' });
  return displayPlan(qp.planQuery(q, undefined, new Map()));
}

/** The plan of `sql` after the optimizer. */
export function optimizedPlan(db: TestDb, sql: string): string {
  const q = parseStatement(sql) as Query;
  const qp = new QueryPlanner({ catalog: db.catalog, tenant: 'cnosdb', database: 'public' });
  return displayPlan(optimizePlan(qp.planQuery(q, undefined, new Map()), { nowNs: TEST_NOW_NS }));
}

export const CPU_TABLE = 'CREATE TABLE cpu (usage DOUBLE, count BIGINT, note STRING, TAGS(host, region))';

/** The plan of `sql` after only the given rules (run to a fixpoint), as text. */
export function planWithRules(db: TestDb, sql: string, rules: readonly OptimizerRule[]): string {
  const q = parseStatement(sql) as Query;
  const qp = new QueryPlanner({ catalog: db.catalog, tenant: 'cnosdb', database: 'public' });
  return displayPlan(optimize(qp.planQuery(q, undefined, new Map()), rules, { nowNs: TEST_NOW_NS }));
}
