// npm run bench:ingest — HTTP ingest of the TSBS cpu-only data set (100 hosts x 1 day, 864,000
// rows, 8.64 M field values) into Sundial (through /api/v1/write, then the same load through
// InfluxDB's /write; target: within 5% of /api/v1/write) and, when installed, InfluxDB 1.6 and
// VictoriaMetrics, in the same run with the same loader (../shared/bench/load-lp.mjs: 5000-line
// batches, 2 connections). Prints rows/s, server CPU seconds and peak RSS side by side.
//
// Then every other ingest format on data of realistic shape (bench/ingest-bodies.ts), each into a
// fresh server over 2 connections: OpenTSDB text, Elasticsearch bulk, NDJSON, Loki protobuf, OTLP
// spans, Prometheus remote write, OTLP metrics and logs (/v1/metrics, /v1/logs); printed with the
// targets of issues 6 and 28 next to them. Last, psql-style round trips: SELECT of 1 and of
// 100,000 rows over the PostgreSQL port against /api/v1/sql JSON (bench/pg-round-trips.ts).
//
// Options: --hosts 100 --duration 1d --peers influxdb,vm (or none) --runs 1 (0: the formats alone)
//          --formats all (or none, or a comma list: opentsdb,bulk,ndjson,loki,otlp,prom,otlp-metrics,otlp-logs)
//          --format-scale 1 (multiplies the size of every format's data set)
//          --cpu-prof DIR (run every Sundial server under `node --cpu-prof`, profiles into DIR)
//          --probe-sql (a third connection sends SELECT 1 every 5 ms during each format's load;
//          its latency is printed: how much the ingest holds up the server's event loop)
//          --pg-rows 100000 (rows of the big result of the query row; 0 leaves the query row out)
//          --nats (also load Sundial with its WAL in NATS JetStream, server.cluster.nats_urls, on a
//          nats-server -js of its own, alternated with the file WAL; NATS's CPU is printed apart)
//          --vnodes 1 (storage.vnodes of that run)
// The servers take the environment, so SUNDIAL_PARSE_WORKERS=0 measures parsing in the server's
// thread.
// Needs `npm run build` first (npm run bench:ingest does it).

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startNats, type TestNats } from '../test/support/nats.js';
import { SHARED_BENCH_DIR } from '../test/support/shared-dir.js';
import {
  bulkWorkload,
  lokiWorkload,
  ndjsonWorkload,
  openTsdbWorkload,
  otlpLogsWorkload,
  otlpMetricsWorkload,
  otlpWorkload,
  promWorkload,
  type Workload,
} from './ingest-bodies.js';
import { benchFormat, type FormatResult } from './ingest-formats.js';
import { pgRoundTrips, printRoundTrips } from './pg-round-trips.js';
import { cpuSeconds, peakRssMiB } from './support/proc.js';
import { cpuProfArgs, withFreshServer } from './support/sundial.js';
import { cpuLpFile, loaderArgs } from './support/tsbs-data.js';

const SHARED = SHARED_BENCH_DIR;
const WORK = '/tmp/sundial-bench';
// Data directories and loader reports of this run: per process, so that two runs on a shared
// machine never delete each other's server data (the generated data file is shared).
const RUN = join(WORK, `run-${process.pid}`);

const { values: opts } = parseArgs({
  options: {
    hosts: { type: 'string', default: '100' },
    duration: { type: 'string', default: '1d' },
    peers: { type: 'string', default: 'influxdb,vm' },
    runs: { type: 'string', default: '1' },
    types: { type: 'string', default: 'int' },
    formats: { type: 'string', default: 'all' },
    'format-scale': { type: 'string', default: '1' },
    'cpu-prof': { type: 'string' },
    'probe-sql': { type: 'boolean', default: false },
    'pg-rows': { type: 'string', default: '100000' },
    nats: { type: 'boolean', default: false },
    vnodes: { type: 'string', default: '1' },
  },
});

interface LoadResult {
  rows: number;
  rowsPerSec: number;
  elapsedSeconds: number;
  server?: { cpuSeconds: number; peakRssMiB?: number; vmHWMMiB?: number };
  failedRows?: number;
}

function load(file: string, url: string, pid: number, tag: string, auth?: string): LoadResult {
  const out = join(RUN, `load-${tag}.json`);
  const args = loaderArgs(file, url, { pid, json: out, auth });
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) console.error(`loader exited with ${r.status} for ${tag}`);
  return JSON.parse(readFileSync(out, 'utf8')) as LoadResult;
}

