// CnosDB's system views: `information_schema.{databases, tables, columns, queries, roles,
// members, enabled_roles, database_privileges, resource_status}` and `cluster_schema.{tenants, users}`, with the
// column names and types of CnosDB 2.4.3's builders (query_server/query/src/metadata/*). Each is
// planned as a VALUES relation under the view's name, so filters, projections, joins and
// aggregates over it work as over any table. Schema views list only the databases the session may
// read (CnosDB's `can_read_database` filter); the host filters the other lists (SystemInfo).

import {
  BOOLEAN,
  type DataType,
  FLOAT64,
  formatBytes,
  formatDuration,
  type Scalar,
  UINT64,
  UTF8,
} from '../types/index.js';
import { columnTypeName, type EngineCatalog } from '../catalog.js';
import type { LExpr } from '../plan/expr.js';
import { subqueryAlias, type LogicalPlan } from '../plan/logical-plan.js';
import { PlanSchema } from '../plan/plan-schema.js';
import type { SystemInfo } from './system-info.js';

export interface SystemViewContext {
  readonly catalog: EngineCatalog;
  readonly tenant: string;
  /** Whether the session may read the database. */
  canRead(database: string): boolean;
  /** The host's lists; undefined: those views are empty. */
  readonly system: SystemInfo | undefined;
}

type Column = readonly [name: string, type: DataType, nullable?: boolean];

interface View {
  readonly columns: readonly Column[];
  rows(ctx: SystemViewContext): Scalar[][];
}

