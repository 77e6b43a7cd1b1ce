// npm run bench:isolation — does one heavy query hold the server's thread, outgrow its memory
// budget, or outlive its timeout? TSBS cpu-only rows (../shared/bench/gen-cpu.mjs, 1000 hosts,
// --rows of them, 10 million by default; loaded once into a data directory under /tmp that later
// runs reuse) in `public.cpu`. For each heavy query a separate client process (this file with
// --probe) sends `GET /api/v1/ping` and a one-line write open loop, every --probe-ms, and the
// latency of each is counted from the moment it was due (a stall shows in full, not as one slow
// request). The server runs with bench/loop-monitor.mjs preloaded, which notes how long its event
// loop was held and how much CPU the server spent meanwhile: on a shared machine the CPU figure is
// the one the code controls. Three servers, one after the other, on the same data:
//   isolation  --query-memory-bytes --isolation-memory (16GiB: every query runs to its end); ping
//              and write p50/p99/max while it runs, its time, status and the server's peak RSS
//              (VmRSS every 50 ms; each query on a fresh server, so the peak is its own);
//   timeout    the same with --query-timeout --timeout-ms: how long after the deadline the 500
//              010010 arrived (from the request's send, so a few ms high);
//   memory     the default 512 MiB budget: the answer (422 010011 or 200) and the peak RSS.
// --main runs another build's dist/host/cli/main.js (a copy of an older commit's package root with
// build/, dist/ and a node_modules link), so that before and after can alternate on a shared
// machine. Needs `npm run build` first (npm run bench:isolation does it).
//
// Options: --rows 10000000 --only join,distinct,... --phases isolation,timeout,memory
//          --timeout-ms 2000 --probe-ms 10 --main PATH --json OUT --isolation-memory 16GiB
//          --data NAME (the data directory under /tmp/sundial-isolation: a build that cannot read
//          a newer build's catalog needs one of its own)
//          --node-args='--cpu-prof --cpu-prof-dir=DIR' (the server's; bench/long-holds.ts reads
//          them with the holds kept in /tmp/sundial-isolation/holds-PHASE-QUERY.json)

import { fork, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startServer, type ProcessServer } from '../test/support/server.js';
import { SHARED_BENCH_DIR } from '../test/support/shared-dir.js';
import { rssMiB as procRssMiB, settle } from './support/proc.js';

const SHARED = SHARED_BENCH_DIR;
const MONITOR = new URL('./loop-monitor.mjs', import.meta.url).pathname;
const WORK = '/tmp/sundial-isolation';
const HOSTS = 1000;
const AUTH = 'Basic ' + Buffer.from('root:').toString('base64');

const { values: opts } = parseArgs({
  options: {
    rows: { type: 'string', default: '10000000' },
    only: { type: 'string' },
    phases: { type: 'string', default: 'isolation,timeout,memory' },
    'timeout-ms': { type: 'string', default: '2000' },
    'probe-ms': { type: 'string', default: '10' },
    'isolation-memory': { type: 'string', default: '16GiB' },
    main: { type: 'string' },
    data: { type: 'string' },
    json: { type: 'string' },
    probe: { type: 'string' },
    'node-args': { type: 'string' },
  },
});

interface HeavyQuery {
  name: string;
  sql: string;
  /** Streamed with chunked=true (its answer is big); the others answer one row. */
  chunked?: boolean;
}