interface Row {
  name: string;
  rowsPerSec: number;
  cpuSeconds: number;
  rowsPerCpuSecond: number;
  /** Rows per CPU second of the server's main thread (Sundial only). */
  rowsPerMainCpuSecond?: number;
  peakRssMiB: number;
  failedRows: number;
  /** CPU seconds of nats-server during the load (the JetStream WAL only). */
  natsCpuSeconds?: number;
}

/** Sundial's routes for the line-protocol load: its own, and InfluxDB's /write (the same parser and pipeline). */
const SUNDIAL_ROUTES: ReadonlyArray<{ name: string; path: string; nats?: boolean }> = [
  { name: 'Sundial', path: '/api/v1/write?db=public' },
  { name: 'Sundial, InfluxDB /write', path: '/write?db=public' },
  ...(opts.nats ? [{ name: 'Sundial, JetStream WAL', path: '/api/v1/write?db=public', nats: true }] : []),
];

async function benchSundial(file: string, run: number, route: (typeof SUNDIAL_ROUTES)[number]): Promise<Row> {
  const nats: TestNats | undefined = route.nats === true ? await startNats(1) : undefined;
  try {
    const args = nats === undefined ? [] : ['--nats-urls', nats.urls, '--vnodes', opts.vnodes!];
    const options = { args, nodeArgs: cpuProfArgs(opts['cpu-prof']) };
    return await withFreshServer(join(RUN, 'sundial-data'), options, async (server) => {
      const natsPid = nats?.nodes[0]?.pid;
      const nats0 = natsPid === undefined ? 0 : cpuSeconds(natsPid);
      const main0 = cpuSeconds(server.pid, true);
      const res = load(
        file,
        `${server.url}${route.path}`,
        server.pid,
        `sundial-${run}-${route.path.split('?')[0]!.replaceAll('/', '_')}`,
        'root:',
      );
      const main = cpuSeconds(server.pid, true) - main0;
      const rss = peakRssMiB(server.pid);
      return {
        ...row(route.name, res, rss),
        rowsPerMainCpuSecond: res.rows / main,
        ...(natsPid === undefined ? {} : { natsCpuSeconds: cpuSeconds(natsPid) - nats0 }),
      };
    });
  } finally {
    await nats?.close();
  }
}

function row(name: string, res: LoadResult, rss: number): Row {
  const cpu = res.server?.cpuSeconds ?? NaN;
  return {
    name,
    rowsPerSec: res.rowsPerSec,
    cpuSeconds: cpu,
    rowsPerCpuSecond: res.rows / cpu,
    peakRssMiB: rss,
    failedRows: res.failedRows ?? 0,
  };
}

function benchPeer(peer: 'influxdb' | 'vm', file: string, run: number): Row | undefined {
  const binary = peer === 'influxdb' ? '/usr/bin/influxd' : '/usr/bin/victoria-metrics';
  if (!existsSync(binary)) {
    console.error(
      `${peer}: ${binary} not installed; see ../shared/bench/PEERS.md (apt-get install influxdb victoria-metrics)`,
    );
    return undefined;
  }
  execFileSync(join(SHARED, 'start-peers.sh'), ['--fresh', peer], { stdio: 'inherit' });
  try {
    const pid = Number(readFileSync(`/tmp/peers/run/${peer}.pid`, 'utf8'));
    const url =
      peer === 'influxdb' ? 'http://127.0.0.1:8086/write?db=bench&precision=ns' : 'http://127.0.0.1:8428/write';
    const res = load(file, url, pid, `${peer}-${run}`);
    return row(peer === 'influxdb' ? 'InfluxDB 1.6' : 'VictoriaMetrics', res, peakRssMiB(pid));
  } finally {
    execFileSync(join(SHARED, 'stop-peers.sh'), [peer], { stdio: 'inherit' });
  }
}

