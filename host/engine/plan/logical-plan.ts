// The logical plan: a tree of relational operators over typed expressions, each node with the
// schema it produces (DataFusion's LogicalPlan, trimmed to what this engine executes). Nodes
// are immutable; optimizer rules build new trees. Constructors here compute the schemas, so a
// node is never built with a schema that disagrees with its expressions. The node types are in
// plan-nodes.ts, beside the expressions they hold.

import { bug } from '../../core/errors.js';
import { planError } from '../errors.js';
import { BOOLEAN, type DataType } from '../types/index.js';
import { exprName } from './expr-display.js';
import { columnsOf, visitExpr, type LExpr, type SortExpr } from './expr.js';
import { flatName, PlanSchema, type PlanField } from './plan-schema.js';
import type {
  Aggregate,
  Distinct,
  EmptyRelation,
  Filter,
  Join,
  JoinType,
  Limit,
  LogicalPlan,
  Projection,
  Sort,
  SubqueryAlias,
  TimeWindow,
  Union,
  UnnestSeries,
  Window,
} from './plan-nodes.js';

export type {
  Aggregate,
  Distinct,
  EmptyRelation,
  FilledColumn,
  Filter,
  GapFill,
  Join,
  JoinType,
  Limit,
  LogicalPlan,
  Projection,
  Sort,
  SubqueryAlias,
  TableScan,
  TimeWindow,
  Union,
  UnnestSeries,
  Values,
  Window,
} from './plan-nodes.js';

/** The output field of an expression evaluated over `input`. */
export function exprField(e: LExpr, input: PlanSchema): PlanField {
  if (e.kind === 'column') {
    const i = input.find(e.qualifier, e.name);
    if (i >= 0) return input.field(i);
    return { qualifier: e.qualifier, name: e.name, type: e.type, nullable: true };
  }
  if (e.kind === 'alias') return { qualifier: undefined, name: e.name, type: e.type, nullable: true };
  return { qualifier: undefined, name: exprName(e), type: e.type, nullable: true };
}

/** Throws DataFusion's error when two output columns share a qualified name. */
export function checkUniqueNames(fields: readonly PlanField[]): void {
  const seen = new Map<string, number>();
  fields.forEach((f, i) => {
    const key = flatName(f.qualifier, f.name);
    const before = seen.get(key);
    if (before !== undefined) {
      throw planError(
        `Projections require unique expression names but the expression "${key}" at position ${before} and "${key}" at position ${i} have the same name. Consider aliasing ("AS") one of them.`,
      );
    }
    seen.set(key, i);
  });
}

export function projection(input: LogicalPlan, exprs: readonly LExpr[]): Projection {
  const fields = exprs.map((e) => exprField(e, input.schema));
  checkUniqueNames(fields);
  return { kind: 'projection', input, exprs, schema: new PlanSchema(fields) };
}

export function filter(input: LogicalPlan, predicate: LExpr): Filter {
  if (predicate.type.id !== 'Boolean' && predicate.type.id !== 'Null') {
    throw planError(
      `Cannot create filter with non-boolean predicate '${exprName(predicate)}' returning ${predicate.type.id}`,
    );
  }
  return { kind: 'filter', input, predicate, schema: input.schema };
}

export function aggregate(
  input: LogicalPlan,
  groupBy: readonly LExpr[],
  aggregates: readonly LExpr[],
  groupingSets?: readonly (readonly number[])[],
): Aggregate {
  const keys = groupBy.map((e) => exprField(e, input.schema));
  const fields = [
    ...(groupingSets === undefined ? keys : keys.map((f) => ({ ...f, nullable: true }))),
    ...aggregates.map((e) => exprField(e, input.schema)),
  ];
  return {
    kind: 'aggregate',
    input,
    groupBy,
    aggregates,
    ...(groupingSets === undefined ? {} : { groupingSets }),
    schema: new PlanSchema(fields),
  };
}

export function windowNode(input: LogicalPlan, windowExprs: readonly LExpr[]): Window {
  const fields = [...input.schema.fields, ...windowExprs.map((e) => exprField(e, input.schema))];
  return { kind: 'window', input, windowExprs, schema: new PlanSchema(fields) };
}

