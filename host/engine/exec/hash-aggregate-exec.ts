// GROUP BY with a hash table: each row's group key maps to a dense group id, and every
// aggregate's GroupsAccumulator folds whole batches given the ids (no per-row calls into the
// aggregate). One key column uses its values directly as Map keys; several are joined into one
// string. Without GROUP BY there is exactly one group, also over empty input (COUNT = 0). The
// table is a ShardedMap: millions of groups grow it without one long rehash on the thread.

import {
  getValue,
  isValid,
  nonNullMask,
  type RecordBatch,
  type Scalar,
  type Schema,
  sliceVector,
  type Vector,
  vectorFrom,
} from '../types/index.js';
import type { GroupsAccumulator } from '../functions/function-types.js';
import type { LExpr } from '../plan/expr.js';
import { exprDisplay } from '../plan/expr-display.js';
import type { PlanSchema } from '../plan/plan-schema.js';
import { compileExprs, type CompiledExprs } from './evaluate.js';
import { BATCH_ROWS, describeNode, type ExecContext, type ExecNode } from './exec-plan.js';
import { HASH_ENTRY_BYTES, Reservation, scalarBytes, ShardedMap, SLOT_BYTES, stringBytes } from '../memory/index.js';

const NULL_KEY = Symbol('null');

type AggregateExpr = Extract<LExpr, { kind: 'aggregate' }>;

/** A value usable as a Map key that distinguishes NULL and keeps bigint/number/string apart. */
function keyPart(v: Vector, i: number): unknown {
  if (!isValid(v, i)) return NULL_KEY;
  const t = v.type.id;
  if (t === 'Struct' || t === 'Interval' || t === 'List')
    return JSON.stringify(getValue(v, i), (_k, y: unknown) => (typeof y === 'bigint' ? `${y}n` : y));
  return (v.values as ArrayLike<unknown>)[i];
}

function compositeKey(keys: readonly Vector[], i: number): string {
  let s = '';
  for (const k of keys) {
    const p = keyPart(k, i);
    s +=
      p === NULL_KEY
        ? '\u0000N'
        : `\u0000${typeof p === 'bigint' ? 'b' : typeof p === 'number' ? 'n' : 's'}${String(p)}`;
  }
  return s;
}

export class HashAggregateExec implements ExecNode {
  readonly name = 'HashAggregateExec';
  readonly schema: Schema;
  readonly children: readonly ExecNode[];
  readonly #input: ExecNode;
  readonly #groupBy: readonly LExpr[];
  readonly #aggregates: readonly AggregateExpr[];
  readonly #inputSchema: PlanSchema;

  constructor(
    input: ExecNode,
    groupBy: readonly LExpr[],
    aggregates: readonly LExpr[],
    inputSchema: PlanSchema,
    schema: Schema,
  ) {
    this.#input = input;
    this.#groupBy = groupBy;
    this.#aggregates = aggregates as AggregateExpr[];
    this.#inputSchema = inputSchema;
    this.schema = schema;
    this.children = [input];
  }

  describe(): string {
    return describeNode(
      this.name,
      `gby=[${this.#groupBy.map(exprDisplay).join(', ')}], aggr=[${this.#aggregates.map(exprDisplay).join(', ')}]`,
    );
  }

