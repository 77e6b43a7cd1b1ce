// The per-format part of `npm run bench:ingest`: each workload (bench/ingest-bodies.ts) is POSTed
// to a fresh server over 2 keep-alive connections, as the line-protocol loader does, and measured
// from the first request to the last reply: rows/s, server CPU seconds (from /proc), peak RSS.

import { readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { startServer } from '../test/support/server.js';
import type { Workload } from './ingest-bodies.js';

export interface FormatResult {
  name: string;
  unit: string;
  /** Rows of the bodies the server accepted (a refused body's rows are not counted). */
  rows: number;
  sent: number;
  seconds: number;
  rowsPerSec: number;
  valuesPerSec: number;
  cpuSeconds: number;
  /** CPU seconds of the server's main (JavaScript) thread alone: what bounds rows/s on a free core. */
  mainCpuSeconds: number;
  peakRssMiB: number;
  failed: number;
  bodyMiB: number;
}

const AUTH = 'Basic ' + Buffer.from('root:').toString('base64');

/** CPU seconds of a process (all threads), or of its main thread with `mainThread`. */
export function cpuSeconds(pid: number, mainThread = false): number {
  const stat = readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(rest[11]) + Number(rest[12])) / 100;
}

function peakRssMiB(pid: number): number {
  return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

function post(url: string, agent: Agent, w: Workload, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(w.path, url), { method: 'POST', agent, headers: { ...w.headers, authorization: AUTH, 'content-length': String(body.length) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** `cpuProfDir`: run the server with `node --cpu-prof` and write its profile there. */
export async function benchFormat(w: Workload, workDir: string, connections = 2, cpuProfDir?: string): Promise<FormatResult> {
  const dataDir = join(workDir, 'format-data');
  rmSync(dataDir, { recursive: true, force: true });
  const nodeArgs = cpuProfDir === undefined ? undefined : ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`];
  const server = await startServer({ dataDir, nodeArgs });
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  let failed = 0;
  let stored = 0;
  try {
    const cpu0 = cpuSeconds(server.pid);
    const main0 = cpuSeconds(server.pid, true);
    const t0 = performance.now();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < w.bodies.length) {
        const i = next++;
        const status = await post(server.url, agent, w, w.bodies[i]!);
        if (status === 200) stored += w.bodyRows[i]!;
        else if (++failed === 1) console.error(`${w.name}: HTTP ${status} (bodies refused are not counted)`);
      }
    };
    await Promise.all(Array.from({ length: connections }, worker));
    const seconds = (performance.now() - t0) / 1000;
    const cpu = cpuSeconds(server.pid) - cpu0;
    const mainCpu = cpuSeconds(server.pid, true) - main0;
    const rss = peakRssMiB(server.pid);
    const rowsPerSec = stored / seconds;
    return {
      name: w.name,
      unit: w.unit,
      rows: stored,
      sent: w.rows,
      seconds,
      rowsPerSec,
      valuesPerSec: rowsPerSec * w.valuesPerRow,
      cpuSeconds: cpu,
      mainCpuSeconds: mainCpu,
      peakRssMiB: rss,
      failed,
      bodyMiB: w.bodies.reduce((n, b) => n + b.length, 0) / 2 ** 20,
    };
  } finally {
    agent.destroy();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