// Each answers little (but `order`, whose rows stream to a client that drops them), so the
// client's reading is not what is measured; every one reads all rows.
const QUERIES: HeavyQuery[] = [
  { name: 'join', sql: 'SELECT count(*) FROM cpu a JOIN cpu b ON a.hostname = b.hostname AND a.time = b.time' },
  { name: 'distinct', sql: "SELECT count(DISTINCT concat(hostname, '/', usage_user, '/', usage_system)) FROM cpu" },
  {
    name: 'like',
    sql: "SELECT count(*) FROM cpu WHERE concat(hostname, '/', usage_user, '/', usage_system) LIKE '%1%/%9%'",
  },
  {
    name: 'order',
    sql: 'SELECT hostname, time, usage_user FROM cpu ORDER BY usage_user DESC, usage_system, time',
    chunked: true,
  },
  {
    name: 'group',
    sql: 'SELECT count(*) FROM (SELECT hostname, usage_user, usage_system, count(*) AS n FROM cpu GROUP BY hostname, usage_user, usage_system)',
  },
  {
    name: 'window',
    sql: 'SELECT max(s) FROM (SELECT sum(usage_user) OVER (PARTITION BY hostname ORDER BY time ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) AS s FROM cpu)',
  },
  { name: 'select-all', sql: 'SELECT * FROM cpu' },
];

// ---------------------------------------------------------------------------------------------
// The probe client (a child process): ping and a small write, open loop.

interface ProbeSamples {
  ping: number[];
  write: number[];
  failed: number;
}

function runProbe(url: string, everyMs: number): void {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const base = new URL(url);
  let samples: ProbeSamples = { ping: [], write: [], failed: 0 };
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let outstanding = 0;
  const send = (kind: 'ping' | 'write', due: number): void => {
    outstanding++;
    const into = samples;
    const req = request(
      {
        host: base.hostname,
        port: base.port,
        agent,
        method: kind === 'ping' ? 'GET' : 'POST',
        path: kind === 'ping' ? '/api/v1/ping' : '/api/v1/write?db=probe',
        headers: kind === 'ping' ? {} : { authorization: AUTH, 'content-type': 'text/plain' },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          outstanding--;
          if (res.statusCode !== 200 && res.statusCode !== 204) into.failed++;
          else into[kind].push(performance.now() - due);
        });
      },
    );
    req.on('error', () => (outstanding--, into.failed++));
    req.end(kind === 'ping' ? undefined : 'probe,k=a v=1i');
  };
  const loop = (start: number, k: number): void => {
    if (!running) return;
    const due = start + k * everyMs;
    send('ping', due);
    // Writes every other tick: each is a WAL fsync.
    if (k % 2 === 0) send('write', due);
    const next = start + (k + 1) * everyMs;
    timer = setTimeout(() => loop(start, k + 1), Math.max(0, next - performance.now()));
  };
  process.on('message', (m: { cmd: string }) => {
    if (m.cmd === 'start') {
      samples = { ping: [], write: [], failed: 0 };
      running = true;
      loop(performance.now(), 0);
      process.send!({ started: true });
    } else if (m.cmd === 'stop') {
      running = false;
      clearTimeout(timer);
      // Wait for the probes in flight: they are the ones the query delayed most.
      const wait = (): void => {
        if (outstanding > 0) setTimeout(wait, 5);
        else process.send!({ samples });
      };
      wait();
    } else if (m.cmd === 'exit') process.exit(0);
  });
  process.send!({ ready: true });
}

class Probe {
  readonly #child: ChildProcess;
  constructor(url: string) {
    this.#child = fork(new URL(import.meta.url).pathname, ['--probe', url, '--probe-ms', opts['probe-ms']!], {
      stdio: 'inherit',
    });
  }
  #next<T>(key: string): Promise<T> {
    return new Promise((resolve) => {
      const on = (m: Record<string, unknown>): void => {
        if (!(key in m)) return;
        this.#child.off('message', on);
        resolve(m[key] as T);
      };
      this.#child.on('message', on);
    });
  }
  ready(): Promise<unknown> {
    return this.#next('ready');
  }
  async start(): Promise<void> {
    const p = this.#next('started');
    this.#child.send({ cmd: 'start' });
    await p;
  }
  async stop(): Promise<ProbeSamples> {
    const p = this.#next<ProbeSamples>('samples');
    this.#child.send({ cmd: 'stop' });
    return p;
  }
  close(): void {
    this.#child.send({ cmd: 'exit' });
  }
}

