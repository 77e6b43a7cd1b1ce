// Sorting any number of rows in slices the event loop can interleave: the input is cut into runs
// of at most RUN_ROWS rows as it arrives and kept in its batches (batch-list.ts). Once it is all
// there, the runs are sorted one by one and merged through a binary heap a batch of rows at a
// time, handing out row numbers for the caller to gather. When every key ranks (global-ranks.ts:
// numbers, tags, times) and the pool has room for the ranks, each row gets one number that orders
// it among all rows, runs sort natively and the merge compares numbers; otherwise each run sorts
// by its own ranks or a comparator (sort-keys.ts) and the merge compares keys
// (sort-comparators.ts). One Array.prototype.sort over 10 million rows held the server's thread
// for seconds (ping waited 25 s behind an ORDER BY); a run sorts in a few milliseconds.

import { type RecordBatch, sliceBatch, type Vector } from '../types/index.js';
import type { SortExpr } from '../plan/expr.js';
import { BatchList } from './batch-list.js';
import type { CompiledExprs } from './evaluate.js';
import { BATCH_ROWS, type ExecContext } from './exec-plan.js';
import { GLOBAL_RANK_BYTES_PER_ROW, globalSortKeys } from './global-ranks.js';
import { type Reservation, vectorBytes } from '../memory/index.js';
import { crossComparator, rowComparator, type CrossComparator } from './sort-comparators.js';
import { rankedPermutation } from './sort-keys.js';

/** Rows of one run: sorted natively by numbers, or by a batch's own ranks, in a few milliseconds. */
export const RUN_ROWS = 16_384;
/** Rows sorted at once by a comparator, whose calls may each walk long strings. */
const COMPARED_RUN_ROWS = 4096;
/** The keys' ranks times a run's rows stay exact doubles below this. */
const EXACT_ROWS = 2 ** 53 / RUN_ROWS;

interface Run {
  /** The batch the run's rows are in. */
  readonly batch: number;
  /** The row number of the batch's first row. */
  readonly start: number;
  /** The run's rows (0-based within the batch) in sorted order. */
  readonly perm: Int32Array;
  /** Each sorted row's global sort number (global-ranks.ts), when the runs have them. */
  readonly sortKeys: Float64Array | undefined;
}

/** A chunk of sorted rows: row k is row rows[k] of batch batches[k]. */
export interface SortedChunk {
  readonly batches: Int32Array;
  readonly rows: Int32Array;
}

export class SortedRuns {
  readonly rows: BatchList;
  #runs: Run[] = [];
  /** The key vectors of each batch of `rows`. */
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
   * Runs over the batches of `rows` as they are (cut them to RUN_ROWS first), their keys computed.
   * Returns the runs and the bytes of the keys computed.
   */
  static async over(
    rows: BatchList,
    order: readonly SortExpr[],
    keysC: CompiledExprs,
    ctx: ExecContext,
  ): Promise<{ runs: SortedRuns; bytes: number }> {
    const runs = new SortedRuns(order, keysC, rows);
    let bytes = 0;
    for (const b of rows.batches) bytes += await runs.#keys(b, ctx);
    return { runs, bytes };
  }

  get length(): number {
    return this.rows.length;
  }

  /** The key vectors of key `c`, one per batch of `rows`. */
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

  /**
   * Adds the rows of `batch` (cut into runs, their keys computed). Returns the bytes this holds
   * for them beyond the batch's own: computed keys and the row index.
   */
  async add(batch: RecordBatch, ctx: ExecContext): Promise<number> {
    let bytes = 0;
    const index = this.rows.indexBytes;
    for (let from = 0; from < batch.length; from += RUN_ROWS) {
      const run = sliceBatch(batch, from, Math.min(batch.length, from + RUN_ROWS));
      this.rows.add(run);
      bytes += await this.#keys(run, ctx);
    }
    return bytes + this.rows.indexBytes - index;
  }

  async #keys(batch: RecordBatch, ctx: ExecContext): Promise<number> {
    if (this.#keysC.needsPrepare) await this.#keysC.prepare(batch);
    const keys = this.#keysC.exprs.map((e) => e.evaluate(batch));
    this.#batchKeys.push(keys);
    let bytes = 0;
    for (const k of keys) if (!batch.columns.includes(k)) bytes += vectorBytes(k);
    ctx.checkAbort();
    await ctx.maybeYield();
    return bytes;
  }

