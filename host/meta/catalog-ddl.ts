// The catalog side of DDL: each function validates everything first, throws a UserError with
// CnosDB's message (reference/cnosdb-sql.md §1.1, conformance ddl/*.slt) and changes nothing on
// failure; on success it mutates the in-memory catalog (bumping its version). Durability and the
// data side (memtables, segments) are Storage's job.

import { UserError } from '../core/errors.js';
import type { DatabaseOptions, NewTable, TableChange } from '../core/schema.js';
import { ValueType } from '../core/write-batch.js';
import {
  DEFAULT_TENANT,
  findColumn,
  isUndroppableDatabase,
  type Catalog,
  type ColumnDef,
  type DatabaseDef,
  type TableDef,
} from './catalog.js';
import { checkCodec } from './codec-names.js';
import { objectNameProblem } from '../core/object-names.js';
import { GEOMETRY_SUB_TYPES, type GeometryColumnType } from '../core/geometry/geometry.js';
import { databaseExists, tableExists, tableNotFound as metaTableNotFound } from '../core/meta-errors.js';

/** Rejects names CnosDB's parser rejects (empty, blank, containing '/'). */
export function checkName(name: string): void {
  if (name.trim() === '') throw new UserError('sqlParse', 'Name cannot be empty or contain only spaces');
  if (name.includes('/')) throw new UserError('sqlParse', `not supported keyword contains '/': ${name}`);
}

/**
 * checkName and Sundial's rules (core/object-names.ts), for a new tenant, user, role or database.
 * Tables and columns keep checkName alone: line protocol creates them, and InfluxDB takes escaped
 * spaces at either end of those names.
 */
export function checkObjectName(name: string): void {
  checkName(name);
  const problem = objectNameProblem(name);
  if (problem !== undefined) throw new UserError('sqlParse', problem);
}

function checkOptions(o: DatabaseOptions): void {
  const bad = (what: string): never => {
    throw new UserError('sqlPlan', what);
  };
  if (!(Number.isSafeInteger(o.shard) && o.shard > 0)) bad(`shard must be greater than 0, got ${o.shard}`);
  if (!(Number.isSafeInteger(o.replica) && o.replica > 0)) bad(`replica must be greater than 0, got ${o.replica}`);
  if (!(Number.isSafeInteger(o.vnodeDurationMs) && o.vnodeDurationMs > 0))
    bad(`vnode_duration must be positive, got ${o.vnodeDurationMs} ms`);
  if (o.ttlMs !== null && !(Number.isSafeInteger(o.ttlMs) && o.ttlMs > 0))
    bad(`ttl must be positive or INF, got ${o.ttlMs} ms`);
  if (!['NS', 'US', 'MS'].includes(o.precision)) bad(`precision must be one of ms, us, ns, got ${o.precision}`);
}

/**
 * Whether a user's database may not take `name` in `tenant`: information_schema, and usage_schema
 * (every tenant reads the system tenant's), anywhere; cluster_schema in the system tenant. Another
 * tenant may create a database named cluster_schema, as CnosDB 2.4 lets it (cnosdb/cnosdb#1567:
 * it takes tables and rows).
 */
function isSystemSchema(tenant: string, name: string): boolean {
  const n = name.toLowerCase();
  return n === 'information_schema' || n === 'usage_schema' || (tenant === DEFAULT_TENANT && n === 'cluster_schema');
}

/** `system`: the server creates one of its own databases (usage_schema, server/usage-metrics.ts). */
export function createDatabaseDef(
  catalog: Catalog,
  tenant: string,
  name: string,
  options: DatabaseOptions,
  system = false,
): DatabaseDef {
  checkObjectName(name);
  if (!system && isSystemSchema(tenant, name))
    throw new UserError('sqlPlan', `Database "${name}" is a system schema and cannot be created`);
  if (!catalog.tenants.has(tenant)) throw new UserError('tenantNotFound', `The tenant ${tenant} not found`);
  if (catalog.database(tenant, name) !== undefined) throw databaseExists(name);
  checkOptions(options);
  const db: DatabaseDef = { id: catalog.nextId(), tenant, name, options: { ...options }, tables: new Map() };
  catalog.addDatabase(db);
  return db;
}

/** Replaces the options. Precision cannot change once data may exist (CnosDB: unmodifiable). */
export function alterDatabaseDef(
  catalog: Catalog,
  tenant: string,
  name: string,
  options: DatabaseOptions,
): DatabaseDef {
  const db = catalog.requireDatabase(tenant, name);
  checkOptions(options);
  if (options.precision !== db.options.precision) {
    throw new UserError(
      'sqlParse',
      'database config is unmodifiable, only can modify database option: TTL, SHARD, VNODE_DURATION, REPLICA',
    );
  }
  db.options = { ...options };
  catalog.changed();
  return db;
}

export function dropDatabaseDef(catalog: Catalog, tenant: string, name: string): DatabaseDef {
  const db = catalog.requireDatabase(tenant, name);
  if (isUndroppableDatabase(tenant, name)) throw new UserError('forbidDropDatabase', `Database "${name}" forbid drop`);
  catalog.removeDatabase(tenant, name);
  return db;
}

/** A geometry declaration the engine let through must still be one the catalog can keep. */
function checkGeometry(
  name: string,
  type: ValueType,
  g: GeometryColumnType | undefined,
): { geometry?: GeometryColumnType } {
  if (g === undefined) return {};
  if (type !== ValueType.String || GEOMETRY_SUB_TYPES[g.subType] === undefined || g.srid !== 0) {
    throw new UserError(
      'columnDataType',
      `Semantic error: Unexpected data type Geometry(${g.subType}, ${g.srid}) of ${name}, `,
    );
  }
  return { geometry: { subType: g.subType, srid: g.srid } };
}