export function sort(input: LogicalPlan, orderBy: readonly SortExpr[], fetch?: number): Sort {
  return { kind: 'sort', input, orderBy, fetch, schema: input.schema };
}

export function limit(input: LogicalPlan, skip: number, fetch: number | undefined): Limit {
  return { kind: 'limit', input, skip, fetch, schema: input.schema };
}

/**
 * A join node. `using`: the pairs of (left, right) field indexes a JOIN ... USING joins on, which
 * name resolution and `SELECT *` treat as one column (PlanSchema.using).
 */
export function join(
  left: LogicalPlan,
  right: LogicalPlan,
  joinType: JoinType,
  on: readonly (readonly [LExpr, LExpr])[],
  filterExpr: LExpr | undefined,
  using: readonly (readonly [number, number])[] = [],
): Join {
  if (joinType === 'SEMI' || joinType === 'ANTI')
    return {
      kind: 'join',
      left,
      right,
      joinType,
      on,
      filter: filterExpr,
      schema: new PlanSchema([...left.schema.fields], left.schema.using),
    };
  const nullableLeft = joinType === 'RIGHT' || joinType === 'FULL';
  const nullableRight = joinType === 'LEFT' || joinType === 'FULL';
  const fields = [
    ...left.schema.fields.map((f) => (nullableLeft ? { ...f, nullable: true } : f)),
    ...right.schema.fields.map((f) => (nullableRight ? { ...f, nullable: true } : f)),
  ];
  const both = new PlanSchema(fields, left.schema.usingBeside(right.schema));
  const schema = using.length === 0 ? both : both.withUsing(using.map(([l, r]) => [l, left.schema.length + r]));
  return { kind: 'join', left, right, joinType, on, filter: filterExpr, schema };
}

export function union(inputs: readonly LogicalPlan[]): Union {
  const first = inputs[0];
  if (first === undefined) throw bug('union of no inputs');
  const fields = first.schema.fields.map((f, i) => ({
    qualifier: undefined,
    name: f.name,
    type: f.type,
    nullable: inputs.some((p) => p.schema.fields[i]?.nullable ?? true),
  }));
  return { kind: 'union', inputs, schema: new PlanSchema(fields) };
}

export function distinct(input: LogicalPlan): Distinct {
  return { kind: 'distinct', input, schema: input.schema };
}

export function subqueryAlias(input: LogicalPlan, alias: string): SubqueryAlias {
  return { kind: 'subqueryAlias', input, alias, schema: input.schema.requalify(alias) };
}

export function timeWindow(
  input: LogicalPlan,
  time: LExpr,
  windowNs: bigint,
  slideNs: bigint,
  originNs: bigint,
  name: string,
  structType: DataType,
): TimeWindow {
  const fields = [...input.schema.fields, { qualifier: undefined, name, type: structType, nullable: false }];
  return { kind: 'timeWindow', input, time, windowNs, slideNs, originNs, schema: new PlanSchema(fields) };
}

export function unnestSeries(input: LogicalPlan, column: number): UnnestSeries {
  const f = input.schema.field(column);
  const [time, value] = f.type.id === 'Struct' ? f.type.fields.map((x) => x.type) : [];
  if (time?.id !== 'List' || value?.id !== 'List') throw bug(`unnestSeries over ${f.name}, not a struct of two lists`);
  const fields = [...input.schema.fields];
  fields.splice(
    column,
    1,
    { qualifier: undefined, name: 'time', type: time.item, nullable: false },
    { qualifier: f.qualifier, name: f.name, type: value.item, nullable: true },
  );
  return { kind: 'unnestSeries', input, column, schema: new PlanSchema(fields) };
}

export function emptyRelation(produceOneRow: boolean): EmptyRelation {
  return { kind: 'empty', produceOneRow, schema: PlanSchema.empty() };
}

/** The inputs of a node. */
export function inputsOf(p: LogicalPlan): LogicalPlan[] {
  switch (p.kind) {
    case 'scan':
    case 'externalScan':
    case 'values':
    case 'empty':
      return [];
    case 'join':
      return [p.left, p.right];
    case 'union':
      return [...p.inputs];
    default:
      return [p.input];
  }
}

