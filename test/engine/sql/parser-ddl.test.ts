import { describe, expect, it } from 'vitest';
import { parseStatement } from '../../../host/engine/sql/index.js';
import { expectRoundTrip } from './ast-utils.js';

/** Databases and tables: input -> canonical text; each also round-trips. */
const cases: { name: string; sql: string; printed: string }[] = [
  { name: 'CREATE DATABASE', sql: 'create database db1', printed: 'CREATE DATABASE db1' },
  {
    name: 'CREATE DATABASE IF NOT EXISTS with options',
    sql: "CREATE DATABASE IF NOT EXISTS describe_database with ttl '10d';",
    printed: "CREATE DATABASE IF NOT EXISTS describe_database WITH TTL '10d'",
  },
  {
    name: 'every database option, any case',
    sql: "create database tttest with ttl 'inf' shard 6 vnode_duration '2y1M' replica 1 precision 'us' max_memcache_size '128MiB' memcache_partitions 10 wal_max_file_size '300M' wal_sync 'true' strict_write 'true' max_cache_readers 100;",
    printed:
      "CREATE DATABASE tttest WITH TTL 'inf' SHARD 6 VNODE_DURATION '2y1M' REPLICA 1 PRECISION 'us' MAX_MEMCACHE_SIZE '128MiB' MEMCACHE_PARTITIONS 10 WAL_MAX_FILE_SIZE '300M' WAL_SYNC 'true' STRICT_WRITE 'true' MAX_CACHE_READERS 100",
  },
  {
    name: 'options in mixed case',
    sql: "CREATE DATABASE alter_database WITH TTl '10d' SHARD 5 VNOdE_DURATiON '3d' REPLICA 1 pRECISIOn 'us';",
    printed: "CREATE DATABASE alter_database WITH TTL '10d' SHARD 5 VNODE_DURATION '3d' REPLICA 1 PRECISION 'us'",
  },
  {
    name: 'options with = and without WITH',
    sql: "CREATE DATABASE d TTL = '1d' SHARD = '2'",
    printed: "CREATE DATABASE d WITH TTL '1d' SHARD '2'",
  },
  {
    name: 'a negative option, kept raw',
    sql: 'CREATE DATABASE d WITH SHARD -1',
    printed: 'CREATE DATABASE d WITH SHARD -1',
  },
  {
    name: 'a keyword as a database name',
    sql: "create database limit WITH TTL '100000d'",
    printed: 'CREATE DATABASE "limit" WITH TTL \'100000d\'',
  },
  { name: 'a single-quoted database name', sql: "create database 'dd c'", printed: 'CREATE DATABASE "dd c"' },
  {
    name: 'ALTER DATABASE SET',
    sql: "ALTER DATABASE alter_database Set TTL '30d';",
    printed: "ALTER DATABASE alter_database SET TTL '30d'",
  },
  { name: 'ALTER DATABASE SET with =', sql: 'alter database d set shard = 6', printed: 'ALTER DATABASE d SET SHARD 6' },
  {
    name: 'ALTER DATABASE VNODE_DURATION and REPLICA',
    sql: "alter database d set vnode_duration '100d'",
    printed: "ALTER DATABASE d SET VNODE_DURATION '100d'",
  },
  { name: 'DROP DATABASE IF EXISTS', sql: "drop database if exists 'dd c'", printed: 'DROP DATABASE IF EXISTS "dd c"' },
  { name: 'DROP DATABASE AFTER', sql: "DROP DATABASE db AFTER '7d'", printed: "DROP DATABASE db AFTER '7d'" },
  { name: 'RECOVER DATABASE', sql: 'recover database if exists db', printed: 'RECOVER DATABASE IF EXISTS db' },
  { name: 'COMPACT DATABASE', sql: 'compact database db', printed: 'COMPACT DATABASE db' },
  {
    name: 'CREATE TABLE with codecs and tags',
    sql: 'CREATE TABLE test0(\n    column1 BIGINT CODEC(DELTA),\n    column2 STRING CODEC(GZIP),\n    column3 BIGINT UNSIGNED CODEC(NULL),\n    column4 BOOLEAN,\n    column5 DOUBLE CODEC(GORILLA),\n    TAGS(column6, column7));',
    printed:
      'CREATE TABLE test0 (column1 BIGINT CODEC(DELTA), column2 STRING CODEC(GZIP), column3 BIGINT UNSIGNED CODEC(NULL), column4 BOOLEAN, column5 DOUBLE CODEC(GORILLA), TAGS(column6, column7))',
  },
  {
    name: 'CREATE TABLE without tags',
    sql: 'CREATE TABLE t1(a BIGINT, b BIGINT);',
    printed: 'CREATE TABLE t1 (a BIGINT, b BIGINT)',
  },
  {
    name: 'CREATE TABLE IF NOT EXISTS in a database',
    sql: 'CREATE TABLE IF NOT EXISTS time_window.m2(f0 BIGINT , f1 DOUBLE , TAGS(t0, t1, t2) );',
    printed: 'CREATE TABLE IF NOT EXISTS time_window.m2 (f0 BIGINT, f1 DOUBLE, TAGS(t0, t1, t2))',
  },
  {
    name: 'lower-case codecs',
    sql: 'create table t (a bigint codec(delta), b boolean codec(bitpack))',
    printed: 'CREATE TABLE t (a BIGINT CODEC(DELTA), b BOOLEAN CODEC(BITPACK))',
  },
  {
    name: 'an empty TAGS list and a trailing comma in TAGS',
    sql: 'create table t (a bigint, tags(x,))',
    printed: 'CREATE TABLE t (a BIGINT, TAGS(x))',
  },
  {
    name: 'geometry columns',
    sql: 'CREATE TABLE g (loc0_point geometry(point, 0), loc6 geometry(GEOMETRYCOLLECTION, 0), tags(t0))',
    printed: 'CREATE TABLE g (loc0_point GEOMETRY(POINT, 0), loc6 GEOMETRY(GEOMETRYCOLLECTION, 0), TAGS(t0))',
  },
  {
    name: 'an unknown type, left to the planner',
    sql: 'CREATE TABLE t (column4 BOOLE)',
    printed: 'CREATE TABLE t (column4 BOOLE)',
  },
  {
    name: 'a TIMESTAMP column, left to the planner',
    sql: 'CREATE TABLE t (c0 TIMESTAMP CODEC(DELTA), c1 BIGINT)',
    printed: 'CREATE TABLE t (c0 TIMESTAMP CODEC(DELTA), c1 BIGINT)',
  },
  {
    name: 'a column named values',
    sql: 'create table if not exists test_date_trunc(values bigint);',
    printed: 'CREATE TABLE IF NOT EXISTS test_date_trunc (values bigint)'.replace('bigint', 'BIGINT'),
  },
  {
    name: 'a column named tags',
    sql: 'create table t (tags bigint, x double, tags string)',
    printed: 'CREATE TABLE t (tags BIGINT, x DOUBLE, tags STRING)',
  },
  {
    name: 'a quoted table name keeping case',
    sql: 'CREATE TABLE createtable."tesT"(column1 BIGINT)',
    printed: 'CREATE TABLE createtable."tesT" (column1 BIGINT)',
  },
  { name: 'ALTER TABLE ADD TAG', sql: 'ALTER TABLE test ADD TAG t1;', printed: 'ALTER TABLE test ADD TAG t1' },
  {
    name: 'ALTER TABLE ADD FIELD with codec',
    sql: 'ALTER TABLE test ADD FIELD f1 BIGINT CODEC(NULL);',
    printed: 'ALTER TABLE test ADD FIELD f1 BIGINT CODEC(NULL)',
  },
  {
    name: 'ALTER TABLE ADD FIELD without codec',
    sql: 'ALTER TABLE air ADD FIELD humidity DOUBLE;',
    printed: 'ALTER TABLE air ADD FIELD humidity DOUBLE',
  },
  {
    name: 'ALTER TABLE ALTER SET CODEC',
    sql: 'alter table air alter pressure set codec(snappy);',
    printed: 'ALTER TABLE air ALTER pressure SET CODEC(SNAPPY)',
  },
  { name: 'ALTER TABLE DROP', sql: 'ALTER TABLE t1 drop b;', printed: 'ALTER TABLE t1 DROP b' },
  {
    name: 'ALTER TABLE RENAME COLUMN',
    sql: 'alter table ddl_tbl rename column f0 to f0009;',
    printed: 'ALTER TABLE ddl_tbl RENAME COLUMN f0 TO f0009',
  },
  {
    name: 'DROP TABLE IF EXISTS',
    sql: 'drop table if exists bool_test.boolean_test;',
    printed: 'DROP TABLE IF EXISTS bool_test.boolean_test',
  },
  { name: 'DROP TABLE', sql: 'DROP TABLE test0', printed: 'DROP TABLE test0' },
  {
    name: 'CREATE EXTERNAL TABLE with every clause',
    sql: "CREATE UNBOUNDED EXTERNAL TABLE IF NOT EXISTS ext (a BIGINT NOT NULL, b VARCHAR NULL) STORED AS csv WITH HEADER ROW DELIMITER ';' PARTITIONED BY (a) COMPRESSION TYPE gzip OPTIONS ('k' 'v', k2 = 1) LOCATION '/tmp/x.csv'",
    printed:
      "CREATE UNBOUNDED EXTERNAL TABLE IF NOT EXISTS ext (a BIGINT NOT NULL, b VARCHAR) STORED AS CSV WITH HEADER ROW DELIMITER ';' PARTITIONED BY (a) COMPRESSION TYPE GZIP OPTIONS ('k' 'v', 'k2' '1') LOCATION '/tmp/x.csv'",
  },
  {
    name: 'CREATE EXTERNAL TABLE with clauses in another order',
    sql: "create external table t location 'p' stored as parquet",
    printed: "CREATE EXTERNAL TABLE t STORED AS PARQUET LOCATION 'p'",
  },
];