export function tableNotFound(db: DatabaseDef, table: string): UserError {
  return metaTableNotFound(db.tenant, db.name, table);
}

export function requireTable(db: DatabaseDef, table: string): TableDef {
  const t = db.tables.get(table);
  if (t === undefined) throw tableNotFound(db, table);
  return t;
}

export function createTableDef(catalog: Catalog, db: DatabaseDef, def: NewTable): TableDef {
  checkName(def.name);
  if (db.tables.has(def.name) || db.externalTables?.has(def.name) === true || db.streamTables?.has(def.name) === true)
    throw tableExists(def.name);
  if (def.fields.length === 0) throw new UserError('sqlParse', 'Expected field columns when create table');
  const seen = new Set<string>();
  for (const c of [...def.tags, ...def.fields]) {
    checkName(c.name);
    if (c.name === 'time')
      throw new UserError('sqlPlan', `column time already exists in table ${db.tenant}.${db.name}.${def.name}`);
    if (seen.has(c.name)) throw new UserError('sqlPlan', `Field or Tag have the same name ${c.name}`);
    seen.add(c.name);
  }
  for (const t of def.tags)
    if (t.codec !== undefined && t.codec.toUpperCase() !== 'DEFAULT') checkCodec(t.codec, ValueType.Tag);
  const fieldCodecs = def.fields.map((f) => {
    if (!(f.type >= ValueType.Double && f.type <= ValueType.String))
      throw new UserError('sqlPlan', `Unexpected data type ${f.type} of ${f.name}, `);
    return checkCodec(f.codec, f.type);
  });
  const geometries = def.fields.map((f) => checkGeometry(f.name, f.type, f.geometry));
  const timeCodec = checkCodec(def.timeCodec, 'time');
  // Ids in creation order: the table, its tags, its fields (SELECT * order is by id).
  const table: TableDef = { id: catalog.nextId(), name: def.name, tags: [], fields: [], timeCodec };
  for (const t of def.tags)
    table.tags.push({ id: catalog.nextId(), name: t.name, kind: 'tag', type: ValueType.Tag, codec: 'DEFAULT' });
  def.fields.forEach((f, i) => {
    table.fields.push({
      id: catalog.nextId(),
      name: f.name,
      kind: 'field',
      type: f.type,
      codec: fieldCodecs[i]!,
      ...geometries[i]!,
    });
  });
  db.tables.set(def.name, table);
  catalog.changed();
  return table;
}

/** What an ALTER TABLE did, for the data side: the column it affected. */
export interface AlterResult {
  table: TableDef;
  column: ColumnDef;
}

export function alterTableDef(catalog: Catalog, db: DatabaseDef, tableName: string, change: TableChange): AlterResult {
  const table = requireTable(db, tableName);
  const exists = (name: string): void => {
    if (name === 'time' || findColumn(table, name) !== undefined) {
      throw new UserError('sqlPlan', `column ${name} already exists in table ${table.name}`);
    }
  };
  const column = (name: string): ColumnDef => {
    const c = findColumn(table, name);
    if (c === undefined) throw new UserError('sqlPlan', `column ${name} not found in table ${table.name}`);
    return c;
  };
  switch (change.kind) {
    case 'addTag': {
      checkName(change.name);
      exists(change.name);
      const c: ColumnDef = {
        id: catalog.nextId(),
        name: change.name,
        kind: 'tag',
        type: ValueType.Tag,
        codec: 'DEFAULT',
      };
      table.tags.push(c);
      catalog.changed();
      return { table, column: c };
    }
    case 'addField': {
      checkName(change.name);
      exists(change.name);
      if (!(change.type >= ValueType.Double && change.type <= ValueType.String)) {
        throw new UserError('sqlPlan', `Unexpected data type ${change.type} of ${change.name}, `);
      }
      const codec = checkCodec(change.codec, change.type);
      const geometry = checkGeometry(change.name, change.type, change.geometry);
      const c: ColumnDef = {
        id: catalog.nextId(),
        name: change.name,
        kind: 'field',
        type: change.type,
        codec,
        ...geometry,
      };
      table.fields.push(c);
      catalog.changed();
      return { table, column: c };
    }
    case 'dropColumn': {
      // CnosDB's texts, including its odd one for `time`.
      if (change.name === 'time') throw new UserError('sqlPlan', 'There must be at least one tag column. ');
      const c = column(change.name);
      if (c.kind === 'tag') throw new UserError('sqlPlan', `Can't drop tag column ${c.name}.`);
      if (table.fields.length === 1) throw new UserError('sqlPlan', 'There must be at least one field column.');
      table.fields.splice(table.fields.indexOf(c), 1);
      catalog.changed();
      return { table, column: c };
    }
    case 'renameColumn': {
      if (change.from === 'time')
        throw new UserError('notImplemented', 'This feature is not implemented: rename time column');
      const c = column(change.from);
      checkName(change.to);
      exists(change.to);
      c.name = change.to;
      catalog.changed();
      return { table, column: c };
    }
    case 'setCodec': {
      if (change.column === 'time') throw new UserError('sqlPlan', 'Column time does not support modification');
      const c = column(change.column);
      if (c.kind === 'tag') throw new UserError('sqlPlan', 'Tag does not support compression');
      c.codec = checkCodec(change.codec, c.type);
      catalog.changed();
      return { table, column: c };
    }
  }
}

export function dropTableDef(catalog: Catalog, db: DatabaseDef, tableName: string): TableDef {
  const table = requireTable(db, tableName);
  db.tables.delete(tableName);
  catalog.changed();
  return table;
}
