// SHOW DATABASES / TABLES / SERIES / TAG VALUES and DESCRIBE DATABASE / TABLE, with CnosDB's
// column names and types. SHOW SERIES and TAG VALUES read series keys, not data, unless their
// WHERE bounds time (then only series with rows in that range count); their WHERE may test
// tags and time only, and ORDER BY may name only their own columns.

import {
  BOOLEAN,
  compareStrings,
  type DataType,
  formatBytes,
  formatDuration,
  type RecordBatch,
  type Scalar,
  typeName,
  UINT64,
  UTF8,
  vectorFrom,
} from '../types/index.js';
import { columnTypeName, type EngineCatalog, type ExternalTableInfo, type TableInfo } from '../catalog.js';
import type { ExecContext } from '../exec/exec-plan.js';
import { analyzeScanPredicates, seriesFilter } from '../exec/scan-predicates.js';
import { planError, semanticError } from '../errors.js';
import { columnsOf, type LExpr } from '../plan/expr.js';
import { PlanSchema, type PlanField } from '../plan/plan-schema.js';
import { ExprPlanner } from '../planner/expr-planner.js';
import { databaseNotFound, tableNotFound, type QueryPlanner } from '../planner/query-planner.js';
import type * as ast from '../sql/ast.js';
import type { SystemDatabase } from '../system/system-views.js';

export interface Rows {
  fields: { name: string; type: DataType }[];
  rows: Scalar[][];
}

/** A result set as one batch. */
export function rowsBatch(r: Rows): RecordBatch {
  const schema = { fields: r.fields.map((f) => ({ name: f.name, type: f.type, nullable: true })) };
  const columns = r.fields.map((f, c) => {
    const values = r.rows.map((row) => row[c] ?? null);
    return vectorFrom(
      f.type,
      values,
      Uint8Array.from(values, (v) => (v === null ? 0 : 1)),
    );
  });
  return { schema, columns, length: r.rows.length };
}

/** The databases `visible` lets through (the session's readable ones) and `system`, sorted. */
export function showDatabases(
  catalog: EngineCatalog,
  visible: (name: string) => boolean = () => true,
  system?: SystemDatabase,
): Rows {
  const names = catalog.databases().map((d) => d.name);
  if (system !== undefined && !names.includes(system.name)) names.push(system.name);
  return {
    fields: [{ name: 'database_name', type: UTF8 }],
    rows: names
      .filter(visible)
      .sort(compareStrings)
      .map((n) => [n]),
  };
}

export function showTables(
  catalog: EngineCatalog,
  s: ast.ShowTables,
  defaultDb: string,
  system?: SystemDatabase,
): Rows {
  const db = s.database ?? defaultDb;
  const fields = [{ name: 'table_name', type: UTF8 }];
  if (system !== undefined && db === system.name && catalog.database(db) === undefined)
    return { fields, rows: system.tables.map((n) => [n]) };
  if (catalog.database(db) === undefined) throw databaseNotFound(db);
  const names = [...catalog.tables(db), ...(catalog.externalTables?.(db) ?? []), ...(catalog.streamTables?.(db) ?? [])]
    .map((t) => t.name)
    .sort(compareStrings);
  return { fields, rows: names.map((n) => [n]) };
}

export function describeTable(catalog: EngineCatalog, s: ast.DescribeTable, defaultDb: string, tenant: string): Rows {
  const db = s.name.length > 1 ? s.name[s.name.length - 2]! : defaultDb;
  const name = s.name[s.name.length - 1]!;
  if (catalog.database(db) === undefined) throw databaseNotFound(db);
  const t = catalog.table(db, name);
  const external = t === undefined ? catalog.externalTable?.(db, name) : undefined;
  if (external !== undefined) return describeExternalTable(external);
  if (t === undefined) throw tableNotFound(tenant, db, name);
  return {
    fields: ['column_name', 'data_type', 'column_type', 'compression_codec'].map((n) => ({ name: n, type: UTF8 })),
    rows: t.columns.map((c) => [c.name, columnTypeName(c), c.kind.toUpperCase(), c.codec]),
  };
}

/** DESCRIBE of an external table: CnosDB shows its Arrow schema, names and Arrow type names. */
function describeExternalTable(t: ExternalTableInfo): Rows {
  return {
    fields: ['column_name', 'data_type'].map((n) => ({ name: n, type: UTF8 })),
    rows: t.columns.map((c) => [c.name, typeName(c.type)]),
  };
}

export function describeDatabase(catalog: EngineCatalog, s: ast.DescribeDatabase): Rows {
  const db = catalog.database(s.name);
  if (db === undefined) throw databaseNotFound(s.name);
  const o = db.options;
  const fields: { name: string; type: DataType }[] = [
    { name: 'ttl', type: UTF8 },
    { name: 'shard', type: UINT64 },
    { name: 'vnode_duration', type: UTF8 },
    { name: 'replica', type: UINT64 },
    { name: 'precision', type: UTF8 },
    { name: 'max_memcache_size', type: UTF8 },
    { name: 'memcache_partitions', type: UINT64 },
    { name: 'wal_max_file_size', type: UTF8 },
    { name: 'wal_sync', type: BOOLEAN },
    { name: 'strict_write', type: BOOLEAN },
    { name: 'max_cache_readers', type: UINT64 },
  ];
  const row: Scalar[] = [
    formatDuration(o.ttlMs),
    BigInt(o.shard),
    formatDuration(o.vnodeDurationMs),
    BigInt(o.replica),
    o.precision,
    formatBytes(o.maxMemcacheSize),
    BigInt(o.memcachePartitions),
    formatBytes(o.walMaxFileSize),
    o.walSync,
    o.strictWrite,
    BigInt(o.maxCacheReaders),
  ];
  return { fields, rows: [row] };
}

