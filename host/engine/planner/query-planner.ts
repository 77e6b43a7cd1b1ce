// Query -> logical plan: WITH (CTEs planned once, referenced by name), the body (SELECT, VALUES,
// UNION / INTERSECT / EXCEPT, a parenthesised query), ORDER BY and LIMIT/OFFSET. Tables resolve
// in the session's database unless qualified; missing ones give CnosDB's errors.

import type { EngineCatalog, ExternalTableInfo, StreamTableInfo, TableInfo } from '../catalog.js';
import { notImplemented, planError } from '../errors.js';
import type { LExpr, SortExpr } from '../plan/expr.js';
import type { LogicalPlan } from '../plan/logical-plan.js';
import { distinct, filter, join, limit, projection, sort, union } from '../plan/logical-plan.js';
import { PlanSchema, type PlanField } from '../plan/plan-schema.js';
import type * as ast from '../sql/ast.js';
import { BOOLEAN, commonType, type DataType, NULL, typeEquals, typeName, unitNanos } from '../types/index.js';
import { coerce, ExprPlanner, type Scope } from './expr-planner.js';
import { renameColumns } from './from-planner.js';
import type { Ctes, StatementPlanner } from './statement-planner.js';
import { planSelect } from './select-planner.js';
import { StatementErrors } from './deferred-errors.js';
import { simplifyExpressions } from '../optimizer/simplify-expressions.js';
import type { SystemInfo } from '../system/system-info.js';
import { isForeignClusterView, planSystemView } from '../system/system-views.js';

export interface PlannerContext {
  readonly catalog: EngineCatalog;
  readonly tenant: string;
  /** The database unqualified table names resolve in. */
  readonly database: string;
  /** Privilege check for every table a statement reads (QuerySession.authorize). */
  readonly authorize?: (database: string, need: 'read' | 'write' | 'all') => void;
  /** `@@name` variables (QuerySession.variables). */
  readonly variables?: Readonly<Record<string, string | bigint>>;
  /** The host's lists for the system views (QuerySession.system). */
  readonly system?: SystemInfo;
  /** A stream query's run: a stream table reads only its source's rows of these event times (ns, from inclusive). */
  readonly streamRange?: { readonly fromNs: bigint | null; readonly toNs: bigint };
}

import { databaseNotFound, tableNotFound } from '../../core/meta-errors.js';

export { databaseNotFound, tableNotFound };

export class QueryPlanner implements StatementPlanner {
  readonly ctx: PlannerContext;
  /**
   * False once the plan embeds what planning read from the session rather than the catalog
   * (a system view's rows, an @@variable): such a plan is not reused (plan-cache.ts).
   */
  cacheable = true;
  /** The statement's type errors DataFusion reports only after building its plan. */
  #late = new StatementErrors();
  /** The stream tables the statement reads (an INSERT over one registers a stream query). */
  readonly streamsRead: StreamTableInfo[] = [];
  /** Nesting of planQuery calls: the statement's plan is complete when it returns to 0. */
  #depth = 0;

  constructor(ctx: PlannerContext) {
    this.ctx = ctx;
  }

  get lateErrors(): StatementErrors {
    return this.#late;
  }

  /**
   * A scope over `schema` whose subqueries are planned by this planner. Every field is present
   * (undefined when unset), so that the scopes derived from it by `{ ...scope, clause }` replace
   * fields and keep one hidden class: V8 (Node 20) gives an object literal that adds a property
   * after a spread a hidden class of its own every time (core/scan.ts, scanRequest).
   */
  scope(schema: PlanSchema, outer: Scope | undefined, ctes: Ctes, allowAggregates: boolean): Scope {
    return {
      schema,
      outer,
      planSubquery: (q, o) => this.planQuery(q, o, ctes),
      allowAggregates,
      allowWindows: false,
      replacements: undefined,
      windows: undefined,
      variable: (name) => {
        this.cacheable = false;
        return this.ctx.variables !== undefined && Object.hasOwn(this.ctx.variables, name)
          ? this.ctx.variables[name]
          : undefined;
      },
      lateErrors: undefined,
      clause: undefined,
      analyzed: undefined,
    };
  }

  /** Whether the session may read a database (system views list only those). */
  canRead(database: string): boolean {
    try {
      this.ctx.authorize?.(database, 'read');
      return true;
    } catch {
      return false;
    }
  }

