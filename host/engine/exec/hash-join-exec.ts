// Joins: the right input is built into a hash table on its key columns (within the memory
// limit), the left input streams past it. Candidate pairs are gathered a batch at a time, the
// residual ON condition filters them, then each join type decides: INNER emits the pairs,
// LEFT/FULL also the left rows without a partner (right side NULL), RIGHT/FULL the right rows
// never matched at the end, SEMI/ANTI the left rows with / without a partner. Without keys
// every pair is a candidate (cross join, or an ON with no equality). NULL keys never match
// unless the join compares NULLs as equal (INTERSECT / EXCEPT).

import type { RecordBatch, Schema, Vector } from '../batch.js';
import { getValue, isValid, takeVector, vectorFrom } from '../batch.js';
import type { LExpr } from '../plan/expr.js';
import { exprDisplay } from '../plan/expr-display.js';
import type { JoinType } from '../plan/logical-plan.js';
import type { PlanSchema } from '../plan/plan-schema.js';
import { collect, concatBatches } from './batches.js';
import { compileExpr, compileExprs } from './evaluate.js';
import { BATCH_ROWS, describeNode, type ExecContext, type ExecNode } from './exec-plan.js';

const NULL_KEY = '\u0000null';

function rowKey(keys: readonly Vector[], i: number, nullEqualsNull: boolean): string | undefined {
  let s = '';
  for (const k of keys) {
    if (!isValid(k, i)) {
      if (!nullEqualsNull) return undefined;
      s += NULL_KEY;
      continue;
    }
    const v = getValue(k, i);
    s += `\u0001${typeof v === 'object' ? JSON.stringify(v, (_k, y: unknown) => (typeof y === 'bigint' ? `${y}n` : y)) : String(v)}`;
  }
  return s;
}

