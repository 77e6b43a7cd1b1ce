// What the host tells the engine for the system views that are not the schema: members, roles,
// privileges, running queries, users and tenants. The host filters every list for the session's
// user (who may see what is access control's business, host/meta/access.ts), so the engine only
// shapes rows. A host without it (a browser) shows those views empty.

/** A running statement (information_schema.queries, SHOW QUERIES). */
export interface QueryInfo {
  id: string;
  /** `batch` (CnosDB's only kind over HTTP). */
  type: string;
  text: string;
  userId: string;
  user: string;
  tenantId: string;
  tenant: string;
  database: string;
  /** CnosDB's QueryState names: ACCEPTING, ANALYZING, SCHEDULING, ... */
  state: string;
  durationS: number;
  processedCount: number;
  errorCount: number;
}

export interface SystemInfo {
  /** information_schema.members: user and role of every member of the session's tenant. */
  members(): readonly { user: string; role: string }[];
  /** information_schema.roles: system and custom roles (owners only; others see none). */
  roles(): readonly { name: string; type: 'system' | 'custom'; inherit: string | null }[];
  /** information_schema.enabled_roles: the session user's role in the tenant. */
  enabledRoles(): readonly string[];
  /** information_schema.database_privileges: grants of custom roles. */
  databasePrivileges(): readonly { database: string; privilege: string; role: string }[];
  /** information_schema.queries. */
  queries(): readonly QueryInfo[];
  /** cluster_schema.users (admins only): `options` is CnosDB's JSON with the hash masked. */
  users(): readonly { name: string; isAdmin: boolean; options: string }[];
  /** cluster_schema.tenants (admins only): `options` is CnosDB's JSON. */
  tenants(): readonly { name: string; options: string }[];
  /** information_schema.resource_status: the last drop of each tenant, database or table the user may see. */
  resourceStatus?(): readonly ResourceStatusRow[];
}

/** A row of information_schema.resource_status (every column text, as in CnosDB). */
export interface ResourceStatusRow {
  /** `YYYY-MM-DD HH:MM:SS`, UTC. */
  time: string;
  name: string;
  action: string;
  tryCount: string;
  status: string;
  comment: string;
}
