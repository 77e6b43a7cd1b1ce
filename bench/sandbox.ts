// npm run bench:sandbox — the browser sandbox against the server and DuckDB-Wasm, same run, same
// rows: the TSBS cpu-only set (100 hosts x 1 day by default, host/sandbox/demo-data.ts, the shape
// of ../shared/bench/gen-cpu.mjs) written to a fresh server and compacted into segment files,
// then loaded into headless Chromium twice: into the sandbox through GET /api/v1/export, and
// into DuckDB-Wasm (@duckdb/duckdb-wasm, the EH build in its worker) from the server's Arrow
// answer to SELECT * (same rows, same types). Queries: a, b, c of ../shared/bench/queries-sundial.json
// and bench/tsbs-queries.ts's four TSBS queries; DuckDB gets the same SQL with date_bin spelled
// time_bucket. Each: one warm-up, then the median of --runs.
//
// What is timed: the server, the HTTP round trip of POST /api/v1/sql (JSON) from this process;
// the sandbox, its worker's statement (engine and the JSON answer, as the server's route does)
// without the message to the page; DuckDB, conn.query() in its worker to an Arrow table (no text).
// Load: the page's export request to a queryable table; DuckDB's Arrow fetch and insert.
// Export: GET /api/v1/export of the table from this process, and the server's RSS meanwhile.
// Memory: the bytes the sandbox's store holds, and Chromium's total RSS (every process) before
// and after each load (a worker's own heap is not exposed to the page: performance.memory is
// the main thread's).
//
// Options: --hosts 100 --duration 1d --runs 5. Needs `npm run build` (npm run bench:sandbox does it).

import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import type { Page } from 'playwright-core';
import { demoLineProtocol } from '../host/sandbox/demo-data.js';
import { launchChromium } from '../test/support/browser.js';
import { http } from '../test/support/http.js';
import { startServer } from '../test/support/server.js';
import { substitute } from './query-check.js';
import { sundialQueries, windows, type BenchQuery } from './tsbs-queries.js';
import { SHARED_BENCH_DIR } from '../test/support/shared-dir.js';

const { values: opts } = parseArgs({
  options: {
    hosts: { type: 'string', default: '100' },
    duration: { type: 'string', default: '1d' },
    runs: { type: 'string', default: '5' },
  },
});
const HOSTS = Number(opts.hosts);
const DURATION_S = { d: 86_400, h: 3600 }[opts.duration!.slice(-1) as 'd' | 'h'] * Number(opts.duration!.slice(0, -1));
const RUNS = Number(opts.runs);
const START = '2016-01-01T00:00:00Z';
/** ../shared/ beside the repository (a worktree under /work/wt/ has it one level further up). */
const SHARED = SHARED_BENCH_DIR;
const DUCKDB_DIST = new URL('../node_modules/@duckdb/duckdb-wasm/dist/', import.meta.url).pathname;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mib = (n: number): string => (n / 1048576).toFixed(1);

/** Resident memory of every Chromium process (the browser, its renderers and GPU/utility processes). */
function chromiumRss(): number {
  let total = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cmd.includes('chromium')) continue;
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m !== null) total += Number(m[1]) * 1024;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/** The DuckDB page's script: @duckdb/duckdb-wasm bundled for the browser. */
async function duckdbDriver(): Promise<string> {
  const entry = `
    import * as duckdb from '@duckdb/duckdb-wasm';
    window.duckStart = async () => {
      const worker = new Worker('/duckdb/duckdb-browser-eh.worker.js');
      const db = new duckdb.AsyncDuckDB(new duckdb.VoidLogger(), worker);
      await db.instantiate('/duckdb/duckdb-eh.wasm');
      window.duck = await db.connect();
    };
    window.duckLoad = async (auth) => {
      const t = performance.now();
      const res = await fetch('/api/v1/sql?db=public', { method: 'POST', body: 'SELECT * FROM cpu', headers: { accept: 'application/vnd.apache.arrow.stream', authorization: auth } });
      if (!res.ok) throw new Error('arrow export: ' + res.status);
      const bytes = new Uint8Array(await res.arrayBuffer());
      const size = bytes.length; // the insert hands the buffer to DuckDB's worker
      await window.duck.insertArrowFromIPCStream(bytes, { name: 'cpu_arrow' });
      await window.duck.query('CREATE TABLE cpu AS SELECT * REPLACE (CAST(time AS TIMESTAMP) AS time) FROM cpu_arrow');
      await window.duck.query('DROP TABLE cpu_arrow');
      return { ms: performance.now() - t, bytes: size };
    };
    window.duckQuery = async (sql) => {
      const t = performance.now();
      const r = await window.duck.query(sql);
      return { ms: performance.now() - t, rows: r.numRows };
    };`;
  const out = await build({
    stdin: { contents: entry, resolveDir: new URL('..', import.meta.url).pathname, loader: 'js' },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    write: false,
    logLevel: 'error',
  });
  return out.outputFiles[0]!.text;
}