  async *execute(ctx: ExecContext): AsyncGenerator<RecordBatch> {
    const keysC = compileExprs(this.#groupBy, this.#inputSchema, ctx);
    // An order-sensitive aggregate (array_agg(x ORDER BY y)) gets its ORDER BY keys as extra arguments.
    const argsC: CompiledExprs[] = this.#aggregates.map((a) =>
      compileExprs(
        a.fn.orderSensitive === true ? [...a.args, ...a.orderBy.map((o) => o.expr)] : a.args,
        this.#inputSchema,
        ctx,
      ),
    );
    const filtersC = this.#aggregates.map((a) =>
      a.filter === undefined ? undefined : compileExprs([a.filter], this.#inputSchema, ctx),
    );
    const accs: GroupsAccumulator[] = this.#aggregates.map((a) =>
      a.fn.createAccumulator({ argTypes: a.argTypes, returnType: a.type, orderBy: a.orderBy }, a.distinct),
    );
    const grouped = this.#groupBy.length > 0;
    const table = new ShardedMap<unknown, number>();
    const keyValues: Scalar[][] = this.#groupBy.map(() => []);
    let numGroups = grouped ? 0 : 1;
    // The table's entries with their keys and the key values kept for the output (a GROUP BY of
    // millions of groups held 2 GB, charged 96 bytes a group), and the accumulators' state.
    const tableMem = new Reservation(ctx.memory, 'GROUP BY hash table');
    const accMem = new Reservation(ctx.memory, 'aggregate state');
    let groups = new Int32Array(0);
    try {
      for await (const batch of this.#input.execute(ctx)) {
        ctx.checkAbort();
        const n = batch.length;
        if (n === 0) continue;
        if (groups.length < n + 1) groups = new Int32Array(n + 1);
        if (grouped) {
          if (keysC.needsPrepare) await keysC.prepare(batch);
          const keys = keysC.exprs.map((e) => e.evaluate(batch));
          const single = keys.length === 1 ? keys[0]! : undefined;
          let added = 0;
          for (let i = 0; i < n; i++) {
            const k = single !== undefined ? keyPart(single, i) : compositeKey(keys, i);
            const g = table.getOrSet(k, numGroups);
            if (g === numGroups) {
              numGroups++;
              // A composite key is a concatenated string (a cons node over its flat text).
              added += HASH_ENTRY_BYTES + (single !== undefined ? 0 : 32 + stringBytes(k as string));
              for (let c = 0; c < keys.length; c++) {
                const v = getValue(keys[c]!, i);
                keyValues[c]!.push(v);
                added += SLOT_BYTES + scalarBytes(v);
              }
            }
            groups[i] = g;
          }
          tableMem.grow(added);
        } else groups.fill(0, 0, n);
        for (let a = 0; a < accs.length; a++) {
          const ac = argsC[a]!;
          if (ac.needsPrepare) await ac.prepare(batch);
          const args = ac.exprs.map((e) => e.evaluate(batch));
          let gs = groups;
          const fc = filtersC[a];
          if (fc !== undefined) {
            if (fc.needsPrepare) await fc.prepare(batch);
            const m = fc.exprs[0]!.evaluate(batch);
            gs = groups.slice(0, n);
            // Rows the FILTER drops go to a sink group past the last real one.
            for (let i = 0; i < n; i++) if (!isValid(m, i) || (m.values as Uint8Array)[i] !== 1) gs[i] = numGroups;
            accs[a]!.update(args, gs, n, numGroups + 1);
          } else accs[a]!.update(args, gs, n, numGroups);
        }
        accMem.set(accs.reduce((s, acc) => s + acc.sizeBytes(), 0));
        await ctx.maybeYield();
      }
      // The keys are in keyValues: the table's entries go before the output is built.
      table.clear();
      // A batch of groups at a time: millions of groups made one vector of each key at once.
      const results = accs.map((acc) => acc.finish(numGroups));
      for (let start = 0; start < numGroups; start += BATCH_ROWS) {
        const end = Math.min(numGroups, start + BATCH_ROWS);
        const columns: Vector[] = [
          ...this.#groupBy.map((g, c) => {
            const values = keyValues[c]!.slice(start, end);
            return vectorFrom(g.type, values, nonNullMask(values));
          }),
          ...results.map((v) => sliceVector(v, start, end)),
        ];
        yield { schema: this.schema, length: end - start, columns };
        await ctx.maybeYield();
      }
    } finally {
      tableMem.release();
      accMem.release();
    }
  }
}
