// CREATE / ALTER / DROP of databases and tables, DESCRIBE and SHOW, with CnosDB's rules and
// messages; a rejected statement changes nothing.

import { describe, expect, it } from 'vitest';
import { testDb } from '../support/run-sql.js';

describe('database statements', () => {
  it('creates a database with every option and describes it as CnosDB does', async () => {
    const db = testDb();
    await db.run(
      "CREATE DATABASE d WITH TTL 'inf' SHARD 6 VNODE_DURATION '2y1M' REPLICA 1 PRECISION 'us' MAX_MEMCACHE_SIZE '128MiB' MEMCACHE_PARTITIONS 10 WAL_MAX_FILE_SIZE '300M' WAL_SYNC 'true' STRICT_WRITE 'true' MAX_CACHE_READERS 100",
    );
    const r = await db.run('DESCRIBE DATABASE d');
    expect(r.columns).toEqual([
      'ttl',
      'shard',
      'vnode_duration',
      'replica',
      'precision',
      'max_memcache_size',
      'memcache_partitions',
      'wal_max_file_size',
      'wal_sync',
      'strict_write',
      'max_cache_readers',
    ]);
    expect(r.rows).toEqual([
      'INF | 6 | 2years 1month | 1 | US | 128 MiB | 10 | 286.102294921875 MiB | true | true | 100',
    ]);
  });

  it('reads a bare TTL number as days and alters the alterable options', async () => {
    const db = testDb();
    await db.run("CREATE DATABASE d WITH TTL '10' VNODE_DURATION '3d'");
    await db.run("ALTER DATABASE d SET TTL '30d'");
    await db.run("ALTER DATABASE d SET VNODE_DURATION '100d'");
    await db.run('ALTER DATABASE d SET SHARD 6');
    expect((await db.run('DESCRIBE DATABASE d')).rows[0]).toMatch(
      /^30days \| 6 \| 3months 8days 16h 19m 12s \| 1 \| NS/,
    );
    expect(await db.error("ALTER DATABASE d SET PRECISION 'ms'")).toBe(
      'sql parser error: database config is unmodifiable, only can modify database option: TTL, SHARD, VNODE_DURATION, REPLICA at Line: 1, Column 22',
    );
    expect(await db.error('ALTER DATABASE nope SET SHARD 2')).toBe('Meta: Database not found: "nope"');
    expect(await db.error('CREATE DATABASE e WITH SHARD 0')).toBe(
      'Datafusion: Error during planning: SHARD must be greater than 0, got 0',
    );
  });

  it('creates IF NOT EXISTS, drops IF EXISTS, and keeps public', async () => {
    const db = testDb();
    await db.run('CREATE DATABASE d');
    await db.run('CREATE DATABASE IF NOT EXISTS d');
    expect(await db.error('CREATE DATABASE d')).toBe('Meta: Database "d" already exists');
    expect((await db.run('SHOW DATABASES')).rows).toEqual(['cluster_schema', 'd', 'public']);
    await db.run('DROP DATABASE d');
    await db.run('DROP DATABASE IF EXISTS d');
    expect(await db.error('DROP DATABASE d')).toBe('Meta: Database not found: "d"');
    expect(await db.error('DROP DATABASE public')).toBe('Database "public" forbid drop');
  });
});

