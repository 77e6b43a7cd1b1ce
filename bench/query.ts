// npm run bench:query — query latency side by side with InfluxDB 1.6 (InfluxQL) and
// VictoriaMetrics (MetricsQL) on the TSBS cpu-only data set (100 hosts x 1 day), same run, same
// client (../shared/bench/query-bench.mjs: keep-alive, request sent -> full body received):
//   a, b, c  the three queries of ../shared/bench/queries-sundial.json (a: max per minute of one
//            host over one hour; b: mean per host per hour over the day; c: last point per host)
//            and the peers' versions built into query-bench.mjs;
//   the TSBS queries double-groupby-all, high-cpu-all, groupby-orderby-limit and lastpoint
//            (bench/tsbs-queries.ts has the three dialects and why each text is what it is).
// Each system runs alone on a fresh data directory and is started only while it is measured
// (peers by PID with the shared scripts); queries start once it has settled after the load
// (under 2% of a core for a second). Each query: one warm-up run, then the median of --runs.
// --rounds repeats everything on fresh servers; the table shows the median of the rounds'
// medians. After Sundial, the same client measures the HTTP floor (bench/http-floor.ts): a hapi
// server that does no work and answers each request with the bytes Sundial answered, warmed by
// a throwaway client first. No Sundial query can beat that column; it shows what is left to the
// query itself. The machine is shared: the CPU other processes used while each system answered is
// printed, and --check compares every system's answers (bench/query-check.ts).
//
// Options: --hosts 100 --duration 1d --peers influxdb,vm (or none) --runs 5 --rounds 1
//          --only a,b,... (Sundial only) --check --profile DIR (Sundial under node --cpu-prof)
//          --node-args '...' (options for Sundial's node, e.g. V8 flags)
//          --idle S (seconds of nothing between settling and the queries; the shared harness,
//          bench-peer.sh, waits 70 or more; --runs 9 is its count)
//          --load-at-ready (load Sundial once it is ready, during its warm-ups, as a server
//          started by hand for bench-peer.sh is; default: once the warm-ups are over)
// Needs `npm run build` first (npm run bench:query does it).

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { RecordedAnswer } from './http-floor.js';
import { checkAnswers, fetchAnswers, substitute, type Answers } from './query-check.js';
import { influxQueries, sundialQueries, TSBS_NAMES, vmQueries, windows, type BenchQuery } from './tsbs-queries.js';
import { SHARED_BENCH_DIR } from '../test/support/shared-dir.js';
import { childrenCpuSeconds, cpuSeconds, machineBusySeconds, settle as settleProcess } from './support/proc.js';
import { cpuProfArgs, withFreshServer } from './support/sundial.js';
import { cpuLpFile, loaderArgs } from './support/tsbs-data.js';

const SHARED = SHARED_BENCH_DIR;
const WORK = '/tmp/sundial-bench';
const START = '2016-01-01T00:00:00Z';

const { values: opts } = parseArgs({
  options: {
    hosts: { type: 'string', default: '100' },
    duration: { type: 'string', default: '1d' },
    peers: { type: 'string', default: 'influxdb,vm' },
    runs: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '1' },
    only: { type: 'string' },
    check: { type: 'boolean', default: false },
    profile: { type: 'string' },
    'node-args': { type: 'string' },
    idle: { type: 'string', default: '0' },
    'load-at-ready': { type: 'boolean', default: false },
  },
});

type System = 'sundial' | 'floor' | 'influxdb' | 'vm';
const TITLE: Record<System, string> = {
  sundial: 'Sundial',
  floor: 'hapi, no work (floor)',
  influxdb: 'InfluxDB 1.6',
  vm: 'VictoriaMetrics 1.79',
};

interface QueryResult {
  name: string;
  status: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
  firstMs: number;
  bytes: number;
}

/** CPU used while one system answered its queries (load and settling excluded). */
interface Noise {
  seconds: number;
  serverCores: number;
  clientCores: number;
  otherCores: number;
}

interface RoundResult {
  rows: QueryResult[];
  noise: Noise;
  answers?: Answers;
  /** Sundial's: what it answered each query, for the floor. */
  recorded?: RecordedAnswer[];
}

