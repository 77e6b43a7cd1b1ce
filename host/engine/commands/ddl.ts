// CREATE / ALTER / DROP of databases and tables, validated with CnosDB's rules and messages
// before the catalog is asked to change anything (a rejected statement changes nothing).

import { UserError } from '../../core/errors.js';
import { ValueType } from '../../core/write-batch.js';
import type { ColumnInfo, EngineCatalog, TableChange, TableInfo } from '../catalog.js';
import { notImplemented, semanticError } from '../errors.js';
import { databaseNotFound, tableNotFound } from '../planner/query-planner.js';
import { fieldColumnType } from '../planner/sql-types.js';
import type * as ast from '../sql/ast.js';
import { type DataType, precisionUnit, timestamp, UTF8 } from '../types/index.js';
import { applyDatabaseOptions, defaultDatabaseOptions } from './database-options.js';
import { CODEC_DISPLAY_NAMES } from '../../core/codecs.js';
import { databaseExists, tableExists } from '../../core/meta-errors.js';

/** The codecs each storage type accepts (CnosDB's Encoding rules). */
const CODECS_BY_TYPE: Readonly<Record<string, { name: string; codecs: readonly string[] }>> = {
  Int64: { name: 'I64', codecs: ['DEFAULT', 'NULL', 'DELTA', 'DELTATS', 'QUANTILE'] },
  UInt64: { name: 'U64', codecs: ['DEFAULT', 'NULL', 'DELTA', 'DELTATS', 'QUANTILE'] },
  Timestamp: { name: 'TIMESTAMP', codecs: ['DEFAULT', 'NULL', 'DELTA', 'DELTATS', 'QUANTILE'] },
  Float64: { name: 'F64', codecs: ['DEFAULT', 'NULL', 'GORILLA', 'QUANTILE'] },
  Utf8: { name: 'STRING', codecs: ['DEFAULT', 'NULL', 'GZIP', 'BZIP', 'ZSTD', 'SNAPPY', 'ZLIB'] },
  Boolean: { name: 'BOOL', codecs: ['DEFAULT', 'NULL', 'BITPACK'] },
};

function checkCodec(codec: string, type: DataType): void {
  const rule = CODECS_BY_TYPE[type.id];
  if (rule !== undefined && !rule.codecs.includes(codec))
    throw semanticError(
      `Unsupported encoding type ${CODEC_DISPLAY_NAMES[codec] ?? codec} for ${rule.name}`,
      'encodingType',
    );
}

/**
 * QueryError::ColumnNotExists. "column x already exists in table t" stays the plain Semantic error
 * (010003, one space): CnosDB 2.4.3's own alter_table.slt and create_table.slt expect that text,
 * not its ColumnAlreadyExists variant's ("Semantic error:  column ...", two spaces).
 */
function columnNotExists(column: string, table: string): Error {
  return semanticError(`Column ${column} not exists in table ${table}`, 'columnNotExists');
}

function requireDatabase(catalog: EngineCatalog, name: string): void {
  if (catalog.database(name) === undefined) throw databaseNotFound(name);
}

function tableName(name: readonly string[], defaultDb: string): { db: string; table: string } {
  if (name.length === 1) return { db: defaultDb, table: name[0]! };
  if (name.length === 2) return { db: name[0]!, table: name[1]! };
  return { db: name[name.length - 2]!, table: name[name.length - 1]! };
}

/** `systemDatabase`: the system database the session's tenant lists (cluster_schema in cnosdb), which exists too. */
export async function createDatabase(
  catalog: EngineCatalog,
  s: ast.CreateDatabase,
  systemDatabase?: string,
): Promise<void> {
  if (catalog.database(s.name) !== undefined || s.name === systemDatabase) {
    if (s.ifNotExists) return;
    throw databaseExists(s.name);
  }
  await catalog.createDatabase(s.name, applyDatabaseOptions(defaultDatabaseOptions(), s.options));
}

export async function alterDatabase(catalog: EngineCatalog, s: ast.AlterDatabase): Promise<void> {
  const db = catalog.database(s.name);
  if (db === undefined) throw databaseNotFound(s.name);
  await catalog.alterDatabase(s.name, applyDatabaseOptions(db.options, [s.option]));
}

