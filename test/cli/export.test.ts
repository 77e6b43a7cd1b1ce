// `sundial export` against a real server: each format of a table, a time range and a query; what
// it writes imports back (`sundial import`) to the same rows, values and column types; failures
// exit 1 and leave no partial file.

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { sqlChecks } from '../support/sql.js';
import { lpOf, rows, sundial, timeText } from '../support/transfer.js';

const dir = mkdtempSync(join(tmpdir(), 'sundial-export-'));
let server: TestServer;
const sql = sqlChecks(() => server.url);
const DATA = rows(3000);

beforeAll(async () => {
  server = await startServer({ args: ['--warmup', 'false', '--write-warmup', 'false', '--parse-warmup', 'false'] });
  const file = join(dir, 'source.lp');
  // Also a BIGINT UNSIGNED column, a row without some fields, and the largest BIGINT.
  writeFileSync(
    file,
    lpOf('source', DATA) + 'source,host=h9,region=r u=18446744073709551615u,n=9223372036854775807i 1\n',
  );
  expect(sundial(['import', '--url', server.url, file]).status).toBe(0);
});
afterAll(async () => {
  await server.stop();
  server.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const exp = (args: string[]): ReturnType<typeof sundial> => sundial(['export', '--url', server.url, ...args]);
const ALL = 'SELECT * FROM "TABLE" ORDER BY time, host';

describe('sundial export, then sundial import: the same rows, values and types', () => {
  const formats: Array<[string, string[]]> = [
    ['csv', ['--tag-columns', 'host,region', '--types', 'u:unsigned']],
    ['ndjson', ['--tag-columns', 'host,region', '--types', 'u:unsigned']],
    ['lp', []],
    ['parquet', ['--tag-columns', 'host,region']],
  ];
  for (const [format, importFlags] of formats) {
    it(`round-trips ${format}`, async () => {
      const file = join(dir, `out.${format}`);
      const e = exp(['source', '-o', file]);
      expect([e.status, e.stdout]).toEqual([0, '']);
      expect(e.stderr).toMatch(new RegExp(`^${file.replaceAll('.', '\\.')}: 3,001 rows, [\\d,]+ bytes in `));
      const table = `back_${format}`;
      // Line protocol names its table in every line: the copy gets another name.
      if (format === 'lp') writeFileSync(file, readFileSync(file, 'utf8').replace(/^source,/gm, `${table},`));
      const i = sundial(['import', '--url', server.url, '--table', table, ...importFlags, file]);
      expect([i.status, i.stderr.split(' in ')[0]]).toEqual([0, `${file}: 3,001 rows written, 0 lines rejected`]);
      expect(await sql.csv(ALL.replace('TABLE', table))).toBe(await sql.csv(ALL.replace('TABLE', 'source')));
      expect(await sql.csv(`DESCRIBE TABLE ${table}`)).toBe(await sql.csv('DESCRIBE TABLE source'));
    });
  }
});

describe('sundial export: what it writes', () => {
  it('writes CSV to stdout by default, as the server answers it', async () => {
    const r = exp(['source']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(await sql.csv('SELECT * FROM source'));
    expect(r.stderr).toMatch(/^stdout: 3,001 rows, /);
  });

  it('writes a time range of a table: --start inclusive, --end exclusive', async () => {
    const [start, end] = [`${timeText(DATA[10]!.time)}Z`, `${timeText(DATA[20]!.time)}Z`];
    const r = exp(['source', '--start', start, '--end', end, '-F', 'csv']);
    expect(r.status).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('time,host,region,n,ok,s,u,v');
    expect(
      lines
        .slice(1, -1)
        .map((l) => l.split(',')[0])
        .sort(),
    ).toEqual(DATA.slice(10, 20).map((d) => timeText(d.time)));
    expect(r.stdout).toBe(await sql.csv(`SELECT * FROM source WHERE time >= '${start}' AND time < '${end}'`));
  });

  it('writes line protocol of a query, with the tags and table name given', () => {
    const r = exp([
      '--query',
      "SELECT time, host, v, n FROM source WHERE host = 'h1' ORDER BY time LIMIT 2",
      '--table',
      'copy',
      '--tag-columns',
      'host',
      '-F',
      'lp',
    ]);
    const want = DATA.filter((d) => d.host === 'h1')
      .slice(0, 2)
      .map((d) => `copy,host=h1 v=${d.v},n=${d.n}i ${d.time}\n`);
    expect([r.status, r.stdout]).toEqual([0, want.join('')]);
  });

  it('writes NDJSON as the server answers it', async () => {
    const r = exp(['--query', "SELECT host, n FROM source WHERE host <> 'h9' ORDER BY time LIMIT 3", '-F', 'ndjson']);
    expect(r.stdout).toBe(
      DATA.slice(0, 3)
        .map((d) => `{"host":"${d.host}","n":${d.n}}\n`)
        .join(''),
    );
  });
});

describe('sundial export: failures', () => {
  it('exits 1 for a query the server refuses, and writes no file', () => {
    const file = join(dir, 'none.csv');
    const r = exp(['no_such_table', '-o', file]);
    expect([r.status, r.stderr]).toEqual([
      1,
      'sundial: 422 030019 Meta: Table not found: "cnosdb.public.no_such_table"\n',
    ]);
    expect(existsSync(file)).toBe(false);
  });

  // The answer streams series by series; the last series (h9) fails a cast after the others
  // were sent: CSV ends with the server's error line, Arrow with a cut connection.
  const failing = "SELECT time, CAST(CASE WHEN host = 'h9' THEN 'x' ELSE '1' END AS BIGINT) AS q FROM source";
  const late: Array<[string, RegExp]> = [
    [
      'csv',
      /^sundial: the server failed after [1-9][\d,]* rows: 010002 Arrow: Cast error: Cannot cast string 'x' to value of Int64 type\n$/,
    ],
    ['parquet', /^sundial: the server's answer broke off: /],
    ['lp', /^sundial: the server's answer broke off: /],
  ];
  for (const [format, message] of late) {
    it(`exits 1 when the query fails after its first rows (${format}), and removes the partial file`, () => {
      const file = join(dir, `partial.${format}`);
      const r = exp(['--query', failing, '--table', 'q', '-o', file]);
      expect([r.status, r.stdout]).toEqual([1, '']);
      expect(r.stderr).toMatch(message);
      expect(existsSync(file)).toBe(false);
    });
  }

  const usage: Array<[string[], RegExp]> = [
    [[], /^sundial: give a table \(sundial export TABLE\) or --query, one of the two; see sundial export --help\n$/],
    [['t', '--query', 'SELECT 1'], /^sundial: give a table/],
    [
      ['--query', 'SELECT 1', '--start', '2020-01-01'],
      /^sundial: --start and --end go with a table; put the range in the --query\n$/,
    ],
    [['t', '-F', 'xml'], /^sundial: unknown format 'xml' \(want csv, ndjson, lp, parquet\)/],
    [['--query', 'SELECT 1', '-F', 'lp'], /^sundial: line protocol of a --query needs --table/],
  ];
  for (const [args, message] of usage) {
    it(`exits 2 for ${args.join(' ') || 'nothing to export'}`, () => {
      const r = exp(args);
      expect([r.status, r.stdout]).toEqual([2, '']);
      expect(r.stderr).toMatch(message);
    });
  }

  it('prints its help in 80 columns', () => {
    const r = sundial(['export', '--help']);
    expect([r.status, r.stdout.split('\n')[0]]).toEqual([0, 'Usage: sundial export [options] TABLE']);
    expect(r.stdout.split('\n').filter((l) => l.length > 80)).toEqual([]);
  });
});