  /** Resolves `[db.]table` to its database and TableInfo, or throws CnosDB's error. */
  resolveTable(
    name: readonly string[],
    need: 'read' | 'write' | 'all' = 'read',
  ): { database: string; table: TableInfo } {
    let db = this.ctx.database;
    let t: string;
    if (name.length === 1) t = name[0]!;
    else if (name.length === 2) [db, t] = name as [string, string];
    else if (name.length === 3) {
      if (name[0] !== this.ctx.tenant) throw planError(`Table name ${name.join('.')} refers to another tenant`);
      [, db, t] = name as [string, string, string];
    } else throw planError(`Invalid table name ${name.join('.')}`);
    this.ctx.authorize?.(db, need);
    if (this.ctx.catalog.database(db) === undefined) throw databaseNotFound(db);
    const table = this.ctx.catalog.table(db, t);
    if (table === undefined && this.ctx.catalog.externalTable?.(db, t) !== undefined) {
      throw notImplemented(
        `the external table ${db}.${t} in this statement: it is read-only, and has no series or time column`,
      );
    }
    if (table === undefined && this.ctx.catalog.streamTable?.(db, t) !== undefined) {
      throw notImplemented(
        `the stream table ${db}.${t} in this statement: it is read by INSERT ... SELECT (a stream query) or SELECT only`,
      );
    }
    if (table === undefined) throw tableNotFound(this.ctx.tenant, db, t);
    return { database: db, table };
  }