function parseDuration(s: string): number {
  const m = /^(\d+)([smhd]?)$/.exec(s);
  if (m === null) throw new Error(`bad --duration ${s}`);
  return Number(m[1]) * { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2] as '' | 's' | 'm' | 'h' | 'd'];
}

const durationS = parseDuration(opts.duration!);
const win = windows(START, durationS);

function load(file: string, url: string, pid: number, auth?: string): void {
  const args = loaderArgs(file, url, { pid, auth });
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`loader exited with ${r.status}`);
}

/**
 * Waits until the server has finished the work the load left behind (flushes, compactions:
 * every system here has some) — less than 2% of a core over one second — so that queries are
 * measured on settled data, the same way for every system. Gives up after a minute.
 */
async function settle(name: string, pid: number): Promise<void> {
  const seconds = await settleProcess(pid, 0.02);
  console.error(`${name}: settled ${seconds.toFixed(1)} s after the load`);
  // --idle: then nothing for that long, as ../shared/bench/bench-peer.sh waits 70 s or more for the
  // disk size to settle before its queries (an idle server is another server: V8 shrinks its
  // young generation, and its memory reducer collects, at the next activity).
  const idleMs = Number(opts.idle) * 1000;
  if (idleMs > 0) await new Promise((done) => setTimeout(done, idleMs));
}

function writeQueries(name: string, list: BenchQuery[]): string {
  const file = join(WORK, `queries-${name}-${process.pid}.json`);
  writeFileSync(file, JSON.stringify(list, null, 2) + '\n');
  return file;
}

/** Runs query-bench.mjs once (`args` pick the target and queries) and returns its results. */
function runClient(tag: string, args: string[]): QueryResult[] {
  const out = join(WORK, `query-${tag}-${process.pid}.json`);
  const all = [
    join(SHARED, 'query-bench.mjs'),
    '--duration',
    opts.duration!,
    '--runs',
    opts.runs!,
    '--json',
    out,
    ...args,
  ];
  const r = spawnSync(process.execPath, all, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`query-bench exited with ${r.status}`);
  const rows = (JSON.parse(readFileSync(out, 'utf8')) as { queries: QueryResult[] }).queries;
  rmSync(out, { force: true });
  return rows;
}

/** Runs `clients` against a settled server and accounts the CPU of server, client and everything else. */
function measure(pid: number, clients: () => QueryResult[]): { rows: QueryResult[]; noise: Noise } {
  const t0 = performance.now();
  const server0 = cpuSeconds(pid);
  const client0 = childrenCpuSeconds();
  const busy0 = machineBusySeconds();
  const rows = clients();
  const seconds = (performance.now() - t0) / 1000;
  const server = cpuSeconds(pid) - server0;
  const client = childrenCpuSeconds() - client0;
  const other = machineBusySeconds() - busy0 - server - client;
  return {
    rows,
    noise: {
      seconds,
      serverCores: server / seconds,
      clientCores: client / seconds,
      otherCores: Math.max(0, other) / seconds,
    },
  };
}

function sundialQueryList(): BenchQuery[] {
  const shared = JSON.parse(readFileSync(join(SHARED, 'queries-sundial.json'), 'utf8')) as BenchQuery[];
  const all = [...shared, ...sundialQueries(win, 'public')];
  const only = opts.only?.split(',');
  return only === undefined ? all : all.filter((q) => only.includes(q.name));
}

async function benchSundial(file: string): Promise<RoundResult> {
  const nodeArgs = [
    ...(cpuProfArgs(opts.profile, 100) ?? []),
    ...(opts['node-args'] ?? '').split(' ').filter((a) => a !== ''),
  ];
  const options = { nodeArgs, waitWarm: !opts['load-at-ready'] };
  return withFreshServer(join(WORK, `sundial-query-data-${process.pid}`), options, async (server) => {
    load(file, `${server.url}/api/v1/write?db=public`, server.pid, 'root:');
    await settle('Sundial', server.pid);
    const list = sundialQueryList();
    const qfile = writeQueries('sundial', list);
    const auth = ['--base', server.url, '--db', 'public', '--user', 'root', '--pass', ''];
    const result: RoundResult = measure(server.pid, () =>
      runClient('sundial', ['--target', 'custom', ...auth, '--queries', qfile]),
    );
    if (opts.check)
      result.answers = await fetchAnswers('sundial', server.url, list, win, { user: 'root', password: '' });
    result.recorded = await record(server.url, list, 'Basic ' + Buffer.from('root:').toString('base64'));
    rmSync(qfile, { force: true });
    return result;
  });
}

