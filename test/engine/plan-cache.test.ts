// The plan cache (host/engine/plan-cache.ts): a SELECT text is planned once per catalog version,
// tenant, database and user; its privilege checks run on every reuse; plans that fold the clock
// or embed system view rows are planned every time. The catalog here keeps its version still
// while its schema changes underneath, which a real catalog never does, to see which runs reused
// a plan.

import { describe, expect, it } from 'vitest';
import { UserError } from '../../host/core/errors.js';
import { PlanCache, readsClock } from '../../host/engine/plan-cache.js';
import type { LogicalPlan } from '../../host/engine/plan/logical-plan.js';
import { QueryPlanner } from '../../host/engine/planner/query-planner.js';
import { parseStatements } from '../../host/engine/sql/parser.js';
import { testDb, TEST_NOW_NS } from './support/run-sql.js';

async function cachedDb(): Promise<{ db: ReturnType<typeof testDb>; cache: PlanCache }> {
  const cache = new PlanCache(4);
  const db = testDb({}, cache);
  await db.exec(`CREATE TABLE m (v BIGINT, TAGS(h));
INSERT INTO m (time, h, v) VALUES (1, 'a', 10), (2, 'b', 20)`);
  db.catalog.version = 1;
  return { db, cache };
}

describe('PlanCache', () => {
  it('keeps the most recently used plans up to its capacity', () => {
    const cache = new PlanCache(2);
    const plan = { kind: 'empty' } as unknown as LogicalPlan;
    cache.set('a', { plan, checks: [], version: 1 });
    cache.set('b', { plan, checks: [], version: 1 });
    expect(cache.get('a', 1)).toBeDefined();
    cache.set('c', { plan, checks: [], version: 1 });
    expect(cache.get('b', 1)).toBeUndefined();
    expect(cache.get('a', 1)).toBeDefined();
    expect(cache.get('c', 1)).toBeDefined();
  });

  it('drops a plan built under another catalog version', () => {
    const cache = new PlanCache();
    const plan = { kind: 'empty' } as unknown as LogicalPlan;
    cache.set('a', { plan, checks: [], version: 1 });
    expect(cache.get('a', 2)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keys a text by tenant, database and user, and not at all past 8 KiB', () => {
    const k = PlanCache.key('SELECT 1', 't', 'db', 'u');
    expect(k).not.toBe(PlanCache.key('SELECT 1', 't', 'db', 'v'));
    expect(k).not.toBe(PlanCache.key('SELECT 1', 't', 'other', 'u'));
    expect(k).not.toBe(PlanCache.key('SELECT 1', 'x', 'db', 'u'));
    expect(PlanCache.key(`SELECT '${'x'.repeat(8200)}'`, 't', 'db', 'u')).toBeUndefined();
  });
});

describe('the engine with a plan cache', () => {
  it('reuses a plan while the catalog version stays, and plans again once it moves', async () => {
    const { db, cache } = await cachedDb();
    expect((await db.run('SELECT * FROM m ORDER BY time')).columns).toEqual(['time', 'h', 'v']);
    expect(cache.size).toBe(1);
    await db.run('ALTER TABLE m ADD FIELD w DOUBLE');
    // The version did not move: the plan from before the new column is reused.
    expect((await db.run('SELECT * FROM m ORDER BY time')).columns).toEqual(['time', 'h', 'v']);
    db.catalog.version = 2;
    expect((await db.run('SELECT * FROM m ORDER BY time')).columns).toEqual(['time', 'h', 'v', 'w']);
  });

  it('makes the privilege checks again on every reuse', async () => {
    const { db } = await cachedDb();
    let allowed = true;
    const seen: string[] = [];
    const authorize = (database: string, need: string): void => {
      seen.push(`${need} ${database}`);
      if (!allowed)
        throw new UserError('privilege', `Insufficient privileges, expected [read on database ${database}]`);
    };
    expect((await db.run('SELECT v FROM m ORDER BY v', { authorize })).rows).toEqual(['10', '20']);
    allowed = false;
    await expect(db.run('SELECT v FROM m ORDER BY v', { authorize })).rejects.toThrow(
      'Insufficient privileges, expected [read on database public]',
    );
    expect(seen).toEqual(['read public', 'read public']);
  });

  it('plans a statement that folds the clock every time', async () => {
    const { db, cache } = await cachedDb();
    const sql = 'SELECT count(*) FROM m WHERE time < now()';
    expect((await db.run('SELECT CAST(now() AS BIGINT)')).rows).toEqual([String(TEST_NOW_NS)]);
    expect((await db.run('SELECT CAST(now() AS BIGINT)', { nowNs: 5n })).rows).toEqual(['5']);
    expect((await db.run(sql, { nowNs: 2n })).rows).toEqual(['1']);
    expect((await db.run(sql, { nowNs: 3n })).rows).toEqual(['2']);
    expect(
      (await db.run('SELECT v FROM m WHERE v IN (SELECT v FROM m WHERE time < now())', { nowNs: 2n })).rows,
    ).toEqual(['10']);
    expect(
      (await db.run('SELECT v FROM m WHERE v IN (SELECT v FROM m WHERE time < now()) ORDER BY v', { nowNs: 3n })).rows,
    ).toEqual(['10', '20']);
    expect(cache.size).toBe(0);
  });

  it('plans a query of a system view every time', async () => {
    const { db, cache } = await cachedDb();
    const sql = "SELECT table_name FROM information_schema.tables WHERE table_database = 'public' ORDER BY table_name";
    expect((await db.run(sql)).rows).toEqual(['m']);
    await db.run('CREATE TABLE n (v BIGINT, TAGS(h))');
    expect((await db.run(sql)).rows).toEqual(['m', 'n']);
    expect(cache.size).toBe(0);
  });

  it('keeps nothing for a statement that failed to plan', async () => {
    const { db, cache } = await cachedDb();
    await expect(db.run('SELECT nope FROM m')).rejects.toThrow();
    expect(cache.size).toBe(0);
  });
});

describe('readsClock', () => {
  it('finds now(), current_date and current_time anywhere in a plan, subqueries included', async () => {
    const { db } = await cachedDb();
    const planner = new QueryPlanner({ catalog: db.catalog, tenant: 'cnosdb', database: 'public' });
    const plan = (sql: string): LogicalPlan => {
      const s = parseStatements(sql)[0]!;
      if (s.kind !== 'query') throw new Error('not a query');
      return planner.planQuery(s, undefined, new Map());
    };
    expect(readsClock(plan('SELECT v FROM m'))).toBe(false);
    expect(readsClock(plan('SELECT v FROM m WHERE time < now()'))).toBe(true);
    expect(readsClock(plan('SELECT current_date()'))).toBe(true);
    expect(readsClock(plan('SELECT current_time()'))).toBe(true);
    expect(
      readsClock(
        plan('SELECT h, max(v) FROM m GROUP BY h HAVING max(v) > (SELECT count(*) FROM m WHERE time < now())'),
      ),
    ).toBe(true);
    expect(readsClock(plan('SELECT * FROM (SELECT v, now() AS t FROM m) x'))).toBe(true);
    expect(readsClock(plan('SELECT v FROM m WHERE EXISTS (SELECT 1 FROM m WHERE time > now())'))).toBe(true);
  });
});
