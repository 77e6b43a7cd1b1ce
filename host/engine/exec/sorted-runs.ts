// Sorting any number of rows in slices the event loop can interleave: the input is cut into runs
// of at most RUN_ROWS rows, each sorted on its own as it arrives (sort-keys.ts ranks, else a
// comparator), and the runs are merged through a binary heap a batch of rows at a time. One
// Array.prototype.sort over 10 million rows held the server's thread for seconds (ping waited
// 25 s behind an ORDER BY); a run sorts in a few milliseconds, and the merge stops for the clock
// after every batch. The rows stay in their batches (batch-list.ts); the merge hands out row
// numbers, which the caller gathers.

import type { RecordBatch, Vector } from '../batch.js';
import { sliceBatch } from '../batch.js';
import type { SortExpr } from '../plan/expr.js';
import { BatchList } from './batch-list.js';
import type { CompiledExprs } from './evaluate.js';
import { BATCH_ROWS, type ExecContext } from './exec-plan.js';
import { vectorBytes } from './memory-size.js';
import { crossComparator, rowComparator, type CrossComparator } from './sort-comparators.js';
import { rankedPermutation } from './sort-keys.js';

/** Rows sorted at once by ranks (sort-keys.ts): a few milliseconds for 16,384 rows. */
export const RUN_ROWS = 16_384;
/** Rows sorted at once by a comparator, whose calls may each walk long strings. */
const COMPARED_RUN_ROWS = 4096;

interface Run {
  /** The row number of the first row of the run's batch. */
  readonly start: number;
  /** The batch's key vectors. */
  readonly keys: readonly Vector[];
  /** The run's rows (0-based within the batch) in sorted order. */
  readonly perm: Int32Array;
}

export class SortedRuns {
  readonly rows: BatchList;
  readonly #runs: Run[] = [];
  /** The key vectors of each batch of `rows` (a batch may hold several runs). */
  readonly #batchKeys: Vector[][] = [];
  readonly #order: readonly SortExpr[];
  readonly #keysC: CompiledExprs;

  /** `keysC` computes the `order` keys of a batch. */
  constructor(order: readonly SortExpr[], keysC: CompiledExprs, rows = new BatchList()) {
    this.#order = order;
    this.#keysC = keysC;
    this.rows = rows;
  }

  /**
   * Runs over the batches of `rows` as they are, one run each (cut them to RUN_ROWS first).
   * Returns the runs and the bytes they hold beyond the batches.
   */
  static async over(rows: BatchList, order: readonly SortExpr[], keysC: CompiledExprs, ctx: ExecContext): Promise<{ runs: SortedRuns; bytes: number }> {
    const runs = new SortedRuns(order, keysC, rows);
    let bytes = 0;
    for (let b = 0; b < rows.batches.length; b++) bytes += await runs.#sortRun(rows.batches[b]!, rows.startOf(b), ctx);
    return { runs, bytes };
  }

  /** The key vectors of key `c`, one per run (= batch of `rows`). */
  keys(c: number): Vector[] {
    return this.#batchKeys.map((k) => k[c]!);
  }

