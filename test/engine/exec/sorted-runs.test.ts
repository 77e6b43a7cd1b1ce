// ORDER BY over many runs (sorted-runs.ts) must give one stable sort's order: the same rows in
// batches of uneven sizes, sorted by global ranks (numbers merged) and, when the pool has no room
// for the ranks, by each run's own order merged through comparators; both against one comparator
// sort of all rows (sort-comparators.ts, checked against ranks in sort-keys.test.ts). Keys with
// NULLs, NaN, -0 and infinities, few and many distinct strings, both directions, many ties.

import { describe, expect, it } from 'vitest';
import type { RecordBatch, Vector } from '../../../host/engine/types/batch.js';
import { concatBatches } from '../../../host/engine/exec/batches.js';
import { constantContext } from '../../../host/engine/exec/constant-context.js';
import { compileExprs } from '../../../host/engine/exec/evaluate.js';
import { MemoryPool } from '../../../host/engine/memory/memory-pool.js';
import { Reservation } from '../../../host/engine/memory/memory-size.js';
import { rowComparator } from '../../../host/engine/exec/sort-comparators.js';
import { SortedRuns } from '../../../host/engine/exec/sorted-runs.js';
import type { LExpr, SortExpr } from '../../../host/engine/plan/expr.js';
import { PlanSchema } from '../../../host/engine/plan/plan-schema.js';
import { FLOAT64, INT64, UTF8, type DataType } from '../../../host/engine/types/data-types.js';
import { mulberry32 as rng } from '../../support/rng.js';

const FIELDS: { name: string; type: DataType }[] = [
  { name: 'g', type: UTF8 },
  { name: 'v', type: INT64 },
  { name: 'f', type: FLOAT64 },
  { name: 's', type: UTF8 },
];
const schema = new PlanSchema(
  FIELDS.map((f) => ({ qualifier: undefined, name: f.name, type: f.type, nullable: true })),
);

/** A batch of `n` rows: g a few tags, v small integers, f special doubles, s mostly distinct; a tenth NULL. */
function batch(n: number, r: () => number, from: number): RecordBatch {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const valid = (): Uint8Array => Uint8Array.from({ length: n }, () => (r() < 0.1 ? 0 : 1));
  const columns: Vector[] = [
    {
      type: UTF8,
      length: n,
      values: Array.from({ length: n }, () => pick(['host_1', 'host_10', 'host_2', 'é', ''])),
      validity: valid(),
    },
    {
      type: INT64,
      length: n,
      values: BigInt64Array.from({ length: n }, () => BigInt(Math.floor(r() * 50) - 25)),
      validity: valid(),
    },
    {
      type: FLOAT64,
      length: n,
      values: Float64Array.from({ length: n }, () => pick([NaN, -0, 0, Infinity, -Infinity, 1.5, r()])),
      validity: valid(),
    },
    { type: UTF8, length: n, values: Array.from({ length: n }, (_, i) => `s${((from + i) * 7919) % 100_003}`) },
  ];
  return { schema: schema.toSchema(), length: n, columns };
}

const col = (name: string): LExpr =>
  ({ kind: 'column', qualifier: undefined, name, type: FIELDS.find((f) => f.name === name)!.type }) as LExpr;
const key = (name: string, asc: boolean, nullsFirst: boolean): SortExpr => ({ expr: col(name), asc, nullsFirst });

const ORDERS: { name: string; order: SortExpr[] }[] = [
  { name: 'a tag then an integer descending', order: [key('g', true, true), key('v', false, false)] },
  {
    name: 'a double with NaN, -0 and infinities, then a tag descending',
    order: [key('f', true, false), key('g', false, true)],
  },
  { name: 'mostly distinct strings', order: [key('s', true, false)] },
  { name: 'an integer with many ties (stability)', order: [key('v', true, true)] },
];

async function sorted(batches: RecordBatch[], order: SortExpr[], poolBytes: number): Promise<number[]> {
  const ctx = constantContext(0n);
  const keysC = compileExprs(
    order.map((o) => o.expr),
    schema,
    ctx,
  );
  const runs = new SortedRuns(order, keysC);
  for (const b of batches) await runs.add(b, ctx);
  await runs.sort(ctx, new Reservation(new MemoryPool(poolBytes), 'ORDER BY'));
  const out: number[] = [];
  for await (const { batches, rows } of runs.merged(ctx))
    rows.forEach((r, k) => {
      out.push(runs.rows.startOf(batches[k]!) + r);
    });
  return out;
}

describe('sorted runs', () => {
  const r = rng(24);
  const sizes = [1, 9000, 20_000, 3, 16_384, 7000];
  let from = 0;
  const batches = sizes.map((n) => {
    const b = batch(n, r, from);
    from += n;
    return b;
  });
  const all = concatBatches(schema.toSchema(), batches);

  for (const o of ORDERS) {
    const keys = o.order.map(
      (s) => all.columns[FIELDS.findIndex((f) => f.name === (s.expr as { name: string }).name)]!,
    );
    const expected = Array.from({ length: all.length }, (_, i) => i).sort(rowComparator(keys, o.order));

    it(`orders by ${o.name} through global ranks`, async () => {
      expect(await sorted(batches, o.order, Number.MAX_SAFE_INTEGER)).toEqual(expected);
    });

    it(`orders by ${o.name} through comparators when the ranks do not fit the pool`, async () => {
      // Room for the permutations (4 bytes a row) but not the ranks (28).
      expect(await sorted(batches, o.order, 20 * all.length)).toEqual(expected);
    });
  }
});
