// GROUP BY with a hash table: each row's group key maps to a dense group id, and every
// aggregate's GroupsAccumulator folds whole batches given the ids (no per-row calls into the
// aggregate). One key column uses its values directly as Map keys; several are joined into one
// string. Without GROUP BY there is exactly one group, also over empty input (COUNT = 0).

import type { RecordBatch, Scalar, Schema, Vector } from '../batch.js';
import { getValue, isValid, nonNullMask, vectorFrom } from '../batch.js';
import type { GroupsAccumulator } from '../functions/function-types.js';
import type { LExpr } from '../plan/expr.js';
import { exprDisplay } from '../plan/expr-display.js';
import type { PlanSchema } from '../plan/plan-schema.js';
import { compileExprs, type CompiledExprs } from './evaluate.js';
import { slices } from './batches.js';
import { describeNode, type ExecContext, type ExecNode } from './exec-plan.js';

const NULL_KEY = Symbol('null');
/** Bytes charged per new group for the hash table entry and key values. */
const GROUP_OVERHEAD_BYTES = 96;

type AggregateExpr = Extract<LExpr, { kind: 'aggregate' }>;

/** A value usable as a Map key that distinguishes NULL and keeps bigint/number/string apart. */
function keyPart(v: Vector, i: number): unknown {
  if (!isValid(v, i)) return NULL_KEY;
  const t = v.type.id;
  if (t === 'Struct' || t === 'Interval' || t === 'List') return JSON.stringify(getValue(v, i), (_k, y: unknown) => (typeof y === 'bigint' ? `${y}n` : y));
  return (v.values as ArrayLike<unknown>)[i];
}

function compositeKey(keys: readonly Vector[], i: number): string {
  let s = '';
  for (const k of keys) {
    const p = keyPart(k, i);
    s += p === NULL_KEY ? '\u0000N' : `\u0000${typeof p === 'bigint' ? 'b' : typeof p === 'number' ? 'n' : 's'}${String(p)}`;
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

  constructor(input: ExecNode, groupBy: readonly LExpr[], aggregates: readonly LExpr[], inputSchema: PlanSchema, schema: Schema) {
    this.#input = input;
    this.#groupBy = groupBy;
    this.#aggregates = aggregates as AggregateExpr[];
    this.#inputSchema = inputSchema;
    this.schema = schema;
    this.children = [input];
  }

  describe(): string {
    return describeNode(this.name, `gby=[${this.#groupBy.map(exprDisplay).join(', ')}], aggr=[${this.#aggregates.map(exprDisplay).join(', ')}]`);
  }

  async *execute(ctx: ExecContext): AsyncGenerator<RecordBatch> {
    const keysC = compileExprs(this.#groupBy, this.#inputSchema, ctx);
    // An order-sensitive aggregate (array_agg(x ORDER BY y)) gets its ORDER BY keys as extra arguments.
    const argsC: CompiledExprs[] = this.#aggregates.map((a) => compileExprs(a.fn.orderSensitive === true ? [...a.args, ...a.orderBy.map((o) => o.expr)] : a.args, this.#inputSchema, ctx));
    const filtersC = this.#aggregates.map((a) => (a.filter === undefined ? undefined : compileExprs([a.filter], this.#inputSchema, ctx)));
    const accs: GroupsAccumulator[] = this.#aggregates.map((a) => a.fn.createAccumulator({ argTypes: a.argTypes, returnType: a.type, orderBy: a.orderBy }, a.distinct));
    const grouped = this.#groupBy.length > 0;
    const table = new Map<unknown, number>();
    const keyValues: Scalar[][] = this.#groupBy.map(() => []);
    let numGroups = grouped ? 0 : 1;
    let reserved = 0;
    let accBytes = 0;
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
          const before = numGroups;
          const single = keys.length === 1 ? keys[0]! : undefined;
          for (let i = 0; i < n; i++) {
            const k = single !== undefined ? keyPart(single, i) : compositeKey(keys, i);
            let g = table.get(k);
            if (g === undefined) {
              g = numGroups++;
              table.set(k, g);
              for (let c = 0; c < keys.length; c++) keyValues[c]!.push(getValue(keys[c]!, i));
            }
            groups[i] = g;
          }
          if (numGroups > before) {
            const add = (numGroups - before) * GROUP_OVERHEAD_BYTES;
            ctx.memory.reserve(add, 'GROUP BY hash table');
            reserved += add;
          }
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
        const now = accs.reduce((s, acc) => s + acc.sizeBytes(), 0);
        if (now > accBytes) {
          ctx.memory.reserve(now - accBytes, 'aggregate state');
          reserved += now - accBytes;
          accBytes = now;
        }
        await ctx.maybeYield();
      }
      const columns: Vector[] = [
        ...this.#groupBy.map((g, c) => vectorFrom(g.type, keyValues[c]!, nonNullMask(keyValues[c]!))),
        ...accs.map((acc) => acc.finish(numGroups)),
      ];
      const out: RecordBatch = { schema: this.schema, length: numGroups, columns };
      yield* slices(out);
    } finally {
      ctx.memory.release(reserved);
    }
  }
}