  /** The external table `[db.]table` names, if it is one (read: the session must read its database). */
  #external(name: readonly string[]): ExternalTableInfo | undefined {
    if (name.length < 1 || name.length > 3 || (name.length === 3 && name[0] !== this.ctx.tenant)) return undefined;
    const db = name.length === 1 ? this.ctx.database : name[name.length - 2]!;
    const t = this.ctx.catalog.externalTable?.(db, name[name.length - 1]!);
    if (t !== undefined) this.ctx.authorize?.(db, 'read');
    return t;
  }

  #stream(name: readonly string[]): StreamTableInfo | undefined {
    if (name.length < 1 || name.length > 2) return undefined;
    const db = name.length === 1 ? this.ctx.database : name[0]!;
    return this.ctx.catalog.streamTable?.(db, name[name.length - 1]!);
  }

  /** A stream table reads its source table (under the stream's qualifier); in a stream query's run, only the run's event times. */
  #streamScan(stream: StreamTableInfo, qualifier: string): LogicalPlan {
    this.streamsRead.push(stream);
    this.cacheable = false;
    const plan = this.scan([stream.sourceDatabase, stream.sourceTable], qualifier);
    const range = this.ctx.streamRange;
    if (range === undefined) return plan;
    const field = plan.schema.fields.find((f) => f.name === stream.eventTimeColumn)!;
    const type = field.type;
    const per = type.id === 'Timestamp' ? unitNanos(type.unit) : 1n;
    const column: LExpr = { kind: 'column', qualifier, name: stream.eventTimeColumn, type };
    const bound = (op: '>=' | '<', ns: bigint): LExpr => ({
      kind: 'binary',
      op,
      left: column,
      right: { kind: 'literal', value: ns / per, type },
      type: BOOLEAN,
    });
    const upper = bound('<', range.toNs);
    return filter(
      plan,
      range.fromNs === null
        ? upper
        : { kind: 'binary', op: 'AND', left: bound('>=', range.fromNs), right: upper, type: BOOLEAN },
    );
  }

  /** A full scan of a table under its qualifier (the alias, else the name as written). */
  scan(name: readonly string[], alias: string | undefined): LogicalPlan {
    const qualifier = alias ?? name.join('.');
    const view = planSystemView(
      {
        catalog: this.ctx.catalog,
        tenant: this.ctx.tenant,
        canRead: (db) => this.canRead(db),
        system: this.ctx.system,
      },
      name,
      qualifier,
    );
    if (view !== undefined) {
      this.cacheable = false;
      return view;
    }
    // Another tenant's cluster_schema is a database of its own when it created one.
    if (
      isForeignClusterView(name, this.ctx.tenant) &&
      this.ctx.catalog.database(name[name.length - 2]!) === undefined
    ) {
      throw tableNotFound(this.ctx.tenant, 'cluster_schema', name[name.length - 1]!);
    }
    const stream = this.#stream(name);
    if (stream !== undefined) return this.#streamScan(stream, qualifier);
    const external = this.#external(name);
    if (external !== undefined) {
      const schema = new PlanSchema(
        external.columns.map((c) => ({ qualifier, name: c.name, type: c.type, nullable: true })),
      );
      return { kind: 'externalScan', table: external, qualifier, schema };
    }
    const { database, table } = this.resolveTable(name);
    const fields: PlanField[] = table.columns.map((c) => ({
      qualifier,
      name: c.name,
      type: c.type,
      nullable: c.kind !== 'time',
    }));
    return {
      kind: 'scan',
      database,
      table,
      qualifier,
      projection: table.columns.map((c) => c.name),
      filters: [],
      fetch: undefined,
      schema: new PlanSchema(fields),
    };
  }

  /** Plans a query; at the statement's top, then throws the first late type error (deferred-errors.ts). */
  planQuery(q: ast.Query, outer: Scope | undefined, parentCtes: Ctes): LogicalPlan {
    if (this.#depth === 0) this.#late = new StatementErrors();
    this.#depth++;
    let plan: LogicalPlan;
    try {
      plan = this.#planQuery(q, outer, parentCtes);
    } finally {
      this.#depth--;
    }
    // Before a physical-planning error, the optimizer's own (a constant that fails to fold).
    if (this.#depth === 0) this.#late.throwFirst(() => simplifyExpressions.rewrite(plan, { nowNs: 0n }));
    return plan;
  }

  #planQuery(q: ast.Query, outer: Scope | undefined, parentCtes: Ctes): LogicalPlan {
    let ctes: Ctes = parentCtes;
    if (q.with !== undefined) {
      if (q.with.recursive) throw planError('Recursive CTEs are not supported');
      const m = new Map(parentCtes);
      for (const cte of q.with.ctes) {
        if (m.has(cte.name) && !parentCtes.has(cte.name))
          throw planError(`WITH query name "${cte.name}" specified more than once`);
        m.set(cte.name, renameColumns(this.planQuery(cte.query, outer, m), cte.columns, cte.name));
      }
      ctes = m;
    }
    let plan: LogicalPlan;
    if (q.body.kind === 'select') plan = planSelect(this, q.body, q.orderBy, outer, ctes);
    else {
      plan = this.planBody(q.body, outer, ctes);
      if (q.orderBy.length > 0) plan = this.orderByOutput(plan, q.orderBy, outer, ctes);
    }
    if (q.limit !== undefined || q.offset !== undefined) {
      const fetch = q.limit === undefined ? undefined : this.count(q.limit, 'LIMIT');
      const skip = q.offset === undefined ? 0 : this.count(q.offset, 'OFFSET');
      plan = limit(plan, skip, fetch);
    }
    return plan;
  }

  count(e: ast.Expr, what: string): number {
    if (e.kind === 'number' && /^\d+$/.test(e.text)) return Number(e.text);
    if (e.kind === 'unary' && e.op === '-' && e.expr.kind === 'number') throw planError(`${what} must not be negative`);
    throw planError(`${what} must be a non-negative integer literal`);
  }

  /** ORDER BY on a body other than SELECT: output columns, positions, or expressions over them. */
  orderByOutput(
    plan: LogicalPlan,
    orderBy: readonly ast.OrderByExpr[],
    outer: Scope | undefined,
    ctes: Ctes,
  ): LogicalPlan {
    const planner = new ExprPlanner(this.scope(plan.schema, outer, ctes, false));
    const keys: SortExpr[] = orderBy.map((o) => {
      const asc = o.asc ?? true;
      const nullsFirst = o.nullsFirst ?? !asc;
      if (o.expr.kind === 'number' && /^\d+$/.test(o.expr.text)) {
        const k = Number(o.expr.text);
        if (k < 1 || k > plan.schema.length)
          throw planError(`Order by column out of bounds, specified: ${k}, max: ${plan.schema.length}`);
        const f = plan.schema.field(k - 1);
        return { expr: { kind: 'column', qualifier: f.qualifier, name: f.name, type: f.type }, asc, nullsFirst };
      }
      return { expr: planner.plan(o.expr), asc, nullsFirst };
    });
    return sort(plan, keys);
  }

  planBody(body: ast.QueryBody, outer: Scope | undefined, ctes: Ctes): LogicalPlan {
    switch (body.kind) {
      case 'select':
        return planSelect(this, body, [], outer, ctes);
      case 'nestedQuery':
        return this.planQuery(body.query, outer, ctes);
      case 'values':
        return this.planValues(body, outer, ctes);
      case 'setOperation':
        return this.planSetOperation(body, outer, ctes);
    }
  }

  planValues(v: ast.Values, outer: Scope | undefined, ctes: Ctes): LogicalPlan {
    checkValuesWidth(v.rows);
    const planner = new ExprPlanner(this.scope(PlanSchema.empty(), outer, ctes, false));
    const rows = v.rows.map((r) => r.map((e) => planner.plan(e)));
    const types = valuesColumnTypes(rows.map((r) => r.map((e) => e.type)));
    const fields: PlanField[] = types.map((type, c) => ({
      qualifier: undefined,
      name: `column${c + 1}`,
      type,
      nullable: true,
    }));
    return {
      kind: 'values',
      rows: rows.map((r) => r.map((e, c) => coerce(e, types[c]!))),
      schema: new PlanSchema(fields),
    };
  }

  /** Casts the columns of a plan to `types` where they differ. */
  castColumns(plan: LogicalPlan, types: readonly DataType[]): LogicalPlan {
    if (plan.schema.fields.every((f, i) => typeEquals(f.type, types[i]!))) return plan;
    const exprs: LExpr[] = plan.schema.fields.map((f, i) => {
      const c: LExpr = { kind: 'column', qualifier: f.qualifier, name: f.name, type: f.type };
      return typeEquals(f.type, types[i]!)
        ? c
        : { kind: 'alias', expr: coerce(c, types[i]!), name: f.name, type: types[i]! };
    });
    return projection(plan, exprs);
  }

  planSetOperation(s: ast.SetOperation, outer: Scope | undefined, ctes: Ctes): LogicalPlan {
    const left = this.planBody(s.left, outer, ctes);
    const right = this.planBody(s.right, outer, ctes);
    if (left.schema.length !== right.schema.length) {
      throw planError(
        `${s.op} queries must have the same number of columns, (left is ${left.schema.length}, (right is ${right.schema.length})`,
      );
    }
    const types = left.schema.fields.map((f, i) => {
      const t = commonType([f.type, right.schema.field(i).type]);
      if (t === undefined)
        throw planError(
          `${s.op} Column ${f.name} (type: ${typeName(f.type)}) is not compatible with column ${right.schema.field(i).name} (type: ${typeName(right.schema.field(i).type)})`,
        );
      return t;
    });
    const l = this.castColumns(left, types);
    const r = this.castColumns(right, types);
    if (s.op === 'UNION') {
      const inputs = [...(l.kind === 'union' && s.all ? l.inputs : [l]), r];
      const u = union(inputs);
      return s.all ? u : distinct(u);
    }
    // INTERSECT / EXCEPT: a semi / anti join on every column, NULLs equal.
    const keys: [LExpr, LExpr][] = l.schema.fields.map((f, i) => {
      const rf = r.schema.field(i);
      return [
        { kind: 'column', qualifier: f.qualifier, name: f.name, type: f.type },
        { kind: 'column', qualifier: rf.qualifier, name: rf.name, type: rf.type },
      ];
    });
    const j = { ...join(l, r, s.op === 'INTERSECT' ? 'SEMI' : 'ANTI', keys, undefined), nullEqualsNull: true };
    return s.all ? j : distinct(j);
  }
}

