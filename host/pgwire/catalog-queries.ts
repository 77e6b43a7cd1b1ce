// The catalog queries of PostgreSQL tools (psql's \l, \dt, \d, \dn; Grafana's table and column
// pickers; drivers' probes), answered here from Sundial's catalog: the engine has no pg_catalog,
// and these queries use PostgreSQL's SQL (OPERATOR(pg_catalog.~), ::regclass, E'' strings).
// Rather than match each text, a query over one of the virtual tables below is evaluated by a
// small interpreter (catalog-eval.ts): select items, LEFT JOINs to the related tables, WHERE
// conditions and ORDER BY; what it cannot evaluate is NULL (a value) or true (a condition), so an
// unknown column reads as NULL and an unknown filter keeps rows. A query over a pg_catalog table
// it does not model answers no rows, with the select list's columns.
// The model: a PostgreSQL database is a Sundial database, and so is a schema: `schema.table` is
// CnosDB's `database.table`, so the names tools build resolve in the engine. The connection's
// database is the only schema on the search path. Only databases the user may read are listed.

import type { Scalar } from '../engine/types/index.js';
import { type Catalog, has, type TenantDef, type UserDef } from '../meta/index.js';
import { tableInfo } from '../server/index.js';
import { evaluateSelect, type Row, type VirtualTables } from './catalog-eval.js';
import { parseSelect } from './catalog-select.js';
import { OID, pgTypeName, pgTypeOf } from './pg-types.js';
import type { LocalResult, SessionState } from './session-commands.js';
import type { PgToken } from './sql-text.js';

export interface CatalogContext {
  catalog: Catalog;
  user: UserDef;
  tenant: TenantDef;
  state: SessionState;
}

/** Oids of Sundial's objects: catalog ids (unique across tenants, databases and tables) past PostgreSQL's reserved range. */
const OID_BASE = 16384;
const PG_CATALOG_OID = 11;
const INFORMATION_SCHEMA_OID = 13000;

/** The information_schema views modelled here; CnosDB's own (databases, queries, ...) are the engine's. */
const PG_INFORMATION_SCHEMA = new Set(['tables', 'columns', 'schemata', 'views']);
/** Column names only PostgreSQL's information_schema has: a query naming one is a PostgreSQL tool's. */
const PG_ONLY_COLUMNS = new Set([
  'table_schema',
  'table_catalog',
  'schema_name',
  'catalog_name',
  'udt_name',
  'table_type',
]);

interface Model {
  namespaces: Row[];
  classes: Row[];
  attributes: Row[];
  databases: Row[];
}

