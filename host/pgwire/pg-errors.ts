// Sundial's errors as PostgreSQL ErrorResponse fields: a SQLSTATE from PostgreSQL's table
// (errcodes-appendix.html) chosen by the error's kind, the message as HTTP sends it, and
// Sundial's six-digit code in the detail, so that a client sees the same code as over HTTP.
// A kind this table does not name (one added later) falls back by its HTTP status.

import { CorruptionError, UserError, type ErrorKind } from '../core/errors.js';
import type { NoticeFields } from './messages.js';

const SQLSTATES: Partial<Record<ErrorKind, string>> = {
  internal: 'XX000',
  unavailable: '57P03', // cannot_connect_now
  sqlPlan: '42000', // syntax_error_or_access_rule_violation
  sqlSemantic: '42000',
  privilege: '42501', // insufficient_privilege
  notImplemented: '0A000', // feature_not_supported
  sqlParse: '42601', // syntax_error
  queryTimeout: '57014', // query_canceled (statement_timeout reports it too)
  queryCanceled: '57014',
  queryMemory: '53200', // out_of_memory
  sqlExecute: '22000', // data_exception
  sqlArrow: '22P02', // invalid_text_representation
  multiStatement: '42601',
  invalidParam: '22023', // invalid_parameter_value
  forbidDropTenant: '42501',
  forbidDropDatabase: '42501',
  forbidDropUser: '42501',
  forbidLimitTenant: '42501',
  forbidDropSystemRole: '42501',
  forbidCreateSystemRole: '42501',
  systemRoleModification: '0LP01', // invalid_grant_operation
  invalidGeometry: '22023',
  auth: '28P01', // invalid_password
  schemaConflict: '42804', // datatype_mismatch
  pointExpired: '22008', // datetime_field_overflow
  timestampOverflow: '22008',
  corruptData: 'XX001', // data_corrupted
  memberExists: '42710', // duplicate_object
  memberNotFound: '42704', // undefined_object
  roleExists: '42710',
  roleNotFound: '42704',
  userExists: '42710',
  userNotFound: '42704',
  tenantExists: '42710',
  tenantNotFound: '3D000', // invalid_catalog_name
  databaseExists: '42P04', // duplicate_database
  databaseNotFound: '3D000',
  tableExists: '42P07', // duplicate_table
  tableNotFound: '42P01', // undefined_table
  limitReached: '53000', // insufficient_resources
  privilegeNotGranted: '0LP01',
  objectLimit: '54000', // program_limit_exceeded
  badParameter: '22023',
  bodyTooLarge: '54000',
  pgProtocol: '08P01', // protocol_violation
};

/** Planning errors whose class PostgreSQL names more precisely than 42000. */
const PLAN_MESSAGES: ReadonlyArray<[RegExp, string]> = [
  [/Invalid function|No function matches/, '42883'], // undefined_function
  [/No field named|Schema error: No field/, '42703'], // undefined_column
  [/table .* not found|Table not found/i, '42P01'],
];

export function sqlStateOf(err: UserError): string {
  if (err.kind === 'sqlPlan' || err.kind === 'sqlExecute') {
    for (const [re, state] of PLAN_MESSAGES) if (re.test(err.message)) return state;
  }
  return SQLSTATES[err.kind] ?? (err.status >= 500 ? 'XX000' : '42000');
}

/** Classifies anything thrown while serving a connection; bugs and corruption are logged by the caller. */
export function asUserError(e: unknown): UserError {
  if (e instanceof UserError) return e;
  if (e instanceof CorruptionError) return new UserError('corruptData', e.message);
  const text = e instanceof Error && e.message.startsWith('BUG:') ? e.message : 'internal error; see the server log';
  return new UserError('internal', text);
}

export function errorFields(err: UserError, severity: 'ERROR' | 'FATAL' = 'ERROR'): NoticeFields {
  return { severity, code: sqlStateOf(err), message: err.message, detail: `Sundial error code ${err.code}` };
}
