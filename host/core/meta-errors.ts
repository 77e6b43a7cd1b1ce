// The catalog's "not found" and "already exists" errors, worded once. CnosDB raises them from its
// meta service and its HTTP answers carry that origin as a `Meta: ` prefix (its own test cases
// match `Meta: Table not found: "cnosdb.public.t"`; cnosdb-sql.md §7.5), so Sundial keeps it:
// clients and tools written against CnosDB match on these texts.

import { UserError } from './errors.js';

export function databaseNotFound(database: string): UserError {
  return new UserError('databaseNotFound', `Meta: Database not found: "${database}"`);
}

/** MetaError::DatabaseAlreadyExists, whose template prints the name in Rust's Debug form (quoted). */
export function databaseExists(database: string): UserError {
  return new UserError('databaseExists', `Meta: Database ${JSON.stringify(database)} already exists`);
}

/** `tenant.database.table` as CnosDB names a table that does not exist. */
export function tableNotFound(tenant: string, database: string, table: string): UserError {
  return new UserError('tableNotFound', `Meta: Table not found: "${tenant}.${database}.${table}"`);
}

export function tableExists(table: string): UserError {
  return new UserError('tableExists', `Meta: Table ${table} already exists.`);
}

// Tenants, users, roles, members (CnosDB's MetaError texts, codes 030001-030010).

export function tenantExists(tenant: string): UserError {
  return new UserError('tenantExists', `Meta: The tenant ${tenant} already exists`);
}

/** For DCL naming a tenant (the access check's "not a member" text has no `Meta: ` prefix). */
export function tenantNotFound(tenant: string): UserError {
  return new UserError('tenantNotFound', `Meta: The tenant ${tenant} not found`);
}

export function userExists(user: string): UserError {
  return new UserError('userExists', `Meta: The user ${user} already exists`);
}

export function userNotFound(user: string): UserError {
  return new UserError('userNotFound', `Meta: The user ${user} not found`);
}

export function roleExists(role: string): UserError {
  return new UserError('roleExists', `Meta: The role ${role} already exists`);
}

export function roleNotFound(role: string): UserError {
  return new UserError('roleNotFound', `Meta: The role ${role} not found`);
}

export function memberExists(user: string, tenant: string): UserError {
  return new UserError('memberExists', `Meta: The member ${user} of tenant ${tenant} already exists`);
}

export function memberNotFound(user: string, tenant: string): UserError {
  return new UserError('memberNotFound', `Meta: The member ${user} of tenant ${tenant} not found`);
}
