// The time-bucket aggregate's row work: runs of one bucket cut without BigInt arithmetic, in
// TypeScript (bucketRuns) and in Wasm (k_bucket_runs), checked against a BigInt oracle on seeded
// irregular times; the Wasm accumulators giving exactly the TypeScript accumulators' columns;
// and whole queries giving the rows of the general hash aggregate, which a predicate it cannot
// push down forces.

import { beforeAll, describe, expect, it } from 'vitest';
import type { RecordBatch, Schema } from '../../../host/engine/types/batch.js';
import type { SeriesChunk, SeriesStats } from '../../../host/engine/catalog.js';
import { bucketKernels } from '../../../host/engine/exec/bucket-kernels.js';
import type { ExecContext } from '../../../host/engine/exec/exec-plan.js';
import { MemoryPool } from '../../../host/engine/memory/memory-pool.js';
import { installKernels } from '../../../host/engine/types/kernels.js';
import { bucketRuns, RunScratch, type AggSpec } from '../../../host/engine/exec/time-bucket-fold.js';
import { BucketGroups } from '../../../host/engine/exec/time-bucket-groups.js';
import { FLOAT64, INT64, UINT64, UTF8, type DataType } from '../../../host/engine/types/data-types.js';
import { loadCore } from '../../support/core.js';
import { testDb, type TestDb } from '../support/run-sql.js';
import { mulberry32 as rng } from '../../support/rng.js';

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a < 0n && q * b !== a ? q - 1n : q;
}

/** [start, bucket] of each run, computed row by row with BigInts. */
function oracle(time: BigInt64Array, origin: bigint, stride: bigint): Array<[number, bigint]> {
  const out: Array<[number, bigint]> = [];
  for (let i = 0; i < time.length; i++) {
    const k = floorDiv(time[i]! - origin, stride);
    if (out.length === 0 || out[out.length - 1]![1] !== k) out.push([i, k]);
  }
  return out;
}

describe('bucketRuns', () => {
  const cases: Array<{ name: string; start: bigint; step: () => bigint; n: number; origin: bigint; stride: bigint }> =
    [];
  const r = rng(7);
  cases.push({
    name: 'regular 10 s rows, 1 h buckets (ns)',
    start: 1_451_606_400_000_000_000n,
    step: () => 10_000_000_000n,
    n: 4320,
    origin: 0n,
    stride: 3_600_000_000_000n,
  });
  cases.push({
    name: 'jittered rows with gaps, 1 min buckets',
    start: 1_451_606_400_000_000_000n,
    step: () => (r() < 0.05 ? 900_000_000_000n : BigInt(Math.floor(1 + r() * 20_000_000_000))),
    n: 3000,
    origin: 0n,
    stride: 60_000_000_000n,
  });
  cases.push({
    name: 'negative times and an origin off the grid',
    start: -5_000_000n,
    step: () => BigInt(1 + Math.floor(r() * 3000)),
    n: 2000,
    origin: 1234n,
    stride: 777n,
  });
  cases.push({ name: 'every row its own bucket', start: 0n, step: () => 100n, n: 500, origin: 0n, stride: 7n });
  cases.push({ name: 'one row', start: 99n, step: () => 1n, n: 1, origin: 0n, stride: 10n });
  cases.push({ name: 'one bucket for all rows', start: 3n, step: () => 1n, n: 300, origin: 0n, stride: 1_000_000n });
  for (const c of cases) {
    it(`cuts ${c.name} as the row-by-row oracle does`, () => {
      const time = new BigInt64Array(c.n);
      let t = c.start;
      for (let i = 0; i < c.n; i++) {
        time[i] = t;
        t += c.step();
      }
      const runs = bucketRuns(time, c.n, c.origin, c.stride, new RunScratch())!;
      const got: Array<[number, bigint]> = [];
      for (let k = 0; k < runs.nruns; k++) got.push([runs.bounds[k]!, runs.first + BigInt(runs.offsets[k]!)]);
      expect(got).toEqual(oracle(time, c.origin, c.stride));
      expect(runs.bounds[runs.nruns]).toBe(c.n);
    });
  }

  it('declines spans too long for exact doubles', () => {
    const time = BigInt64Array.of(0n, 2n ** 60n);
    expect(bucketRuns(time, 2, 0n, 10n, new RunScratch())).toBeUndefined();
  });
});