/** Rows of `v` at `indices`, where -1 stands for NULL. */
function takeOrNull(v: Vector, indices: Int32Array): Vector {
  let hasNull = false;
  for (let k = 0; k < indices.length; k++) if (indices[k]! < 0) hasNull = true;
  if (!hasNull) return takeVector(v, indices);
  const values = Array.from(indices, (i) => (i < 0 ? null : getValue(v, i)));
  return vectorFrom(v.type, values, Uint8Array.from(values, (x, k) => (x === null && (indices[k]! < 0 || !isValid(v, indices[k]!)) ? 0 : 1)));
}

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
    return describeNode(this.name, `join_type=${s.joinType}${on ? `, on=[${on}]` : ''}${s.filter ? `, filter=${exprDisplay(s.filter)}` : ''}`);
  }

  async *execute(ctx: ExecContext): AsyncGenerator<RecordBatch> {
    const s = this.#spec;
    const { batches, bytes } = await collect(this.#right, ctx, 'join build side');
    try {
      const right = concatBatches(this.#right.schema, batches);
      const rightKeysC = compileExprs(s.rightKeys, s.rightSchema, ctx);
      if (rightKeysC.needsPrepare && right.length > 0) await rightKeysC.prepare(right);
      const rightKeys = right.length === 0 ? [] : rightKeysC.exprs.map((e) => e.evaluate(right));
      const table = new Map<string, number[]>();
      const allRight: number[] = Array.from({ length: right.length }, (_, i) => i);
      if (s.leftKeys.length > 0) {
        for (let i = 0; i < right.length; i++) {
          const k = rowKey(rightKeys, i, s.nullEqualsNull);
          if (k === undefined) continue;
          const list = table.get(k);
          if (list === undefined) table.set(k, [i]);
          else list.push(i);
        }
      }
      const matchedRight = s.joinType === 'RIGHT' || s.joinType === 'FULL' ? new Uint8Array(right.length) : undefined;
      const leftKeysC = compileExprs(s.leftKeys, s.leftSchema, ctx);
      const filterC = s.filter === undefined ? undefined : compileExpr(s.filter, s.joinedSchema, ctx);
      const joinedSchema = s.joinedSchema.toSchema();
      const semi = s.joinType === 'SEMI' || s.joinType === 'ANTI';

      for await (const left of this.#left.execute(ctx)) {
        ctx.checkAbort();
        if (left.length === 0) continue;
        if (leftKeysC.needsPrepare) await leftKeysC.prepare(left);
        const leftKeys = leftKeysC.exprs.map((e) => e.evaluate(left));
        let start = 0;
        while (start < left.length) {
          // Gather candidate pairs for rows [start, end) of the left batch, about a batch's worth.
          const li: number[] = [];
          const ri: number[] = [];
          let end = start;
          while (end < left.length && li.length < BATCH_ROWS) {
            const partners = s.leftKeys.length === 0 ? allRight : (() => {
              const k = rowKey(leftKeys, end, s.nullEqualsNull);
              return k === undefined ? undefined : table.get(k);
            })();
            if (partners !== undefined) for (const r of partners) (li.push(end), ri.push(r));
            end++;
          }
          let pass: Uint8Array | undefined;
          let joined: RecordBatch | undefined;
          if (li.length > 0) {
            const lIdx = Int32Array.from(li);
            const rIdx = Int32Array.from(ri);
            joined = { schema: joinedSchema, length: li.length, columns: [...left.columns.map((c) => takeVector(c, lIdx)), ...right.columns.map((c) => takeVector(c, rIdx))] };
            if (filterC !== undefined) {
              if (filterC.needsPrepare) await filterC.prepare(joined);
              const m = filterC.evaluate(joined);
              pass = new Uint8Array(li.length);
              for (let k = 0; k < li.length; k++) pass[k] = isValid(m, k) && (m.values as Uint8Array)[k] === 1 ? 1 : 0;
            }
          }
          const leftHit = new Uint8Array(end - start);
          const keep: number[] = [];
          for (let k = 0; k < li.length; k++) {
            if (pass !== undefined && pass[k] === 0) continue;
            leftHit[li[k]! - start] = 1;
            if (matchedRight !== undefined) matchedRight[ri[k]!] = 1;
            keep.push(k);
          }
          if (semi) {
            const rows: number[] = [];
            for (let i = start; i < end; i++) if ((leftHit[i - start] === 1) === (s.joinType === 'SEMI')) rows.push(i);
            if (rows.length > 0) {
              const idx = Int32Array.from(rows);
              yield { schema: this.schema, length: rows.length, columns: left.columns.map((c) => takeVector(c, idx)) };
            }
          } else {
            const outL: number[] = [];
            const outR: number[] = [];
            for (const k of keep) (outL.push(li[k]!), outR.push(ri[k]!));
            if (s.joinType === 'LEFT' || s.joinType === 'FULL') for (let i = start; i < end; i++) if (leftHit[i - start] === 0) (outL.push(i), outR.push(-1));
            if (outL.length > 0) {
              const lIdx = Int32Array.from(outL);
              const rIdx = Int32Array.from(outR);
              yield {
                schema: this.schema,
                length: outL.length,
                columns: [...left.columns.map((c) => takeVector(c, lIdx)), ...right.columns.map((c) => takeOrNull(c, rIdx))],
              };
            }
          }
          start = end;
          await ctx.maybeYield();
        }
      }
      if (matchedRight !== undefined) {
        const rows: number[] = [];
        for (let i = 0; i < right.length; i++) if (matchedRight[i] === 0) rows.push(i);
        for (let s0 = 0; s0 < rows.length; s0 += BATCH_ROWS) {
          const part = rows.slice(s0, s0 + BATCH_ROWS);
          const lIdx = new Int32Array(part.length).fill(-1);
          const rIdx = Int32Array.from(part);
          const leftNulls = this.#left.schema.fields.map((f) => takeOrNull(vectorFrom(f.type, [null], new Uint8Array(1)), lIdx));
          yield { schema: this.schema, length: part.length, columns: [...leftNulls, ...right.columns.map((c) => takeVector(c, rIdx))] };
        }
      }
    } finally {
      ctx.memory.release(bytes);
    }
  }
}
