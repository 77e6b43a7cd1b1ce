// UPDATE t SET c = e, ... WHERE ..., as CnosDB defines it for a time-series table:
// - A WHERE is required (CnosDB: "Disable updating of the entire table"); `WHERE true` says so.
// - Fields: every row the WHERE selects is written again at its own time and series with the new
//   field values. A point merges field by field, so the other fields keep their values and a NULL
//   leaves its field unchanged ("set null is equivalent to no modification"). The answer is the
//   number of rows selected.
// - Tags: a series is renamed. The WHERE may read only tags, and the new values must be constants
//   (CnosDB: "set value not contains table column", "not contains time/field column"), evaluated
//   once to a string: a boolean as `true`/`false` (CnosDB stores the literal's text), anything
//   else with CAST's text, NULL removes the tag. The rows of every selected series are written
//   under the new tag values, then the old series are deleted; a crash in between leaves both
//   copies, never neither.
// Fields and tags cannot be updated in one statement. Both steps run as INSERT ... SELECT and
// DELETE statements, printed and parsed again, so they share their casts and checks; every part
// is planned and type-checked before the first write, so a statement that fails changes nothing.

import { castVector, checkCast, getValue, isValid, type RecordBatch, sqlTypeName, UTF8 } from '../types/index.js';
import { compileExprs } from '../exec/evaluate.js';
import { planError, semanticError } from '../errors.js';
import type { ExecContext } from '../exec/exec-plan.js';
import { columnsOf, type LExpr } from '../plan/expr.js';
import { simplifyExpr } from '../optimizer/simplify-expressions.js';
import { PlanSchema, type PlanField } from '../plan/plan-schema.js';
import { ExprPlanner } from '../planner/expr-planner.js';
import type { QueryPlanner } from '../planner/query-planner.js';
import type * as ast from '../sql/ast.js';
import { parseStatements } from '../sql/parser.js';
import { printExpr, printObjectName, printString, quoteIdent } from '../sql/printer-expressions.js';
import { prepareDelete } from './delete.js';
import { insert, type RunQuery } from './insert.js';
import type { Rows } from './show.js';

function parseOne<K extends ast.Statement['kind']>(sql: string, kind: K): Extract<ast.Statement, { kind: K }> {
  const s = parseStatements(sql)[0];
  if (s?.kind !== kind) throw new Error(`BUG: UPDATE built a statement that is not ${kind}: ${sql}`);
  return s as Extract<ast.Statement, { kind: K }>;
}