  /** Sorts every run, charging what the sort keeps (and, for a while, what it computes) to `mem`. Call once, after the last add. */
  async sort(ctx: ExecContext, mem: Reservation): Promise<void> {
    const n = this.rows.length;
    const batches = this.rows.batches;
    if (n > 0 && mem.tryGrow(GLOBAL_RANK_BYTES_PER_ROW * n)) {
      let numbers: Float64Array[] | undefined;
      try {
        numbers = await globalSortKeys(
          this.#batchKeys,
          batches.map((b) => b.length),
          this.#order,
          EXACT_ROWS,
          ctx,
        );
      } finally {
        mem.shrink(GLOBAL_RANK_BYTES_PER_ROW * n);
      }
      if (numbers !== undefined) {
        // Kept: each row's number and place (12 bytes).
        mem.grow(12 * n);
        for (let b = 0; b < batches.length; b++) {
          const len = batches[b]!.length;
          const packed = numbers[b]!;
          for (let i = 0; i < len; i++) packed[i] = packed[i]! * len + i;
          packed.sort();
          const perm = new Int32Array(len);
          for (let i = 0; i < len; i++) {
            const p = packed[i]!;
            const at = p % len;
            perm[i] = at;
            packed[i] = (p - at) / len;
          }
          this.#runs.push({ batch: b, start: this.rows.startOf(b), perm, sortKeys: packed });
          ctx.checkAbort();
          await ctx.maybeYield();
        }
        return;
      }
    }
    for (let b = 0; b < batches.length; b++) {
      const keys = this.#batchKeys[b]!;
      const len = batches[b]!.length;
      const start = this.rows.startOf(b);
      const perm = rankedPermutation(keys, this.#order, len);
      if (perm !== undefined) {
        mem.grow(perm.byteLength);
        this.#runs.push({ batch: b, start, perm, sortKeys: undefined });
        ctx.checkAbort();
        await ctx.maybeYield();
        continue;
      }
      // A comparator may be slow (long strings that share a prefix): runs of COMPARED_RUN_ROWS.
      const cmp = rowComparator(keys, this.#order);
      for (let from = 0; from < len; from += COMPARED_RUN_ROWS) {
        const to = Math.min(len, from + COMPARED_RUN_ROWS);
        const part = new Int32Array(to - from);
        for (let i = from; i < to; i++) part[i - from] = i;
        part.sort(cmp);
        mem.grow(part.byteLength);
        this.#runs.push({ batch: b, start, perm: part, sortKeys: undefined });
        ctx.checkAbort();
        await ctx.maybeYield();
      }
    }
  }

  /**
   * The rows in sorted order (ties in input order), at most BATCH_ROWS at a time, the first
   * `limit` rows in all, each as its batch of `rows` and its row in that batch (gather them with
   * BatchList.gatherAt). Call once, after sort().
   */
  async *merged(ctx: ExecContext, limit = Infinity): AsyncGenerator<SortedChunk> {
    const runs = this.#runs;
    const k = runs.length;
    let left = Math.min(limit, this.rows.length);
    if (k === 0 || left <= 0) return;
    const perms = runs.map((r) => r.perm);
    const batchOfRun = Int32Array.from(runs, (r) => r.batch);
    const pos = new Int32Array(k);
    let before: (a: number, b: number) => boolean;
    if (runs[0]!.sortKeys !== undefined) {
      // Is run a's current row before run b's? Ties go to the earlier run: the sort is stable.
      const sk = runs.map((r) => r.sortKeys!);
      before = (a, b) => {
        const x = sk[a]![pos[a]!]!;
        const y = sk[b]![pos[b]!]!;
        return x < y || (x === y && a < b);
      };
    } else {
      const keyCmps: CrossComparator[] = this.#order.map((o, c) =>
        crossComparator(
          runs.map((r) => this.#batchKeys[r.batch]![c]!),
          o,
        ),
      );
      before = (a, b) => {
        const i = perms[a]![pos[a]!]!;
        const j = perms[b]![pos[b]!]!;
        for (let c = 0; c < keyCmps.length; c++) {
          const r = keyCmps[c]!(a, i, b, j);
          if (r !== 0) return r < 0;
        }
        return a < b;
      };
    }
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
      const want = Math.min(BATCH_ROWS, left);
      const outBatch = new Int32Array(want);
      const outRow = new Int32Array(want);
      let n = 0;
      while (n < want && size > 0) {
        const r = heap[0]!;
        const perm = perms[r]!;
        const b = batchOfRun[r]!;
        if (size === 1) {
          // The last run left: the rest of it in order.
          const take = Math.min(want - n, perm.length - pos[r]!);
          for (let t = 0; t < take; t++) {
            outBatch[n] = b;
            outRow[n++] = perm[pos[r]++]!;
          }
          if (pos[r] === perm.length) size = 0;
          continue;
        }
        outBatch[n] = b;
        outRow[n++] = perm[pos[r]++]!;
        if (pos[r] === perm.length) heap[0] = heap[--size]!;
        if (size > 0) down(0);
      }
      left -= n;
      yield n === want
        ? { batches: outBatch, rows: outRow }
        : { batches: outBatch.subarray(0, n), rows: outRow.subarray(0, n) };
      ctx.checkAbort();
      await ctx.maybeYield();
    }
  }
}
