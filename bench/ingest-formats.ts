// The per-format part of `npm run bench:ingest`: each workload (bench/ingest-bodies.ts) is POSTed
// to a fresh server over 2 keep-alive connections, as the line-protocol loader does, and measured
// from the first request to the last reply: rows/s, server CPU seconds (from /proc), peak RSS.
// With `probeSql`, a third connection sends `SELECT 1` every 5 ms meanwhile and reports its
// latency: what a dashboard querying the server feels while it ingests.

import { Agent, request } from 'node:http';
import { join } from 'node:path';
import type { Workload } from './ingest-bodies.js';
import { cpuSeconds, peakRssMiB } from './support/proc.js';
import { cpuProfArgs, withFreshServer } from './support/sundial.js';

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
  /**
   * CPU seconds of the server's main (JavaScript) thread alone: what bounds rows/s on a free core.
   * Parse workers (`ingest.parse_workers`) are other threads: their CPU is in cpuSeconds only.
   */
  mainCpuSeconds: number;
  peakRssMiB: number;
  failed: number;
  bodyMiB: number;
  /** `SELECT 1` latency during the load (ms, sorted), with probeSql. */
  probeMs?: number[];
}

const AUTH = 'Basic ' + Buffer.from('root:').toString('base64');

function post(url: string, agent: Agent, w: Pick<Workload, 'path' | 'headers'>, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(w.path, url),
      { method: 'POST', agent, headers: { ...w.headers, authorization: AUTH, 'content-length': String(body.length) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Sends `SELECT 1` every 5 ms over its own connection until `done()`; the latencies in ms. */
async function probeSql(url: string, done: () => boolean): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const select = { path: '/api/v1/sql', headers: {} };
  const body = Buffer.from('SELECT 1');
  const out: number[] = [];
  try {
    while (!done()) {
      const t0 = performance.now();
      const status = await post(url, agent, select, body);
      if (status !== 200) throw new Error(`SELECT 1: HTTP ${status}`);
      out.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    agent.destroy();
  }
  return out.sort((a, b) => a - b);
}

/** `cpuProfDir`: run the server with `node --cpu-prof` and write its profile there. */
export async function benchFormat(
  w: Workload,
  workDir: string,
  connections = 2,
  cpuProfDir?: string,
  withProbe = false,
): Promise<FormatResult> {
  const dataDir = join(workDir, 'format-data');
  return withFreshServer(dataDir, { nodeArgs: cpuProfArgs(cpuProfDir) }, async (server) => {
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
      let loading = true;
      const probe = withProbe ? probeSql(server.url, () => !loading) : undefined;
      await Promise.all(Array.from({ length: connections }, worker));
      loading = false;
      const seconds = (performance.now() - t0) / 1000;
      const probeMs = await probe;
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
        probeMs,
      };
    } finally {
      agent.destroy();
    }
  });
}