/** The statement in DuckDB's dialect: time_bucket for date_bin, TIMESTAMP literals without the zone. */
function duckSql(sql: string): string {
  return sql.replaceAll('date_bin(', 'time_bucket(').replace(/'(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)Z'/g, "TIMESTAMP '$1'");
}

async function main(): Promise<void> {
  const w = windows(START, DURATION_S);
  const shared = (JSON.parse(readFileSync(join(SHARED, 'queries-sundial.json'), 'utf8')) as BenchQuery[]).map((q) => ({
    ...q,
    body: substitute(q.body!, w),
  }));
  const queries = [...shared, ...sundialQueries(w, 'public')].map((q) => ({ name: q.name, sql: q.body! }));

  const s = await startServer({ waitWarm: true });
  const browser = await launchChromium();
  try {
    let rows = 0;
    const t0 = performance.now();
    for (const piece of demoLineProtocol({ hosts: HOSTS, durationS: DURATION_S }, 100_000)) {
      const r = await http(s.url, '/api/v1/write', { body: piece });
      if (r.status !== 200) throw new Error(`write: ${r.status} ${r.text}`);
      rows += piece.split('\n').length;
    }
    await http(s.url, '/api/v1/sql', { body: 'COMPACT DATABASE public' });
    console.log(
      `${rows.toLocaleString()} rows (${HOSTS} hosts x ${opts.duration}) written and compacted in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );

    // The export alone, from this process: its time, and the server's RSS while it streams.
    const serverRss = (): number =>
      Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${s.pid}/status`, 'utf8'))![1]) * 1024;
    const rssIdle = serverRss();
    let rssPeak = rssIdle;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, serverRss())), 20);
    const exportStarted = performance.now();
    const exported = await http(s.url, '/api/v1/export?db=public&table=cpu');
    const exportMs = performance.now() - exportStarted;
    clearInterval(sampler);
    console.log(
      `export: ${mib(exported.body.length)} MiB in ${exportMs.toFixed(0)} ms; server RSS ${mib(rssIdle)} MiB before, ${mib(rssPeak)} MiB at most while it streamed`,
    );
    const rssBefore = chromiumRss();
    const page = await browser.newPage();
    await page.goto(`${s.url}/sandbox/`);
    await page.evaluate(() => (window as unknown as { sandbox: { ready: Promise<void> } }).sandbox.ready);
    const rssEmpty = chromiumRss();
    const loadStarted = performance.now();
    const loaded = await page.evaluate(() =>
      (
        window as unknown as {
          sandbox: { loadTable(p: object, a: string): Promise<{ rows: number; bytes: number; segments: number }> };
        }
      ).sandbox.loadTable({ db: 'public', table: 'cpu' }, 'Basic cm9vdDo='),
    );
    const loadMs = performance.now() - loadStarted;
    const status = await page.evaluate(() =>
      (window as unknown as { sandbox: { status(): Promise<{ bytes: number }> } }).sandbox.status(),
    );
    const rssLoaded = chromiumRss();
    console.log(
      `sandbox: export of ${loaded.rows.toLocaleString()} rows, ${mib(loaded.bytes)} MiB in ${loaded.segments} segment files, loaded in ${loadMs.toFixed(0)} ms; store ${mib(status.bytes)} MiB, Chromium RSS ${mib(rssBefore)} -> ${mib(rssEmpty)} (page) -> ${mib(rssLoaded)} MiB`,
    );

    const duckPage = await browser.newPage();
    const driver = await duckdbDriver();
    await duckPage.route('**/duckdb/**', async (route) => {
      const name = new URL(route.request().url()).pathname.replace('/duckdb/', '');
      if (name === 'index.html')
        return route.fulfill({
          contentType: 'text/html',
          body: '<!doctype html><script src="/duckdb/driver.js"></script>',
        });
      if (name === 'driver.js') return route.fulfill({ contentType: 'text/javascript', body: driver });
      return route.fulfill({
        contentType: name.endsWith('.wasm') ? 'application/wasm' : 'text/javascript',
        body: readFileSync(join(DUCKDB_DIST, name)),
      });
    });
    await duckPage.goto(`${s.url}/duckdb/index.html`);
    await duckPage.evaluate(() => (window as unknown as { duckStart(): Promise<void> }).duckStart());
    const duckLoad = await duckPage.evaluate(() =>
      (window as unknown as { duckLoad(a: string): Promise<{ ms: number; bytes: number }> }).duckLoad('Basic cm9vdDo='),
    );
    const rssDuck = chromiumRss();
    console.log(
      `DuckDB-Wasm: Arrow answer of ${mib(duckLoad.bytes)} MiB fetched and inserted in ${duckLoad.ms.toFixed(0)} ms; Chromium RSS ${mib(rssDuck)} MiB with both pages`,
    );

    const sandboxRun = (p: Page, sql: string): Promise<{ ms: number; rows: number }> =>
      p.evaluate(
        (text) =>
          (window as unknown as { sandbox: { sql(t: string): Promise<{ ms: number; rows: number }> } }).sandbox
            .sql(text)
            .then((r) => ({ ms: r.ms, rows: r.rows })),
        sql,
      );
    const duckRun = (sql: string): Promise<{ ms: number; rows: number }> =>
      duckPage.evaluate(
        (text) =>
          (window as unknown as { duckQuery(t: string): Promise<{ ms: number; rows: number }> }).duckQuery(text),
        duckSql(sql),
      );
    const serverRun = async (sql: string): Promise<{ ms: number; rows: number }> => {
      const t = performance.now();
      const r = await http(s.url, '/api/v1/sql?db=public', { body: sql, headers: { accept: 'application/json' } });
      const ms = performance.now() - t;
      if (r.status !== 200) throw new Error(`server: ${r.status} ${r.text}`);
      return { ms, rows: (JSON.parse(r.text) as unknown[]).length };
    };
    const time = async (run: () => Promise<{ ms: number; rows: number }>): Promise<{ ms: number; rows: number }> => {
      const first = await run();
      const ms: number[] = [];
      for (let i = 0; i < RUNS; i++) ms.push((await run()).ms);
      return { ms: median(ms), rows: first.rows };
    };

    const lines = [
      '| query | rows | server (ms) | sandbox (ms) | sandbox / server | DuckDB-Wasm (ms) |',
      '|---|---:|---:|---:|---:|---:|',
    ];
    for (const q of queries) {
      const server = await time(() => serverRun(q.sql));
      const sandbox = await time(() => sandboxRun(page, q.sql));
      let duck: { ms: number; rows: number } | string;
      try {
        duck = await time(() => duckRun(q.sql));
      } catch (e) {
        duck = `failed: ${(e as Error).message.split('\n')[0]!.slice(0, 80)}`;
      }
      if (sandbox.rows !== server.rows)
        throw new Error(`${q.name}: the sandbox answered ${sandbox.rows} rows, the server ${server.rows}`);
      const d =
        typeof duck === 'string'
          ? duck
          : `${duck.ms.toFixed(1)}${duck.rows === server.rows ? '' : ` (${duck.rows} rows)`}`;
      lines.push(
        `| ${q.name} | ${server.rows} | ${server.ms.toFixed(1)} | ${sandbox.ms.toFixed(1)} | ${(sandbox.ms / server.ms).toFixed(2)} | ${d} |`,
      );
      console.log(lines[lines.length - 1]);
    }
    console.log(`\nChromium RSS after the queries: ${mib(chromiumRss())} MiB\n`);
    console.log(lines.join('\n'));
  } finally {
    await browser.close();
    await s.stop();
    s.cleanup();
  }
}

await main();
