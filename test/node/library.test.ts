// Library mode (host/node/library.ts): open() an in-memory store or a data directory in this
// process, write line protocol, run SQL for rows or record batches, close(); the directory lock
// against a second opener and against a running server; a directory written by the library
// served by `sundial serve` with the same answers.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataDirLockedError, open, SundialError } from '../../host/node/library.js';
import { startServer } from '../support/server.js';

const root = mkdtempSync(join(tmpdir(), 'sundial-library-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const freshDir = (): string => join(root, `d${++dirs}`);

const LINES =
  'cpu,host=a usage=12.5,count=3i,up=true,note="x" 1700000000000000000\ncpu,host=b usage=40,count=7i 1700000001000000000\n';
const NO_WARMUPS = ['--warmup', 'false', '--write-warmup', 'false', '--parse-warmup', 'false'];

describe('open() in memory', () => {
  it('writes line protocol and returns rows with typed values', async () => {
    const db = await open();
    try {
      await db.write(LINES);
      expect(await db.sql('SELECT * FROM cpu ORDER BY host')).toEqual([
        { time: 1700000000000000000n, host: 'a', count: 3n, note: 'x', up: true, usage: 12.5 },
        { time: 1700000001000000000n, host: 'b', count: 7n, note: null, up: null, usage: 40 },
      ]);
      expect(await db.sql('SELECT host, avg(usage) AS u FROM cpu GROUP BY host ORDER BY host')).toEqual([
        { host: 'a', u: 12.5 },
        { host: 'b', u: 40 },
      ]);
    } finally {
      await db.close();
    }
  });

  it('returns record batches with the columns first', async () => {
    const db = await open();
    try {
      await db.write(LINES);
      const result = await db.query('SELECT time, host, usage FROM cpu ORDER BY time');
      expect(result.fields.map((f) => `${f.name} ${f.type.id}`)).toEqual([
        'time Timestamp',
        'host Utf8',
        'usage Float64',
      ]);
      const batches = [];
      for await (const b of result) batches.push(b);
      expect(batches.reduce((n, b) => n + b.length, 0)).toBe(2);
      expect([...(batches[0]!.columns[2]!.values as Float64Array)]).toEqual([12.5, 40]);
      const ddl = await db.query('CREATE DATABASE other');
      expect(ddl.fields).toEqual([]);
      for await (const _ of ddl) throw new Error('a DDL statement has no batches');
    } finally {
      await db.close();
    }
  });

  it('writes to and reads from the tenant and database asked for, in the precision given', async () => {
    const store = await open({ database: 'metrics' });
    try {
      // The default database is the one asked for: it must exist first, as on the server (030017).
      await expect(store.write('m v=1i 1')).rejects.toMatchObject({ code: '030017' });
      await store.sql("CREATE DATABASE metrics WITH TTL '3650d'");
      await store.write('m v=1i 1700000000', { precision: 's' });
      expect(await store.sql('SELECT time, v FROM m')).toEqual([{ time: 1700000000000000000n, v: 1n }]);
      expect(await store.sql('SHOW TABLES', { database: 'public' })).toEqual([]);
    } finally {
      await store.close();
    }
  });

  const failures: Array<{
    name: string;
    run: (db: Awaited<ReturnType<typeof open>>) => Promise<unknown>;
    code: string;
  }> = [
    { name: 'a SQL syntax error', run: (db) => db.sql('SELEC 1'), code: '010009' },
    { name: 'several statements', run: (db) => db.sql('SELECT 1; SELECT 2'), code: '010013' },
    { name: 'an unknown table', run: (db) => db.sql('SELECT * FROM nope'), code: '030019' },
    { name: 'a write to an unknown database', run: (db) => db.write('m v=1', { database: 'nope' }), code: '030017' },
    { name: 'a malformed line', run: (db) => db.write('m v=', {}), code: '040004' },
    { name: 'a type conflict', run: async (db) => (await db.write('c v=1i 1'), db.write('c v="s" 2')), code: '020010' },
    { name: 'an unknown tenant', run: (db) => db.sql('SELECT 1', { tenant: 'nope' }), code: '030010' },
    { name: 'a bad precision', run: (db) => db.write('m v=1 1', { precision: 'h' as 's' }), code: '040001' },
  ];
  for (const f of failures) {
    it(`rejects ${f.name} with the server's error code ${f.code}`, async () => {
      const db = await open();
      try {
        const err = await f.run(db).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(SundialError);
        expect((err as SundialError).code).toBe(f.code);
      } finally {
        await db.close();
      }
    });
  }

  it('refuses an unknown setting and a bad value, naming them', async () => {
    await expect(open({ settings: { 'storage.nope': 1 } })).rejects.toThrow("unknown setting 'storage.nope'");
    await expect(open({ settings: { 'storage.memtable_bytes': 'lots' } })).rejects.toThrow('memtable-bytes');
  });

  it('cancels a statement when its signal aborts, before it starts and while its batches are pulled', async () => {
    const db = await open();
    try {
      const lines = Array.from({ length: 50_000 }, (_, i) => `big,host=h${i % 10} v=${i} ${i + 1}`).join('\n');
      await db.write(lines);
      const early = new AbortController();
      early.abort();
      await expect(db.sql('SELECT count(*) FROM big', { signal: early.signal })).rejects.toMatchObject({
        code: '010014',
      });
      const later = new AbortController();
      const result = await db.query('SELECT * FROM big', { signal: later.signal });
      const it = result[Symbol.asyncIterator]();
      expect((await it.next()).done).toBe(false);
      later.abort();
      await expect(
        (async () => {
          for (;;) if ((await it.next()).done === true) return;
        })(),
      ).rejects.toMatchObject({ code: '010014' });
      // The cancelled statements let go of their slots: SHOW QUERIES lists only itself.
      expect((await db.sql('SHOW QUERIES')).length).toBe(1);
    } finally {
      await db.close();
    }
  });

  it('lets the program exit with a result nobody pulls, closed or not', () => {
    const library = new URL('../../dist/host/node/library.js', import.meta.url).href;
    for (const close of ['await db.close();', '']) {
      const script = `import { open } from '${library}';
const db = await open();
await db.write('cpu,host=a v=1 1\\ncpu,host=b v=2 2');
const result = await db.query('SELECT * FROM cpu');
${close}
process.stdout.write(String(result.fields.length));`;
      // Before: the query timer (limits.query_timeout, 10 minutes) held the process after its last line.
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect({ status: r.status, stdout: r.stdout, stderr: r.stderr }, close || 'without close').toEqual({
        status: 0,
        stdout: '3',
        stderr: '',
      });
    }
  });

  it('refuses statements and writes after close', async () => {
    const db = await open();
    await db.close();
    await expect(db.sql('SELECT 1')).rejects.toMatchObject({ code: '000003' });
    await expect(db.write('m v=1 1')).rejects.toMatchObject({ code: '000003' });
    await db.close(); // twice is fine
  });
});

describe('open() a data directory', () => {
  it('keeps what was written across close and open', async () => {
    const dataDir = freshDir();
    const db = await open({ dataDir });
    await db.write(LINES);
    await db.sql('CREATE DATABASE kept');
    await db.close();
    expect(existsSync(join(dataDir, 'LOCK'))).toBe(false);
    const again = await open({ dataDir });
    try {
      expect(await again.sql('SELECT host, count FROM cpu ORDER BY host')).toEqual([
        { host: 'a', count: 3n },
        { host: 'b', count: 7n },
      ]);
      expect((await again.sql('SHOW DATABASES')).map((r) => r.database_name)).toContain('kept');
    } finally {
      await again.close();
    }
  });

  it('is open in one place at a time: a second open fails until the first closes', async () => {
    const dataDir = freshDir();
    const db = await open({ dataDir });
    const err = await open({ dataDir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataDirLockedError);
    expect((err as Error).message).toBe(
      `data directory ${dataDir} is in use: this process already has it open (${join(dataDir, 'LOCK')}); stop or close that first, or use another directory`,
    );
    await db.close();
    const again = await open({ dataDir });
    await again.close();
  });

  it('takes over the lock of a process that is gone', async () => {
    const dataDir = freshDir();
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const db0 = await open({ dataDir });
    await db0.close();
    writeFileSync(join(dataDir, 'LOCK'), `${gone.stdout}\n`);
    const db = await open({ dataDir });
    expect(readFileSync(join(dataDir, 'LOCK'), 'utf8')).toBe(`${process.pid}\n`);
    await db.close();
  });

  it('hands its directory to `sundial serve`, which answers as the library did, and back', async () => {
    const dataDir = freshDir();
    const db = await open({ dataDir });
    await db.write(LINES);
    const sql = 'SELECT host, usage, count FROM cpu ORDER BY host';
    const rows = await db.sql(sql);

    // While the library has it, the server refuses to start, naming this process.
    const refused = await startServer({ dataDir, args: NO_WARMUPS, waitReady: false }).then(
      // It listens only if it took the directory: stop it then, and fail below.
      async (s) => ({ code: await s.stop(), logs: s.logs }),
      (e: unknown) => ({ code: undefined, logs: [], error: String(e) }),
    );
    expect(JSON.stringify(refused)).toContain(
      `data directory ${dataDir} is in use: process ${process.pid} has it open`,
    );
    await db.close();

    const server = await startServer({ dataDir, args: NO_WARMUPS });
    try {
      const res = await fetch(`${server.url}/api/v1/sql?db=public`, {
        method: 'POST',
        body: sql,
        headers: { authorization: 'Basic cm9vdDo=', accept: 'application/json' },
      });
      expect(await res.json()).toEqual(rows.map((r) => ({ ...r, count: Number(r.count) })));
      // ... and while the server has it, the library cannot open it.
      await expect(open({ dataDir })).rejects.toThrow(
        `data directory ${dataDir} is in use: process ${server.pid} has it open`,
      );
    } finally {
      expect(await server.stop()).toBe(0);
    }
    const back = await open({ dataDir });
    expect(await back.sql(sql)).toEqual(rows);
    await back.close();
  });
});

describe('stream tables in library mode', () => {
  const T0 = 1_704_067_200; // 2024-01-01T00:00:00Z in seconds
  const bin = "date_bin(INTERVAL '1' MINUTE, time, TIMESTAMP '2024-01-01T00:00:00')";
  const SINK = 'SELECT time, station, max_pressure, n FROM air_1m ORDER BY time, station';
  /** The sink's rows once it has `rows` of them (the stream runner turns every second; generous bound). */
  const eventually = async (db: Awaited<ReturnType<typeof open>>, rows: number): Promise<unknown[]> => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const got = await db.sql(SINK);
      if (got.length >= rows || Date.now() > deadline) return got;
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const minute = (m: number): bigint => BigInt(T0 + m * 60) * 1_000_000_000n;

  it('runs the continuous queries while the handle is open, and again after a reopen', async () => {
    const dir = freshDir();
    let db = await open({ dataDir: dir });
    try {
      await db.sql('CREATE TABLE air (pressure DOUBLE, TAGS(station))');
      await db.sql(
        "CREATE STREAM TABLE air_stream (time TIMESTAMP, station STRING, pressure DOUBLE) WITH (db = 'public', table = 'air', event_time_column = 'time') engine = tskv",
      );
      await db.sql('CREATE TABLE air_1m (max_pressure DOUBLE, n BIGINT, TAGS(station))');
      await db.sql(
        `INSERT INTO air_1m (time, station, max_pressure, n) SELECT ${bin} AS time, station, max(pressure), count(pressure) FROM air_stream GROUP BY ${bin}, station`,
      );
      await db.write(
        `air,station=a pressure=10 ${T0 + 5}\nair,station=a pressure=12 ${T0 + 40}\nair,station=a pressure=1 ${T0 + 70}\n`,
        {
          precision: 's',
        },
      );
      expect(await eventually(db, 1)).toEqual([{ time: minute(0), station: 'a', max_pressure: 12, n: 2n }]);
      await db.close();
      db = await open({ dataDir: dir });
      await db.write(`air,station=a pressure=3 ${T0 + 125}\n`, { precision: 's' });
      expect(await eventually(db, 2)).toEqual([
        { time: minute(0), station: 'a', max_pressure: 12, n: 2n },
        { time: minute(1), station: 'a', max_pressure: 1, n: 1n },
      ]);
    } finally {
      await db.close();
    }
  });
});