describe('parse DDL', () => {
  for (const c of cases) {
    it(`prints ${c.name}`, () => {
      expectRoundTrip(c.sql, c.printed);
    });
  }

  it('keeps option values raw', () => {
    expect(parseStatement("CREATE DATABASE d WITH TTL '10d' SHARD 5")).toMatchObject({
      kind: 'createDatabase',
      name: 'd',
      ifNotExists: false,
      options: [
        { name: 'TTL', value: { kind: 'string', value: '10d' } },
        { name: 'SHARD', value: { kind: 'number', text: '5' } },
      ],
    });
  });

  it('separates fields from tags in CREATE TABLE', () => {
    expect(parseStatement('CREATE TABLE t (a BIGINT UNSIGNED CODEC(DELTA), b BOOLE, TAGS(x, "Y"))')).toMatchObject({
      kind: 'createTable',
      name: ['t'],
      columns: [
        { name: 'a', dataType: { name: 'BIGINT', unsigned: true, custom: false, params: [] }, codec: 'DELTA' },
        { name: 'b', dataType: { name: 'BOOLE', custom: true } },
      ],
      tags: ['x', 'Y'],
    });
  });

  it('reads ALTER TABLE actions', () => {
    expect(parseStatement('ALTER TABLE db.t RENAME COLUMN a TO b')).toMatchObject({
      kind: 'alterTable',
      table: ['db', 't'],
      action: { kind: 'renameColumn', from: 'a', to: 'b' },
    });
    expect(parseStatement('ALTER TABLE t ADD FIELD f DOUBLE CODEC(GORILLA)')).toMatchObject({
      action: { kind: 'addField', column: { name: 'f', codec: 'GORILLA' } },
    });
  });
});
