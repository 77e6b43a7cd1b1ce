// The engine as the route uses it: statements in and out, the memory limit, the abort signal
// (query timeout, client gone), lazy execution and streaming in batches.

import { describe, expect, it } from 'vitest';
import { UserError } from '../../host/core/errors.js';
import { testDb } from './support/run-sql.js';

async function filled(rows: number) {
  const db = testDb();
  await db.run('CREATE TABLE t (v BIGINT, s STRING, TAGS(g))');
  const values = Array.from({ length: rows }, (_, i) => `(${i}, 'g${i % 7}', ${(i * 7919) % 1000}, 'text ${i}')`);
  await db.run(`INSERT INTO t (time, g, v, s) VALUES ${values.join(', ')}`);
  return db;
}

describe('SqlEngine', () => {
  it('answers an empty text with no result and several statements with 010013', async () => {
    const db = testDb();
    expect(await db.engine.run('  ;; ', db.session())).toEqual({ kind: 'done' });
    await expect(db.engine.run('SELECT 1; SELECT 2', db.session())).rejects.toMatchObject({
      kind: 'multiStatement',
      message: 'Multi-statement not allow, found num:2, sql:SELECT 1; SELECT 2',
    });
  });

  it('knows the result schema before the first batch and does no work until pulled', async () => {
    const db = await filled(50);
    db.catalog.scans.length = 0;
    const r = await db.engine.run('SELECT g, v FROM t', db.session());
    expect(r.kind).toBe('rows');
    if (r.kind !== 'rows') return;
    expect(r.schema.fields.map((f) => f.name)).toEqual(['g', 'v']);
    expect(db.catalog.scans).toHaveLength(0);
    let n = 0;
    for await (const b of r.batches) n += b.length;
    expect(n).toBe(50);
  });

  it('fails a sort over the memory limit with 010011, leaving other queries unaffected', async () => {
    const db = await filled(2000);
    const err = await db.engine
      .run('SELECT * FROM t ORDER BY v', db.session({ memoryLimitBytes: 20_000 }))
      .then(async (r) => {
        if (r.kind === 'rows') for await (const _ of r.batches);
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as UserError).kind).toBe('queryMemory');
    expect((err as UserError).message).toMatch(
      /^query memory limit exceeded: ORDER BY needs \d+ bytes, the limit is 20000 bytes/,
    );
    expect((await db.run('SELECT count(*) FROM t ORDER BY 1')).rows).toEqual(['2000']);
  });

  it('also limits GROUP BY state and the join build side', async () => {
    const db = await filled(2000);
    await expect(db.run('SELECT s, count(*) FROM t GROUP BY s', { memoryLimitBytes: 50_000 })).rejects.toMatchObject({
      kind: 'queryMemory',
    });
    await expect(
      db.run('SELECT a.v FROM t a JOIN t b ON a.s = b.s', { memoryLimitBytes: 50_000 }),
    ).rejects.toMatchObject({ kind: 'queryMemory' });
  });

  it("stops when the signal aborts, with the signal's reason", async () => {
    const db = await filled(300);
    const ac = new AbortController();
    const r = await db.engine.run(
      'SELECT count(*) FROM t a JOIN t b ON true JOIN t c ON true',
      db.session({ signal: ac.signal }),
    );
    setTimeout(() => ac.abort(new UserError('queryTimeout', 'query timeout')), 20);
    const err = await (async () => {
      if (r.kind === 'rows') for await (const _ of r.batches);
    })().catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'queryTimeout', message: 'query timeout' });
  });

  it('streams a large result in bounded batches', async () => {
    const db = await filled(20_000);
    const r = await db.engine.run('SELECT a.v FROM t a JOIN (VALUES (1), (2), (3)) AS x (k) ON true', db.session());
    let rows = 0;
    let largest = 0;
    if (r.kind === 'rows') {
      for await (const b of r.batches) {
        rows += b.length;
        largest = Math.max(largest, b.length);
      }
    }
    expect(rows).toBe(60_000);
    expect(largest).toBeLessThanOrEqual(8192 + 3);
  });

  it('explains with the physical plan, and with metrics under ANALYZE', async () => {
    const db = await filled(10);
    const plain = await db.run("EXPLAIN SELECT g, max(v) FROM t WHERE g = 'g1' GROUP BY g");
    expect(plain.columns).toEqual(['plan_type', 'plan']);
    expect(plain.rows[0]).toMatch(/^logical_plan \| Aggregate: groupBy=\[\[t\.g\]\], aggr=\[\[MAX\(t\.v\)\]\]/);
    expect(plain.rows[1]).toContain('TimeBucketAggregateExec');
    const analyzed = await db.run('EXPLAIN ANALYZE SELECT v FROM t');
    expect(analyzed.rows[1]).toMatch(
      /^Plan with Metrics \| ScanExec[\s\S]*output_rows=10, elapsed_ms=\d+, peak_memory_bytes=\d+$/,
    );
  });
});
