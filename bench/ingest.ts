// npm run bench:ingest — HTTP ingest of the TSBS cpu-only data set (100 hosts x 1 day, 864,000
// rows, 8.64 M field values) into Sundial and, when installed, InfluxDB 1.6 and
// VictoriaMetrics, in the same run with the same loader (../shared/bench/load-lp.mjs: 5000-line
// batches, 2 connections). Prints rows/s, server CPU seconds and peak RSS side by side.
//
// Options: --hosts 100 --duration 1d --peers influxdb,vm (or none) --runs 1
// Needs `npm run build` first (npm run bench:ingest does it).

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
    runs: { type: 'string', default: '1' },
    types: { type: 'string', default: 'int' },
  },
});

interface LoadResult {
  rows: number;
  rowsPerSec: number;
  elapsedSeconds: number;
  server?: { cpuSeconds: number; peakRssMiB?: number; vmHWMMiB?: number };
  failedRows?: number;
}

function dataFile(): string {
  mkdirSync(WORK, { recursive: true });
  const file = join(WORK, `cpu-${opts.hosts}h-${opts.duration}${opts.types === 'float' ? '-float' : ''}.lp`);
  if (!existsSync(file)) {
    execFileSync(process.execPath, [join(SHARED, 'gen-cpu.mjs'), '--hosts', opts.hosts!, '--duration', opts.duration!, '--types', opts.types!, '--out', file], { stdio: 'inherit' });
  }
  return file;
}

function load(file: string, url: string, pid: number, tag: string, auth?: string): LoadResult {
  const out = join(WORK, `load-${tag}.json`);
  const args = [join(SHARED, 'load-lp.mjs'), file, url, '--batch', '5000', '--workers', '2', '--pid', String(pid), '--json', out, '--quiet'];
  if (auth) args.push('--auth', auth);
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) console.error(`loader exited with ${r.status} for ${tag}`);
  return JSON.parse(readFileSync(out, 'utf8')) as LoadResult;
}

function peakRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)![1]) / 1024;
}

interface Row {
  name: string;
  rowsPerSec: number;
  cpuSeconds: number;
  rowsPerCpuSecond: number;
  peakRssMiB: number;
  failedRows: number;
}

async function benchSundial(file: string, run: number): Promise<Row> {
  const dataDir = join(WORK, 'sundial-data');
  rmSync(dataDir, { recursive: true, force: true });
  const server = await startServer({ dataDir });
  try {
    const res = load(file, `${server.url}/api/v1/write?db=public`, server.pid, `sundial-${run}`, 'root:');
    const rss = peakRss(server.pid);
    return row('Sundial', res, rss);
  } finally {
    await server.stop();
  }
}

function row(name: string, res: LoadResult, rss: number): Row {
  const cpu = res.server?.cpuSeconds ?? NaN;
  return { name, rowsPerSec: res.rowsPerSec, cpuSeconds: cpu, rowsPerCpuSecond: res.rows / cpu, peakRssMiB: rss, failedRows: res.failedRows ?? 0 };
}

function benchPeer(peer: 'influxdb' | 'vm', file: string, run: number): Row | undefined {
  const binary = peer === 'influxdb' ? '/usr/bin/influxd' : '/usr/bin/victoria-metrics';
  if (!existsSync(binary)) {
    console.error(`${peer}: ${binary} not installed; see ../shared/bench/PEERS.md (apt-get install influxdb victoria-metrics)`);
    return undefined;
  }
  execFileSync(join(SHARED, 'start-peers.sh'), ['--fresh', peer], { stdio: 'inherit' });
  try {
    const pid = Number(readFileSync(`/tmp/peers/run/${peer}.pid`, 'utf8'));
    const url = peer === 'influxdb' ? 'http://127.0.0.1:8086/write?db=bench&precision=ns' : 'http://127.0.0.1:8428/write';
    const res = load(file, url, pid, `${peer}-${run}`);
    return row(peer === 'influxdb' ? 'InfluxDB 1.6' : 'VictoriaMetrics', res, peakRss(pid));
  } finally {
    execFileSync(join(SHARED, 'stop-peers.sh'), [peer], { stdio: 'inherit' });
  }
}

async function main(): Promise<void> {
  const file = dataFile();
  const peers = opts.peers === 'none' ? [] : (opts.peers!.split(',') as Array<'influxdb' | 'vm'>);
  const rows: Row[] = [];
  for (let run = 1; run <= Number(opts.runs); run++) {
    rows.push(await benchSundial(file, run));
    for (const p of peers) {
      const r = benchPeer(p, file, run);
      if (r) rows.push(r);
    }
  }
  const scan = spawnSync(process.execPath, ['--import', 'tsx', new URL('./scan-lp.ts', import.meta.url).pathname, file], { encoding: 'utf8' });
  console.log(`\nIngest of ${file} (5000-line batches, 2 connections), same run:\n`);
  console.log('| server | rows/s | server CPU s | rows per CPU s | peak RSS MiB | failed rows |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(`| ${r.name} | ${Math.round(r.rowsPerSec).toLocaleString('en')} | ${r.cpuSeconds.toFixed(1)} | ${Math.round(r.rowsPerCpuSecond).toLocaleString('en')} | ${r.peakRssMiB.toFixed(0)} | ${r.failedRows} |`);
  }
  if (scan.status === 0) console.log(`\nWasm line-protocol scanner alone:\n${scan.stdout.trim()}`);
}

await main();
