import { beforeAll, describe, expect, it } from 'vitest';
import { pushDownFilter } from '../../../host/engine/optimizer/push-down-filter.js';
import { CPU_TABLE, planWithRules } from '../support/plan-text.js';
import { testDb, type TestDb } from '../support/run-sql.js';

const cases = [
  {
    name: 'through a projection, replacing aliases by what they name',
    sql: "SELECT * FROM (SELECT host AS h, usage * 2 AS u FROM cpu) WHERE h = 'a' AND u > 1",
    plan: `Projection: h, u
  Projection: cpu.host AS h, cpu.usage * CAST(Int64(2) AS Float64) AS u
    TableScan: cpu projection=[time, host, region, usage, count, note], full_filters=[cpu.host = Utf8("a"), cpu.usage * CAST(Int64(2) AS Float64) > CAST(Int64(1) AS Float64)]`,
  },
  {
    name: 'into each input of a union',
    sql: "SELECT * FROM (SELECT host FROM cpu UNION ALL SELECT host FROM mem) WHERE host = 'x'",
    plan: `Projection: host
  Union
    Projection: cpu.host
      TableScan: cpu projection=[time, host, region, usage, count, note], full_filters=[cpu.host = Utf8("x")]
    Projection: mem.host
      TableScan: mem projection=[time, host, used], full_filters=[mem.host = Utf8("x")]`,
  },
  {
    name: 'not below a LIMIT',
    sql: "SELECT * FROM (SELECT host FROM cpu LIMIT 5) WHERE host = 'x'",
    plan: `Projection: cpu.host
  Filter: cpu.host = Utf8("x")
    Limit: skip=0, fetch=5
      Projection: cpu.host
        TableScan: cpu projection=[time, host, region, usage, count, note]`,
  },
  {
    name: 'only the left side of a LEFT JOIN',
    sql: 'SELECT cpu.host FROM cpu LEFT JOIN mem ON cpu.host = mem.host WHERE cpu.usage > 1 AND mem.used > 2',
    plan: `Projection: cpu.host
  Filter: mem.used > Int64(2)
    Left Join: cpu.host = mem.host
      TableScan: cpu projection=[time, host, region, usage, count, note], full_filters=[cpu.usage > CAST(Int64(1) AS Float64)]
      TableScan: mem projection=[time, host, used]`,
  },
  {
    name: 'nothing for a constant TRUE: the filter goes away',
    sql: 'SELECT host FROM cpu WHERE TRUE',
    plan: `Projection: cpu.host
  TableScan: cpu projection=[time, host, region, usage, count, note]`,
  },
];

describe('push_down_filter', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = testDb();
    await db.run(CPU_TABLE);
    await db.run('CREATE TABLE mem (used BIGINT, TAGS(host))');
  });
  for (const c of cases) it(`pushes ${c.name}`, () => expect(planWithRules(db, c.sql, [pushDownFilter])).toBe(c.plan));
});
