// ORDER BY: SortExec buffers its whole input (within the memory limit; no spilling) and sorts
// a row permutation; with a `fetch` (ORDER BY ... LIMIT k) TopKExec keeps only the best k rows,
// compacting its buffer whenever it holds a few batches more than k. Keys that rank cheaply
// sort natively as one number per row (sort-keys.ts); the others through a comparator that
// does not allocate: 64-bit integers word by word through an Int32Array alias, strings in UTF-8
// byte order, NaN above every number, NULLs first or last as asked.

import type { RecordBatch, Schema, Vector } from '../batch.js';
import { takeVector } from '../batch.js';
import type { SortExpr } from '../plan/expr.js';
import { exprDisplay } from '../plan/expr-display.js';
import type { PlanSchema } from '../plan/plan-schema.js';
import { words } from '../functions/accumulators.js';
import { collect, concatBatches, slices } from './batches.js';
import { compareStrings } from './compute.js';
import { compileExprs, type CompiledExprs } from './evaluate.js';
import { BATCH_ROWS, describeNode, type ExecContext, type ExecNode } from './exec-plan.js';
import { batchBytes } from './memory-size.js';
import { rankedPermutation } from './sort-keys.js';

export type RowComparator = (i: number, j: number) => number;

/**
 * Each string's rank among the distinct values, when there are few of them (tag columns): the
 * distinct values are sorted once and rows then compare as integers. Undefined when more than a
 * quarter of the rows are distinct, or for short vectors.
 */
function stringRanks(x: readonly string[], n: number): Int32Array | undefined {
  if (n < 64) return undefined;
  const ids = new Map<string, number>();
  const limit = n >>> 2;
  const id = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const s = x[i]!;
    let k = ids.get(s);
    if (k === undefined) {
      if (ids.size >= limit) return undefined;
      ids.set(s, (k = ids.size));
    }
    id[i] = k;
  }
  const distinct = [...ids.keys()].sort(compareStrings);
  const rankOf = new Int32Array(distinct.length);
  distinct.forEach((s, r) => (rankOf[ids.get(s)!] = r));
  for (let i = 0; i < n; i++) id[i] = rankOf[id[i]!]!;
  return id;
}

/** A comparator of rows i and j of one key vector (ascending, NULLs as asked). */
export function keyComparator(v: Vector, asc: boolean, nullsFirst: boolean): RowComparator {
  const dir = asc ? 1 : -1;
  const valid = v.validity;
  const nullCmp = nullsFirst ? -1 : 1;
  let cmp: RowComparator;
  switch (v.type.id) {
    case 'Null':
      return () => 0;
    case 'Float64':
    case 'Float32': {
      const x = v.values as Float64Array;
      cmp = (i, j) => {
        const a = x[i]!;
        const b = x[j]!;
        if (a < b) return -1;
        if (a > b) return 1;
        if (a === b) return 0;
        return a !== a ? (b !== b ? 0 : 1) : -1; // NaN is the largest
      };
      break;
    }
    case 'Int64':
    case 'Timestamp':
    case 'Time64':
    case 'UInt64': {
      const w = words(v.values as BigInt64Array);
      const unsigned = v.type.id === 'UInt64';
      cmp = (i, j) => {
        const ha = w[2 * i + 1]!;
        const hb = w[2 * j + 1]!;
        if (ha !== hb) return unsigned ? ((ha >>> 0) < (hb >>> 0) ? -1 : 1) : ha < hb ? -1 : 1;
        const la = w[2 * i]! >>> 0;
        const lb = w[2 * j]! >>> 0;
        return la < lb ? -1 : la > lb ? 1 : 0;
      };
      break;
    }
    case 'Boolean':
    case 'Date32': {
      const x = v.values as Uint8Array | Int32Array;
      cmp = (i, j) => x[i]! - x[j]!;
      break;
    }
    case 'Utf8':
    case 'Binary': {
      const x = v.values as string[];
      const ranks = stringRanks(x, v.length);
      cmp = ranks === undefined ? (i, j) => compareStrings(x[i]!, x[j]!) : (i, j) => ranks[i]! - ranks[j]!;
      break;
    }
    default: {
      const x = v.values as unknown[];
      const key = (o: unknown): string => JSON.stringify(o, (_k, y: unknown) => (typeof y === 'bigint' ? String(y).padStart(24, '0') : y));
      cmp = (i, j) => {
        const a = key(x[i]);
        const b = key(x[j]);
        return a < b ? -1 : a > b ? 1 : 0;
      };
    }
  }
  if (valid === undefined) return asc ? cmp : (i, j) => -cmp(i, j);
  return (i, j) => {
    const vi = valid[i] === 1;
    const vj = valid[j] === 1;
    if (!vi || !vj) return vi === vj ? 0 : vi ? -nullCmp : nullCmp;
    return dir * cmp(i, j);
  };
}

