// CnosDB case files whose `sleep` waits for something the server does on its own clock, so the
// runner sleeps in full there (elsewhere it shortens every sleep: most wait for CnosDB's
// asynchronous meta service, which Sundial does not have). Paths as in CnosDB's repository; none
// is in the shared subset today, so `npm test` pays nothing until one is added there.

export const REAL_TIME_FILES: readonly string[] = [
  // `sleep 3m` for a database with TTL '1m' to drop its rows.
  'query_server/sqllogicaltests/cases/data_tests/data_ttl.slt',
  // `sleep 65s` for DROP DATABASE ... AFTER '1m' to be carried out (resource_status 'Successed').
  'query_server/sqllogicaltests/cases/ddl/drop_and_recover_database.slt',
  // `sleep 2m` for DROP TENANT t5 AFTER '1m' to be carried out (RECOVER TENANT t5 then fails).
  'query_server/sqllogicaltests/cases/dcl/dcl_tenant.slt',
  'query_server/sqllogicaltests/cases/dcl/tenant.slt',
];
