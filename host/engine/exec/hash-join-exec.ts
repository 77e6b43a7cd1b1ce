// Joins: the right input is built into a hash table on its key columns, the left input streams
// past it. Candidate pairs are gathered a batch at a time, the residual ON condition filters them,
// then each join type decides: INNER emits the pairs, LEFT/FULL also the left rows without a
// partner (right side NULL), RIGHT/FULL the right rows never matched at the end, SEMI/ANTI the
// left rows with / without a partner. Without keys every pair is a candidate (cross join, or an
// ON with no equality). NULL keys never match unless the join compares NULLs as equal (INTERSECT
// / EXCEPT).
// The build side stays in its batches (batch-list.ts) and the table is a hash and a chain link per
// row in typed arrays (row-hash.ts), all charged to the query's memory: a self-join of 10 million
// rows held 3.5 GB in a Map of string keys, and built it in one synchronous pass. Every loop over
// rows gives the event loop its turn (ctx.maybeYield) and stops when the query is aborted.

import { constantVector, isValid, type RecordBatch, type Schema, takeVector, type Vector } from '../types/index.js';
import type { LExpr } from '../plan/expr.js';
import { exprDisplay } from '../plan/expr-display.js';
import type { JoinType } from '../plan/logical-plan.js';
import type { PlanSchema } from '../plan/plan-schema.js';
import { BatchList } from './batch-list.js';
import { compileExpr, compileExprs } from './evaluate.js';
import { BATCH_ROWS, describeNode, type ExecContext, type ExecNode } from './exec-plan.js';
import { batchBytes, Reservation, vectorBytes } from '../memory/index.js';
import { hashKey, keyEquals, keyMode, keysValid, keyView, type KeyMode, type KeyView } from './row-hash.js';

/** Buckets set to empty between two looks at the clock (4 MB). */
const BUCKETS_PER_SLICE = 1 << 20;

export interface JoinSpec {
  readonly joinType: JoinType;
  readonly leftKeys: readonly LExpr[];
  readonly rightKeys: readonly LExpr[];
  readonly filter: LExpr | undefined;
  readonly nullEqualsNull: boolean;
  readonly leftSchema: PlanSchema;
  readonly rightSchema: PlanSchema;
  /** Left fields then right fields (the filter is evaluated over it). */
  readonly joinedSchema: PlanSchema;
}

function grow(a: Int32Array<ArrayBuffer>, need: number): Int32Array<ArrayBuffer> {
  if (need <= a.length) return a;
  let size = Math.max(1024, a.length * 2);
  while (size < need) size *= 2;
  const next = new Int32Array(size);
  next.set(a);
  return next;
}

/**
 * The build side: its rows, each batch's key views, and the chained hash table over them. Each
 * batch's hashes and NULL marks are kept apart while the input comes, and the table's arrays are
 * made once at its end: arrays doubled as the rows came took 20-60 ms of one step each to copy at
 * 10 million rows, and the V8 heap a full collection (up to 700 ms) for the external memory they
 * dropped at once (bench/long-holds.ts).
 */
class JoinTable {
  readonly rows = new BatchList();
  readonly keys: KeyView[][] = [];
  /** Each batch's key hashes and (undefined: all) which rows may match, until the table is linked. */
  batchHashes: Int32Array[] = [];
  batchUsable: (Uint8Array | undefined)[] = [];
  hashes = new Int32Array(0);
  heads = new Int32Array(0);
  next = new Int32Array(0);
  mask = 0;
}

export class HashJoinExec implements ExecNode {
  readonly name: string;
  readonly schema: Schema;
  readonly children: readonly ExecNode[];
  readonly #left: ExecNode;
  readonly #right: ExecNode;
  readonly #spec: JoinSpec;

  constructor(left: ExecNode, right: ExecNode, spec: JoinSpec, schema: Schema) {
    this.#left = left;
    this.#right = right;
    this.#spec = spec;
    this.schema = schema;
    this.children = [left, right];
    this.name = spec.leftKeys.length > 0 ? 'HashJoinExec' : 'NestedLoopJoinExec';
  }

  describe(): string {
    const s = this.#spec;
    const on = s.leftKeys.map((l, i) => `(${exprDisplay(l)}, ${exprDisplay(s.rightKeys[i]!)})`).join(', ');
    return describeNode(
      this.name,
      `join_type=${s.joinType}${on ? `, on=[${on}]` : ''}${s.filter ? `, filter=${exprDisplay(s.filter)}` : ''}`,
    );
  }