function visibleDatabases(ctx: SystemViewContext) {
  return ctx.catalog
    .databases()
    .filter((d) => ctx.canRead(d.name))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

const INFORMATION_SCHEMA: Readonly<Record<string, View>> = {
  databases: {
    columns: [
      ['tenant_name', UTF8],
      ['database_name', UTF8],
      ['ttl', UTF8],
      ['shard', UINT64],
      ['vnode_duration', UTF8],
      ['replica', UINT64],
      ['precision', UTF8],
      ['max_memcache_size', UTF8],
      ['memcache_partitions', UINT64],
      ['wal_max_file_size', UTF8],
      ['wal_sync', BOOLEAN],
      ['strict_write', BOOLEAN],
      ['max_cache_readers', UINT64],
    ],
    rows: (ctx) =>
      visibleDatabases(ctx).map(({ name, options: o }) => [
        ctx.tenant,
        name,
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
      ]),
  },
  tables: {
    columns: [
      ['table_tenant', UTF8],
      ['table_database', UTF8],
      ['table_name', UTF8],
      ['table_type', UTF8],
      ['table_engine', UTF8],
      ['table_options', UTF8],
    ],
    // CnosDB's engine_name: TSKV for its own tables, EXTERNAL for tables over files, STREAM for streams.
    rows: (ctx) =>
      visibleDatabases(ctx).flatMap((d) => [
        ...ctx.catalog.tables(d.name).map((t) => [ctx.tenant, d.name, t.name, 'TABLE', 'TSKV', 'TODO']),
        ...(ctx.catalog.externalTables?.(d.name) ?? []).map((t) => [
          ctx.tenant,
          d.name,
          t.name,
          'TABLE',
          'EXTERNAL',
          'TODO',
        ]),
        ...(ctx.catalog.streamTables?.(d.name) ?? []).map((t) => [
          ctx.tenant,
          d.name,
          t.name,
          'TABLE',
          'STREAM',
          'TODO',
        ]),
      ]),
  },
  columns: {
    columns: [
      ['tenant_name', UTF8],
      ['database_name', UTF8],
      ['table_name', UTF8],
      ['column_name', UTF8],
      ['column_type', UTF8],
      ['ordinal_position', UINT64],
      ['column_default', UTF8],
      ['is_nullable', BOOLEAN],
      ['data_type', UTF8],
      ['compression_codec', UTF8, true],
    ],
    rows: (ctx) =>
      visibleDatabases(ctx).flatMap((d) =>
        ctx.catalog
          .tables(d.name)
          .flatMap((t) =>
            t.columns.map((c, i) => [
              ctx.tenant,
              d.name,
              t.name,
              c.name,
              c.kind.toUpperCase(),
              BigInt(i),
              'NULL',
              c.kind !== 'time',
              columnTypeName(c),
              c.codec,
            ]),
          ),
      ),
  },
  queries: {
    columns: [
      ['query_id', UTF8],
      ['query_type', UTF8],
      ['query_text', UTF8],
      ['user_id', UTF8],
      ['user_name', UTF8],
      ['tenant_id', UTF8],
      ['tenant_name', UTF8],
      ['database_name', UTF8],
      ['state', UTF8],
      ['duration', FLOAT64],
      ['processed_count', UINT64],
      ['error_count', UINT64],
    ],
    rows: (ctx) =>
      (ctx.system?.queries() ?? []).map((q) => [
        q.id,
        q.type,
        q.text,
        q.userId,
        q.user,
        q.tenantId,
        q.tenant,
        q.database,
        q.state,
        q.durationS,
        BigInt(q.processedCount),
        BigInt(q.errorCount),
      ]),
  },
  roles: {
    columns: [
      ['role_name', UTF8],
      ['role_type', UTF8],
      ['inherit_role', UTF8, true],
    ],
    rows: (ctx) => (ctx.system?.roles() ?? []).map((r) => [r.name, r.type, r.inherit]),
  },
  members: {
    columns: [
      ['user_name', UTF8],
      ['role_name', UTF8],
    ],
    rows: (ctx) => (ctx.system?.members() ?? []).map((m) => [m.user, m.role]),
  },
  enabled_roles: {
    columns: [['role_name', UTF8]],
    rows: (ctx) => (ctx.system?.enabledRoles() ?? []).map((r) => [r]),
  },
  database_privileges: {
    columns: [
      ['tenant_name', UTF8],
      ['database_name', UTF8],
      ['privilege_type', UTF8],
      ['role_name', UTF8],
    ],
    rows: (ctx) => (ctx.system?.databasePrivileges() ?? []).map((p) => [ctx.tenant, p.database, p.privilege, p.role]),
  },
  resource_status: {
    columns: [
      ['time', UTF8],
      ['name', UTF8],
      ['action', UTF8],
      ['try_count', UTF8],
      ['status', UTF8],
      ['comment', UTF8],
    ],
    rows: (ctx) =>
      (ctx.system?.resourceStatus?.() ?? []).map((r) => [r.time, r.name, r.action, r.tryCount, r.status, r.comment]),
  },
};

const CLUSTER_SCHEMA: Readonly<Record<string, View>> = {
  tenants: {
    columns: [
      ['tenant_name', UTF8],
      ['tenant_options', UTF8],
    ],
    rows: (ctx) => (ctx.system?.tenants() ?? []).map((t) => [t.name, t.options]),
  },
  users: {
    columns: [
      ['user_name', UTF8],
      ['is_admin', BOOLEAN],
      ['user_options', UTF8],
    ],
    rows: (ctx) => (ctx.system?.users() ?? []).map((u) => [u.name, u.isAdmin, u.options]),
  },
};

const SCHEMAS: Readonly<Record<string, Readonly<Record<string, View>>>> = {
  information_schema: INFORMATION_SCHEMA,
  cluster_schema: CLUSTER_SCHEMA,
};

/** The tenant whose users see cluster_schema (CnosDB's system tenant, `cnosdb`). */
const CLUSTER_TENANT = 'cnosdb';

/**
 * Whether `[tenant.]cluster_schema.x` is named from a tenant other than the system one: there it
 * is a table that does not exist ("Table not found: \"t1.cluster_schema.users\"", as CnosDB says).
 */
export function isForeignClusterView(name: readonly string[], tenant: string): boolean {
  return (
    (name.length === 2 || (name.length === 3 && name[0] === tenant)) &&
    name[name.length - 2]!.toLowerCase() === 'cluster_schema' &&
    tenant !== CLUSTER_TENANT
  );
}

/** The view `[tenant.]schema.view` names (case-insensitive, as CnosDB's tests write them), if any. */
function findView(name: readonly string[], tenant: string): View | undefined {
  if (name.length === 3 && name[0] !== tenant) return undefined;
  if (name.length !== 2 && name.length !== 3) return undefined;
  if (isForeignClusterView(name, tenant)) return undefined;
  const schema = SCHEMAS[name[name.length - 2]!.toLowerCase()];
  return schema === undefined
    ? undefined
    : Object.hasOwn(schema, name[name.length - 1]!.toLowerCase())
      ? schema[name[name.length - 1]!.toLowerCase()]
      : undefined;
}

/** A database of the system's a tenant lists beside its own: its name and its views' names. */
export interface SystemDatabase {
  name: string;
  tables: string[];
}

/**
 * The system database the system tenant lists beside its own: cluster_schema, with its views as
 * tables (a fresh CnosDB shows `cluster_schema, public, usage_schema` to root). Like any database,
 * only to those who may read it (admins and the tenant's members; a custom role needs a grant);
 * what its views show is another matter (system-info: users and tenants to admins only).
 */
export function clusterSchemaFor(tenant: string): SystemDatabase | undefined {
  return tenant === CLUSTER_TENANT ? { name: 'cluster_schema', tables: Object.keys(CLUSTER_SCHEMA).sort() } : undefined;
}

/** Whether `[tenant.]schema.view` is a system view. */
export function isSystemView(name: readonly string[], tenant: string): boolean {
  return findView(name, tenant) !== undefined;
}

/** The rows of a system view as a relation under `qualifier`, or undefined when `name` is not one. */
export function planSystemView(
  ctx: SystemViewContext,
  name: readonly string[],
  qualifier: string,
): LogicalPlan | undefined {
  const view = findView(name, ctx.tenant);
  if (view === undefined) return undefined;
  const schema = new PlanSchema(
    view.columns.map(([n, type, nullable]) => ({ qualifier: undefined, name: n, type, nullable: nullable ?? false })),
  );
  const rows: LExpr[][] = view
    .rows(ctx)
    .map((r) => r.map((value, i) => ({ kind: 'literal', value, type: view.columns[i]![1] })));
  return subqueryAlias({ kind: 'values', rows, schema }, qualifier);
}