export async function dropDatabase(catalog: EngineCatalog, s: ast.DropDatabase): Promise<void> {
  if (s.name === 'public') throw new UserError('forbidDropDatabase', `Database "public" forbid drop`);
  // A database whose drop is pending is dropped again: rescheduled with AFTER, else at once.
  if (catalog.database(s.name) === undefined && catalog.dropPending?.(s.name) !== true) {
    if (s.ifExists) return;
    throw databaseNotFound(s.name);
  }
  if (s.after !== undefined && catalog.recoverDatabase === undefined) throw notImplemented('DROP DATABASE ... AFTER');
  await catalog.dropDatabase(s.name, s.after);
}

/** RECOVER DATABASE: a pending drop undone; a live database with no drop pending is left as it is. */
export async function recoverDatabase(catalog: EngineCatalog, s: ast.RecoverDatabase): Promise<void> {
  if (catalog.dropPending?.(s.name) === true) return catalog.recoverDatabase!(s.name);
  if (catalog.database(s.name) === undefined && !s.ifExists) throw databaseNotFound(s.name);
}

/** COMPACT DATABASE: the database must exist; catalogs without storage files have nothing to do. */
export async function compactDatabase(catalog: EngineCatalog, s: ast.CompactDatabase): Promise<void> {
  if (catalog.database(s.name) === undefined) throw databaseNotFound(s.name);
  await catalog.compactDatabase?.(s.name);
}

export async function createTable(
  catalog: EngineCatalog,
  s: ast.CreateTable,
  defaultDb: string,
  tenant: string,
): Promise<void> {
  const { db, table } = tableName(s.name, defaultDb);
  requireDatabase(catalog, db);
  const info = catalog.database(db)!;
  const seen = new Set<string>(['time']);
  const columns: ColumnInfo[] = [
    { name: 'time', kind: 'time', type: timestamp(precisionUnit(info.options.precision)), codec: 'DEFAULT' },
  ];
  const fields: ColumnInfo[] = [];
  for (const c of s.columns) {
    if (c.dataType.name === 'TIMESTAMP' && !c.dataType.custom)
      throw semanticError(`column time already exists in table ${tenant}.${db}.${table}`);
    if (seen.has(c.name)) {
      if (c.name === 'time') throw semanticError(`column time already exists in table ${tenant}.${db}.${table}`);
      throw semanticError(`Field or Tag have the same name ${c.name}`, 'sameColumnName');
    }
    seen.add(c.name);
    const t = fieldColumnType(c.dataType, c.name);
    const codec = c.codec ?? 'DEFAULT';
    checkCodec(codec, t.type);
    fields.push({
      name: c.name,
      kind: 'field',
      type: t.type,
      valueType: t.valueType,
      codec,
      ...(t.geometry === undefined ? {} : { geometry: t.geometry }),
    });
  }
  for (const tag of s.tags) {
    if (seen.has(tag)) throw semanticError(`Field or Tag have the same name ${tag}`, 'sameColumnName');
    seen.add(tag);
    columns.push({ name: tag, kind: 'tag', type: UTF8, valueType: ValueType.Tag, codec: 'DEFAULT' });
  }
  columns.push(...fields);
  if (
    catalog.table(db, table) !== undefined ||
    catalog.externalTable?.(db, table) !== undefined ||
    catalog.streamTable?.(db, table) !== undefined
  ) {
    if (s.ifNotExists) return;
    throw tableExists(table);
  }
  const t: TableInfo = { database: db, name: table, columns };
  await catalog.createTable(db, t);
}

export async function dropTable(
  catalog: EngineCatalog,
  s: ast.DropTable,
  defaultDb: string,
  tenant: string,
): Promise<void> {
  const { db, table } = tableName(s.name, defaultDb);
  requireDatabase(catalog, db);
  if (catalog.streamTable?.(db, table) !== undefined) {
    // Its continuous queries go with it; the source and sink tables stay.
    if (s.after !== undefined) throw notImplemented('DROP TABLE ... AFTER of a stream table');
    return catalog.dropStreamTable!(db, table);
  }
  if (catalog.externalTable?.(db, table) !== undefined) {
    // Only the definition goes; the files stay (they are not the server's).
    if (s.after !== undefined) throw notImplemented('DROP TABLE ... AFTER of an external table');
    return catalog.dropExternalTable!(db, table);
  }
  if (catalog.table(db, table) === undefined && catalog.dropPending?.(db, table) !== true) {
    if (s.ifExists) return;
    throw tableNotFound(tenant, db, table);
  }
  if (s.after !== undefined && catalog.recoverTable === undefined) throw notImplemented('DROP TABLE ... AFTER');
  await catalog.dropTable(db, table, s.after);
}