  /** A comparator of two row numbers on keys [from, to) of the order. */
  comparator(from: number, to: number): (g: number, h: number) => number {
    const cmps: CrossComparator[] = [];
    for (let c = from; c < to; c++) cmps.push(crossComparator(this.keys(c), this.#order[c]!));
    const rows = this.rows;
    return (g, h) => {
      const a = rows.batchOf(g);
      const b = rows.batchOf(h);
      const i = g - rows.startOf(a);
      const j = h - rows.startOf(b);
      for (let c = 0; c < cmps.length; c++) {
        const r = cmps[c]!(a, i, b, j);
        if (r !== 0) return r;
      }
      return 0;
    };
  }

  get length(): number {
    return this.rows.length;
  }

  /**
   * Adds the rows of `batch`, sorting them in runs (letting the event loop in between). Returns the
   * bytes this holds for them beyond the batch's own: computed keys, permutations, the row index.
   */
  async add(batch: RecordBatch, ctx: ExecContext): Promise<number> {
    let bytes = 0;
    const index = this.rows.indexBytes;
    for (let from = 0; from < batch.length; from += RUN_ROWS) {
      const run = sliceBatch(batch, from, Math.min(batch.length, from + RUN_ROWS));
      const start = this.rows.length;
      this.rows.add(run);
      bytes += await this.#sortRun(run, start, ctx);
    }
    return bytes + this.rows.indexBytes - index;
  }

  /** Sorts one run, whose first row is row number `start`; returns the bytes of its keys and permutation. */
  async #sortRun(run: RecordBatch, start: number, ctx: ExecContext): Promise<number> {
    const n = run.length;
    let bytes = 0;
    if (this.#keysC.needsPrepare) await this.#keysC.prepare(run);
    const keys = this.#keysC.exprs.map((e) => e.evaluate(run));
    for (const k of keys) if (!run.columns.includes(k)) bytes += vectorBytes(k);
    this.#batchKeys.push(keys);
    const perm = rankedPermutation(keys, this.#order, n);
    if (perm !== undefined) {
      this.#runs.push({ start, keys, perm });
      ctx.checkAbort();
      await ctx.maybeYield();
      return bytes + perm.byteLength;
    }
    // A comparator may be slow (long strings that share a prefix): runs of COMPARED_RUN_ROWS.
    const cmp = rowComparator(keys, this.#order);
    for (let from = 0; from < n; from += COMPARED_RUN_ROWS) {
      const to = Math.min(n, from + COMPARED_RUN_ROWS);
      const part = new Int32Array(to - from);
      for (let i = from; i < to; i++) part[i - from] = i;
      part.sort(cmp);
      this.#runs.push({ start, keys, perm: part });
      bytes += part.byteLength;
      ctx.checkAbort();
      await ctx.maybeYield();
    }
    return bytes;
  }

  /**
   * Row numbers in sorted order (ties in input order), at most BATCH_ROWS at a time, the first
   * `limit` rows in all. Call once, after the last add.
   */
  async *merged(ctx: ExecContext, limit = Infinity): AsyncGenerator<Int32Array> {
    const runs = this.#runs;
    const k = runs.length;
    let left = Math.min(limit, this.rows.length);
    if (k === 0 || left <= 0) return;
    const keyCmps: CrossComparator[] = this.#order.map((o, c) => crossComparator(runs.map((r) => r.keys[c]!), o));
    const perms = runs.map((r) => r.perm);
    const starts = runs.map((r) => r.start);
    const pos = new Int32Array(k);
    // Is run a's current row before run b's? Ties go to the earlier run: the sort is stable.
    const before = (a: number, b: number): boolean => {
      const i = perms[a]![pos[a]!]!;
      const j = perms[b]![pos[b]!]!;
      for (let c = 0; c < keyCmps.length; c++) {
        const r = keyCmps[c]!(a, i, b, j);
        if (r !== 0) return r < 0;
      }
      return a < b;
    };
    const heap = new Int32Array(k);
    let size = 0;
    const down = (at: number): void => {
      const x = heap[at]!;
      for (;;) {
        let child = 2 * at + 1;
        if (child >= size) break;
        if (child + 1 < size && before(heap[child + 1]!, heap[child]!)) child++;
        if (!before(heap[child]!, x)) break;
        heap[at] = heap[child]!;
        at = child;
      }
      heap[at] = x;
    };
    for (let r = 0; r < k; r++) if (perms[r]!.length > 0) heap[size++] = r;
    for (let at = (size >> 1) - 1; at >= 0; at--) down(at);
    while (left > 0 && size > 0) {
      const out = new Int32Array(Math.min(BATCH_ROWS, left));
      let n = 0;
      while (n < out.length && size > 0) {
        const r = heap[0]!;
        const perm = perms[r]!;
        if (size === 1) {
          // The last run left: the rest of it in order.
          const take = Math.min(out.length - n, perm.length - pos[r]!);
          for (let t = 0; t < take; t++) out[n++] = starts[r]! + perm[pos[r]++]!;
          if (pos[r] === perm.length) size = 0;
          continue;
        }
        out[n++] = starts[r]! + perm[pos[r]++]!;
        if (pos[r] === perm.length) heap[0] = heap[--size]!;
        if (size > 0) down(0);
      }
      left -= n;
      yield n === out.length ? out : out.subarray(0, n);
      ctx.checkAbort();
      await ctx.maybeYield();
    }
  }
}
