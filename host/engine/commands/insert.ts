// INSERT ... VALUES and INSERT ... SELECT: the source rows are cast to the table's column types
// with CnosDB's insert casts (an integer time is in the database precision, a string time is
// parsed, a float time is an error; 'T' / 'yes' / 1 are TRUE), checked (time not NULL, at least
// one field per row), encoded as one write batch and stored atomically: a bad row stores nothing.

import { checkGeometryValue } from '../../core/geometry/check-geometry.js';
import {
  castVector,
  checkCast,
  getValue,
  isValid,
  type RecordBatch,
  type Scalar,
  type TimeUnit,
  UINT64,
  unitNanos,
  type Vector,
  vectorFrom,
} from '../types/index.js';
import { WriteBatchBuilder, type FieldInput } from '../../core/write-batch-builder.js';
import type { FieldType } from '../../core/write-batch.js';
import type { ColumnInfo, TableInfo } from '../catalog.js';
import { compileExprs } from '../exec/evaluate.js';
import type { ExecContext } from '../exec/exec-plan.js';
import { executionError, semanticError } from '../errors.js';
import { PlanSchema } from '../plan/plan-schema.js';
import { ExprPlanner } from '../planner/expr-planner.js';
import { simplifyExpr } from '../optimizer/simplify-expressions.js';
import { checkValuesWidth, valuesColumnTypes, type QueryPlanner } from '../planner/query-planner.js';
import type * as ast from '../sql/ast.js';
import type { Rows } from './show.js';
import { registerStreamQuery } from './stream-table.js';

export type RunQuery = (plan: ReturnType<QueryPlanner['planQuery']>) => Promise<RecordBatch[]>;

/**
 * The target columns of an INSERT, in the order its source of `width` columns provides them,
 * checked as CnosDB's semantic_check does, in its order: more names than source columns, or no
 * names and a source not as wide as the table (MismatchColumns), then a name the table lacks
 * (MissingColumn, listing the table's columns joined by ",").
 */
export function targetColumns(table: TableInfo, names: readonly string[], width: number): ColumnInfo[] {
  const mismatch = (): Error => semanticError('Insert columns and Source columns not match', 'insertMismatchColumns');
  if (names.length > width || (names.length === 0 && width !== table.columns.length)) throw mismatch();
  for (const n of names) {
    if (!table.columns.some((x) => x.name === n)) {
      throw semanticError(
        `Insert column '${n}' does not exist in target table, expect ${table.columns.map((x) => x.name).join(',')}`,
        'insertMissingColumn',
      );
    }
  }
  if (names.length === 0) return table.columns;
  const seen = new Set<string>();
  const targets = names.map((n) => {
    if (seen.has(n)) throw semanticError(`Column ${n} is specified more than once`);
    seen.add(n);
    return table.columns.find((x) => x.name === n)!;
  });
  if (targets.length !== width) throw mismatch();
  return targets;
}

/** Casts a source column to a target column's type with the insert rules. */
function castTo(v: Vector, c: ColumnInfo): Vector {
  checkCast(v.type, c.type);
  return castVector(v, c.type);
}

export interface InsertOptions {
  /** Leave out rows without a field value instead of failing (UPDATE: NULL changes nothing). */
  skipRowsWithoutFields?: boolean;
}