/** The formats to run, with the target the issue sets for each (as a check on rows/s). */
function formatWorkloads(): Array<{ make: () => Workload; target: (r: FormatResult, lp: Row | undefined) => string }> {
  const k = Number(opts['format-scale']);
  const all = {
    opentsdb: {
      make: () => openTsdbWorkload(100, Math.round(360 * k)),
      target: (r: FormatResult, lp: Row | undefined) =>
        lp === undefined
          ? 'within 30% of line protocol (not run)'
          : `within 30% of line protocol: ${((r.rowsPerSec / lp.rowsPerSec) * 100).toFixed(0)}% of its rows/s, ${((r.valuesPerSec / (lp.rowsPerSec * 10)) * 100).toFixed(0)}% of its values/s`,
    },
    bulk: {
      make: () => bulkWorkload(Math.round(200_000 * k)),
      target: (r: FormatResult) => `>= 100,000 documents/s: ${r.rowsPerSec >= 100_000 ? 'met' : 'NOT met'}`,
    },
    ndjson: {
      make: () => ndjsonWorkload(Math.round(200_000 * k)),
      target: (r: FormatResult) => `>= 100,000 documents/s: ${r.rowsPerSec >= 100_000 ? 'met' : 'NOT met'}`,
    },
    loki: {
      make: () => lokiWorkload(Math.round(200_000 * k)),
      target: (r: FormatResult) => `>= 100,000 entries/s: ${r.rowsPerSec >= 100_000 ? 'met' : 'NOT met'}`,
    },
    // 98 k spans (192 requests of 512, as the OpenTelemetry SDK's batch processor sends them):
    // every span is a series of its own (span_id is a tag, as CnosDB maps them), about 1.2 KB of
    // memtable each, so the load includes flushes (a 32 MiB memtable holds some 27 k spans).
    // 16 k spans, the size until 2026-11-26, took under a second and measured mostly V8
    // compiling the ingest path on a fresh server (18 k spans/s against 22-29 k at 98 k, same
    // build and hour); --format-scale 4 adds compactions of such files (22 k spans/s).
    otlp: {
      make: () => otlpWorkload(Math.round(98_304 * k)),
      target: (r: FormatResult) => `>= 50,000 spans/s: ${r.rowsPerSec >= 50_000 ? 'met' : 'NOT met'}`,
    },
    prom: { make: () => promWorkload(100, Math.round(200 * k)), target: () => '(no target)' },
    // 100 hosts x 80 intervals x 50 points: 400,000 data points in 160 bodies of 2,500.
    'otlp-metrics': {
      make: () => otlpMetricsWorkload(100, Math.round(80 * k)),
      target: (r: FormatResult) => `>= 200,000 data points/s: ${r.rowsPerSec >= 200_000 ? 'met' : 'NOT met'}`,
    },
    'otlp-logs': { make: () => otlpLogsWorkload(Math.round(200_000 * k)), target: () => '(no target)' },
  };
  const names = opts.formats === 'none' ? [] : opts.formats === 'all' ? Object.keys(all) : opts.formats!.split(',');
  return names.map((n) => {
    const w = all[n as keyof typeof all];
    if (w === undefined) throw new Error(`unknown format '${n}'; want ${Object.keys(all).join(', ')}`);
    return w;
  });
}

