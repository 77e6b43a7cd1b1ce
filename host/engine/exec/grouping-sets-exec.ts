// GROUP BY GROUPING SETS / ROLLUP / CUBE as the hash aggregate over an expanded input: every
// input row comes out once per grouping set with the group keys evaluated, the keys outside the
// set NULL, and the set's number in a last column; the aggregate then groups by keys and set
// number (so a subtotal row never merges with a group whose key value happens to be NULL, which
// DataFusion 27 does), and a projection drops the number.

import { BOOLEAN, constantVector, INT64, type RecordBatch, type Schema, type Vector } from '../types/index.js';
import { exprKey, lit, type LExpr } from '../plan/expr.js';
import { planError } from '../errors.js';
import { aggregateFunction } from '../functions/registry.js';
import { exprDisplay, exprName } from '../plan/expr-display.js';
import type { Aggregate } from '../plan/logical-plan.js';
import { PlanSchema, type PlanField } from '../plan/plan-schema.js';
import { compileExprs } from './evaluate.js';
import { describeNode, type ExecContext, type ExecNode } from './exec-plan.js';
import { HashAggregateExec } from './hash-aggregate-exec.js';
import { ProjectionExec } from './projection-exec.js';

const KEY_PREFIX = '__grouping_key_';
const SET_COLUMN = '__grouping_set';

class GroupingSetsExpandExec implements ExecNode {
  readonly name = 'GroupingSetsExpandExec';
  readonly schema: Schema;
  readonly children: readonly ExecNode[];
  readonly #input: ExecNode;
  readonly #keys: readonly LExpr[];
  readonly #sets: readonly (readonly number[])[];
  readonly #inputSchema: PlanSchema;

  constructor(
    input: ExecNode,
    keys: readonly LExpr[],
    sets: readonly (readonly number[])[],
    inputSchema: PlanSchema,
    schema: Schema,
  ) {
    this.#input = input;
    this.#keys = keys;
    this.#sets = sets;
    this.#inputSchema = inputSchema;
    this.schema = schema;
    this.children = [input];
  }

  describe(): string {
    const sets = this.#sets.map((set) => `(${set.map((i) => exprDisplay(this.#keys[i]!)).join(', ')})`).join(', ');
    return describeNode(this.name, `sets=[${sets}]`);
  }

  async *execute(ctx: ExecContext): AsyncGenerator<RecordBatch> {
    const keysC = compileExprs(this.#keys, this.#inputSchema, ctx);
    for await (const batch of this.#input.execute(ctx)) {
      ctx.checkAbort();
      const n = batch.length;
      if (n === 0) continue;
      if (keysC.needsPrepare) await keysC.prepare(batch);
      const keys = keysC.exprs.map((e) => e.evaluate(batch));
      for (let s = 0; s < this.#sets.length; s++) {
        const set = this.#sets[s]!;
        const columns: Vector[] = [...batch.columns];
        keys.forEach((k, i) => {
          columns.push(set.includes(i) ? k : constantVector(k.type, null, n));
        });
        columns.push(constantVector(INT64, BigInt(s), n));
        yield { schema: this.schema, length: n, columns };
      }
    }
  }
}

/** The operators of an Aggregate with grouping sets over `input` (its input's operators). */
export function groupingSetsAggregate(plan: Aggregate, input: ExecNode): ExecNode {
  const sets = plan.groupingSets!;
  const keyFields: PlanField[] = plan.groupBy.map((g, i) => ({
    qualifier: undefined,
    name: `${KEY_PREFIX}${i}`,
    type: g.type,
    nullable: true,
  }));
  const setField: PlanField = { qualifier: undefined, name: SET_COLUMN, type: INT64, nullable: false };
  const expanded = new PlanSchema([...plan.input.schema.fields, ...keyFields, setField]);
  const expand = new GroupingSetsExpandExec(input, plan.groupBy, sets, plan.input.schema, expanded.toSchema());
  const column = (f: PlanField): LExpr => ({ kind: 'column', qualifier: f.qualifier, name: f.name, type: f.type });
  const aggFields = [...keyFields, setField, ...plan.schema.fields.slice(plan.groupBy.length)];
  const aggSchema = new PlanSchema(aggFields);
  const aggregates = plan.aggregates.map((a) =>
    a.kind === 'aggregate' && a.fn.name === 'grouping' ? groupingAsMax(a, plan, column(setField)) : a,
  );
  const agg = new HashAggregateExec(
    expand,
    [...keyFields, setField].map(column),
    aggregates,
    expanded,
    aggSchema.toSchema(),
  );
  const outputs = aggFields.filter((f) => f !== setField).map(column);
  return new ProjectionExec(agg, outputs, aggSchema, plan.schema.toSchema());
}

/**
 * grouping(e): 1 in the rows of sets without e, else 0; computed as MAX over the group of a
 * CASE on the set number (every row of a group has the same set number).
 */
function groupingAsMax(a: Extract<LExpr, { kind: 'aggregate' }>, plan: Aggregate, setColumn: LExpr): LExpr {
  const target = exprKey(a.args[0]!);
  const index = plan.groupBy.findIndex((g) => exprKey(g) === target);
  if (index < 0) throw planError(`Argument ${exprName(a.args[0]!)} to grouping function is not in grouping columns`);
  const without = plan.groupingSets!.flatMap((set, s) => (set.includes(index) ? [] : [s]));
  const when: LExpr = {
    kind: 'inList',
    expr: setColumn,
    list: without.map((s) => lit(BigInt(s), INT64)),
    negated: false,
    type: BOOLEAN,
  };
  const flag: LExpr = {
    kind: 'case',
    operand: undefined,
    whens: [{ when, then: lit(1n, INT64) }],
    elseResult: lit(0n, INT64),
    type: INT64,
  };
  const max = aggregateFunction('max')!;
  return { ...a, fn: max, args: [without.length === 0 ? lit(0n, INT64) : flag], argTypes: [INT64], type: INT64 };
}