/** The same node over new inputs (schemas recomputed where they depend on the inputs). */
export function withInputs(p: LogicalPlan, inputs: readonly LogicalPlan[]): LogicalPlan {
  const one = (): LogicalPlan =>
    inputs[0] ??
    (() => {
      throw bug(`${p.kind} without input`);
    })();
  switch (p.kind) {
    case 'scan':
    case 'externalScan':
    case 'values':
    case 'empty':
      return p;
    case 'projection':
      return { ...p, input: one() };
    case 'filter':
      return { ...p, input: one(), schema: one().schema };
    case 'aggregate':
      return { ...p, input: one() };
    case 'window':
      return { ...p, input: one() };
    case 'sort':
      return { ...p, input: one(), schema: one().schema };
    case 'limit':
      return { ...p, input: one(), schema: one().schema };
    case 'join':
      return { ...p, left: inputs[0]!, right: inputs[1]! };
    case 'union':
      return { ...p, inputs };
    case 'distinct':
      return { ...p, input: one(), schema: one().schema };
    case 'subqueryAlias':
      return { ...p, input: one() };
    case 'timeWindow':
      return { ...p, input: one() };
    case 'gapFill':
      return { ...p, input: one() };
    case 'unnestSeries':
      return { ...p, input: one() };
  }
}

/** The expressions a node evaluates (for rules that inspect them). */
export function expressionsOf(p: LogicalPlan): LExpr[] {
  switch (p.kind) {
    case 'scan':
      return [...p.filters];
    case 'values':
      return p.rows.flat();
    case 'projection':
      return [...p.exprs];
    case 'filter':
      return [p.predicate];
    case 'aggregate':
      return [...p.groupBy, ...p.aggregates];
    case 'window':
      return [...p.windowExprs];
    case 'sort':
      return p.orderBy.map((o) => o.expr);
    case 'join':
      return [...p.on.flat(), ...(p.filter ? [p.filter] : [])];
    case 'timeWindow':
      return [p.time];
    default:
      return [];
  }
}

/** A column reference by qualifier and name (a column or an outer column without its type). */
export interface ColumnName {
  qualifier: string | undefined;
  name: string;
}

/**
 * The columns of enclosing queries that a subquery plan reads (its outerColumn references,
 * anywhere inside it, nested subqueries included), each once.
 */
export function outerReferencesOf(plan: LogicalPlan): ColumnName[] {
  const seen = new Map<string, ColumnName>();
  const walk = (p: LogicalPlan): void => {
    for (const e of expressionsOf(p)) {
      visitExpr(e, (x) => {
        if (x.kind === 'outerColumn')
          seen.set(`${x.qualifier ?? ''}|${x.name}`, { qualifier: x.qualifier, name: x.name });
        if (x.kind === 'scalarSubquery' || x.kind === 'exists' || x.kind === 'inSubquery') walk(x.plan);
      });
    }
    for (const c of inputsOf(p)) walk(c);
  };
  walk(plan);
  return [...seen.values()];
}

/** The outer references of the subqueries in `e` (outerReferencesOf each; repeats possible). */
export function subqueryOuterReferences(e: LExpr): ColumnName[] {
  const out: ColumnName[] = [];
  visitExpr(e, (x) => {
    if (x.kind === 'scalarSubquery' || x.kind === 'exists' || x.kind === 'inSubquery')
      out.push(...outerReferencesOf(x.plan));
  });
  return out;
}

/**
 * The columns an expression reads at its own level: its column references, and the outer
 * references of the subqueries inside it (`v = (SELECT max(x.v) FROM t x WHERE x.g = t.g)`
 * reads t.v and t.g), which are bound from the rows the expression is evaluated on.
 */
export function columnsRead(e: LExpr): ColumnName[] {
  return [...columnsOf(e), ...subqueryOuterReferences(e)];
}

export const BOOLEAN_FIELD = (name: string): PlanField => ({
  qualifier: undefined,
  name,
  type: BOOLEAN,
  nullable: true,
});
