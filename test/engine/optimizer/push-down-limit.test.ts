import { beforeAll, describe, expect, it } from 'vitest';
import { pushDownLimit } from '../../../host/engine/optimizer/push-down-limit.js';
import { CPU_TABLE, planWithRules } from '../support/plan-text.js';
import { testDb, type TestDb } from '../support/run-sql.js';

const cases = [
  {
    name: 'ORDER BY ... LIMIT with OFFSET becomes a top-k of skip + fetch',
    sql: 'SELECT host FROM cpu ORDER BY usage LIMIT 3 OFFSET 2',
    plan: `Limit: skip=2, fetch=3
  Projection: cpu.host
    Sort: cpu.usage ASC NULLS LAST, fetch=5
      Projection: cpu.host, cpu.usage
        TableScan: cpu projection=[time, host, region, usage, count, note]`,
  },
  {
    name: 'a plain LIMIT reaches the scan',
    sql: 'SELECT host FROM cpu LIMIT 4',
    plan: `Limit: skip=0, fetch=4
  Projection: cpu.host
    TableScan: cpu projection=[time, host, region, usage, count, note], fetch=4`,
  },
  {
    name: 'not through an aggregate',
    sql: 'SELECT host, count(*) FROM cpu GROUP BY host LIMIT 1',
    plan: `Limit: skip=0, fetch=1
  Projection: cpu.host, COUNT(UInt8(1))
    Aggregate: groupBy=[[cpu.host]], aggr=[[COUNT(UInt8(1))]]
      TableScan: cpu projection=[time, host, region, usage, count, note]`,
  },
];

describe('push_down_limit', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = testDb();
    await db.run(CPU_TABLE);
  });
  for (const c of cases) it(c.name, () => expect(planWithRules(db, c.sql, [pushDownLimit])).toBe(c.plan));
});