export async function insert(
  qp: QueryPlanner,
  ctx: ExecContext,
  s: ast.Insert,
  runQuery: RunQuery,
  options: InsertOptions = {},
): Promise<Rows> {
  const { database, table } = qp.resolveTable(s.table, 'write');
  const q = s.source;
  const plainValues =
    q.body.kind === 'values' &&
    q.with === undefined &&
    q.orderBy.length === 0 &&
    q.limit === undefined &&
    q.offset === undefined;
  // The source is planned (VALUES: checked) before the columns are, as in CnosDB.
  let plan: ReturnType<QueryPlanner['planQuery']> | undefined;
  if (plainValues) checkValuesWidth((q.body as ast.Values).rows);
  else plan = qp.planQuery(q, undefined, new Map());
  const targets = targetColumns(table, s.columns, plan?.schema.length ?? (q.body as ast.Values).rows[0]!.length);
  // An INSERT over a stream table is a continuous query: registered, run by the host's timer.
  if (plan !== undefined && qp.streamsRead.length > 0 && qp.ctx.streamRange === undefined)
    return registerStreamQuery(qp, ctx, s, plan);
  // Without a time column every row is stamped with the statement's now(), as CnosDB does.
  const timeColumn = table.columns.find((c) => c.kind === 'time')!;
  const now = targets.includes(timeColumn)
    ? undefined
    : ctx.session.nowNs / unitNanos((timeColumn.type as { unit: TimeUnit }).unit);
  let columns: Vector[];
  let rowCount: number;
  if (plan === undefined) {
    // Each value is cast on its own, so the error names the value that does not fit.
    const planner = new ExprPlanner(qp.scope(PlanSchema.empty(), undefined, new Map(), false));
    const rows = (q.body as ast.Values).rows;
    rowCount = rows.length;
    columns = [];
    const oneRow: RecordBatch = { schema: { fields: [] }, columns: [], length: 1 };
    // The VALUES list is a plan of its own first: its rows must agree on each column's type.
    const planned = rows.map((r) => r.map((e) => planner.plan(e)));
    valuesColumnTypes(planned.map((r) => r.map((e) => e.type)));
    // Then DataFusion's simplifier folds each value: a constant expression that fails (a text that
    // is no timestamp) fails there, in its words, before any value is cast to its column.
    for (const r of planned)
      for (let k = 0; k < r.length; k++) r[k] = simplifyExpr(r[k]!, { nowNs: ctx.session.nowNs });
    for (let k = 0; k < targets.length; k++) {
      const c = targets[k]!;
      const values: Scalar[] = [];
      for (const r of planned) {
        const e = r[k]!;
        checkCast(e.type, c.type);
        const compiled = compileExprs([e], PlanSchema.empty(), ctx);
        if (compiled.needsPrepare) await compiled.prepare(oneRow);
        const cast = castVector(compiled.exprs[0]!.evaluate(oneRow), c.type);
        values.push(isValid(cast, 0) ? getValue(cast, 0) : null);
      }
      columns.push(
        vectorFrom(
          c.type,
          values,
          Uint8Array.from(values, (x) => (x === null ? 0 : 1)),
        ),
      );
    }
  } else {
    const batches = await runQuery(plan);
    rowCount = batches.reduce((n, b) => n + b.length, 0);
    columns = targets.map((c, k) => {
      const parts = batches.map((b) => castTo(b.columns[k]!, c));
      const values: Scalar[] = [];
      for (const p of parts) for (let i = 0; i < p.length; i++) values.push(isValid(p, i) ? getValue(p, i) : null);
      return vectorFrom(
        c.type,
        values,
        Uint8Array.from(values, (x) => (x === null ? 0 : 1)),
      );
    });
  }
  await storeRows(ctx, database, table, targets, columns, rowCount, now, options);
  return { fields: [{ name: 'rows', type: UINT64 }], rows: [[BigInt(rowCount)]] };
}

/**
 * Stores `rowCount` rows of `columns` (already of the `targets`' types) into `table` as one write
 * batch, atomically; `now` stamps every row when the targets lack the time column.
 */
export async function storeRows(
  ctx: ExecContext,
  database: string,
  table: TableInfo,
  targets: readonly ColumnInfo[],
  columns: readonly Vector[],
  rowCount: number,
  now: bigint | undefined,
  options: InsertOptions = {},
): Promise<void> {
  const timeColumn = table.columns.find((c) => c.kind === 'time')!;
  // GEOMETRY columns take only WKT of their sub type; checked before anything is written.
  targets.forEach((c, k) => {
    if (c.geometry === undefined) return;
    const v = columns[k]!;
    for (let i = 0; i < rowCount; i++) if (isValid(v, i)) checkGeometryValue(c.geometry, getValue(v, i) as string);
  });
  if (rowCount > 0) {
    const builder = new WriteBatchBuilder();
    const timeIndex = targets.indexOf(timeColumn);
    let written = 0;
    for (let i = 0; i < rowCount; i++) {
      const ts = now ?? getValue(columns[timeIndex]!, i);
      if (ts === null) throw executionError('Insert error: the time column cannot be NULL');
      const tags: [string, string][] = [];
      const fields: FieldInput[] = [];
      targets.forEach((c, k) => {
        const v = getValue(columns[k]!, i);
        if (v === null || c.kind === 'time') return;
        if (c.kind === 'tag') tags.push([c.name, v as string]);
        else fields.push({ name: c.name, type: c.valueType as FieldType, value: v as FieldInput['value'] });
      });
      if (fields.length === 0) {
        if (options.skipRowsWithoutFields === true) continue;
        throw executionError("Coordinator: Fields can't be empty");
      }
      builder.addRow(table.name, tags, ts as bigint, fields);
      written++;
    }
    if (written > 0) await ctx.catalog.write(database, [builder.finish()]);
  }
}
