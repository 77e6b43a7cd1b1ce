// UPDATE t SET c = e, ... [WHERE ...], as CnosDB defines it for a time-series table:
// - Fields: every row the WHERE selects is written again at its own time and series with the new
//   field values. A point merges field by field, so the other fields keep their values and a NULL
//   leaves its field unchanged ("set null is equivalent to no modification"). The answer is the
//   number of rows selected.
// - Tags: a series is renamed. The WHERE may read only tags, and the new values must be constants
//   (CnosDB: "set value not contains table column", "not contains time/field column"). The rows of
//   every selected series are written under the new tag values, then the old series are deleted;
//   a crash in between leaves both copies, never neither.
// Fields and tags cannot be updated in one statement. Both steps run as INSERT ... SELECT and
// DELETE statements, printed and parsed again, so they share their casts and checks.

import { semanticError } from '../errors.js';
import type { ExecContext } from '../exec/exec-plan.js';
import { columnsOf } from '../plan/expr.js';
import { PlanSchema, type PlanField } from '../plan/plan-schema.js';
import { ExprPlanner } from '../planner/expr-planner.js';
import type { QueryPlanner } from '../planner/query-planner.js';
import type * as ast from '../sql/ast.js';
import { sqlTypeName } from '../types.js';
import { parseStatements } from '../sql/parser.js';
import { printExpr, printObjectName, quoteIdent } from '../sql/printer-expressions.js';
import { deleteRows } from './delete.js';
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
      throw semanticError(`Column ${a.column} not found in table ${table.name}. Valid columns are ${table.columns.map((c) => `${table.name}.${c.name}`).join(', ')}`);
    }
    if (kind === 'time') throw semanticError('Update time column is not supported');
    if (set.has(a.column)) throw semanticError(`Column ${a.column} is assigned more than once`);
    set.set(a.column, a.value);
  }
  const setKinds = new Set([...set.keys()].map((c) => kinds.get(c)));
  if (setKinds.size > 1) throw semanticError('Update tag and field columns at the same time is not supported');
  // CnosDB plans the new values and the WHERE over the table's unqualified columns: an unknown
  // name is "No field named t. Valid fields are time, t0, ..." before anything runs.
  const bare = new ExprPlanner(qp.scope(new PlanSchema(table.columns.map((c) => ({ qualifier: undefined, name: c.name, type: c.type, nullable: true }))), undefined, new Map(), false));
  for (const value of set.values()) bare.plan(value);
  if (s.where !== undefined) bare.plan(s.where);
  const name = printObjectName(s.table);
  const where = s.where === undefined ? '' : ` WHERE ${printExpr(s.where)}`;

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
    const sql = `INSERT INTO ${name} (${targets.map(quoteIdent).join(', ')}) SELECT ${values.join(', ')} FROM ${name}${where}`;
    return insert(qp, ctx, parseOne(sql, 'insert'), runQuery, { skipRowsWithoutFields: true });
  }

  // Tags: check the statement's shape before anything is written.
  const fields: PlanField[] = table.columns.map((c) => ({ qualifier: name, name: c.name, type: c.type, nullable: true }));
  const planner = new ExprPlanner(qp.scope(new PlanSchema(fields), undefined, new Map(), false));
  for (const [column, value] of set) {
    if (columnsOf(planner.plan(value)).length > 0) throw semanticError(`Updating tag ${column}: the new value must not read a column`);
  }
  if (s.where !== undefined) {
    for (const c of columnsOf(planner.plan(s.where))) {
      if (kinds.get(c.name) !== 'tag') throw semanticError(`Updating tags: the WHERE clause may only read tag columns, not ${c.name}`);
    }
  }
  const tags = table.columns.filter((c) => c.kind === 'tag').map((c) => c.name);
  if (tags.every((t) => set.get(t)?.kind === 'null')) {
    throw semanticError('Updating tags: a series needs at least one tag that is not NULL');
  }
  const targets = table.columns.map((c) => c.name);
  const values = targets.map((c) => (set.has(c) ? printExpr(set.get(c)!) : quoteIdent(c)));
  const copy = `INSERT INTO ${name} (${targets.map(quoteIdent).join(', ')}) SELECT ${values.join(', ')} FROM ${name}${where}`;
  const rows = await insert(qp, ctx, parseOne(copy, 'insert'), runQuery, { skipRowsWithoutFields: true });
  // Delete the old series only: a selected series whose tags already had the new values is the
  // new series itself.
  const changed = [...set].map(([c, v]) => `${quoteIdent(c)} IS DISTINCT FROM ${printExpr(v)}`).join(' OR ');
  const cond = s.where === undefined ? `(${changed})` : `(${printExpr(s.where)}) AND (${changed})`;
  await deleteRows(qp, ctx, parseOne(`DELETE FROM ${name} WHERE ${cond}`, 'delete'));
  return rows;
}