function build(ctx: CatalogContext): Model {
  const { catalog, user, tenant, state } = ctx;
  const owner = 'root';
  const readable = catalog
    .databases(tenant.name)
    .filter((d) => has(user, tenant, d.name, 'read'))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const databases: Row[] = readable.map((d) => ({
    'pg_database.oid': BigInt(OID_BASE + d.id),
    'pg_database.datname': d.name,
    'pg_database.datdba': owner,
    'pg_database.encoding': 'UTF8',
    'pg_database.datcollate': 'C',
    'pg_database.datctype': 'C',
    'pg_database.daticulocale': null,
    'pg_database.datlocprovider': 'c',
    'pg_database.datistemplate': false,
    'pg_database.datallowconn': true,
    'pg_database.datconnlimit': -1n,
    'pg_database.datacl': null,
  }));
  const namespace = (oid: number, name: string): Row => ({
    'pg_namespace.oid': BigInt(oid),
    'pg_namespace.nspname': name,
    'pg_namespace.nspowner': owner,
    'pg_namespace.nspacl': null,
  });
  const namespaces = [
    namespace(PG_CATALOG_OID, 'pg_catalog'),
    namespace(INFORMATION_SCHEMA_OID, 'information_schema'),
    ...readable.map((d) => namespace(OID_BASE + d.id, d.name)),
  ];
  const classes: Row[] = [];
  const attributes: Row[] = [];
  for (const d of readable) {
    const ns = namespaces.find((n) => n['pg_namespace.nspname'] === d.name)!;
    for (const t of [...d.tables.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const info = tableInfo(d, t);
      const cls: Row = {
        ...ns,
        'pg_class.oid': BigInt(OID_BASE + t.id),
        'pg_class.relname': t.name,
        'pg_class.relnamespace': ns['pg_namespace.oid']!,
        'pg_class.relkind': 'r',
        'pg_class.relowner': owner,
        'pg_class.relpersistence': 'p',
        'pg_class.relam': 2n,
        'pg_class.relchecks': 0n,
        'pg_class.relhasindex': false,
        'pg_class.relhasrules': false,
        'pg_class.relhastriggers': false,
        'pg_class.relrowsecurity': false,
        'pg_class.relforcerowsecurity': false,
        'pg_class.relispartition': false,
        'pg_class.relhasoids': false,
        'pg_class.reloptions': null,
        'pg_class.reltablespace': 0n,
        'pg_class.reloftype': 0n,
        'pg_class.relreplident': 'd',
        'pg_class.reltoastrelid': 0n,
        'pg_class.relnatts': BigInt(info.columns.length),
        'pg_class.relacl': null,
        'pg_am.amname': 'heap',
        'pg_am.oid': 2n,
        // information_schema.tables
        'tables.table_catalog': state.database,
        'tables.table_schema': d.name,
        'tables.table_name': t.name,
        'tables.table_type': 'BASE TABLE',
        visible: d.name === state.database,
      };
      classes.push(cls);
      info.columns.forEach((c, i) => {
        const type = pgTypeOf(c.type);
        attributes.push({
          ...cls,
          'pg_attribute.attrelid': cls['pg_class.oid']!,
          'pg_attribute.attname': c.name,
          'pg_attribute.atttypid': BigInt(type.oid),
          'pg_attribute.atttypmod': -1n,
          'pg_attribute.attnum': BigInt(i + 1),
          'pg_attribute.attlen': BigInt(type.size),
          'pg_attribute.attnotnull': c.kind === 'time',
          'pg_attribute.attisdropped': false,
          'pg_attribute.atthasdef': false,
          'pg_attribute.attidentity': '',
          'pg_attribute.attgenerated': '',
          'pg_attribute.attcollation': 0n,
          'pg_attribute.attstorage': type.size === -1 ? 'x' : 'p',
          'pg_attribute.attcompression': '',
          'pg_attribute.attstattarget': -1n,
          'pg_type.oid': BigInt(type.oid),
          'pg_type.typname': pgTypeName(c.type),
          // information_schema.columns
          'columns.table_catalog': state.database,
          'columns.table_schema': d.name,
          'columns.table_name': t.name,
          'columns.column_name': c.name,
          'columns.ordinal_position': BigInt(i + 1),
          'columns.data_type': pgTypeName(c.type),
          'columns.udt_name': udtName(type.oid),
          'columns.is_nullable': c.kind === 'time' ? 'NO' : 'YES',
          'columns.column_default': null,
        });
      });
    }
  }
  return { namespaces, classes, attributes, databases };
}

function udtName(oid: number): string {
  const names: Record<number, string> = {
    [OID.bool]: 'bool',
    [OID.int8]: 'int8',
    [OID.numeric]: 'numeric',
    [OID.float8]: 'float8',
    [OID.bytea]: 'bytea',
    [OID.timestamp]: 'timestamp',
    [OID.timestamptz]: 'timestamptz',
    [OID.date]: 'date',
    [OID.time]: 'time',
  };
  return names[oid] ?? 'text';
}

function virtualTables(ctx: CatalogContext): VirtualTables {
  let model: Model | undefined;
  const m = (): Model => (model ??= build(ctx));
  const schemata = (): Row[] =>
    m().namespaces.map((n) => ({
      'schemata.catalog_name': ctx.state.database,
      'schemata.schema_name': n['pg_namespace.nspname']!,
      'schemata.schema_owner': 'root',
    }));
  return {
    'pg_catalog.pg_database': () => m().databases,
    'pg_catalog.pg_namespace': () => m().namespaces,
    'pg_catalog.pg_class': () => m().classes,
    'pg_catalog.pg_tables': () =>
      m().classes.map((c) => ({
        ...c,
        'pg_tables.schemaname': c['pg_namespace.nspname']!,
        'pg_tables.tablename': c['pg_class.relname']!,
        'pg_tables.tableowner': 'root',
      })),
    'pg_catalog.pg_attribute': () => m().attributes,
    'pg_catalog.pg_am': () => [{ 'pg_am.oid': 2n, 'pg_am.amname': 'heap' }],
    'information_schema.tables': () => m().classes,
    'information_schema.columns': () => m().attributes,
    'information_schema.schemata': schemata,
    'information_schema.views': () => [],
  };
}

/** The answer to a catalog query, or undefined when the statement is not one (the engine's). */
export function catalogQuery(sql: string, tokens: readonly PgToken[], ctx: CatalogContext): LocalResult | undefined {
  if (tokens[0]?.kind !== 'word' || (tokens[0].value !== 'select' && tokens[0].value !== 'with')) return undefined;
  const names = new Set<string>();
  let pgCatalog = false;
  let pgInformationSchema = false;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind !== 'word') continue;
    names.add(t.value);
    if (t.value === 'pg_catalog' || (/^pg_[a-z_]+$/.test(t.value) && tokens[i - 1]?.value === 'from')) pgCatalog = true;
    if (
      t.value === 'information_schema' &&
      tokens[i + 1]?.value === '.' &&
      PG_INFORMATION_SCHEMA.has(tokens[i + 2]?.value ?? '')
    )
      pgInformationSchema = true;
  }
  if (pgInformationSchema && ![...PG_ONLY_COLUMNS].some((c) => names.has(c))) pgInformationSchema = false;
  if (!pgCatalog && !pgInformationSchema) return undefined;
  const select = parseSelect(sql, tokens);
  if (select === undefined) return undefined;
  return evaluateSelect(select, virtualTables(ctx), {
    currentDatabase: ctx.state.database,
    user: ctx.state.user,
    setting: (name) => (name === 'search_path' ? ctx.state.database : (ctx.state.settings.get(name) ?? null)),
    typeName: (oid) => typeNameOf(oid),
  });
}

function typeNameOf(oid: Scalar): string | null {
  const n = Number(oid);
  const names: Record<number, string> = {
    [OID.bool]: 'boolean',
    [OID.int8]: 'bigint',
    [OID.numeric]: 'numeric',
    [OID.float8]: 'double precision',
    [OID.bytea]: 'bytea',
    [OID.timestamp]: 'timestamp without time zone',
    [OID.timestamptz]: 'timestamp with time zone',
    [OID.date]: 'date',
    [OID.time]: 'time without time zone',
    [OID.text]: 'text',
  };
  return names[n] ?? null;
}
