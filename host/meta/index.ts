// Metadata's public face: the catalog (tenants, databases, tables, users, roles) and its store,
// the DDL and DCL that change it, access checks and passwords. Other folders import from here.

export {
  has,
  isTenantOwner,
  privilegeOn,
  requireAdmin,
  requireDatabaseAccess,
  requireMembership,
  requireOwner,
  requirePasswordChanged,
  requirePrivilege,
  requireSystemMaintainer,
  requireTenant,
  roleIn,
} from './access.js';
export { Authenticator } from './authenticator.js';
export {
  addMemberDef,
  alterTenantDef,
  alterUserDef,
  changePrivileges,
  checkDatabaseLimits,
  createRoleDef,
  createTenantDef,
  createUserDef,
  dropAfterMs,
  dropRoleDef,
  dropTenantDef,
  dropUserDef,
  parseDropAfter,
  PRIVILEGE_NAMES,
  removeMemberDef,
  renameUserDef,
  setMemberDef,
  type TenantOptions,
  type UserChange,
} from './catalog-dcl.js';
export {
  alterDatabaseDef,
  alterTableDef,
  createDatabaseDef,
  createTableDef,
  dropDatabaseDef,
  dropTableDef,
  requireTable,
} from './catalog-ddl.js';
export { type CatalogFile, CatalogStore } from './catalog-store.js';
export { CatalogConflict, joinCatalog, META_KEY, type SharedCatalogFile, splitCatalog } from './shared-catalog.js';
export { createExternalTableDef, dropExternalTableDef, EXTERNAL_COLUMN_TYPE } from './external-tables.js';
export { addStreamQueryDef, createStreamTableDef, dropStreamTableDef, setStreamProgress } from './stream-tables.js';
export {
  type Catalog,
  columnById,
  type ColumnDef,
  type CreatedSchema,
  type DatabaseDef,
  DEFAULT_DATABASE,
  DEFAULT_DATABASE_OPTIONS,
  DEFAULT_TENANT,
  type DropKind,
  type ExternalTableDef,
  findColumn,
  lacksSchema,
  type StreamQueryDef,
  type StreamTableDef,
  type PendingDrop,
  ROOT_USER,
  stampsOf,
  tableById,
  type TableDef,
  type TenantDef,
  type UserDef,
} from './catalog.js';
export { type LimiterConfig, parseLimiterConfig, type RateBucket, type RequestBucketName } from './limiter-config.js';
export { hashPassword, verifyPassword } from './password.js';
export {
  completeDrop,
  dueDrops,
  findPendingDrop,
  isLive,
  recordResource,
  recoverDrop,
  resourceName,
  scheduleDrop,
} from './pending-drops.js';
export {
  mockScramVerifier,
  parseScramVerifier,
  SCRAM_MECHANISM,
  ScramExchange,
  scramMatches,
  scramVerifier,
} from './scram.js';
