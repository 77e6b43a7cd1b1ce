// COPY INTO as CnosDB runs it (its copy_to_plan): `COPY INTO t FROM 'location'` reads every file
// the location names, by default in the table's own column order and types (CSV by position,
// JSON and Parquet by name), with auto_infer_schema in the file's; then stores the rows as INSERT
// does, all files at once or nothing. `COPY INTO 'location' FROM t | (query)` writes the rows to
// one new file. Both are for admins and tenant owners only, since they reach the server's files.

import { UserError } from '../../core/errors.js';
import { ALL_DATABASES } from '../../core/object-names.js';
import type { ColumnInfo, TableInfo } from '../catalog.js';
import type { ExecContext } from '../exec/exec-plan.js';
import {
  castVector,
  checkCast,
  concatVectors,
  type Field,
  type RecordBatch,
  type TimeUnit,
  UINT64,
  unitNanos,
  type Vector,
} from '../types/index.js';
import { copyOptions, FILE_EXTENSIONS, fileFormatOptions, type FileFormat } from '../external/file-format.js';
import type { ExternalFiles, ObjectStoreConnection } from '../external/external-files.js';
import { connectionOf } from '../external/connection.js';
import { encodeFile } from '../external/file-writer.js';
import { readExternalFile } from '../external/read-file.js';
import { batchBytes, Reservation } from '../memory/index.js';
import type { QueryPlanner } from '../planner/query-planner.js';
import type * as ast from '../sql/ast.js';
import { parseStatement } from '../sql/parser.js';
import { printObjectName } from '../sql/printer-expressions.js';
import { storeRows, targetColumns, type RunQuery } from './insert.js';
import type { Rows } from './show.js';

function rowsAnswer(n: number): Rows {
  return { fields: [{ name: 'rows', type: UINT64 }], rows: [[BigInt(n)]] };
}

/** The checks both forms start with: the user's standing, then the host's file access. */
function admit(session: ExecContext['session'], files: ExternalFiles | undefined): ExternalFiles {
  session.authorize?.(ALL_DATABASES, 'all');
  if (files === undefined)
    throw new UserError(
      'externalLocation',
      'object store error: COPY INTO needs the host to serve files, which this one does not',
    );
  return files;
}

export async function copyIntoTable(
  qp: QueryPlanner,
  ctx: ExecContext,
  s: ast.CopyIntoTable,
  files: ExternalFiles | undefined,
): Promise<Rows> {
  const store = admit(ctx.session, files);
  const format = fileFormatOptions(s.fileFormat);
  const options = copyOptions(s.copyOptions);
  const connection = connectionOf(s.location, s.connection);
  const { database, table } = qp.resolveTable(s.table, 'write');
  // The table's schema (or the named columns of it) unless the file's own is asked for.
  let schema: Field[] | undefined;
  if (!options.autoInferSchema) {
    const named = s.columns.length === 0 ? table.columns : targetColumns(table, s.columns, s.columns.length);
    schema = named.map((c) => ({ name: c.name, type: c.type, nullable: true }));
  }
  // Every file's rows are held until the one write: charged to the query's pool, so that a
  // location bigger than limits.query_memory_bytes is refused (422 010011), not loaded.
  const held = new Reservation(ctx.memory, `COPY INTO ${printObjectName(s.table)}`);
  try {
    return await copyRows(ctx, s, store, connection, format, schema, database, table, held);
  } finally {
    held.release();
  }
}

async function copyRows(
  ctx: ExecContext,
  s: ast.CopyIntoTable,
  store: ExternalFiles,
  connection: ObjectStoreConnection | undefined,
  format: FileFormat,
  schema: Field[] | undefined,
  database: string,
  table: TableInfo,
  held: Reservation,
): Promise<Rows> {
  const batches: RecordBatch[] = [];
  for (const file of await store.list(s.location, connection)) {
    batches.push(await readExternalFile(store, file, format, schema, ctx.memory, held));
    ctx.checkAbort();
  }
  // Files of one location may differ in their inferred schemas: the first one's decides, as in a ListingTable.
  const fields = schema ?? batches[0]?.schema.fields ?? [];
  const targets: ColumnInfo[] = targetColumns(table, s.columns, fields.length);
  const rowCount = batches.reduce((n, b) => n + b.length, 0);
  // The columns cast and joined are a second copy of the rows while the write is encoded.
  held.grow(batches.reduce((n, b) => n + batchBytes(b), 0));
  const columns: Vector[] = targets.map((c, k) => {
    const parts = batches.map((b) => {
      const v =
        b.schema.fields[k]?.name === fields[k]!.name
          ? b.columns[k]!
          : b.columns[b.schema.fields.findIndex((f) => f.name === fields[k]!.name)];
      if (v === undefined)
        throw new UserError(
          'sqlPlan',
          `Datafusion: Schema error: No field named ${fields[k]!.name} in a file of ${s.location}`,
        );
      checkCast(v.type, c.type);
      return castVector(v, c.type);
    });
    return concatVectors(c.type, parts);
  });
  const timeColumn = table.columns.find((c) => c.kind === 'time')!;
  const now = targets.includes(timeColumn)
    ? undefined
    : ctx.session.nowNs / unitNanos((timeColumn.type as { unit: TimeUnit }).unit);
  await storeRows(ctx, database, table, targets, columns, rowCount, now);
  return rowsAnswer(rowCount);
}

export async function copyIntoLocation(
  qp: QueryPlanner,
  ctx: ExecContext,
  s: ast.CopyIntoLocation,
  files: ExternalFiles | undefined,
  runQuery: RunQuery,
): Promise<Rows> {
  const store = admit(ctx.session, files);
  const format = fileFormatOptions(s.fileFormat);
  copyOptions(s.copyOptions);
  const connection = connectionOf(s.location, s.connection);
  const query =
    s.source.kind === 'query'
      ? s.source.query
      : (parseStatement(`SELECT * FROM ${printObjectName(s.source.name)}`) as ast.Query);
  const plan = qp.planQuery(query, undefined, new Map());
  const schema = { fields: plan.schema.fields.map((f) => ({ name: f.name, type: f.type, nullable: f.nullable })) };
  // The result and the file's bytes are held until the file is written: charged to the pool.
  const held = new Reservation(ctx.memory, `COPY INTO '${s.location}'`);
  try {
    const batches = await runQuery(plan);
    for (const b of batches) held.grow(batchBytes(b));
    const bytes = encodeFile(format, schema, batches);
    held.grow(bytes.length);
    await store.write(s.location, FILE_EXTENSIONS[format.type], bytes, connection);
    return rowsAnswer(batches.reduce((n, b) => n + b.length, 0));
  } finally {
    held.release();
  }
}
