import { beforeAll, describe, expect, it } from 'vitest';
import { simplifyExpressions } from '../../../host/engine/optimizer/simplify-expressions.js';
import { CPU_TABLE, planWithRules } from '../support/plan-text.js';
import { testDb, type TestDb } from '../support/run-sql.js';

const cases = [
  {
    name: 'folds constants and keeps the select item name',
    sql: 'SELECT 1 + 2, usage FROM cpu WHERE usage > 2 * 3 AND TRUE',
    plan: `Projection: Int64(3) AS Int64(1) + Int64(2), cpu.usage
  Filter: cpu.usage > Float64(6)
    TableScan: cpu projection=[time, host, region, usage, count, note]`,
  },
  {
    name: 'folds now() to the statement time',
    sql: 'SELECT host FROM cpu WHERE time < now()',
    plan: `Projection: cpu.host
  Filter: CAST(cpu.time AS Timestamp(Nanosecond, Some("+00:00"))) < TimestampNanosecond(1704067200000000000, Some("+00:00"))
    TableScan: cpu projection=[time, host, region, usage, count, note]`,
  },
  {
    name: 'leaves an expression that fails to evaluate for run time',
    sql: 'SELECT CASE WHEN count > 0 THEN 1 / 0 ELSE 0 END FROM cpu',
    plan: `Projection: CASE WHEN cpu.count > Int64(0) THEN Int64(1) / Int64(0) ELSE Int64(0) END
  TableScan: cpu projection=[time, host, region, usage, count, note]`,
  },
  {
    name: 'x OR TRUE is TRUE and the filter keeps every row',
    sql: "SELECT host FROM cpu WHERE host = 'a' OR 1 = 1",
    plan: `Projection: cpu.host
  Filter: Boolean(true)
    TableScan: cpu projection=[time, host, region, usage, count, note]`,
  },
];

describe('simplify_expressions', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = testDb();
    await db.run(CPU_TABLE);
  });
  for (const c of cases) it(c.name, () => expect(planWithRules(db, c.sql, [simplifyExpressions])).toBe(c.plan));
});
