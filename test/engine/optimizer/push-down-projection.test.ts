import { beforeAll, describe, expect, it } from 'vitest';
import { pushDownProjection } from '../../../host/engine/optimizer/push-down-projection.js';
import { CPU_TABLE, planWithRules } from '../support/plan-text.js';
import { testDb, type TestDb } from '../support/run-sql.js';

const cases = [
  {
    name: 'reads only selected and filtered columns',
    sql: 'SELECT host FROM cpu WHERE usage > 1',
    plan: `Projection: cpu.host
  Filter: cpu.usage > CAST(Int64(1) AS Float64)
    TableScan: cpu projection=[host, usage]`,
  },
  {
    name: 'reads no column for count(*)',
    sql: 'SELECT count(*) FROM cpu',
    plan: `Aggregate: groupBy=[[]], aggr=[[COUNT(UInt8(1))]]
  TableScan: cpu projection=[]`,
  },
  {
    name: 'reads the join keys of both sides',
    sql: 'SELECT mem.used FROM cpu JOIN mem ON cpu.time = mem.time',
    plan: `Projection: mem.used
  Inner Join: cpu.time = mem.time
    TableScan: cpu projection=[time]
    TableScan: mem projection=[time, used]`,
  },
];

describe('push_down_projection', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = testDb();
    await db.run(CPU_TABLE);
    await db.run('CREATE TABLE mem (used BIGINT, TAGS(host))');
  });
  for (const c of cases) it(c.name, () => expect(planWithRules(db, c.sql, [pushDownProjection])).toBe(c.plan));
});