describe('table statements', () => {
  it('creates a table with tags and codecs: time, tags, then fields', async () => {
    const db = testDb();
    await db.run(
      'CREATE TABLE t (a BIGINT CODEC(DELTA), b STRING CODEC(GZIP), c BIGINT UNSIGNED CODEC(NULL), d BOOLEAN, e DOUBLE CODEC(GORILLA), TAGS(x, y))',
    );
    expect((await db.run('DESCRIBE TABLE t')).rows).toEqual([
      'time | TIMESTAMP(NANOSECOND) | TIME | DEFAULT',
      'x | STRING | TAG | DEFAULT',
      'y | STRING | TAG | DEFAULT',
      'a | BIGINT | FIELD | DELTA',
      'b | STRING | FIELD | GZIP',
      'c | BIGINT UNSIGNED | FIELD | NULL',
      'd | BOOLEAN | FIELD | DEFAULT',
      'e | DOUBLE | FIELD | GORILLA',
    ]);
    expect((await db.run('SHOW TABLES')).rows).toEqual(['t']);
  });

  const rejected: [string, string][] = [
    ['CREATE TABLE t (a BIGINT, a DOUBLE)', 'Semantic error: Field or Tag have the same name a'],
    ['CREATE TABLE t (a BOOLE)', 'Semantic error: Unexpected data type BOOLE of a, '],
    ['CREATE TABLE t (a TIMESTAMP)', 'Semantic error: column time already exists in table cnosdb.public.t'],
    ['CREATE TABLE t (a DOUBLE CODEC(DELTA))', 'Semantic error: Unsupported encoding type Delta for F64'],
    ['CREATE TABLE nodb.t (a DOUBLE)', 'Meta: Database not found: "nodb"'],
    ['CREATE TABLE t (a DOUBLE, TAGS(a))', 'Semantic error: Field or Tag have the same name a'],
  ];
  for (const [sql, message] of rejected) {
    it(`rejects ${sql}`, async () => {
      const db = testDb();
      expect(await db.error(sql)).toBe(message);
      expect((await db.run('SHOW TABLES')).rows).toEqual([]);
    });
  }

  it("alters a table: add, codec, rename, drop, with CnosDB's refusals", async () => {
    const db = testDb();
    await db.run('CREATE TABLE t (f0 BIGINT CODEC(NULL), TAGS(t0))');
    expect(await db.error('ALTER TABLE t DROP f0')).toBe('Semantic error: There must be at least one field column.');
    expect(await db.error('ALTER TABLE t DROP t0')).toBe("Semantic error: Can't drop tag column t0.");
    expect(await db.error('ALTER TABLE t ADD TAG t0')).toBe('Semantic error: column t0 already exists in table t');
    expect(await db.error('ALTER TABLE t ALTER t0 SET CODEC(NULL)')).toBe(
      'Semantic error: Tag does not support compression',
    );
    expect(await db.error('ALTER TABLE t ALTER time SET CODEC(NULL)')).toBe(
      'Semantic error: Column time does not support modification',
    );
    expect(await db.error('ALTER TABLE t RENAME COLUMN time TO t2')).toBe(
      'This feature is not implemented: rename time column',
    );
    await db.run('ALTER TABLE t ADD TAG t1');
    await db.run('ALTER TABLE t ADD FIELD f1 DOUBLE CODEC(GORILLA)');
    await db.run('ALTER TABLE t ALTER f0 SET CODEC(DELTA)');
    await db.run("INSERT INTO t (time, t0, t1, f0, f1) VALUES (1, 'a', 'b', 5, 0.5)");
    await db.run('ALTER TABLE t RENAME COLUMN f1 TO g');
    await db.run('ALTER TABLE t RENAME COLUMN t1 TO u');
    expect((await db.run('DESCRIBE TABLE t')).rows).toEqual([
      'time | TIMESTAMP(NANOSECOND) | TIME | DEFAULT',
      't0 | STRING | TAG | DEFAULT',
      'f0 | BIGINT | FIELD | DELTA',
      'u | STRING | TAG | DEFAULT',
      'g | DOUBLE | FIELD | GORILLA',
    ]);
    expect((await db.run('SELECT * FROM t')).rows).toEqual(['1970-01-01T00:00:00.000000001 | a | 5 | b | 0.5']);
    await db.run('ALTER TABLE t DROP g');
    expect((await db.run('SELECT * FROM t')).columns).toEqual(['time', 't0', 'f0', 'u']);
    await db.run('DROP TABLE t');
    expect(await db.error('SELECT * FROM t')).toBe('Meta: Table not found: "cnosdb.public.t"');
    await db.run('DROP TABLE IF EXISTS t');
  });

  it('uses the database precision for the time column', async () => {
    const db = testDb();
    await db.run("CREATE DATABASE ms WITH PRECISION 'ms'");
    await db.run('CREATE TABLE ms.t (v BIGINT)');
    await db.run('INSERT INTO ms.t (time, v) VALUES (1667456411001, 10)');
    expect((await db.run('SELECT * FROM t', { database: 'ms' })).rows).toEqual(['2022-11-03T06:20:11.001 | 10']);
    expect((await db.run('DESCRIBE TABLE ms.t')).rows[0]).toBe('time | TIMESTAMP(MILLISECOND) | TIME | DEFAULT');
  });
});
