// Issue 27: the browser sandbox in a real browser (Debian's chromium, headless, driven by
// playwright-core) against a real server. The page loads without credentials, imports a table
// through the export route with the form, and answers at least twenty queries (bench/'s TSBS
// queries, aggregates, time buckets, gap filling, joins, window functions) exactly as the
// server's /api/v1/sql JSON does, cell for cell. Then a dropped gzip file and the demo set, the
// editor with Ctrl-Enter, the chart, EXPLAIN, an error with the server's code, and a screenshot.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sundialQueries, windows } from '../../bench/tsbs-queries.js';
import { DEMO_DEFAULTS, demoLineProtocol } from '../../host/sandbox/demo-data.js';
import { launchChromium } from '../support/browser.js';
import { http, writeLp, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

const OUTPUT = new URL('../output/sandbox-browser/', import.meta.url).pathname;
const HOSTS = 10;
const DAY_S = 86_400;
const START = '2016-01-01T00:00:00Z';

async function ok(r: Promise<HttpResponse>): Promise<HttpResponse> {
  const res = await r;
  expect(res.status, res.text).toBe(200);
  return res;
}

const serverSql = (s: TestServer, text: string, db = 'public'): Promise<HttpResponse> =>
  http(s.url, `/api/v1/sql?db=${db}`, { body: text, headers: { accept: 'application/json' } });

interface PageAnswer {
  ok: boolean;
  json?: string;
  rows?: number;
  code?: string;
  message?: string;
}

/** One statement in the page's worker, through window.sandbox (what the Run button calls). */
function pageSql(page: Page, text: string, db = 'public'): Promise<PageAnswer> {
  return page.evaluate(
    async ([sql, database]) => {
      const w = window as unknown as {
        sandbox: { sql(s: string, d: string): Promise<{ json: string; rows: number }> };
      };
      try {
        const r = await w.sandbox.sql(sql!, database!);
        return { ok: true, json: r.json, rows: r.rows };
      } catch (e) {
        return { ok: false, code: (e as { code: string }).code, message: (e as Error).message };
      }
    },
    [text, db],
  );
}

const w = windows(START, DAY_S);
const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');
const S = iso(w.startMs);
const E = iso(w.endMs);

/** Statements without ORDER BY over whole rows are compared as multisets (their row order is the scan's). */
const QUERIES: Array<{ name: string; sql: string; unordered?: boolean }> = [
  ...sundialQueries(w, 'public').map((q) => ({
    name: `TSBS ${q.name}`,
    sql: q.body!,
    unordered: q.name === 'high-cpu-all',
  })),
  {
    name: 'query a',
    sql: `SELECT date_bin(INTERVAL '1 minute', time) AS t, max(usage_user) AS max_usage_user FROM cpu WHERE hostname = 'host_3' AND time >= '${S}' AND time < '${iso(w.startMs + 3_600_000)}' GROUP BY t ORDER BY t`,
  },
  {
    name: 'query b',
    sql: `SELECT hostname, date_bin(INTERVAL '1 hour', time) AS t, avg(usage_user) AS mean_usage_user FROM cpu WHERE time >= '${S}' AND time < '${E}' GROUP BY hostname, t ORDER BY hostname, t`,
  },
  { name: 'count', sql: 'SELECT count(*) AS n, count(usage_user), min(time), max(time) FROM cpu' },
  {
    name: 'aggregates per host',
    sql: 'SELECT hostname, region, sum(usage_system), avg(usage_idle), min(usage_nice), max(usage_steal), stddev(usage_user), var_pop(usage_iowait) FROM cpu GROUP BY hostname, region ORDER BY hostname',
  },
  {
    name: 'median and percentiles',
    sql: 'SELECT hostname, median(usage_user), approx_percentile_cont(usage_user, 0.9) FROM cpu GROUP BY hostname ORDER BY hostname',
  },
  {
    name: 'first and last',
    sql: 'SELECT hostname, first(time, usage_user), last(time, usage_user) FROM cpu GROUP BY hostname ORDER BY hostname',
  },
  {
    name: 'HAVING and CASE',
    sql: "SELECT datacenter, CASE WHEN avg(usage_user) > 50 THEN 'hot' ELSE 'cool' END AS heat, count(*) FROM cpu GROUP BY datacenter HAVING count(*) > 1000 ORDER BY datacenter",
  },
  {
    name: 'date_bin 5 minutes',
    sql: "SELECT date_bin(INTERVAL '5 minutes', time) AS t, avg(usage_user), max(usage_system) FROM cpu WHERE hostname = 'host_1' AND time < '2016-01-01T06:00:00Z' GROUP BY t ORDER BY t",
  },
  {
    name: 'date_bin with origin',
    sql: "SELECT date_bin(INTERVAL '1 day', time, TIMESTAMP '2015-12-31T12:00:00') AS d, hostname, count(*) FROM cpu GROUP BY d, hostname ORDER BY d, hostname",
  },
  {
    name: 'time_window tumbling',
    sql: "SELECT time_window(time, INTERVAL '10 minutes') AS win, hostname, max(usage_user) FROM cpu WHERE time < '2016-01-01T02:00:00Z' GROUP BY win, hostname ORDER BY win, hostname",
  },
  {
    name: 'time_window sliding',
    sql: "SELECT time_window(time, INTERVAL '10 minutes', INTERVAL '5 minutes') AS win, avg(usage_idle) FROM cpu WHERE hostname = 'host_2' AND time < '2016-01-01T01:00:00Z' GROUP BY win ORDER BY win",
  },
  {
    name: 'gap filling, locf',
    sql: "SELECT hostname, time_window_gapfill(time, INTERVAL '1 hour') AS w, locf(avg(usage_user)) AS v FROM cpu WHERE hostname IN ('host_0', 'host_1') AND (time < '2016-01-01T03:00:00Z' OR time >= '2016-01-01T09:00:00Z') AND time >= '2016-01-01T00:00:00Z' AND time < '2016-01-01T12:00:00Z' GROUP BY hostname, w ORDER BY hostname, w",
  },
  {
    name: 'gap filling, interpolate',
    sql: "SELECT time_window_gapfill(time, INTERVAL '30 minutes') AS w, interpolate(max(usage_system)) AS v FROM cpu WHERE hostname = 'host_4' AND (time < '2016-01-01T02:00:00Z' OR time >= '2016-01-01T05:00:00Z') AND time >= '2016-01-01T00:00:00Z' AND time < '2016-01-01T08:00:00Z' GROUP BY w ORDER BY w",
  },
  {
    name: 'join with a second table',
    sql: 'SELECT c.hostname, h.capacity, avg(c.usage_user) AS u FROM cpu c JOIN hosts h ON c.hostname = h.hostname GROUP BY c.hostname, h.capacity ORDER BY c.hostname',
  },
  {
    name: 'self join on time',
    sql: "SELECT a.time, a.usage_user AS a_user, b.usage_user AS b_user FROM cpu a JOIN cpu b ON a.time = b.time WHERE a.hostname = 'host_0' AND b.hostname = 'host_1' AND a.time < '2016-01-01T00:10:00Z' ORDER BY a.time",
  },
  {
    name: 'left join with missing rows',
    sql: 'SELECT h.hostname, count(c.usage_user) FROM hosts h LEFT JOIN (SELECT * FROM cpu WHERE usage_user > 95) c ON c.hostname = h.hostname GROUP BY h.hostname ORDER BY h.hostname',
  },
  {
    name: 'window: lag and lead',
    sql: "SELECT time, usage_user, lag(usage_user) OVER (ORDER BY time) AS prev, lead(usage_user, 2) OVER (ORDER BY time) AS next2 FROM cpu WHERE hostname = 'host_5' AND time < '2016-01-01T00:20:00Z' ORDER BY time",
  },
  {
    name: 'window: running aggregates',
    sql: "SELECT hostname, time, sum(usage_user) OVER (PARTITION BY hostname ORDER BY time ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) AS s, avg(usage_user) OVER (PARTITION BY hostname ORDER BY time RANGE BETWEEN INTERVAL '1 minute' PRECEDING AND CURRENT ROW) AS a FROM cpu WHERE time < '2016-01-01T00:05:00Z' ORDER BY hostname, time",
  },
  {
    name: 'window: rank over aggregates',
    sql: 'SELECT hostname, max(usage_user) AS m, rank() OVER (ORDER BY max(usage_user) DESC) AS r, dense_rank() OVER (ORDER BY avg(usage_idle)) AS d FROM cpu GROUP BY hostname ORDER BY hostname',
  },
  {
    name: 'top-k per host',
    sql: 'SELECT hostname, time, usage_user FROM (SELECT *, row_number() OVER (PARTITION BY hostname ORDER BY usage_user DESC, time) AS rn FROM cpu) WHERE rn <= 2 ORDER BY hostname, rn',
  },
  {
    name: 'DISTINCT tags and string functions',
    sql: "SELECT DISTINCT upper(region) AS r, concat(os, '/', arch) AS platform FROM cpu ORDER BY r, platform",
  },
  { name: 'SHOW and DESCRIBE', sql: 'DESCRIBE TABLE cpu' },
];

describe('the browser sandbox', () => {
  let s: TestServer;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  beforeAll(async () => {
    browser = await launchChromium();
    s = await startServer();
    // 10 hosts x 1 day of TSBS cpu rows: half of it flushed to segment files, the rest in memory.
    const pieces = [...demoLineProtocol({ ...DEMO_DEFAULTS, hosts: HOSTS, durationS: DAY_S }, 43_200)];
    for (let i = 0; i < pieces.length; i++) {
      await ok(writeLp(s.url, pieces[i]!));
      if (i === Math.floor(pieces.length / 2)) await ok(serverSql(s, 'COMPACT DATABASE public'));
    }
    const hosts = Array.from(
      { length: HOSTS - 2 },
      (_, i) => `hosts,hostname=host_${i} capacity=${(i + 1) * 8}i,owner="team ${i % 3}" 1451606400000000000`,
    );
    await ok(writeLp(s.url, hosts.join('\n')));
    page = await browser.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    const res = await page.goto(`${s.url}/sandbox/`);
    expect(res?.status()).toBe(200);
    await page.evaluate(() => (window as unknown as { sandbox: { ready: Promise<void> } }).sandbox.ready);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await s?.stop();
    s?.cleanup();
  });

  it('serves the page and its assets without credentials, and nothing else under /sandbox/', async () => {
    for (const [path, type] of [
      ['/sandbox/', 'text/html'],
      ['/sandbox/app.js', 'text/javascript'],
      ['/sandbox/worker.js', 'text/javascript'],
      ['/sandbox/sundial.wasm', 'application/wasm'],
      ['/sandbox/app.css', 'text/css'],
    ] as const) {
      const r = await http(s.url, path, { auth: null });
      expect(r.status, path).toBe(200);
      expect(String(r.headers['content-type'])).toContain(type);
    }
    expect((await http(s.url, '/sandbox/../package.json', { auth: null })).status).toBe(404);
    expect((await http(s.url, '/sandbox/secret.txt', { auth: null })).status).toBe(404);
    const redirect = await http(s.url, '/sandbox', { auth: null });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.location).toBe('/sandbox/');
    // The data itself needs them.
    expect((await http(s.url, '/api/v1/export?table=cpu', { auth: null })).status).toBe(401);
  });

  it('imports a table from the server with the form, sending the credentials typed in', async () => {
    await page.fill('#password', 'wrong');
    await page.fill('#server-table', 'cpu');
    await page.click('#load-server');
    await page.waitForFunction(() => /failed/.test(document.getElementById('load-status')!.textContent ?? ''));
    expect(await page.textContent('#load-status')).toContain('010016');
    await page.fill('#password', '');
    await page.click('#load-server');
    await page.waitForFunction(
      () => /^loaded public\.cpu/.test(document.getElementById('load-status')!.textContent ?? ''),
      undefined,
      { timeout: 60_000 },
    );
    expect(await page.textContent('#load-status')).toContain(`${(HOSTS * 8640).toLocaleString('en-US')} rows`);
    await page.evaluate(() =>
      (window as unknown as { sandbox: { loadTable(p: object): Promise<unknown> } }).sandbox.loadTable({
        db: 'public',
        table: 'hosts',
      }),
    );
    expect(await page.textContent('#tables')).toContain('public.hosts');
  }, 120_000);

  it(`answers ${QUERIES.length} queries exactly as /api/v1/sql does`, async () => {
    expect(QUERIES.length).toBeGreaterThanOrEqual(20);
    for (const q of QUERIES) {
      const server = JSON.parse((await ok(serverSql(s, q.sql))).text) as unknown[];
      const local = await pageSql(page, q.sql);
      expect(local.ok, `${q.name}: ${local.code} ${local.message}`).toBe(true);
      const rows = JSON.parse(local.json!) as unknown[];
      expect(rows.length, q.name).toBe(server.length);
      if (q.unordered) {
        const key = (r: unknown): string => JSON.stringify(r);
        expect(rows.map(key).sort(), q.name).toEqual(server.map(key).sort());
      } else expect(rows, q.name).toEqual(server);
      expect(server.length, `${q.name} answers rows`).toBeGreaterThan(0);
    }
  }, 300_000);

  it('reports errors with the codes the server gives', async () => {
    for (const sql of ['SELECT nope FROM cpu', 'SELEC 1', 'SELECT * FROM missing', 'SELECT 1; SELECT 2']) {
      const server = JSON.parse((await serverSql(s, sql)).text) as { error_code: string; error_message: string };
      const local = await pageSql(page, sql);
      expect(local.ok, sql).toBe(false);
      expect({ code: local.code, message: local.message }, sql).toEqual({
        code: server.error_code,
        message: server.error_message,
      });
    }
    await page.fill('#editor', 'SELECT nope FROM cpu');
    await page.click('#run');
    await page.waitForSelector('#error:not([hidden])');
    expect(await page.textContent('#error')).toMatch(/^010001: .*No field named nope/s);
  });

  it('loads a dropped gzip file and queries it as the server does the same rows', async () => {
    const csv = [
      'time,hostname,reading,ok',
      ...Array.from(
        { length: 50 },
        (_, i) =>
          `2016-01-01T00:0${Math.floor(i / 10)}:${String((i % 10) * 6).padStart(2, '0')}Z,h${i % 3},${(i * 0.75).toFixed(2)},${i % 4 === 0}`,
      ),
    ].join('\n');
    const lp = csv
      .split('\n')
      .slice(1)
      .map((line) => {
        const [t, h, r, o] = line.split(',');
        return `readings,hostname=${h} reading=${r},ok=${o} ${BigInt(Date.parse(t!)) * 1_000_000n}`;
      });
    await ok(writeLp(s.url, lp.join('\n')));
    const gz = [...gzipSync(csv)];
    await page.evaluate(async (bytes) => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array(bytes)], 'readings.csv.gz', { type: 'application/gzip' }));
      document
        .getElementById('drop')!
        .dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, gz);
    await page.waitForFunction(() =>
      /loaded readings\.csv\.gz into public\.readings: 50 rows/.test(
        document.getElementById('load-status')!.textContent ?? '',
      ),
    );
    for (const sql of [
      'SELECT * FROM readings ORDER BY time',
      'SELECT hostname, avg(reading), count(*) FILTER (WHERE ok) FROM readings GROUP BY hostname ORDER BY hostname',
    ]) {
      const server = JSON.parse((await ok(serverSql(s, sql))).text);
      const local = await pageSql(page, sql);
      expect(JSON.parse(local.json!), sql).toEqual(server);
    }
  });

  it('loads the demo set, runs the editor with Ctrl-Enter, draws the chart and shows EXPLAIN', async () => {
    await page.fill('#db', 'demo');
    const created = await pageSql(page, 'CREATE DATABASE demo');
    expect(created.ok, created.message).toBe(true);
    await page.fill('#demo-hosts', '3');
    await page.fill('#demo-hours', '2');
    await page.click('#load-demo');
    await page.waitForFunction(() =>
      /loaded the demo set into demo\.cpu: 2,160 rows/.test(document.getElementById('load-status')!.textContent ?? ''),
    );
    expect(
      JSON.parse((await pageSql(page, 'SELECT count(DISTINCT hostname) AS h, count(*) AS n FROM cpu', 'demo')).json!),
    ).toEqual([{ h: 3, n: 2160 }]);
    await page.fill(
      '#editor',
      "SELECT date_bin(INTERVAL '5 minutes', time) AS t, hostname, avg(usage_user) AS u FROM cpu GROUP BY t, hostname ORDER BY t, hostname",
    );
    await page.focus('#editor');
    await page.keyboard.press('Control+Enter');
    await page.waitForFunction(() => /^72 rows in /.test(document.getElementById('result-status')!.textContent ?? ''));
    expect(await page.locator('#result tbody tr').count()).toBe(72);
    // uPlot's canvas, with lines on it: some pixels are not blank.
    const painted = await page.evaluate(() => {
      const c = document.querySelector<HTMLCanvasElement>('#chart canvas');
      if (c === null || c.width === 0) return 0;
      const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i]! > 0) n++;
      return n;
    });
    expect(painted).toBeGreaterThan(500);
    expect(await page.locator('#chart .u-legend th').allTextContents()).toEqual(
      expect.arrayContaining(['u host_0', 'u host_1', 'u host_2']),
    );
    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: join(OUTPUT, 'sandbox.png'), fullPage: true });
    const historyItems = await page.locator('#history option').allTextContents();
    expect(historyItems.some((h) => h.startsWith("SELECT date_bin(INTERVAL '5 minutes'"))).toBe(true);
    await page.click('#explain');
    await page.waitForSelector('#result pre.plan');
    expect(await page.textContent('#result pre.plan')).toMatch(/logical_plan[\s\S]*physical_plan/);
    expect(pageErrors).toEqual([]);
  });
});