/** Sends each query as query-bench.mjs does (placeholders filled, no Accept: CSV) and keeps the answer. */
async function record(base: string, list: BenchQuery[], auth: string): Promise<RecordedAnswer[]> {
  const out: RecordedAnswer[] = [];
  for (const q of list) {
    const path = substitute(q.path, win);
    const body = q.body === undefined ? '' : substitute(q.body, win);
    const res = await fetch(base + path, {
      method: 'POST',
      headers: { Authorization: auth, 'Content-Type': q.contentType ?? 'text/plain' },
      body,
    });
    out.push({ path, body, contentType: res.headers.get('content-type') ?? 'text/csv', answer: await res.text() });
  }
  return out;
}

/**
 * The floor (file header): bench/http-floor.ts over Sundial's recorded answers, warmed by one
 * throwaway client run of 200 requests a query, then measured by a fresh client like the others.
 */
async function benchFloor(recorded: RecordedAnswer[]): Promise<RoundResult> {
  const answers = join(WORK, `floor-answers-${process.pid}.json`);
  writeFileSync(answers, JSON.stringify(recorded));
  const list = sundialQueryList();
  const qfile = writeQueries('floor', list);
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', new URL('./http-floor.ts', import.meta.url).pathname, answers],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
    const base = `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}`;
    const args = ['--target', 'custom', '--base', base, '--db', 'public', '--queries', qfile];
    runClient('floor-warm', [...args, '--runs', '200']);
    const result = measure(child.pid!, () => runClient('floor', args));
    const bad = result.rows.find((r) => r.status !== 200);
    if (bad !== undefined) throw new Error(`the floor answered ${bad.name} with ${bad.status}`);
    return result;
  } finally {
    child.kill('SIGTERM');
    rmSync(answers, { force: true });
    rmSync(qfile, { force: true });
  }
}

function portBusy(port: number): boolean {
  const r = spawnSync('ss', ['-ltn', `sport = :${port}`], { encoding: 'utf8' });
  return r.stdout.split('\n').length > 2;
}