describe('the Wasm bucket kernels', () => {
  beforeAll(async () => installKernels(await loadCore()));

  it('cut the same runs as the row-by-row oracle', () => {
    const r = rng(3);
    for (const [origin, stride, step] of [
      [0n, 60_000_000_000n, 20_000_000_000],
      [1234n, 777n, 3000],
      [0n, 7n, 100],
    ] as const) {
      const time = new BigInt64Array(2500);
      let t = 1_451_606_400_000_000_000n;
      for (let i = 0; i < time.length; i++) {
        time[i] = t;
        t += r() < 0.05 ? BigInt(step) * 40n : BigInt(1 + Math.floor(r() * step));
      }
      const k = bucketKernels()!;
      const nruns = k.cut(time, origin, stride);
      const got: Array<[number, bigint]> = [];
      for (let i = 0; i < nruns; i++) got.push([k.bound(i), k.firstBucket + BigInt(k.offset(i))]);
      expect(got).toEqual(oracle(time, origin, stride));
      expect(k.bound(nruns)).toBe(time.length);
    }
  });

  // The same chunks and block statistics through the Wasm accumulators and through the
  // TypeScript ones must give identical columns: doubles are summed in the same order, integer
  // sums are exact, NaN is the largest double, NULLs are skipped.
  it("give the TypeScript accumulators' columns for every aggregate, type and NULL pattern", () => {
    const r = rng(11);
    const double = (): number => (r() < 0.03 ? NaN : r() < 0.03 ? -0 : (r() - 0.5) * 10 ** Math.floor(r() * 30 - 10));
    const int = (): bigint => BigInt.asIntN(64, BigInt(Math.floor(r() * 2 ** 32)) << BigInt(Math.floor(r() * 25)));
    const uint = (): bigint => BigInt(Math.floor(r() * 2 ** 32)) << BigInt(Math.floor(r() * 26));
    const chunks: SeriesChunk[] = [];
    for (let c = 0; c < 12; c++) {
      const n = 1 + Math.floor(r() * 900);
      const time = new BigInt64Array(n);
      let t = BigInt(c % 4) * 86_400_000_000_000n + BigInt(Math.floor(r() * 1e12));
      for (let i = 0; i < n; i++) {
        time[i] = t;
        t += BigInt(1 + Math.floor(r() * 30_000_000_000));
      }
      const nulls = (): Uint8Array | undefined =>
        r() < 0.5 ? undefined : Uint8Array.from({ length: n }, () => (r() < 0.15 ? 0 : 1));
      const fields = new Map([
        ['d', { values: Float64Array.from({ length: n }, double), validity: nulls() }],
        ['i', { values: BigInt64Array.from({ length: n }, int), validity: nulls() }],
        ['u', { values: BigUint64Array.from({ length: n }, uint), validity: nulls() }],
      ]);
      const tags = new Map(
        c % 3 === 2
          ? [['host', `h${c % 4}`]]
          : [
              ['host', `h${c % 4}`],
              ['dc', 'x'],
            ],
      );
      chunks.push({ tags, length: n, time, fields });
    }
    const types = new Map([
      ['d', FLOAT64],
      ['i', INT64],
      ['u', UINT64],
    ]);
    const aggs: AggSpec[] = [
      { kind: 'count', column: undefined, columnKind: undefined, type: INT64, returnType: INT64 },
      { kind: 'count', column: 'dc', columnKind: 'tag', type: INT64, returnType: INT64 },
    ];
    for (const [column, type] of types) {
      for (const kind of ['count', 'sum', 'avg', 'min', 'max'] as const) {
        if (kind === 'sum' && type.id !== 'Float64') continue; // overflow: below
        aggs.push({
          kind,
          column,
          columnKind: 'field',
          type: kind === 'count' ? INT64 : type,
          returnType: kind === 'count' ? INT64 : kind === 'avg' ? FLOAT64 : type,
        });
      }
      aggs.push({ kind: 'first', column, columnKind: 'field', type, returnType: type });
    }
    const stats: SeriesStats = {
      tags: new Map([
        ['host', 'h1'],
        ['dc', 'x'],
      ]),
      rows: 40,
      minTime: 86_400_000_000_000n + 5n,
      maxTime: 86_400_000_000_000n + 9n,
      fields: new Map([
        ['d', { count: 30, min: -2.5, max: 7, sum: 12.25 }],
        ['i', { count: 40, min: -9n, max: 2n ** 40n, sum: 2n ** 41n }],
        ['u', { count: 0 }],
      ]),
    };
    const groups = [
      { kind: 'tag' as const, tag: 'host', type: UTF8 },
      { kind: 'bucket' as const, type: { id: 'Timestamp', unit: 'Nanosecond' } as DataType },
    ];
    // Statistics only come when no aggregate needs rows (first/last).
    const run = (kernels: ReturnType<typeof bucketKernels>, withStats: boolean): RecordBatch => {
      const ctx = { memory: new MemoryPool(1 << 30) } as unknown as ExecContext;
      const g = new BucketGroups(
        groups,
        withStats ? aggs.filter((a) => a.kind !== 'first') : aggs,
        types,
        ctx,
        1000n,
        600_000_000_000n,
        kernels,
      );
      try {
        chunks.forEach((c, i) => {
          g.addChunk(c);
          if (withStats && i === 5) g.addStats(stats);
        });
        return g.finish({ fields: [] } as unknown as Schema);
      } finally {
        g.release();
      }
    };
    for (const withStats of [false, true]) {
      const wasm = run(bucketKernels(), withStats);
      expect(wasm.length).toBeGreaterThan(20);
      expect(wasm).toEqual(run(undefined, withStats));
    }
  });

  it('report an integer SUM that leaves its type as the TypeScript accumulator does, and keep one that comes back', () => {
    const chunk = (values: BigInt64Array): SeriesChunk => ({
      tags: new Map(),
      length: values.length,
      time: BigInt64Array.from(values, (_, i) => BigInt(i)),
      fields: new Map([['i', { values, validity: undefined }]]),
    });
    const aggs: AggSpec[] = [{ kind: 'sum', column: 'i', columnKind: 'field', type: INT64, returnType: INT64 }];
    const sum = (kernels: ReturnType<typeof bucketKernels>, values: BigInt64Array): unknown => {
      const ctx = { memory: new MemoryPool(1 << 30) } as unknown as ExecContext;
      const g = new BucketGroups([], aggs, new Map([['i', INT64]]), ctx, 0n, 10n, kernels);
      try {
        g.addChunk(chunk(values));
        return (g.finish({ fields: [] } as unknown as Schema).columns[0]!.values as BigInt64Array)[0];
      } catch (e) {
        return (e as Error).message;
      } finally {
        g.release();
      }
    };
    const over = BigInt64Array.of(2n ** 62n, 2n ** 62n, 2n ** 62n);
    // 3 * 2^62 wraps to -2^62, as DataFusion 27's SUM (and this engine's +) wraps.
    expect(sum(bucketKernels(), over)).toBe(-(2n ** 62n));
    expect(sum(undefined, over)).toBe(sum(bucketKernels(), over));
    const back = BigInt64Array.of(2n ** 63n - 1n, 5n, -10n);
    expect(sum(bucketKernels(), back)).toBe(2n ** 63n - 6n);
    expect(sum(undefined, back)).toBe(2n ** 63n - 6n);
  });
});