interface TagBody {
  database?: string;
  table: string;
  where?: ast.Expr;
  orderBy: readonly ast.OrderByExpr[];
  limit?: ast.Expr;
  offset?: ast.Expr;
}

/** The tag sets of the series of a table that pass a SHOW statement's WHERE. */
async function matchingSeries(
  qp: QueryPlanner,
  ctx: ExecContext,
  s: TagBody,
): Promise<{ table: TableInfo; series: ReadonlyMap<string, string>[] }> {
  const db = s.database ?? qp.ctx.database;
  const { table } = qp.resolveTable([db, s.table]);
  const fields: PlanField[] = table.columns.map((c) => ({
    qualifier: table.name,
    name: c.name,
    type: c.type,
    nullable: true,
  }));
  let filters: LExpr[] = [];
  if (s.where !== undefined) {
    const pred = new ExprPlanner(qp.scope(new PlanSchema(fields), undefined, new Map(), false)).plan(s.where);
    for (const c of columnsOf(pred)) {
      const kind = table.columns.find((x) => x.name === c.name)?.kind;
      if (kind === 'field')
        throw semanticError(`SHOW SERIES does not support where clause contains field ${c.name}`, 'showSeriesField');
    }
    filters = [pred];
  }
  const preds = analyzeScanPredicates(filters, table, ctx);
  if (preds.empty) return { table, series: [] };
  const filter = seriesFilter([...preds.tagPredicates, ...preds.residual], table, table.name, ctx);
  if (preds.minTime === undefined && preds.maxTime === undefined) {
    const out: ReadonlyMap<string, string>[] = [];
    for (const tags of await ctx.catalog.series(db, table.name))
      if (filter === undefined || filter(tags)) out.push(tags);
    return { table, series: out };
  }
  const seen = new Map<string, ReadonlyMap<string, string>>();
  const request = {
    fields: [],
    ...(preds.minTime === undefined ? {} : { minTime: preds.minTime }),
    ...(preds.maxTime === undefined ? {} : { maxTime: preds.maxTime }),
    ...(filter === undefined ? {} : { seriesFilter: filter }),
  };
  for await (const chunk of ctx.catalog.scan(db, table.name, request)) {
    if (chunk.length === 0) continue;
    const key = [...chunk.tags]
      .sort(([a], [b]) => compareStrings(a, b))
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    seen.set(key, chunk.tags);
  }
  return { table, series: [...seen.values()] };
}

/** ORDER BY / LIMIT / OFFSET over the rows of a SHOW statement whose columns are `names`. */
function orderAndLimit(qp: QueryPlanner, s: TagBody, names: readonly string[], rows: Scalar[][]): Scalar[][] {
  const schema = new PlanSchema(names.map((n) => ({ qualifier: undefined, name: n, type: UTF8, nullable: false })));
  const planner = new ExprPlanner(qp.scope(schema, undefined, new Map(), false));
  const keys = s.orderBy.map((o) => {
    const e = planner.plan(o.expr);
    if (e.kind !== 'column') throw planError('ORDER BY of SHOW may name its columns only');
    return { index: names.indexOf(e.name), asc: o.asc ?? true };
  });
  const order = keys.length > 0 ? keys : names.map((_, index) => ({ index, asc: true }));
  rows.sort((a, b) => {
    for (const k of order) {
      const c = compareStrings(a[k.index] as string, b[k.index] as string);
      if (c !== 0) return k.asc ? c : -c;
    }
    return 0;
  });
  const skip = s.offset === undefined ? 0 : qp.count(s.offset, 'OFFSET');
  const fetch = s.limit === undefined ? Infinity : qp.count(s.limit, 'LIMIT');
  return rows.slice(skip, skip + fetch);
}

export async function showSeries(qp: QueryPlanner, ctx: ExecContext, s: ast.ShowSeries): Promise<Rows> {
  const { table, series } = await matchingSeries(qp, ctx, s);
  const tagNames = table.columns.filter((c) => c.kind === 'tag').map((c) => c.name);
  const keys = new Set<string>();
  for (const tags of series) {
    let key = table.name;
    for (const t of tagNames) {
      const v = tags.get(t);
      if (v !== undefined) key += `,${t}=${v}`;
    }
    keys.add(key);
  }
  const rows = orderAndLimit(
    qp,
    s,
    ['key'],
    [...keys].map((k) => [k]),
  );
  return { fields: [{ name: 'key', type: UTF8 }], rows };
}

export async function showTagValues(qp: QueryPlanner, ctx: ExecContext, s: ast.ShowTagValues): Promise<Rows> {
  const { table, series } = await matchingSeries(qp, ctx, s);
  const tagNames = table.columns.filter((c) => c.kind === 'tag').map((c) => c.name);
  const k = s.withKey;
  const keys = tagNames.filter((t) => {
    switch (k.op) {
      case '=':
        return k.keys[0] === t;
      case '!=':
        return k.keys[0] !== t;
      case 'IN':
        return k.keys.includes(t);
      case 'NOT IN':
        return !k.keys.includes(t);
      default:
        throw new Error(`BUG: SHOW TAG VALUES WITH KEY ${k.op satisfies never}`);
    }
  });
  const pairs = new Map<string, [string, string]>();
  for (const tags of series) {
    for (const t of keys) {
      const v = tags.get(t);
      if (v !== undefined) pairs.set(`${t}\u0000${v}`, [t, v]);
    }
  }
  const rows = orderAndLimit(qp, s, ['key', 'value'], [...pairs.values()]);
  return {
    fields: [
      { name: 'key', type: UTF8 },
      { name: 'value', type: UTF8 },
    ],
    rows,
  };
}