  /** The key modes: typed when both sides have one type. */
  #modes(): KeyMode[] {
    const s = this.#spec;
    return s.leftKeys.map((l, k) => keyMode(s.rightKeys[k]!.type, l.type));
  }

  /** Pulls the right input into the table, charging `mem`. */
  async #build(ctx: ExecContext, modes: readonly KeyMode[], mem: Reservation): Promise<JoinTable> {
    const s = this.#spec;
    const t = new JoinTable();
    const keysC = compileExprs(s.rightKeys, s.rightSchema, ctx);
    const keyed = s.leftKeys.length > 0;
    let index = 0;
    for await (const batch of this.#right.execute(ctx)) {
      ctx.checkAbort();
      const n = batch.length;
      if (n === 0) continue;
      mem.grow(batchBytes(batch));
      t.rows.add(batch);
      mem.grow(t.rows.indexBytes - index);
      index = t.rows.indexBytes;
      if (keyed) {
        if (keysC.needsPrepare) await keysC.prepare(batch);
        const keys = keysC.exprs.map((e) => e.evaluate(batch));
        // A key that is a column of the batch costs nothing more; a computed one does.
        for (const k of keys) if (!batch.columns.includes(k)) mem.grow(vectorBytes(k));
        t.keys.push(keys.map((k, i) => keyView(k, modes[i]!)));
        const h = new Int32Array(n);
        keys.forEach((k, i) => {
          hashKey(k, modes[i]!, n, h, i === 0);
        });
        t.batchHashes.push(h);
        const valid = s.nullEqualsNull ? undefined : keysValid(keys, n);
        t.batchUsable.push(valid);
        mem.grow(h.byteLength + (valid?.byteLength ?? 0));
      }
      await ctx.maybeYield();
    }
    if (!keyed) return t;
    // Buckets: a power of two at least the row count. Rows are linked last to first, so that
    // each chain lists its rows in input order (the order of a join's output pairs).
    const total = t.rows.length;
    let size = 1;
    while (size < total) size *= 2;
    mem.grow(4 * size + 8 * total);
    const heads = new Int32Array(size);
    for (let at = 0; at < size; at += BUCKETS_PER_SLICE) {
      heads.fill(-1, at, at + BUCKETS_PER_SLICE);
      await ctx.maybeYield();
    }
    const next = new Int32Array(total);
    const hashes = new Int32Array(total);
    const mask = size - 1;
    for (let b = t.batchHashes.length - 1; b >= 0; b--) {
      ctx.checkAbort();
      const h = t.batchHashes[b]!;
      const usable = t.batchUsable[b];
      const start = t.rows.startOf(b);
      hashes.set(h, start);
      for (let i = h.length - 1; i >= 0; i--) {
        if (usable !== undefined && usable[i] === 0) continue;
        const r = start + i;
        const bucket = h[i]! & mask;
        next[r] = heads[bucket]!;
        heads[bucket] = r;
      }
      await ctx.maybeYield();
    }
    t.batchHashes = [];
    t.batchUsable = [];
    t.heads = heads;
    t.next = next;
    t.hashes = hashes;
    t.mask = mask;
    return t;
  }

  async *execute(ctx: ExecContext): AsyncGenerator<RecordBatch> {
    const s = this.#spec;
    const mem = new Reservation(ctx.memory, 'join build side');
    try {
      const modes = this.#modes();
      const t = await this.#build(ctx, modes, mem);
      const right = t.rows;
      const total = right.length;
      const keyed = s.leftKeys.length > 0;
      const matchedRight = s.joinType === 'RIGHT' || s.joinType === 'FULL' ? new Uint8Array(total) : undefined;
      if (matchedRight !== undefined) mem.grow(total);
      const leftKeysC = compileExprs(s.leftKeys, s.leftSchema, ctx);
      const filterC = s.filter === undefined ? undefined : compileExpr(s.filter, s.joinedSchema, ctx);
      const joinedSchema = s.joinedSchema.toSchema();
      const semi = s.joinType === 'SEMI' || s.joinType === 'ANTI';
      const rightFields = this.#right.schema.fields;
      const gatherRight = (rows: Int32Array, n: number): Vector[] =>
        rightFields.map((f, c) => right.gather(c, f.type, rows, n));
      const li = new Int32Array(BATCH_ROWS);
      const ri = new Int32Array(BATCH_ROWS);
      let hashes = new Int32Array(0);

      for await (const left of this.#left.execute(ctx)) {
        ctx.checkAbort();
        const n = left.length;
        if (n === 0 || total === 0) {
          if (n > 0 && (s.joinType === 'LEFT' || s.joinType === 'FULL' || s.joinType === 'ANTI'))
            yield this.#unmatchedLeft(left, gatherRight);
          continue;
        }
        let leftKeys: KeyView[] = [];
        let usable: Uint8Array | undefined;
        if (keyed) {
          if (leftKeysC.needsPrepare) await leftKeysC.prepare(left);
          const keys = leftKeysC.exprs.map((e) => e.evaluate(left));
          leftKeys = keys.map((k, i) => keyView(k, modes[i]!));
          hashes = grow(hashes, n);
          keys.forEach((k, i) => {
            hashKey(k, modes[i]!, n, hashes, i === 0);
          });
          usable = s.nullEqualsNull ? undefined : keysValid(keys, n);
        }
        const leftHit = new Uint8Array(n);
        // The next candidate of row `row`: a right row number, -1 when it has no more, -2 before its first.
        let row = 0;
        let cursor = -2;
        while (row < n) {
          // Gather up to a batch of candidate pairs; a row with more partners continues in the next round.
          const start = row;
          let pairs = 0;
          while (row < n && pairs < BATCH_ROWS) {
            if (cursor === -2) {
              if (!keyed) cursor = 0;
              else cursor = usable !== undefined && usable[row] === 0 ? -1 : t.heads[hashes[row]! & t.mask]!;
            }
            if (!keyed) {
              while (cursor < total && pairs < BATCH_ROWS) {
                li[pairs] = row;
                ri[pairs++] = cursor++;
              }
              if (cursor >= total) cursor = -1;
            } else {
              const h = hashes[row]!;
              while (cursor >= 0 && pairs < BATCH_ROWS) {
                if (t.hashes[cursor] === h && this.#equal(t, cursor, leftKeys, row)) {
                  li[pairs] = row;
                  ri[pairs++] = cursor;
                }
                cursor = t.next[cursor]!;
              }
            }
            if (cursor === -1) {
              row++;
              cursor = -2;
            }
          }
          // Rows [start, done) have seen all their candidates; row `done` may be part way.
          const done = row;
          const l = li.subarray(0, pairs);
          const r = ri.subarray(0, pairs);
          let pass: Uint8Array | undefined;
          if (pairs > 0 && filterC !== undefined) {
            const joined: RecordBatch = {
              schema: joinedSchema,
              length: pairs,
              columns: [...left.columns.map((c) => takeVector(c, l)), ...gatherRight(r, pairs)],
            };
            if (filterC.needsPrepare) await filterC.prepare(joined);
            const m = filterC.evaluate(joined);
            pass = new Uint8Array(pairs);
            for (let k = 0; k < pairs; k++) pass[k] = isValid(m, k) && (m.values as Uint8Array)[k] === 1 ? 1 : 0;
          }
          const outL: number[] = [];
          const outR: number[] = [];
          for (let k = 0; k < pairs; k++) {
            if (pass !== undefined && pass[k] === 0) continue;
            leftHit[l[k]!] = 1;
            if (matchedRight !== undefined) matchedRight[r[k]!] = 1;
            if (!semi) outL.push(l[k]!), outR.push(r[k]!);
          }
          if (semi) {
            const keep: number[] = [];
            for (let i = start; i < done; i++) if ((leftHit[i] === 1) === (s.joinType === 'SEMI')) keep.push(i);
            if (keep.length > 0) {
              const idx = Int32Array.from(keep);
              yield { schema: this.schema, length: keep.length, columns: left.columns.map((c) => takeVector(c, idx)) };
            }
          } else {
            if (s.joinType === 'LEFT' || s.joinType === 'FULL')
              for (let i = start; i < done; i++) if (leftHit[i] === 0) outL.push(i), outR.push(-1);
            if (outL.length > 0) {
              const lIdx = Int32Array.from(outL);
              const rIdx = Int32Array.from(outR);
              yield {
                schema: this.schema,
                length: outL.length,
                columns: [...left.columns.map((c) => takeVector(c, lIdx)), ...gatherRight(rIdx, rIdx.length)],
              };
            }
          }
          ctx.checkAbort();
          await ctx.maybeYield();
        }
      }
      if (matchedRight !== undefined) {
        const rows: number[] = [];
        for (let i = 0; i < total; i++) if (matchedRight[i] === 0) rows.push(i);
        const leftFields = this.#left.schema.fields;
        for (let s0 = 0; s0 < rows.length; s0 += BATCH_ROWS) {
          const rIdx = Int32Array.from(rows.slice(s0, s0 + BATCH_ROWS));
          const leftNulls = leftFields.map((f) => constantVector(f.type, null, rIdx.length));
          yield {
            schema: this.schema,
            length: rIdx.length,
            columns: [...leftNulls, ...gatherRight(rIdx, rIdx.length)],
          };
          await ctx.maybeYield();
        }
      }
    } finally {
      mem.release();
    }
  }

  /** A left batch against an empty build side: as it is (ANTI), or with NULL right columns (LEFT/FULL). */
  #unmatchedLeft(left: RecordBatch, gatherRight: (rows: Int32Array, n: number) => Vector[]): RecordBatch {
    if (this.#spec.joinType === 'ANTI') return { schema: this.schema, length: left.length, columns: left.columns };
    const none = new Int32Array(left.length).fill(-1);
    return { schema: this.schema, length: left.length, columns: [...left.columns, ...gatherRight(none, none.length)] };
  }

  #equal(t: JoinTable, r: number, leftKeys: readonly KeyView[], l: number): boolean {
    const b = t.rows.batchOf(r);
    const local = r - t.rows.startOf(b);
    const rk = t.keys[b]!;
    for (let k = 0; k < leftKeys.length; k++) if (!keyEquals(rk[k]!, local, leftKeys[k]!, l)) return false;
    return true;
  }
}
