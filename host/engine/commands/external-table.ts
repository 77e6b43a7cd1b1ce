// CREATE EXTERNAL TABLE as CnosDB runs it (DataFusion's ListingTable under its catalog): a
// read-only table over the CSV, NDJSON or Parquet files of a location in storage.external_dir,
// its columns declared or inferred from the first file when created, its files read at every
// query. Admins and tenant owners only, as COPY: it reaches the server's files.

import { ALL_DATABASES } from '../../core/object-names.js';
import { UserError } from '../../core/errors.js';
import { tableExists } from '../../core/meta-errors.js';
import type { EngineCatalog, ExternalTableInfo } from '../catalog.js';
import { notImplemented, planError } from '../errors.js';
import type { ExecContext } from '../exec/exec-plan.js';
import { externalColumnType, inferredColumnType } from '../external/column-types.js';
import type { ExternalFiles } from '../external/external-files.js';
import { connectionOf } from '../external/connection.js';
import { externalFormat, readExternalFile } from '../external/read-file.js';
import { Reservation } from '../memory/index.js';
import { databaseNotFound } from '../planner/query-planner.js';
import type * as ast from '../sql/ast.js';

/** The file type of STORED AS: NDJSON is JSON (one object per line either way). */
function fileType(storedAs: string): ExternalTableInfo['fileType'] {
  switch (storedAs) {
    case 'CSV':
      return 'CSV';
    case 'JSON':
    case 'NDJSON':
      return 'JSON';
    case 'PARQUET':
      return 'PARQUET';
    case 'AVRO':
    case 'ARROW':
      throw notImplemented(`external tables STORED AS ${storedAs}`);
    default:
      // DataFusion's FileType::from_str.
      throw planError(`Unknown FileType: ${storedAs}, only support AVRO | PARQUET | CSV | JSON`);
  }
}

export async function createExternalTable(
  ctx: ExecContext,
  s: ast.CreateExternalTable,
  defaultDb: string,
  files: ExternalFiles | undefined,
): Promise<void> {
  ctx.session.authorize?.(ALL_DATABASES, 'all');
  const catalog: EngineCatalog = ctx.catalog;
  if (catalog.createExternalTable === undefined) throw notImplemented('CREATE EXTERNAL TABLE on this catalog');
  const db = s.name.length > 1 ? s.name[s.name.length - 2]! : defaultDb;
  const name = s.name[s.name.length - 1]!;
  if (catalog.database(db) === undefined) throw databaseNotFound(db);
  if (
    catalog.table(db, name) !== undefined ||
    catalog.externalTable?.(db, name) !== undefined ||
    catalog.streamTable?.(db, name) !== undefined
  ) {
    if (s.ifNotExists) return;
    throw tableExists(name);
  }
  if (s.unbounded) throw notImplemented('CREATE UNBOUNDED EXTERNAL TABLE');
  if (s.partitionedBy.length > 0) throw notImplemented('PARTITIONED BY in CREATE EXTERNAL TABLE');
  if (s.compression !== undefined && s.compression !== 'UNCOMPRESSED')
    throw notImplemented(`COMPRESSION TYPE ${s.compression} in CREATE EXTERNAL TABLE`);
  // OPTIONS are an object store location's connection (CnosDB's CONNECTION keys); a path takes none.
  const connection = connectionOf(
    s.location,
    s.options.map((o) => ({ name: o.key, value: { kind: 'string', value: o.value } })),
  );
  if (connection === undefined && s.options.length > 0)
    throw notImplemented(
      `OPTIONS (${s.options.map((o) => o.key).join(', ')}) in CREATE EXTERNAL TABLE of a local location`,
    );
  const type = fileType(s.storedAs);
  const delimiter = s.delimiter ?? ',';
  if (
    delimiter.length !== 1 ||
    delimiter.charCodeAt(0) > 127 ||
    delimiter === '"' ||
    delimiter === '\n' ||
    delimiter === '\r'
  ) {
    throw planError(`Unsupported delimiter [${delimiter}]: one ASCII character other than a quote or a line break`);
  }
  const info: ExternalTableInfo = {
    database: db,
    name,
    location: s.location,
    fileType: type,
    hasHeader: s.withHeaderRow,
    delimiter,
    columns: [],
    ...(connection === undefined ? {} : { connection }),
  };
  if (files === undefined)
    throw new UserError(
      'externalLocation',
      'object store error: external tables need the host to serve files, which this one does not',
    );
  // The location is resolved now: one outside storage.external_dir, or a store that refuses, fails at once.
  const located = await files.list(s.location, connection);
  const seen = new Set<string>();
  for (const c of s.columns) {
    if (seen.has(c.name)) throw planError(`Schema contains duplicate unqualified field name ${c.name}`);
    seen.add(c.name);
    info.columns.push({ name: c.name, type: externalColumnType(c.dataType, c.name) });
  }
  if (info.columns.length === 0) {
    // As DataFusion's infer_schema, from the files; here from the first one (name order).
    const first = located[0];
    if (first === undefined)
      throw planError(`No files found at '${s.location}' to infer the schema of ${name} from: declare its columns`);
    const held = new Reservation(ctx.memory, `CREATE EXTERNAL TABLE ${name}`);
    try {
      const batch = await readExternalFile(files, first, externalFormat(info), undefined, ctx.memory, held);
      info.columns = batch.schema.fields.map((f) => ({ name: f.name, type: inferredColumnType(f.type, f.name) }));
    } finally {
      held.release();
    }
    if (info.columns.length === 0)
      throw planError(`The file ${first.name} has no columns to infer the schema of ${name} from: declare them`);
  }
  await catalog.createExternalTable(db, info);
}
