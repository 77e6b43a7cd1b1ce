// npm run bench:query — the three TSBS-style queries of ../shared/bench/queries-sundial.json
// (a: max per minute of one host over one hour; b: mean per host per hour over the day;
// c: last point per host) on the cpu-only data set (100 hosts x 1 day), median of 5 runs after
// a warm-up, once each server has settled after the load, side by side with InfluxDB 1.6
// (InfluxQL) and VictoriaMetrics (MetricsQL) in the same run, with the same client
// (../shared/bench/query-bench.mjs). Each peer runs alone and only while it is measured
// (started and stopped by PID with the shared scripts).
//
// Options: --hosts 100 --duration 1d --peers influxdb,vm (or none) --runs 5
// Needs `npm run build` first (npm run bench:query does it).

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startServer } from '../test/support/server.js';

const SHARED = new URL('../../shared/bench/', import.meta.url).pathname;
const WORK = '/tmp/sundial-bench';

const { values: opts } = parseArgs({
  options: {
    hosts: { type: 'string', default: '100' },
    duration: { type: 'string', default: '1d' },
    peers: { type: 'string', default: 'influxdb,vm' },
    runs: { type: 'string', default: '5' },
  },
});

interface QueryResult {
  name: string;
  status: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
  points?: number;
  bytes: number;
}

function dataFile(): string {
  mkdirSync(WORK, { recursive: true });
  const file = join(WORK, `cpu-${opts.hosts}h-${opts.duration}.lp`);
  if (!existsSync(file)) {
    execFileSync(process.execPath, [join(SHARED, 'gen-cpu.mjs'), '--hosts', opts.hosts!, '--duration', opts.duration!, '--out', file], { stdio: 'inherit' });
  }
  return file;
}

function load(file: string, url: string, pid: number, auth?: string): void {
  const args = [join(SHARED, 'load-lp.mjs'), file, url, '--batch', '5000', '--workers', '2', '--pid', String(pid), '--quiet'];
  if (auth) args.push('--auth', auth);
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`loader exited with ${r.status}`);
}

/** CPU seconds a process has used so far (/proc, Linux). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * Waits until the server has finished the work the load left behind (flushes, compactions:
 * every system here has some) — less than 2% of a core over one second — so that queries are
 * measured on settled data, the same way for every system. Gives up after a minute.
 */
async function settle(name: string, pid: number): Promise<void> {
  const start = Date.now();
  let last = cpuSeconds(pid);
  while (Date.now() - start < 60_000) {
    await new Promise((done) => setTimeout(done, 1000));
    const now = cpuSeconds(pid);
    if (now - last < 0.02) break;
    last = now;
  }
  console.error(`${name}: settled ${((Date.now() - start) / 1000).toFixed(1)} s after the load`);
}

function queries(target: string, extra: string[]): QueryResult[] {
  const out = join(WORK, `query-${target}.json`);
  const args = [join(SHARED, 'query-bench.mjs'), '--target', target, '--duration', opts.duration!, '--runs', opts.runs!, '--json', out, ...extra];
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`query-bench exited with ${r.status}`);
  return (JSON.parse(readFileSync(out, 'utf8')) as { queries: QueryResult[] }).queries;
}

async function benchSundial(file: string): Promise<QueryResult[]> {
  const dataDir = join(WORK, 'sundial-query-data');
  rmSync(dataDir, { recursive: true, force: true });
  const server = await startServer({ dataDir });
  try {
    load(file, `${server.url}/api/v1/write?db=public`, server.pid, 'root:');
    await settle('Sundial', server.pid);
    return queries('custom', ['--base', server.url, '--db', 'public', '--user', 'root', '--pass', '', '--queries', join(SHARED, 'queries-sundial.json')]);
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function portBusy(port: number): boolean {
  const r = spawnSync('ss', ['-ltn', `sport = :${port}`], { encoding: 'utf8' });
  return r.stdout.split('\n').length > 2;
}

async function benchPeer(peer: 'influxdb' | 'vm', file: string): Promise<QueryResult[] | undefined> {
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
  execFileSync(join(SHARED, 'start-peers.sh'), ['--fresh', peer], { stdio: 'inherit' });
  try {
    const pid = Number(readFileSync(`/tmp/peers/run/${peer}.pid`, 'utf8'));
    load(file, peer === 'influxdb' ? 'http://127.0.0.1:8086/write?db=bench&precision=ns' : 'http://127.0.0.1:8428/write', pid);
    if (peer === 'vm') spawnSync('curl', ['-fsS', 'http://127.0.0.1:8428/internal/force_flush']);
    await settle(peer, pid);
    return queries(peer, []);
  } finally {
    execFileSync(join(SHARED, 'stop-peers.sh'), [peer], { stdio: 'inherit' });
  }
}

function cell(r: QueryResult | undefined): string {
  if (r === undefined) return 'n/a';
  if (r.status >= 300) return `HTTP ${r.status}`;
  return `${r.medianMs.toFixed(1)} (${r.minMs.toFixed(1)}–${r.maxMs.toFixed(1)})`;
}

async function main(): Promise<void> {
  const file = dataFile();
  const results: { name: string; rows: QueryResult[] | undefined }[] = [{ name: 'Sundial', rows: await benchSundial(file) }];
  const peers = opts.peers === 'none' ? [] : (opts.peers!.split(',') as Array<'influxdb' | 'vm'>);
  for (const p of peers) results.push({ name: p === 'influxdb' ? 'InfluxDB 1.6' : 'VictoriaMetrics', rows: await benchPeer(p, file) });
  console.log(`\nQuery latency on ${file}, ms: median (min–max) of ${opts.runs} runs after a warm-up, same run:\n`);
  console.log(`| query | ${results.map((r) => r.name).join(' | ')} |`);
  console.log(`|---|${results.map(() => '---').join('|')}|`);
  const names = { a: 'a: max per minute, 1 host, 1 h', b: 'b: mean per host per hour, 1 day', c: 'c: last point per host' };
  for (const q of ['a', 'b', 'c'] as const) {
    console.log(`| ${names[q]} | ${results.map((r) => cell(r.rows?.find((x) => x.name === q))).join(' | ')} |`);
  }
}

await main();
