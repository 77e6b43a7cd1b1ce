// The catalog's "not found" and "already exists" errors, worded once. CnosDB raises them from its
// meta service and its HTTP answers carry that origin as a `Meta: ` prefix (its own test cases
// match `Meta: Table not found: "cnosdb.public.t"`; cnosdb-sql.md §7.5), so Sundial keeps it:
// clients and tools written against CnosDB match on these texts.

import { UserError } from './errors.js';

export function databaseNotFound(database: string): UserError {
  return new UserError('databaseNotFound', `Meta: Database not found: "${database}"`);
}

export function databaseExists(database: string): UserError {
  return new UserError('databaseExists', `Meta: Database ${database} already exists`);
}

/** `tenant.database.table` as CnosDB names a table that does not exist. */
export function tableNotFound(tenant: string, database: string, table: string): UserError {
  return new UserError('tableNotFound', `Meta: Table not found: "${tenant}.${database}.${table}"`);
}

export function tableExists(table: string): UserError {
  return new UserError('tableExists', `Meta: Table ${table} already exists.`);
}