/** RECOVER TABLE: a pending drop undone; a live table with no drop pending is left as it is. */
export async function recoverTable(
  catalog: EngineCatalog,
  s: ast.RecoverTable,
  defaultDb: string,
  tenant: string,
): Promise<void> {
  const { db, table } = tableName(s.name, defaultDb);
  requireDatabase(catalog, db);
  if (catalog.dropPending?.(db, table) === true) return catalog.recoverTable!(db, table);
  if (catalog.table(db, table) === undefined && !s.ifExists) throw tableNotFound(tenant, db, table);
}

export async function alterTable(
  catalog: EngineCatalog,
  s: ast.AlterTable,
  defaultDb: string,
  tenant: string,
): Promise<void> {
  const { db, table } = tableName(s.table, defaultDb);
  requireDatabase(catalog, db);
  const t = catalog.table(db, table);
  if (t === undefined && catalog.externalTable?.(db, table) !== undefined)
    throw notImplemented(`ALTER TABLE of the external table ${db}.${table}`);
  if (t === undefined) throw tableNotFound(tenant, db, table);
  const columns = t.columns.map((c) => ({ ...c }));
  const find = (name: string): ColumnInfo | undefined => columns.find((c) => c.name === name);
  const a = s.action;
  let change: TableChange;
  switch (a.kind) {
    case 'addTag': {
      if (find(a.name) !== undefined) throw semanticError(`column ${a.name} already exists in table ${table}`);
      columns.push({ name: a.name, kind: 'tag', type: UTF8, valueType: ValueType.Tag, codec: 'DEFAULT' });
      change = { kind: 'add', column: a.name };
      break;
    }
    case 'addField': {
      const c = a.column;
      if (find(c.name) !== undefined) throw semanticError(`column ${c.name} already exists in table ${table}`);
      const ft = fieldColumnType(c.dataType, c.name);
      const codec = c.codec ?? 'DEFAULT';
      checkCodec(codec, ft.type);
      columns.push({
        name: c.name,
        kind: 'field',
        type: ft.type,
        valueType: ft.valueType,
        codec,
        ...(ft.geometry === undefined ? {} : { geometry: ft.geometry }),
      });
      change = { kind: 'add', column: c.name };
      break;
    }
    case 'alterCodec': {
      const c = find(a.column);
      if (c === undefined) throw columnNotExists(a.column, table);
      if (c.kind === 'time') throw semanticError(`Column ${a.column} does not support modification`, 'timeColumnAlter');
      if (c.kind === 'tag') throw semanticError('Tag does not support compression', 'tagNoCompression');
      checkCodec(a.codec, c.type);
      c.codec = a.codec;
      change = { kind: 'codec', column: a.column };
      break;
    }
    case 'dropColumn': {
      const c = find(a.column);
      if (c === undefined) throw columnNotExists(a.column, table);
      // CnosDB answers dropping time with AtLeastOneTag (its alter_table.slt), not DropTime.
      if (c.kind === 'time') throw semanticError('There must be at least one tag column. ', 'atLeastOneTag');
      if (c.kind === 'tag') throw semanticError(`Can't drop tag column ${a.column}.`, 'dropTag');
      if (columns.filter((x) => x.kind === 'field').length === 1)
        throw semanticError('There must be at least one field column.', 'atLeastOneField');
      columns.splice(columns.indexOf(c), 1);
      change = { kind: 'drop', column: a.column };
      break;
    }
    case 'renameColumn': {
      const c = find(a.from);
      if (c === undefined) throw columnNotExists(a.from, table);
      if (c.kind === 'time') throw notImplemented('rename time column');
      if (find(a.to) !== undefined) throw semanticError(`column ${a.to} already exists in table ${table}`);
      c.name = a.to;
      change = { kind: 'rename', from: a.from, to: a.to };
      break;
    }
  }
  await catalog.alterTable(db, table, columns, change);
}