export async function update(qp: QueryPlanner, ctx: ExecContext, s: ast.Update, runQuery: RunQuery): Promise<Rows> {
  const { table } = qp.resolveTable(s.table, 'write');
  const kinds = new Map(table.columns.map((c) => [c.name, c.kind]));
  const set = new Map<string, ast.Expr>();
  for (const a of s.assignments) {
    const kind = kinds.get(a.column);
    if (kind === undefined) {
      throw semanticError(
        `Column ${a.column} not found in table ${table.name}. Valid columns are ${table.columns.map((c) => `${table.name}.${c.name}`).join(', ')}`,
      );
    }
    if (set.has(a.column)) throw semanticError(`Column ${a.column} is assigned more than once`);
    set.set(a.column, a.value);
  }
  // CnosDB plans the new values and the WHERE over the table's unqualified columns: an unknown
  // name is "No field named t. Valid fields are time, t0, ..." before anything runs; then a
  // missing WHERE fails (sql/planner.rs update_to_plan), then the analyzer's shape checks.
  const bare = new ExprPlanner(
    qp.scope(
      new PlanSchema(table.columns.map((c) => ({ qualifier: undefined, name: c.name, type: c.type, nullable: true }))),
      undefined,
      new Map(),
      false,
    ),
  );
  for (const value of set.values()) bare.plan(value);
  if (s.where === undefined)
    throw planError('Disable updating of the entire table, if you want to continue, please add `where true`');
  bare.plan(s.where);
  if ([...set.keys()].some((c) => kinds.get(c) === 'time')) throw semanticError('Update time column is not supported');
  const setKinds = new Set([...set.keys()].map((c) => kinds.get(c)));
  if (setKinds.size > 1) throw semanticError('Update tag and field columns at the same time is not supported');
  const name = printObjectName(s.table);
  const where = ` WHERE ${printExpr(s.where)}`;

  if (setKinds.has('field')) {
    const targets = ['time', ...table.columns.filter((c) => c.kind === 'tag').map((c) => c.name), ...set.keys()];
    // Each new value is cast to its column's type in the projection, so a constant that does not
    // fit fails where DataFusion's simplifier folds the cast ("Can't cast value -3 to type UInt64").
    const castTo = (c: string): string | undefined => {
      const col = table.columns.find((x) => x.name === c)!;
      return col.geometry === undefined ? sqlTypeName(col.type) : undefined;
    };
    const newValue = (c: string): string => {
      const text = printExpr(set.get(c)!);
      const type = castTo(c);
      return type === undefined ? text : `CAST(${text} AS ${type})`;
    };
    const values = targets.map((c) => (set.has(c) ? newValue(c) : quoteIdent(c)));
    // One INSERT: it plans, runs its SELECT and casts every row before its one atomic write.
    const sql = `INSERT INTO ${name} (${targets.map(quoteIdent).join(', ')}) SELECT ${values.join(', ')} FROM ${name}${where}`;
    return insert(qp, ctx, parseOne(sql, 'insert'), runQuery, { skipRowsWithoutFields: true });
  }

  // Tags: check the statement's shape before anything is written.
  const fields: PlanField[] = table.columns.map((c) => ({
    qualifier: name,
    name: c.name,
    type: c.type,
    nullable: true,
  }));
  const planner = new ExprPlanner(qp.scope(new PlanSchema(fields), undefined, new Map(), false));
  const newTags = new Map<string, string | null>();
  for (const [column, value] of set) {
    const planned = planner.plan(value);
    if (columnsOf(planned).length > 0)
      throw semanticError(`Updating tag ${column}: the new value must not read a column`);
    newTags.set(column, await tagText(planned, ctx));
  }
  for (const c of columnsOf(planner.plan(s.where))) {
    if (kinds.get(c.name) !== 'tag')
      throw semanticError(`Updating tags: the WHERE clause may only read tag columns, not ${c.name}`);
  }
  const tags = table.columns.filter((c) => c.kind === 'tag').map((c) => c.name);
  if (tags.every((t) => newTags.has(t) && newTags.get(t) === null)) {
    throw semanticError('Updating tags: a series needs at least one tag that is not NULL');
  }
  const literal = (v: string | null): string => (v === null ? 'NULL' : printString(v));
  // Delete the old series only: a selected series whose tags already had the new values is the
  // new series itself. Planned before the copy is written, so that a DELETE that cannot run
  // fails the statement while nothing has changed.
  const changed = [...newTags].map(([c, v]) => `${quoteIdent(c)} IS DISTINCT FROM ${literal(v)}`).join(' OR ');
  const removeOld = prepareDelete(
    qp,
    ctx,
    parseOne(`DELETE FROM ${name} WHERE (${printExpr(s.where)}) AND (${changed})`, 'delete'),
    { computedTags: true },
  );
  const targets = table.columns.map((c) => c.name);
  const values = targets.map((c) => (newTags.has(c) ? literal(newTags.get(c)!) : quoteIdent(c)));
  const copy = `INSERT INTO ${name} (${targets.map(quoteIdent).join(', ')}) SELECT ${values.join(', ')} FROM ${name}${where}`;
  const rows = await insert(qp, ctx, parseOne(copy, 'insert'), runQuery, { skipRowsWithoutFields: true });
  await removeOld();
  return rows;
}

/** A tag's new value, evaluated once: its text, or null to remove the tag. */
async function tagText(value: LExpr, ctx: ExecContext): Promise<string | null> {
  checkCast(value.type, UTF8);
  const folded = simplifyExpr(value, { nowNs: ctx.session.nowNs });
  const compiled = compileExprs([folded], PlanSchema.empty(), ctx);
  const oneRow: RecordBatch = { schema: { fields: [] }, columns: [], length: 1 };
  if (compiled.needsPrepare) await compiled.prepare(oneRow);
  const v = compiled.exprs[0]!.evaluate(oneRow);
  if (!isValid(v, 0)) return null;
  const scalar = getValue(v, 0);
  // CAST(true AS STRING) is '1' (arrow 42's text); CnosDB stores a boolean literal as its words.
  if (typeof scalar === 'boolean') return scalar ? 'true' : 'false';
  const text = castVector(v, UTF8);
  return getValue(text, 0) as string;
}
