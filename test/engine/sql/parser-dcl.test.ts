import { describe, expect, it } from 'vitest';
import { parseStatement } from '../../../host/engine/sql/index.js';
import { expectRoundTrip } from './ast-utils.js';

/** Tenants, users, roles, privileges: input -> canonical text; each also round-trips. */
const cases: { name: string; sql: string; printed: string }[] = [
  { name: 'CREATE TENANT', sql: 'create tenant test_tenant', printed: 'CREATE TENANT test_tenant' },
  {
    name: 'CREATE TENANT with options',
    sql: "CREATE TENANT IF NOT EXISTS t WITH comment = 'x', drop_after = '7d', _limiter = '{}'",
    printed: "CREATE TENANT IF NOT EXISTS t WITH comment = 'x', drop_after = '7d', _limiter = '{}'",
  },
  // CnosDB 2.4's limiter groups (its documented syntax) become one _limiter option of their JSON.
  {
    name: 'CREATE TENANT with limiter groups',
    sql: "CREATE TENANT t WITH COMMENT = 'x', object_config max_databases = 3 max_users_number = null, coord_data_in remote_max = 10 remote_initial = 0 local_max = -0",
    printed:
      'CREATE TENANT t WITH comment = \'x\', _limiter = \'{"object_config":{"max_databases":3,"max_users_number":null},"request_config":{"coord_data_in":{"remote_bucket":{"max":10,"initial":0},"local_bucket":{"max":0}}}}\'',
  },
  {
    name: 'ALTER TENANT SET a limiter group',
    sql: 'ALTER TENANT t SET object_config = max_databases = 5',
    printed: 'ALTER TENANT t SET _limiter = \'{"object_config":{"max_databases":5}}\'',
  },
  {
    name: 'ALTER TENANT ADD USER',
    sql: 'alter tenant t add user u as owner',
    printed: 'ALTER TENANT t ADD USER u AS owner',
  },
  { name: 'ALTER TENANT REMOVE USER', sql: 'ALTER TENANT t REMOVE USER u', printed: 'ALTER TENANT t REMOVE USER u' },
  {
    name: 'ALTER TENANT SET USER',
    sql: 'ALTER TENANT t SET USER u AS member',
    printed: 'ALTER TENANT t SET USER u AS member',
  },
  {
    name: 'ALTER TENANT SET an option',
    sql: "ALTER TENANT t SET comment = 'abc'",
    printed: "ALTER TENANT t SET comment = 'abc'",
  },
  {
    name: 'ALTER TENANT SET an option named user',
    sql: 'ALTER TENANT t SET "user" = 1',
    printed: 'ALTER TENANT t SET "user" = 1',
  },
  { name: 'ALTER TENANT UNSET', sql: 'ALTER TENANT t UNSET comment', printed: 'ALTER TENANT t UNSET comment' },
  { name: 'DROP TENANT', sql: 'DROP TENANT IF EXISTS t', printed: 'DROP TENANT IF EXISTS t' },
  { name: 'DROP TENANT AFTER', sql: "drop tenant t after '7d'", printed: "DROP TENANT t AFTER '7d'" },
  { name: 'RECOVER TENANT', sql: 'recover tenant t', printed: 'RECOVER TENANT t' },
  {
    name: 'CREATE USER with options',
    sql: "CREATE USER IF NOT EXISTS tester WITH PASSWORD='xxx', MUST_CHANGE_PASSWORD=true, RSA_PUBLIC_KEY='k', GRANTED_ADMIN=false, COMMENT = 'test'",
    printed:
      "CREATE USER IF NOT EXISTS tester WITH password = 'xxx', must_change_password = TRUE, rsa_public_key = 'k', granted_admin = FALSE, comment = 'test'",
  },
  { name: 'CREATE USER', sql: 'create user u', printed: 'CREATE USER u' },
  { name: 'ALTER USER RENAME TO', sql: 'ALTER USER u RENAME TO v', printed: 'ALTER USER u RENAME TO v' },
  { name: 'ALTER USER SET', sql: "alter user u set password = 'p'", printed: "ALTER USER u SET password = 'p'" },
  { name: 'ALTER USER SET NULL', sql: 'alter user u set comment = null', printed: 'ALTER USER u SET comment = NULL' },
  { name: 'DROP USER', sql: 'drop user if exists u', printed: 'DROP USER IF EXISTS u' },
  {
    name: 'CREATE ROLE INHERIT',
    sql: 'create role if not exists r inherit member',
    printed: 'CREATE ROLE IF NOT EXISTS r INHERIT member',
  },
  { name: 'CREATE ROLE', sql: 'CREATE ROLE r', printed: 'CREATE ROLE r' },
  { name: 'DROP ROLE', sql: 'DROP ROLE IF EXISTS r', printed: 'DROP ROLE IF EXISTS r' },
  {
    name: 'GRANT to a role',
    sql: 'grant read on database "db1" to role rrr',
    printed: 'GRANT READ ON DATABASE db1 TO ROLE rrr',
  },
  {
    name: 'GRANT several privileges',
    sql: 'GRANT write ON DATABASE a, ALL ON DATABASE b TO r',
    printed: 'GRANT WRITE ON DATABASE a, ALL ON DATABASE b TO ROLE r',
  },
  {
    name: 'GRANT to a role named role',
    sql: 'GRANT READ ON DATABASE a TO ROLE role',
    printed: 'GRANT READ ON DATABASE a TO ROLE role',
  },
  { name: 'REVOKE', sql: 'revoke all on database db3 from rrr', printed: 'REVOKE ALL ON DATABASE db3 FROM ROLE rrr' },
];

describe('parse DCL', () => {
  for (const c of cases) {
    it(`prints ${c.name}`, () => {
      expectRoundTrip(c.sql, c.printed);
    });
  }

  it('keeps option names as identifiers and values raw', () => {
    expect(parseStatement("CREATE USER u WITH PASSWORD = 'p', MUST_CHANGE_PASSWORD = true")).toMatchObject({
      kind: 'createUser',
      options: [
        { name: 'password', value: { kind: 'string', value: 'p' } },
        { name: 'must_change_password', value: { kind: 'boolean', value: true } },
      ],
    });
  });

  it('reads privileges', () => {
    expect(parseStatement('GRANT READ ON DATABASE a, WRITE ON DATABASE b TO r')).toMatchObject({
      kind: 'grant',
      privileges: [
        { action: 'READ', database: 'a' },
        { action: 'WRITE', database: 'b' },
      ],
      role: 'r',
    });
  });
});