// ---------------------------------------------------------------------------------------------
// Data: generated by the shared TSBS generator, streamed to the server in 5000-line batches.

function post(
  url: string,
  path: string,
  body: Buffer | string,
  agent?: Agent,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(path, url);
    const req = request(u, { method: 'POST', agent: agent ?? false, headers: { authorization: AUTH } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(parts).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function load(server: ProcessServer, rows: number): Promise<void> {
  const steps = Math.ceil(rows / HOSTS);
  const gen = spawn(
    process.execPath,
    [join(SHARED, 'gen-cpu.mjs'), '--hosts', String(HOSTS), '--duration', `${steps * 10}s`, '--out', '-'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const agent = new Agent({ keepAlive: true, maxSockets: 2 });
  const inflight = new Set<Promise<void>>();
  let pending: Buffer[] = [];
  let lines = 0;
  let sent = 0;
  let report = 1_000_000;
  const started = performance.now();
  const flush = async (): Promise<void> => {
    const body = Buffer.concat(pending);
    pending = [];
    lines = 0;
    const p = post(server.url, '/api/v1/write?db=public', body, agent).then((r) => {
      if (r.status !== 200) throw new Error(`load: ${r.status} ${r.text}`);
    });
    const tracked = p.finally(() => inflight.delete(tracked));
    inflight.add(tracked);
    if (inflight.size >= 2) await Promise.race(inflight);
  };
  let rest = Buffer.alloc(0);
  for await (const chunk of gen.stdout as AsyncIterable<Buffer>) {
    let buf = rest.length === 0 ? chunk : Buffer.concat([rest, chunk]);
    let from = 0;
    for (let nl = buf.indexOf(10, from); nl >= 0; nl = buf.indexOf(10, from)) {
      pending.push(buf.subarray(from, nl + 1));
      from = nl + 1;
      sent++;
      if (++lines === 5000) await flush();
    }
    rest = Buffer.from(buf.subarray(from));
    buf = rest;
    if (sent >= report) {
      process.stderr.write(`\rloaded ${sent} rows`);
      report += 1_000_000;
    }
  }
  if (lines > 0) await flush();
  await Promise.all(inflight);
  const code = gen.exitCode ?? (await once(gen, 'exit'))[0];
  if (code !== 0) throw new Error(`gen-cpu.mjs exited with ${code}`);
  process.stderr.write(`\rloaded ${sent} rows in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
}

/**
 * A data directory with `rows` rows in public.cpu, made once and reused. It is flushed and
 * compacted before use: otherwise every start replays the WAL's tail and a flush or compaction
 * (on the server's thread on a 2-core machine) lands in the middle of some query's measurement.
 */
async function dataDir(rows: number): Promise<string> {
  const dir = join(WORK, opts.data ?? `cpu-${rows}`);
  if (existsSync(join(dir, 'COMPACTED'))) return dir;
  const loaded = existsSync(join(dir, 'LOADED'));
  if (!loaded) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
  }
  const server = await startServer({ dataDir: dir, main: opts.main, env: { SUNDIAL_WARMUP: 'false' } });
  try {
    if (!loaded) {
      await load(server, rows);
      writeFileSync(join(dir, 'LOADED'), `${rows}\n`);
    }
    const r = await post(server.url, '/api/v1/sql?db=public', 'COMPACT DATABASE public');
    if (r.status !== 200) throw new Error(`COMPACT DATABASE: ${r.status} ${r.text}`);
  } finally {
    await server.stop();
  }
  writeFileSync(join(dir, 'COMPACTED'), `${rows}\n`);
  return dir;
}

// ---------------------------------------------------------------------------------------------
// Measuring.

function rssMiB(pid: number): number {
  try {
    return procRssMiB(pid);
  } catch {
    return 0;
  }
}

interface QueryRun {
  status: number;
  code: string;
  ms: number;
  bytes: number;
  peakRssMiB: number;
}

/** Sends one query and reads its answer to the end without keeping it. */
function runQuery(server: ProcessServer, q: HeavyQuery): Promise<QueryRun> {
  return new Promise((resolve, reject) => {
    let peak = rssMiB(server.pid);
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(server.pid))), 50);
    const started = performance.now();
    const u = new URL(`/api/v1/sql?db=public${q.chunked === true ? '&chunked=true' : ''}`, server.url);
    const req = request(
      u,
      { method: 'POST', agent: false, headers: { authorization: AUTH, accept: 'application/csv' } },
      (res) => {
        let bytes = 0;
        let tail = '';
        res.on('data', (c: Buffer) => {
          bytes += c.length;
          tail = (tail + c.toString('utf8', Math.max(0, c.length - 400))).slice(-400);
        });
        res.on('end', () => {
          clearInterval(sampler);
          const ms = performance.now() - started;
          peak = Math.max(peak, rssMiB(server.pid));
          const code =
            res.statusCode === 200
              ? (/"error_code":"(\d+)"/.exec(tail)?.[1] ?? '')
              : String(res.headers['x-sundial-error-code'] ?? '');
          resolve({ status: res.statusCode!, code, ms, bytes, peakRssMiB: peak });
        });
      },
    );
    req.on('error', (e) => (clearInterval(sampler), reject(e)));
    req.end(q.sql);
  });
}

function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

interface Latency {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

function latency(xs: number[]): Latency {
  return {
    n: xs.length,
    p50: quantile(xs, 0.5),
    p99: quantile(xs, 0.99),
    max: xs.length === 0 ? NaN : Math.max(...xs),
  };
}

/** The event loop's longest hold while a query ran: CPU ms (the server's own work), wall ms, how many holds passed 50 ms of CPU; its longest GC pause. */
interface Holds {
  cpuMs: number;
  wallMs: number;
  over50: number;
  /** The longest garbage collection pauses of the thread (scavenge, mark-compact), and how many passed 20 ms. */
  gcMinorMs: number;
  gcMajorMs: number;
  gcOver20: number;
}

interface Row {
  phase: string;
  query: string;
  run: QueryRun;
  holds?: Holds;
  ping?: Latency;
  write?: Latency;
  failedProbes?: number;
}

const fmt = (x: number): string => (Number.isNaN(x) ? '-' : x < 10 ? x.toFixed(1) : x.toFixed(0));
const holds = (h: Holds | undefined): string =>
  h === undefined ? '-' : `${h.cpuMs} (${h.wallMs}), ${h.over50}; GC ${h.gcMinorMs} / ${h.gcMajorMs}, ${h.gcOver20}`;
const lat = (l: Latency | undefined): string =>
  l === undefined ? '-' : `${fmt(l.p50)} / ${fmt(l.p99)} / ${fmt(l.max)}`;

/**
 * A server on the data directory, settled, with a probe client. The probes write to a database of
 * their own, dropped and made again at every start, so that its WAL stays small and its flushes
 * never reach the table the queries read.
 */
async function serve(dir: string, args: string[]): Promise<{ server: ProcessServer; probe: Probe; monitor: string }> {
  const monitor = join(WORK, `loop-monitor-${process.pid}.json`);
  rmSync(monitor, { force: true });
  const server = await startServer({
    dataDir: dir,
    main: opts.main,
    args,
    waitWarm: true,
    nodeArgs: ['--import', MONITOR, ...(opts['node-args']?.split(' ').filter((a) => a !== '') ?? [])],
    env: { SUNDIAL_LOOP_MONITOR: monitor },
  });
  for (const sql of ['DROP DATABASE IF EXISTS probe', 'CREATE DATABASE probe']) {
    const r = await post(server.url, '/api/v1/sql', sql);
    if (r.status !== 200) throw new Error(`${sql}: ${r.status} ${r.text}`);
  }
  const first = await post(server.url, '/api/v1/write?db=probe', 'probe,k=a v=1i');
  if (first.status !== 200) throw new Error(`probe write: ${first.status} ${first.text}`);
  const probe = new Probe(server.url);
  await probe.ready();
  // Under 5% of a core for a second: a flush or compaction after the start is over.
  await settle(server.pid, 0.05);
  return { server, probe, monitor };
}

/** The longest holds of the event loop between `fromUs` and `toUs` (bench/loop-monitor.mjs), once the server has exited. */
function loopHolds(monitor: string, fromUs: number, toUs: number, keepAs: string): Holds {
  const events = (JSON.parse(readFileSync(monitor, 'utf8')) as Array<[number, number, number]>).filter(
    ([t, wall]) => t >= fromUs && t - wall * 1000 <= toUs,
  );
  // Beside the server's CPU profiles, for bench/long-holds.ts.
  if (opts['node-args']?.includes('--cpu-prof') === true)
    writeFileSync(join(WORK, `holds-${keepAs}.json`), JSON.stringify(events));
  const gcs = (JSON.parse(readFileSync(`${monitor}.gc`, 'utf8')) as Array<[number, number, number]>).filter(
    ([t, ms]) => t >= fromUs && t - ms * 1000 <= toUs,
  );
  rmSync(monitor, { force: true });
  rmSync(`${monitor}.gc`, { force: true });
  let cpuMs = 0;
  let wallMs = 0;
  let over50 = 0;
  for (const [, wall, cpu] of events) {
    cpuMs = Math.max(cpuMs, cpu);
    wallMs = Math.max(wallMs, wall);
    if (cpu > 50) over50++;
  }
  const longest = (kind: number): number => gcs.reduce((m, [, ms, k]) => (k === kind ? Math.max(m, ms) : m), 0);
  return {
    cpuMs,
    wallMs,
    over50,
    gcMinorMs: longest(1),
    gcMajorMs: longest(2),
    gcOver20: gcs.filter(([, ms]) => ms > 20).length,
  };
}

/** Each query on a fresh server (so that its peak RSS is its own), ping and writes probed while it runs. */
async function phase(name: string, dir: string, args: string[], queries: HeavyQuery[], rows: Row[]): Promise<void> {
  const us = (): number => Number(process.hrtime.bigint() / 1000n);
  if (name === 'isolation') {
    const { server, probe, monitor } = await serve(dir, args);
    let row: Row;
    const from = us();
    try {
      await probe.start();
      await new Promise((r) => setTimeout(r, 3000));
      const idle = await probe.stop();
      row = {
        phase: name,
        query: '(idle, 3 s)',
        run: { status: 0, code: '', ms: 3000, bytes: 0, peakRssMiB: rssMiB(server.pid) },
        ping: latency(idle.ping),
        write: latency(idle.write),
        failedProbes: idle.failed,
      };
    } finally {
      probe.close();
      await server.stop();
    }
    row.holds = loopHolds(monitor, from, us(), `${name}-idle`);
    rows.push(row);
  }
  for (const q of queries) {
    const { server, probe, monitor } = await serve(dir, args);
    let row: Row;
    let from = 0;
    let to = 0;
    try {
      await probe.start();
      from = us();
      const run = await runQuery(server, q);
      to = us();
      const s = await probe.stop();
      row = { phase: name, query: q.name, run, ping: latency(s.ping), write: latency(s.write), failedProbes: s.failed };
    } finally {
      probe.close();
      await server.stop();
    }
    row.holds = loopHolds(monitor, from, to, `${name}-${q.name}`);
    rows.push(row);
    const { run } = row;
    process.stderr.write(
      `${name} ${q.name}: ${run.status} ${run.code} ${(run.ms / 1000).toFixed(1)} s, RSS ${run.peakRssMiB.toFixed(0)} MiB, ping ${lat(row.ping)}, write ${lat(row.write)}, loop held ${row.holds.cpuMs} ms CPU (${row.holds.wallMs} wall), GC pauses ${row.holds.gcMinorMs} ms minor, ${row.holds.gcMajorMs} major\n`,
    );
  }
}

async function main(): Promise<void> {
  const rowsWanted = Number(opts.rows);
  const queries = opts.only === undefined ? QUERIES : QUERIES.filter((q) => opts.only!.split(',').includes(q.name));
  const phases = opts.phases!.split(',');
  const timeoutMs = Number(opts['timeout-ms']);
  const dir = await dataDir(rowsWanted);
  const rows: Row[] = [];
  const big = ['--query-memory-bytes', opts['isolation-memory']!];
  if (phases.includes('isolation')) await phase('isolation', dir, big, queries, rows);
  if (phases.includes('timeout'))
    await phase('timeout', dir, [...big, '--query-timeout', `${timeoutMs}ms`], queries, rows);
  if (phases.includes('memory')) await phase('memory', dir, [], queries, rows);

  const build = opts.main ?? 'dist (this worktree)';
  console.log(
    `\nbench:isolation ${new Date().toISOString().slice(0, 10)}, ${rowsWanted} rows, build ${build}, probes every ${opts['probe-ms']} ms, machine load ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} at the end`,
  );
  const iso = rows.filter((r) => r.phase === 'isolation');
  if (iso.length > 0) {
    console.log(
      `\nisolation (query memory ${opts['isolation-memory']}): ping and write latency p50 / p99 / max ms while the query runs`,
    );
    console.log(
      "loop held: the longest the event loop waited on the server's own work, CPU ms (wall ms), and how many waits passed 50 ms of CPU; the longest GC pauses, scavenge / mark-compact ms, and how many passed 20 ms",
    );
    console.log('| query | answer | s | peak RSS MiB | ping ms | write ms | loop held ms | probes (failed) |');
    console.log('|---|---|---|---|---|---|---|---|');
    for (const r of iso)
      console.log(
        `| ${r.query} | ${r.run.status || '-'} ${r.run.code} | ${(r.run.ms / 1000).toFixed(1)} | ${r.run.peakRssMiB.toFixed(0)} | ${lat(r.ping)} | ${lat(r.write)} | ${holds(r.holds)} | ${(r.ping?.n ?? 0) + (r.write?.n ?? 0)} (${r.failedProbes ?? 0}) |`,
      );
  }
  const to = rows.filter((r) => r.phase === 'timeout');
  if (to.length > 0) {
    console.log(`\ntimeout (limits.query_timeout = ${timeoutMs} ms): answer and lateness after the deadline`);
    console.log('| query | answer | ms | late ms | ping ms | write ms | loop held ms |');
    console.log('|---|---|---|---|---|---|---|');
    for (const r of to)
      console.log(
        `| ${r.query} | ${r.run.status} ${r.run.code} | ${r.run.ms.toFixed(0)} | ${r.run.code === '010010' ? (r.run.ms - timeoutMs).toFixed(0) : '-'} | ${lat(r.ping)} | ${lat(r.write)} | ${holds(r.holds)} |`,
      );
  }
  const mem = rows.filter((r) => r.phase === 'memory');
  if (mem.length > 0) {
    console.log('\nmemory (limits.query_memory_bytes = 512 MiB): answer and peak RSS');
    console.log('| query | answer | s | peak RSS MiB | answer MB |');
    console.log('|---|---|---|---|---|');
    for (const r of mem)
      console.log(
        `| ${r.query} | ${r.run.status} ${r.run.code} | ${(r.run.ms / 1000).toFixed(1)} | ${r.run.peakRssMiB.toFixed(0)} | ${(r.run.bytes / 1e6).toFixed(1)} |`,
      );
  }
  if (opts.json !== undefined)
    writeFileSync(
      opts.json,
      JSON.stringify({ date: new Date().toISOString(), rows: rowsWanted, build, rowsOut: rows }, null, 1),
    );
}

if (opts.probe !== undefined) runProbe(opts.probe, Number(opts['probe-ms']));
else await main();
