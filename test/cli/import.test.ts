// `sundial import` against a real server: every format, plain and compressed, read back row by
// row with SQL; rejected lines reported at their input line with the server's reason while every
// other line is stored; --resume after a kill mid-import; the usage errors.

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { sqlChecks } from '../support/sql.js';
import {
  COMPRESSIONS,
  csvOf,
  expectedCsv,
  lpOf,
  ndjsonOf,
  parquetOf,
  rows,
  SELECT,
  sundial,
  sundialAsync,
  T0,
  timeText,
} from '../support/transfer.js';

const dir = mkdtempSync(join(tmpdir(), 'sundial-import-'));
let server: TestServer;
const sql = sqlChecks(() => server.url);

beforeAll(async () => {
  server = await startServer({ args: ['--warmup', 'false', '--write-warmup', 'false', '--parse-warmup', 'false'] });
});
afterAll(async () => {
  await server.stop();
  server.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const imp = (args: string[], input?: string): ReturnType<typeof sundial> =>
  sundial(['import', '--url', server.url, ...args], input);

/** 2,500 rows in batches of 400, two in flight: several batches finish out of order. */
const DATA = rows(2500);
const BATCH = ['--batch-size', '400', '--concurrency', '2'];

describe('sundial import: every format, plain, gzip and zstd', () => {
  const formats: Array<[string, string, () => Buffer, string[]]> = [
    ['lp', '.lp', () => Buffer.from(lpOf('TABLE', DATA)), []],
    ['csv', '.csv', () => Buffer.from(csvOf(DATA)), ['--tag-columns', 'host,region']],
    ['ndjson', '.ndjson', () => Buffer.from(ndjsonOf(DATA)), ['--tag-columns', 'host,region']],
    ['parquet', '.parquet', () => parquetOf(DATA), ['--tag-columns', 'host,region']],
  ];
  for (const [format, ext, make, flags] of formats) {
    for (const [compression, c] of Object.entries(COMPRESSIONS)) {
      if (format === 'parquet' && compression !== 'plain') continue; // Parquet compresses inside
      const table = `${format}_${compression}`;
      it(`stores every row and value of ${format} (${compression})`, async () => {
        const file = join(dir, `${table}${ext}${c.ext}`);
        writeFileSync(
          file,
          c.pack(format === 'lp' ? Buffer.from(make().toString().replaceAll('TABLE,', `${table},`)) : make()),
        );
        const r = imp([...BATCH, ...flags, file]);
        expect(r.stderr).toMatch(
          new RegExp(`^${file.replaceAll('.', '\\.')}: 2,500 rows written, 0 lines rejected in `),
        );
        expect([r.status, r.stdout]).toEqual([0, '']);
        expect(await sql.csv(SELECT(table))).toBe(expectedCsv(DATA));
        expect(await sql.csv(`DESCRIBE TABLE ${table}`)).toBe(
          'column_name,data_type,column_type,compression_codec\ntime,TIMESTAMP(NANOSECOND),TIME,DEFAULT\nhost,STRING,TAG,DEFAULT\nregion,STRING,TAG,DEFAULT\n' +
            [
              ['n', 'BIGINT'],
              ['ok', 'BOOLEAN'],
              ['s', 'STRING'],
              ['v', 'DOUBLE'],
            ]
              .map(([n, t]) => `${n},${t},FIELD,DEFAULT\n`)
              .join(''),
        );
        expect(existsSync(`${file}.sundial-import`)).toBe(false); // done: nothing to resume
      });
    }
  }

  for (const [compression, c] of Object.entries(COMPRESSIONS)) {
    it(`stores OpenTSDB text (${compression}), millisecond timestamps by OpenTSDB's rule`, async () => {
      const table = `tsdb_${compression}`;
      const text = DATA.map(
        (r, i) => `${i % 2 === 0 ? 'put ' : ''}${table} ${r.time / 1_000_000n} ${r.v} host=${r.host} zone=z${r.ok}\n`,
      ).join('');
      const file = join(dir, `${table}.tsdb${c.ext}`);
      writeFileSync(file, c.pack(Buffer.from(text)));
      const r = imp([...BATCH, file]);
      expect([r.status, r.stderr.split(' in ')[0]]).toEqual([0, `${file}: 2,500 rows written, 0 lines rejected`]);
      const want =
        'time,host,zone,value\n' +
        DATA.map((d) => `${timeText((d.time / 1_000_000n) * 1_000_000n)},${d.host},z${d.ok},${d.v}\n`).join('');
      expect(await sql.csv(`SELECT time, host, zone, value FROM "${table}" ORDER BY time`)).toBe(want);
    });
  }

  it('reads line protocol from stdin, and a gzip file by its magic bytes whatever its name', async () => {
    const r = imp(['-'], lpOf('from_stdin', DATA.slice(0, 10)));
    expect([r.status, r.stderr.split(' in ')[0]]).toEqual([0, 'stdin: 10 rows written, 0 lines rejected']);
    expect(await sql.csv(SELECT('from_stdin'))).toBe(expectedCsv(DATA.slice(0, 10)));
    const file = join(dir, 'named-plain.lp');
    writeFileSync(file, COMPRESSIONS.gzip.pack(Buffer.from(lpOf('gzip_named_lp', DATA.slice(0, 10)))));
    expect(imp([file]).status).toBe(0);
    expect(await sql.csv(SELECT('gzip_named_lp'))).toBe(expectedCsv(DATA.slice(0, 10)));
  });

  it('takes integer CSV times in --precision units, --types, another delimiter and another time column', async () => {
    const file = join(dir, 'typed.csv');
    writeFileSync(file, 'ts;k;a;b\n1700000000000;x;1;2\n1700000000001;y;2;-3\n');
    const r = imp([
      '--table',
      'typed',
      '--time-column',
      'ts',
      '--tag-columns',
      'k',
      '--delimiter',
      ';',
      '--precision',
      'ms',
      '--types',
      'a:double,b:string',
      file,
    ]);
    expect(r.status).toBe(0);
    expect(await sql.csv('SELECT time, k, a, b FROM typed ORDER BY time')).toBe(
      'time,k,a,b\n2023-11-14T22:13:20.000000000,x,1.0,2\n2023-11-14T22:13:20.001000000,y,2.0,-3\n',
    );
  });
});

describe('sundial import: rejected lines', () => {
  it('reports each bad line with its line number and reason, and stores every other line', async () => {
    await sql.csv('CREATE TABLE bad_lp (v DOUBLE, TAGS(host))');
    const good = rows(3000).map((r) => ({ ...r, s: 'x' }));
    const lines = lpOf('bad_lp', good).split('\n').slice(0, -1);
    // line 5: a parse error; 1200: a type conflict within its batch (the server names the line);
    // 2999: a conflict with the stored schema, which the server names by no line (found by halving
    // the batch), and which makes the good line 3000 after it conflict "in this request": that one
    // must be stored, not rejected.
    const bad = new Map<number, string>([
      [5, 'bad_lp,host=a v='],
      [1200, 'bad_lp,host=b v="text" 1'],
      [2999, 'bad_lp,host=c v=5i 2'],
    ]);
    const input = lines.map((l, i) => bad.get(i + 1) ?? l);
    const file = join(dir, 'bad.lp');
    const errors = join(dir, 'bad-errors.ndjson');
    writeFileSync(file, '# a comment line\n\n' + input.join('\n') + '\n');
    const r = imp(['--batch-size', '1000', '--errors', errors, file]);
    const at = (n: number): number => n + 2; // the comment and the blank line come first
    expect(r.status).toBe(3);
    // Batches are sent concurrently: their rejections come in the order the answers do.
    const byLine = (a: string, b: string): number => Number(/:(\d+): /.exec(a)?.[1]) - Number(/:(\d+): /.exec(b)?.[1]);
    const reported = r.stderr.split('\n').filter((l) => !l.includes(' rows written, '));
    expect([...reported.slice(0, -2).sort(byLine), ...reported.slice(-2)]).toEqual([
      `${file}:${at(5)}: column 17: invalid field value, expected a number, boolean or quoted string, found end of line`,
      `${file}:${at(1200)}: column 'v' of table 'bad_lp' is a DOUBLE field, written as a STRING field`,
      `${file}:${at(2999)}: column 'v' of table 'bad_lp' is a DOUBLE field, written as a BIGINT field`,
      `sundial: 3 lines rejected (listed in ${errors})`,
      '',
    ]);
    expect(r.stderr).toContain(`${file}: 2,997 rows written, 3 lines rejected in `);
    expect(
      readFileSync(errors, 'utf8')
        .split('\n')
        .slice(0, -1)
        .map((l) => JSON.parse(l) as { line: number; text: string })
        .sort((a, b) => a.line - b.line),
    ).toEqual([
      expect.objectContaining({ file, line: at(5), text: 'bad_lp,host=a v=' }),
      expect.objectContaining({ file, line: at(1200), text: 'bad_lp,host=b v="text" 1' }),
      expect.objectContaining({ file, line: at(2999), text: 'bad_lp,host=c v=5i 2' }),
    ]);
    const kept = good.filter((_, i) => !bad.has(i + 1));
    expect(await sql.csv(SELECT('bad_lp'))).toBe(expectedCsv(kept));
  });

  it('reports CSV rows at their line in the file, counting the line feeds inside quoted fields', async () => {
    const file = join(dir, 'bad.csv');
    writeFileSync(file, 'time,t,v,note\n1,a,1.5,"two\nlines"\n2,b,oops,x\n3,c,2.5\n4,d,3.5,"ok"\n5,e,x1,y\n');
    const r = imp(['--types', 'v:double', '--tag-columns', 't', file]);
    expect(r.status).toBe(3);
    expect(r.stderr.split('\n').slice(0, 3)).toEqual([
      `${file}:4: column 'v': 'oops' is not a DOUBLE`,
      `${file}:5: 3 fields, the header has 4`,
      `${file}:7: column 'v': 'x1' is not a DOUBLE`,
    ]);
    expect(await sql.csv('SELECT time, t, v, note FROM bad ORDER BY time')).toBe(
      'time,t,v,note\n1970-01-01T00:00:00.000000001,a,1.5,"two\nlines"\n1970-01-01T00:00:00.000000004,d,3.5,ok\n',
    );
  });

  it('stops with exit 1 when the server refuses the import itself (unknown database)', () => {
    const file = join(dir, 'nodb.lp');
    writeFileSync(file, lpOf('t', DATA.slice(0, 3)));
    const r = imp(['-d', 'no_such_db', file]);
    expect([r.status, r.stderr]).toEqual(
      [1, 'sundial: 422 030017 Database not found: "no_such_db"\n'].map((v, i) =>
        i === 1 ? expect.stringContaining('030017') : v,
      ),
    );
  });
});

describe('sundial import --resume', () => {
  it('after a kill mid-import, sends only what the server had not acknowledged, and stores each row once', async () => {
    const data = rows(60_000);
    const file = join(dir, 'resume.lp');
    writeFileSync(file, lpOf('resumed', data));
    const state = `${file}.sundial-import`;
    const first = sundialAsync(['import', '--url', server.url, '--batch-size', '500', '--concurrency', '2', file]);
    // Kill once a tenth of the batches are acknowledged (the state file says so).
    for (let i = 0; i < 2000; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (!existsSync(state)) continue;
      try {
        if ((JSON.parse(readFileSync(state, 'utf8')) as { prefix: number }).prefix >= 12) break;
      } catch {
        // caught between write and rename: read again
      }
    }
    first.kill();
    const killed = await first;
    expect(killed.status).toBe(null); // killed, not finished
    const acked = JSON.parse(readFileSync(state, 'utf8')) as { prefix: number; beyond: number[]; written: number };
    expect(acked.prefix).toBeGreaterThanOrEqual(12);
    expect(acked.written).toBe((acked.prefix + acked.beyond.length) * 500);

    const r = imp(['--resume', '--batch-size', '500', file]);
    expect(r.status).toBe(0);
    const rest = 60_000 - acked.written;
    expect(r.stderr).toContain(`${file}: ${rest.toLocaleString('en-US')} rows written, 0 lines rejected in `);
    expect(r.stderr).toContain(
      `(and ${acked.written.toLocaleString('en-US')} rows, 0 rejected lines in the interrupted run)`,
    );
    expect(existsSync(state)).toBe(false);
    expect(
      await sql.csv('SELECT count(*) AS n, count(DISTINCT time) AS t, min(time) AS lo, max(time) AS hi FROM resumed'),
    ).toBe(`n,t,lo,hi\n60000,60000,${timeText(T0)},${timeText(data.at(-1)!.time)}\n`);
    expect(await sql.csv(SELECT('resumed'))).toBe(expectedCsv(data));
  });

  it('refuses to resume with other options than the interrupted run had', () => {
    const file = join(dir, 'other.lp');
    writeFileSync(file, lpOf('other_opts', DATA.slice(0, 5)));
    writeFileSync(
      `${file}.sundial-import`,
      JSON.stringify({
        version: 1,
        input: { path: file, size: 1, mtimeMs: 1 },
        options: '{}',
        prefix: 1,
        beyond: [],
        written: 1,
        rejected: 0,
      }),
    );
    const r = imp(['--resume', file]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /^sundial: the resume state .*other\.lp\.sundial-import is of another version of .*other\.lp \(its size or time changed\); remove it to start over\n$/,
    );
  });
});

describe('sundial import: usage errors', () => {
  const usage: Array<[string[], RegExp]> = [
    [[], /^sundial: give the files to import \(- for stdin\); see sundial import --help\n$/],
    [
      ['data.xyz'],
      /^sundial: cannot tell the format of data\.xyz from its name; give --format \(lp, csv, ndjson, opentsdb, parquet\)\n$/,
    ],
    [['--format', 'xml', 'a.lp'], /^sundial: unknown format 'xml'/],
    [['--precision', 'h', 'a.lp'], /^sundial: --precision wants ns, us, ms or s, got 'h'\n$/],
    [['--concurrency', '0', 'a.lp'], /^sundial: --concurrency wants a positive integer, got '0'\n$/],
    [['--types', 'a:float', 'a.csv'], /^sundial: --types wants column:type pairs/],
    [['--resume', '-'], /^sundial: --resume of stdin needs --state FILE\n$/],
    [[join(dir, 'missing.lp')], /^sundial: ENOENT: no such file or directory/],
  ];
  for (const [args, message] of usage) {
    it(`exits 2 for ${args.join(' ') || 'no files'}`, () => {
      const r = imp(args);
      expect([r.status, r.stdout]).toEqual([2, '']);
      expect(r.stderr).toMatch(message);
    });
  }
});

it('prints its help in 80 columns, with the exit codes', () => {
  for (const args of [
    ['import', '--help'],
    ['help', 'import'],
  ]) {
    const r = sundial(args);
    expect([r.status, r.stderr, r.stdout.split('\n')[0]]).toEqual([
      0,
      '',
      'Usage: sundial import [options] FILE... (- for stdin)',
    ]);
    expect(r.stdout.split('\n').filter((l) => l.length > 80)).toEqual([]);
    expect(r.stdout).toContain('\n  3  done, but some lines were rejected');
  }
});