/**
 * The type of each column of a VALUES list, as DataFusion 27's LogicalPlanBuilder::values finds
 * it: every non-NULL value of a column must have the same type, no coercion (`VALUES (1), (0.5)`
 * fails "at row 1 column 0"); a column of NULLs only is Null.
 */
export function valuesColumnTypes(rows: readonly (readonly DataType[])[]): DataType[] {
  const width = rows[0]?.length ?? 0;
  const types: (DataType | undefined)[] = new Array<DataType | undefined>(width).fill(undefined);
  rows.forEach((row, i) => {
    row.forEach((t, j) => {
      if (t.id === 'Null') return;
      const prev = types[j];
      if (prev !== undefined && !typeEquals(prev, t))
        throw planError(`Inconsistent data type across values list at row ${i} column ${j}`);
      types[j] = t;
    });
  });
  return types.map((t) => t ?? NULL);
}

/** DataFusion's check of a VALUES list before anything in it is planned: every row as wide as the first. */
export function checkValuesWidth(rows: readonly (readonly unknown[])[]): void {
  const width = rows[0]!.length;
  rows.forEach((r, i) => {
    if (r.length !== width)
      throw planError(
        `Inconsistent data length across values list: got ${r.length} values in row ${i} but expected ${width}`,
      );
  });
}