async function benchFormats(lp: Row | undefined): Promise<void> {
  const workloads = formatWorkloads();
  if (workloads.length === 0) return;
  const results: Array<[FormatResult, string]> = [];
  for (const w of workloads) {
    const workload = w.make();
    const r = await benchFormat(workload, RUN, 2, opts['cpu-prof'], opts['probe-sql']);
    results.push([r, w.target(r, lp)]);
  }
  console.log('\nEvery other format, each into a fresh server (2 connections), same run:\n');
  console.log(
    '| format | rows stored / sent | body MiB | rows/s | values/s | server CPU s | rows per CPU s | rows per main-thread CPU s | peak RSS MiB | failed requests | target |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  const n = (v: number | undefined) => (v === undefined ? '' : Math.round(v).toLocaleString('en'));
  if (lp !== undefined) {
    console.log(
      `| line protocol (TSBS cpu, above) | rows | | ${n(lp.rowsPerSec)} | ${n(lp.rowsPerSec * 10)} | ${lp.cpuSeconds.toFixed(1)} | ${n(lp.rowsPerCpuSecond)} | ${n(lp.rowsPerMainCpuSecond)} | ${lp.peakRssMiB.toFixed(0)} | | |`,
    );
  }
  for (const [r, target] of results) {
    console.log(
      `| ${r.name} | ${n(r.rows)} / ${n(r.sent)} ${r.unit} | ${r.bodyMiB.toFixed(1)} | ${n(r.rowsPerSec)} | ${n(r.valuesPerSec)} | ${r.cpuSeconds.toFixed(1)} | ${n(r.rows / r.cpuSeconds)} | ${n(r.rows / r.mainCpuSeconds)} | ${r.peakRssMiB.toFixed(0)} | ${r.failed} | ${target} |`,
    );
  }
  for (const [r] of results) {
    if (r.probeMs === undefined || r.probeMs.length === 0) continue;
    const p = (q: number) => r.probeMs![Math.min(r.probeMs!.length - 1, Math.floor(r.probeMs!.length * q))]!.toFixed(1);
    console.log(
      `${r.name}: SELECT 1 during the load: ${r.probeMs.length} queries, median ${p(0.5)} ms, p90 ${p(0.9)} ms, p99 ${p(0.99)} ms`,
    );
  }
}

/** The query row: psql-style round trips over the PostgreSQL port against HTTP JSON. */
async function benchQueries(): Promise<void> {
  const rows = Number(opts['pg-rows']);
  if (rows === 0) return;
  console.log(
    '\nQueries: SELECT over the PostgreSQL port (server.pg_port) against /api/v1/sql JSON, one server, alternated:\n',
  );
  printRoundTrips(await pgRoundTrips({ rows, runs: 200, bigRuns: 9 }));
}

async function main(): Promise<void> {
  mkdirSync(RUN, { recursive: true });
  try {
    await runAll();
    await benchQueries();
  } finally {
    rmSync(RUN, { recursive: true, force: true });
  }
}

async function runAll(): Promise<void> {
  const peers = opts.peers === 'none' ? [] : (opts.peers!.split(',') as Array<'influxdb' | 'vm'>);
  if (Number(opts.runs) === 0) {
    await benchFormats(undefined);
    return;
  }
  const file = cpuLpFile(WORK, opts.hosts!, opts.duration!, opts.types!);
  const rows: Row[] = [];
  for (let run = 1; run <= Number(opts.runs); run++) {
    // Every other run takes the routes in the other order, so that neither is always second.
    for (const route of run % 2 === 1 ? SUNDIAL_ROUTES : [...SUNDIAL_ROUTES].reverse())
      rows.push(await benchSundial(file, run, route));
    for (const p of peers) {
      const r = benchPeer(p, file, run);
      if (r) rows.push(r);
    }
  }
  const scan = spawnSync(
    process.execPath,
    ['--import', 'tsx', new URL('./scan-lp.ts', import.meta.url).pathname, file],
    { encoding: 'utf8' },
  );
  console.log(`\nIngest of ${file} (5000-line batches, 2 connections), same run:\n`);
  // Rows per CPU second of Sundial's main thread: the thread every request is stored on, so on a
  // loaded machine the figure that says how far the server could go once it has a core.
  console.log(
    '| server | rows/s | server CPU s | rows per CPU s | rows per main-thread CPU s | peak RSS MiB | failed rows |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const main = r.rowsPerMainCpuSecond === undefined ? '' : Math.round(r.rowsPerMainCpuSecond).toLocaleString('en');
    console.log(
      `| ${r.name} | ${Math.round(r.rowsPerSec).toLocaleString('en')} | ${r.cpuSeconds.toFixed(1)} | ${Math.round(r.rowsPerCpuSecond).toLocaleString('en')} | ${main} | ${r.peakRssMiB.toFixed(0)} | ${r.failedRows} |`,
    );
  }
  for (const r of rows)
    if (r.natsCpuSeconds !== undefined)
      console.log(
        `\n${r.name}: nats-server used ${r.natsCpuSeconds.toFixed(1)} CPU s besides (Sundial and NATS: ${Math.round((r.rowsPerCpuSecond * r.cpuSeconds) / (r.cpuSeconds + r.natsCpuSeconds)).toLocaleString('en')} rows per CPU s)`,
      );
  const own = rows.filter((r) => r.name === 'Sundial');
  const influx = rows.filter((r) => r.name === 'Sundial, InfluxDB /write');
  if (own.length > 0 && influx.length > 0) {
    const mean = (rs: Row[]): number => rs.reduce((t, r) => t + r.rowsPerSec, 0) / rs.length;
    console.log(
      `\nInfluxDB /write: ${((mean(influx) / mean(own)) * 100).toFixed(1)}% of /api/v1/write's rows/s (target: within 5%, i.e. at least 95%)`,
    );
  }
  if (scan.status === 0) console.log(`\nWasm line-protocol scanner alone:\n${scan.stdout.trim()}`);
  await benchFormats(rows.find((r) => r.name === 'Sundial'));
}

await main();
