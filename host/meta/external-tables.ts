// The catalog side of CREATE / DROP EXTERNAL TABLE: a database's external tables share one name
// space with its tskv tables (a name is one or the other), and dropping one forgets the definition
// only: the files belong to whoever put them in storage.external_dir.

import { tableExists, tableNotFound } from '../core/meta-errors.js';
import type { Catalog, DatabaseDef, ExternalTableDef } from './catalog.js';
import { checkName } from './catalog-ddl.js';

/** The column types an external table may have: Arrow's display of the engine's types. */
export const EXTERNAL_COLUMN_TYPE =
  /^(Boolean|Int64|UInt64|Float64|Utf8|Timestamp\((Second|Millisecond|Microsecond|Nanosecond), None\))$/;

/** The problem with a stored or new definition, or undefined. */
export function externalTableProblem(t: ExternalTableDef): string | undefined {
  if (!['CSV', 'JSON', 'PARQUET'].includes(t.fileType)) return `file type ${JSON.stringify(t.fileType)}`;
  if (typeof t.location !== 'string' || t.location === '') return `location ${JSON.stringify(t.location)}`;
  if (typeof t.delimiter !== 'string' || t.delimiter.length !== 1) return `delimiter ${JSON.stringify(t.delimiter)}`;
  if (!Array.isArray(t.columns) || t.columns.length === 0) return 'no columns';
  const c = t.connection;
  if (
    c !== undefined &&
    (typeof c !== 'object' ||
      c === null ||
      c.kind !== 's3' ||
      typeof c.region !== 'string' ||
      Object.values(c).some((v) => typeof v !== 'string' && typeof v !== 'boolean'))
  )
    return 'connection';
  const seen = new Set<string>();
  for (const c of t.columns) {
    if (!EXTERNAL_COLUMN_TYPE.test(c.type)) return `column ${JSON.stringify(c.name)} of type ${JSON.stringify(c.type)}`;
    if (seen.has(c.name)) return `column ${JSON.stringify(c.name)} twice`;
    seen.add(c.name);
  }
  return undefined;
}

export function createExternalTableDef(
  catalog: Catalog,
  db: DatabaseDef,
  def: Omit<ExternalTableDef, 'id'>,
): ExternalTableDef {
  checkName(def.name);
  if (db.tables.has(def.name) || db.externalTables?.has(def.name) === true || db.streamTables?.has(def.name) === true)
    throw tableExists(def.name);
  for (const c of def.columns) checkName(c.name);
  const table: ExternalTableDef = {
    ...def,
    id: catalog.nextId(),
    columns: def.columns.map((c) => ({ ...c })),
    ...(def.connection === undefined ? {} : { connection: { ...def.connection } }),
  };
  const problem = externalTableProblem(table);
  if (problem !== undefined) throw new Error(`BUG: external table ${def.name}: ${problem}`);
  (db.externalTables ??= new Map()).set(def.name, table);
  catalog.changed();
  return table;
}

export function dropExternalTableDef(catalog: Catalog, db: DatabaseDef, name: string): ExternalTableDef {
  const t = db.externalTables?.get(name);
  if (t === undefined) throw tableNotFound(db.tenant, db.name, name);
  db.externalTables!.delete(name);
  catalog.changed();
  return t;
}