describe('the time-bucket aggregate with the Wasm fold', () => {
  let db: TestDb;
  beforeAll(async () => {
    installKernels(await loadCore());
    db = testDb({ statsBlockRows: 50 });
    const rand = rng(42);
    const rows: string[] = [];
    // Values whose sums are exact in doubles in any order, so that the general hash aggregate
    // (which adds row by row) must give the same text.
    for (const host of ['a', 'b', 'c']) {
      let t = 1_700_000_000_000_000_000n;
      for (let k = 0; k < 400; k++) {
        t += rand() < 0.03 ? 400_000_000_000n : BigInt(1 + Math.floor(rand() * 20_000_000_000));
        const d = rand() < 0.1 ? 'NULL' : (Math.floor(rand() * 1600 - 800) / 8).toFixed(3); // a DOUBLE literal in every row: VALUES rows must agree on types
        // A row needs one field: i is present when d is NULL.
        const i = rand() < 0.1 && d !== 'NULL' ? 'NULL' : String(Math.floor(rand() * 2 ** 31) - 2 ** 30);
        const u = rand() < 0.1 ? 'NULL' : String(Math.floor(rand() * 2 ** 32));
        rows.push(`(${t}, '${host}', ${d}, ${i}, ${u})`);
      }
    }
    await db.exec(`CREATE TABLE m (d DOUBLE, i BIGINT, u BIGINT UNSIGNED, TAGS(host));
INSERT INTO m (time, host, d, i, u) VALUES ${rows.join(', ')}`);
  });

  const AGGS =
    'count(*), count(d), count(i), count(u), sum(d), sum(i), sum(u), avg(d), avg(i), avg(u), min(d), max(d), min(i), max(i), min(u), max(u)';
  const queries = [
    `SELECT host, date_bin(INTERVAL '1 minute', time) AS t, ${AGGS} FROM m GROUP BY host, t ORDER BY host, t`,
    `SELECT date_bin(INTERVAL '7 minutes', time, TIMESTAMP '2023-11-14T22:00:00Z') AS t, ${AGGS} FROM m GROUP BY t ORDER BY t`,
    `SELECT host, ${AGGS} FROM m GROUP BY host ORDER BY host`,
    `SELECT host, date_bin(INTERVAL '1 hour', time) AS t, first(time, d), last(time, i), ${AGGS} FROM m WHERE time >= 1700000600000000000 GROUP BY host, t ORDER BY host, t`,
  ];
  for (const sql of queries) {
    it(`gives the hash aggregate's rows: ${sql.slice(0, 80)}`, async () => {
      expect(bucketKernels()).toBeDefined();
      const general = sql.includes('WHERE')
        ? sql.replace('WHERE', 'WHERE (i IS NULL OR i IS NOT NULL) AND')
        : sql.replace(' FROM m ', ' FROM m WHERE (i IS NULL OR i IS NOT NULL) ');
      const expected = await db.run(general);
      expect(expected.rows.length).toBeGreaterThan(0);
      expect(await db.run(sql)).toEqual(expected);
    });
  }

  it('wraps a BIGINT sum past 64 bits as the hash aggregate does, and averages it exactly', async () => {
    await db.exec(`CREATE TABLE big (i BIGINT, TAGS(host));
INSERT INTO big (time, host, i) VALUES ${Array.from({ length: 100 }, (_, k) => `(${k}, 'h', 9223372036854775000)`).join(', ')}`);
    const folded = await db.run("SELECT date_bin(INTERVAL '1 hour', time) AS t, sum(i) FROM big GROUP BY t");
    // 100 * 9223372036854775000 modulo 2^64, as a signed 64-bit integer.
    expect(folded.rows).toEqual([`1970-01-01T00:00:00 | ${BigInt.asIntN(64, 100n * 9223372036854775000n)}`]);
    expect(folded).toEqual(
      await db.run(
        "SELECT date_bin(INTERVAL '1 hour', time) AS t, sum(i) FROM big WHERE i IS NOT NULL OR i IS NULL GROUP BY t",
      ),
    );
    // The exact mean 9223372036854775000 is the double 9223372036854774784.
    expect((await db.run("SELECT date_bin(INTERVAL '1 hour', time) AS t, avg(i) FROM big GROUP BY t")).rows).toEqual([
      '1970-01-01T00:00:00 | 9.223372036854775e18',
    ]);
  });
});
