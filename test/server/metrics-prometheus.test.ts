// A real Prometheus (Debian's `prometheus`, installed by .ci/run; a missing one fails here, naming
// its package) scrapes a real server's /metrics every second; its own HTTP API then shows the
// target up, the types it read, and the series moving as writes and queries happen.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, writeLp } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

const PROMETHEUS = '/usr/bin/prometheus';
const MISSING = 'Debian prometheus is missing: apt-get install prometheus (.ci/run installs it)';
const QUIET = {
  SUNDIAL_WARMUP: 'false',
  SUNDIAL_WRITE_WARMUP: 'false',
  SUNDIAL_PARSE_WARMUP: 'false',
  SUNDIAL_REPORT_INTERVAL: '0',
};

let server: TestServer;
let prometheus: ChildProcess | undefined;
let promUrl = '';
let dir = '';
let promLog = '';

/** A port free a moment ago (Prometheus takes no port 0). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

/** GET a Prometheus API path; its `data`. */
async function api<T>(path: string): Promise<T> {
  const r = await http(promUrl, path, { auth: null });
  expect(r.status, `${path}: ${r.text}`).toBe(200);
  return (JSON.parse(r.text) as { data: T }).data;
}

/** The value of an instant query that answers one sample, or undefined while it answers none. */
async function value(query: string): Promise<number | undefined> {
  const data = await api<{ result: Array<{ value: [number, string] }> }>(
    `/api/v1/query?query=${encodeURIComponent(query)}`,
  );
  expect(data.result.length, query).toBeLessThanOrEqual(1);
  return data.result.length === 0 ? undefined : Number(data.result[0]!.value[1]);
}

/** Polls `query` until it answers `want` (Prometheus scrapes every second); the last answer. */
async function until(query: string, want: (v: number | undefined) => boolean): Promise<number | undefined> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const v = await value(query);
    if (want(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 250));
  }
}

beforeAll(async () => {
  server = await startServer({ inProcess: true, env: QUIET });
  if (!existsSync(PROMETHEUS)) return;
  dir = mkdtempSync(join(tmpdir(), 'sundial-prometheus-'));
  const target = new URL(server.url).host;
  writeFileSync(
    join(dir, 'prometheus.yml'),
    `global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: sundial\n    static_configs:\n      - targets: ['${target}']\n`,
  );
  const port = await freePort();
  promUrl = `http://127.0.0.1:${port}`;
  prometheus = spawn(
    PROMETHEUS,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  prometheus.stdout!.on('data', (d: Buffer) => (promLog += d.toString()));
  prometheus.stderr!.on('data', (d: Buffer) => (promLog += d.toString()));
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ready = await http(promUrl, '/-/ready', { auth: null }).catch(() => undefined);
    if (ready?.status === 200) break;
    if (Date.now() > deadline || prometheus.exitCode !== null) throw new Error(`prometheus did not start: ${promLog}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}, 60_000);

afterAll(async () => {
  if (prometheus !== undefined && prometheus.exitCode === null) {
    const exited = new Promise((resolve) => prometheus!.once('exit', resolve));
    prometheus.kill('SIGTERM');
    await exited;
  }
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
  await server?.stop();
  server?.cleanup();
});

describe('Prometheus scraping /metrics', () => {
  it('scrapes the server: the target is up, with no scrape error', async () => {
    expect(existsSync(PROMETHEUS), MISSING).toBe(true);
    expect(await until('up{job="sundial"}', (v) => v === 1), promLog).toBe(1);
    const targets = await api<{ activeTargets: Array<{ labels: { job: string }; health: string; lastError: string }> }>(
      '/api/v1/targets',
    );
    expect(targets.activeTargets.map((t) => [t.labels.job, t.health, t.lastError])).toEqual([['sundial', 'up', '']]);
  });

  it('reads the type of each series as the server declares it', async () => {
    expect(existsSync(PROMETHEUS), MISSING).toBe(true);
    const want: Record<string, string> = {
      sundial_http_requests_total: 'counter',
      sundial_wal_fsync_duration_seconds: 'histogram',
      sundial_memtable_bytes: 'gauge',
      sundial_block_cache_hits_total: 'counter',
      process_cpu_seconds_total: 'counter',
    };
    for (const [metric, type] of Object.entries(want)) {
      const meta = await api<Record<string, Array<{ type: string }>>>(`/api/v1/metadata?metric=${metric}`);
      expect(
        meta[metric]?.map((m) => m.type),
        metric,
      ).toEqual([type]);
    }
  });

  it('sees rows written move with each write, and the memtable fill', async () => {
    expect(existsSync(PROMETHEUS), MISSING).toBe(true);
    const rows = 'sundial_written_rows_total{job="sundial",format="line-protocol"}';
    expect((await writeLp(server.url, 'cpu,host=a v=1 1\ncpu,host=b v=2 1\ncpu,host=c v=3 1')).status).toBe(200);
    expect(await until(rows, (v) => v === 3), promLog).toBe(3);
    expect((await writeLp(server.url, 'cpu,host=a v=4 2\ncpu,host=b v=5 2')).status).toBe(200);
    expect(await until(rows, (v) => v === 5), promLog).toBe(5);
    expect(await until('sundial_wal_group_commit_records_count{job="sundial"}', (v) => v === 2)).toBe(2);
    expect(await value('sundial_memtable_bytes{job="sundial",database="public"}')).toBeGreaterThan(0);
  });

  it('sees queries counted and the HTTP requests by route and status', async () => {
    expect(existsSync(PROMETHEUS), MISSING).toBe(true);
    for (let i = 0; i < 3; i++)
      expect(
        (await http(server.url, '/api/v1/sql', { method: 'POST', body: 'SELECT count(*) AS n FROM cpu' })).text,
      ).toBe('n\n5\n');
    expect(await until('sundial_query_duration_seconds_count{job="sundial"}', (v) => v === 3), promLog).toBe(3);
    expect(
      await until(
        'sundial_http_requests_total{job="sundial",route="/api/v1/sql",method="POST",status="200"}',
        (v) => v === 3,
      ),
    ).toBe(3);
    // Prometheus' own scrapes are requests too, answered 200.
    expect(
      await value('sundial_http_requests_total{job="sundial",route="/metrics",method="GET",status="200"}'),
    ).toBeGreaterThan(0);
    expect(await value('process_resident_memory_bytes{job="sundial"}')).toBeGreaterThan(0);
  });
});