/** A lexicographic comparator over several keys. */
export function rowComparator(keys: readonly Vector[], order: readonly SortExpr[]): RowComparator {
  const cmps = keys.map((k, i) => keyComparator(k, order[i]!.asc, order[i]!.nullsFirst));
  if (cmps.length === 1) return cmps[0]!;
  return (i, j) => {
    for (const c of cmps) {
      const r = c(i, j);
      if (r !== 0) return r;
    }
    return 0;
  };
}

/** The batch's rows in sorted order (the first `limit` of them). */
export async function sortBatch(batch: RecordBatch, keysC: CompiledExprs, order: readonly SortExpr[], limit?: number): Promise<RecordBatch> {
  if (keysC.needsPrepare) await keysC.prepare(batch);
  const keys = keysC.exprs.map((e) => e.evaluate(batch));
  let perm = rankedPermutation(keys, order, batch.length);
  if (perm === undefined) {
    const cmp = rowComparator(keys, order);
    perm = new Int32Array(batch.length);
    for (let i = 0; i < perm.length; i++) perm[i] = i;
    perm.sort(cmp);
  } else if ((limit === undefined || limit >= perm.length) && isIdentity(perm)) return batch;
  const take = limit !== undefined && limit < perm.length ? perm.subarray(0, limit) : perm;
  return { schema: batch.schema, length: take.length, columns: batch.columns.map((c) => takeVector(c, take)) };
}

function isIdentity(perm: Int32Array): boolean {
  for (let i = 0; i < perm.length; i++) if (perm[i] !== i) return false;
  return true;
}

export class SortExec implements ExecNode {
  readonly name: string;
  readonly schema: Schema;
  readonly children: readonly ExecNode[];
  readonly #input: ExecNode;
  readonly #order: readonly SortExpr[];
  readonly #inputSchema: PlanSchema;
  readonly #fetch: number | undefined;

  constructor(input: ExecNode, order: readonly SortExpr[], inputSchema: PlanSchema, fetch: number | undefined) {
    this.#input = input;
    this.#order = order;
    this.#inputSchema = inputSchema;
    this.#fetch = fetch;
    this.schema = input.schema;
    this.children = [input];
    this.name = fetch === undefined ? 'SortExec' : 'TopKExec';
  }

  describe(): string {
    const keys = this.#order.map((o) => `${exprDisplay(o.expr)} ${o.asc ? 'ASC' : 'DESC'} ${o.nullsFirst ? 'NULLS FIRST' : 'NULLS LAST'}`).join(', ');
    return describeNode(this.name, `[${keys}]${this.#fetch === undefined ? '' : `, fetch=${this.#fetch}`}`);
  }

  async *execute(ctx: ExecContext): AsyncGenerator<RecordBatch> {
    const keysC = compileExprs(
      this.#order.map((o) => o.expr),
      this.#inputSchema,
      ctx,
    );
    if (this.#fetch !== undefined) {
      yield* this.#topK(ctx, keysC, this.#fetch);
      return;
    }
    const { batches, bytes } = await collect(this.#input, ctx, 'ORDER BY');
    try {
      if (batches.length === 0) return;
      const all = concatBatches(this.schema, batches);
      const sorted = await sortBatch(all, keysC, this.#order);
      ctx.checkAbort();
      yield* slices(sorted);
    } finally {
      ctx.memory.release(bytes);
    }
  }

  async *#topK(ctx: ExecContext, keysC: CompiledExprs, k: number): AsyncGenerator<RecordBatch> {
    if (k === 0) return;
    let buffer: RecordBatch[] = [];
    let rows = 0;
    let bytes = 0;
    const compact = async (): Promise<void> => {
      const best = await sortBatch(concatBatches(this.schema, buffer), keysC, this.#order, k);
      ctx.memory.release(bytes);
      bytes = batchBytes(best);
      ctx.memory.reserve(bytes, 'ORDER BY ... LIMIT');
      buffer = [best];
      rows = best.length;
    };
    try {
      for await (const batch of this.#input.execute(ctx)) {
        ctx.checkAbort();
        if (batch.length === 0) continue;
        const n = batchBytes(batch);
        ctx.memory.reserve(n, 'ORDER BY ... LIMIT');
        bytes += n;
        buffer.push(batch);
        rows += batch.length;
        if (rows >= 2 * k + BATCH_ROWS) await compact();
      }
      if (rows === 0) return;
      await compact();
      yield* slices(buffer[0]!);
    } finally {
      ctx.memory.release(bytes);
    }
  }
}