async function benchPeer(peer: 'influxdb' | 'vm', file: string): Promise<RoundResult | undefined> {
  const binary = peer === 'influxdb' ? '/usr/bin/influxd' : '/usr/bin/victoria-metrics';
  if (!existsSync(binary)) {
    console.error(`${peer}: ${binary} not installed; see ../shared/bench/PEERS.md`);
    return undefined;
  }
  const port = peer === 'influxdb' ? 8086 : 8428;
  if (portBusy(port)) {
    console.error(`${peer}: port ${port} is in use by another process; skipped (it is not ours to stop)`);
    return undefined;
  }
  // A directory of our own for the peer's data, PID file and log: others start peers too.
  const peersDir = mkdtempSync(join(WORK, 'peers-'));
  const env = { ...process.env, PEERS_DIR: peersDir };
  execFileSync(join(SHARED, 'start-peers.sh'), ['--fresh', peer], { stdio: 'inherit', env });
  try {
    const pid = Number(readFileSync(join(peersDir, 'run', `${peer}.pid`), 'utf8'));
    const base = peer === 'influxdb' ? 'http://127.0.0.1:8086' : 'http://127.0.0.1:8428';
    load(file, peer === 'influxdb' ? `${base}/write?db=bench&precision=ns` : `${base}/write`, pid);
    if (peer === 'vm') spawnSync('curl', ['-fsS', `${base}/internal/force_flush`]);
    await settle(peer, pid);
    const list = peer === 'influxdb' ? influxQueries(win, 'bench') : vmQueries(win);
    const qfile = writeQueries(peer, list);
    const result: RoundResult = measure(pid, () => [
      ...runClient(peer, ['--target', peer]),
      ...runClient(`${peer}-tsbs`, ['--target', 'custom', '--base', base, '--queries', qfile]),
    ]);
    if (opts.check) result.answers = await fetchAnswers(peer, base, list, win);
    rmSync(qfile, { force: true });
    return result;
  } finally {
    execFileSync(join(SHARED, 'stop-peers.sh'), [peer], { stdio: 'inherit', env });
    rmSync(peersDir, { recursive: true, force: true });
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** One table cell: the median over rounds of each round's median, with the smallest and largest run. */
function cell(rounds: RoundResult[], name: string): string {
  const rows = rounds.map((r) => r.rows.find((x) => x.name === name)).filter((r): r is QueryResult => r !== undefined);
  if (rows.length === 0) return 'n/a';
  const bad = rows.find((r) => r.status >= 300);
  if (bad !== undefined) return `HTTP ${bad.status}`;
  const med = median(rows.map((r) => r.medianMs));
  return `${med.toFixed(1)} (${Math.min(...rows.map((r) => r.minMs)).toFixed(1)}–${Math.max(...rows.map((r) => r.maxMs)).toFixed(1)})`;
}

const NAMES: Record<string, string> = {
  a: 'a: max per minute, 1 host, 1 h',
  b: 'b: mean per host per hour, 1 day',
  c: 'c: last point per host',
  'double-groupby-all': 'double-groupby-all: mean of 10 fields per host per hour, 12 h',
  'high-cpu-all': 'high-cpu-all: rows with usage_user > 90, all hosts, 12 h',
  'groupby-orderby-limit': "groupby-orderby-limit: last 5 minutes' max before a time",
  lastpoint: 'lastpoint: last row per host (TSBS)',
};

async function main(): Promise<void> {
  const file = cpuLpFile(WORK, opts.hosts!, opts.duration!, 'int');
  const peers = opts.peers === 'none' ? [] : (opts.peers!.split(',') as Array<'influxdb' | 'vm'>);
  const systems: System[] = ['sundial', 'floor', ...peers];
  const rounds = new Map<System, RoundResult[]>(systems.map((s) => [s, []]));
  for (let round = 0; round < Number(opts.rounds); round++) {
    let recorded: RecordedAnswer[] = [];
    for (const s of systems) {
      const r =
        s === 'sundial'
          ? await benchSundial(file)
          : s === 'floor'
            ? await benchFloor(recorded)
            : await benchPeer(s, file);
      if (s === 'sundial' && r !== undefined) recorded = r.recorded ?? [];
      if (r !== undefined) rounds.get(s)!.push(r);
    }
  }
  const shown = systems.filter((s) => rounds.get(s)!.length > 0);
  console.log(
    `\nQuery latency on ${file}, ms: median of ${opts.runs} runs after a warm-up (median over ${opts.rounds} round(s) on fresh servers; min–max of all runs):\n`,
  );
  console.log(`| query | ${shown.map((s) => TITLE[s]).join(' | ')} |`);
  console.log(`|---|${shown.map(() => '---').join('|')}|`);
  const names = ['a', 'b', 'c', ...TSBS_NAMES].filter(
    (n) => opts.only === undefined || opts.only.split(',').includes(n),
  );
  for (const q of names) console.log(`| ${NAMES[q]} | ${shown.map((s) => cell(rounds.get(s)!, q)).join(' | ')} |`);
  console.log('\nCPU while each system answered (cores; the machine has 2):');
  for (const s of shown) {
    const n = rounds.get(s)!.map((r) => r.noise);
    const f = (k: keyof Noise): string => n.map((x) => x[k].toFixed(2)).join('/');
    console.log(
      `  ${TITLE[s]}: ${f('seconds')} s; server ${f('serverCores')}, client ${f('clientCores')}, other processes ${f('otherCores')}`,
    );
  }
  if (opts.check) {
    const byName = new Map<System, Answers>();
    for (const s of shown) {
      const a = rounds.get(s)![0]!.answers;
      if (a !== undefined) byName.set(s, a);
    }
    const problems = checkAnswers(byName);
    console.log(
      problems.length === 0
        ? '\nAnswers: every system returned the same values.'
        : `\nAnswers differ:\n${problems.map((p) => `  ${p}`).join('\n')}`,
    );
  }
}

await main();
