// Starts the real server (dist/host/cli/main.js, built by the global setup) as a child process
// on a free port with a temporary data directory, and talks to it over HTTP.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const MAIN = new URL('../../dist/host/cli/main.js', import.meta.url).pathname;

export interface StartOptions {
  /** Reuse a data directory (e.g. after a crash); default: a fresh temporary one. */
  dataDir?: string;
  args?: string[];
  /** Options for node itself, before the script (e.g. `--cpu-prof`, which NODE_OPTIONS refuses). */
  nodeArgs?: string[];
  env?: Record<string, string>;
  /** Wait until the server is ready (not just listening). Default true. */
  waitReady?: boolean;
  /**
   * Also wait until its query and parse warm-ups are over (benchmarks: the warm-ups' second of
   * CPU after a start is not the cost of what they measure). Default false.
   */
  waitWarm?: boolean;
  /** The server's main.js; default dist/host/cli/main.js (a benchmark may run another commit's build). */
  main?: string;
  /** Words before the options, e.g. `['serve']` (default none: the command serves). */
  command?: readonly string[];
}

export interface TestServer {
  url: string;
  /** The PostgreSQL port, when the server was started with `--pg-port`. */
  pgPort: number | undefined;
  dataDir: string;
  pid: number;
  child: ChildProcess;
  /** Log lines (parsed JSON) seen so far. */
  logs: Array<Record<string, unknown>>;
  /** Resolves to the exit code once the process has exited (sends no signal). */
  exited: Promise<number | null>;
  /** SIGTERM and wait for exit; resolves to the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL and wait for exit. */
  kill(): Promise<void>;
  /** Resolves when a log line satisfies `pred`. */
  waitForLog(pred: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Removes the data directory (unless it was given). */
  cleanup(): void;
}

/**
 * Data directories made here and not yet cleaned up. A test that restarts a server on the first
 * one's directory cleans up through the second: its cleanup removes the directory too (it left
 * the directory behind before; a CI run left four in /tmp).
 */
const ownDirs = new Set<string>();

/**
 * The environment `npm start` gives the server (package.json; docs/configuration.md, "Memory"): glibc keeps at most
 * 16 MiB of freed memory at the top of its heap. Servers here start as npm start starts them;
 * test/readme.test.ts checks that the two agree.
 */
export const LAUNCH_ENV: Readonly<Record<string, string>> = { MALLOC_TRIM_THRESHOLD_: '16777216' };

export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'sundial-test-'));
  if (ownDir) ownDirs.add(dataDir);
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.main ?? MAIN, ...(options.command ?? []), '--port', '0', '--data-dir', dataDir, '--log-level', 'info', ...(options.args ?? [])], {
    env: { ...LAUNCH_ENV, ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Array<Record<string, unknown>> = [];
  const waiters: Array<{ pred: (l: Record<string, unknown>) => boolean; resolve: (l: Record<string, unknown>) => void }> = [];
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(line) as Record<string, unknown>;
    } catch {
      parsed = { msg: line };
    }
    logs.push(parsed);
    for (const w of [...waiters]) {
      if (w.pred(parsed)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(parsed);
      }
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const waitForLog = (pred: (l: Record<string, unknown>) => boolean, timeoutMs = 30_000): Promise<Record<string, unknown>> => {
    const seen = logs.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for a log line; stderr: ${stderr}; logs: ${JSON.stringify(logs.slice(-5))}`)), timeoutMs);
      waiters.push({ pred, resolve: (l) => (clearTimeout(timer), resolve(l)) });
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`server exited with ${code} before the expected log line; stderr: ${stderr}; logs: ${JSON.stringify(logs.slice(-5))}`));
      });
    });
  };

  let listening: Record<string, unknown>;
  try {
    listening = await waitForLog((l) => l.msg === 'listening');
    const ready = options.waitReady !== false || options.waitWarm === true ? await waitForLog((l) => l.msg === 'ready') : undefined;
    const setting = (name: string): string | undefined => options.env?.[name] ?? process.env[name];
    // The write warm-up runs first, then the query warm-up: wait for the last one that runs.
    const queryWarmup = setting('SUNDIAL_WARMUP') !== 'false';
    if (options.waitWarm === true && (queryWarmup || setting('SUNDIAL_WRITE_WARMUP') !== 'false')) {
      const done = new Set(
        queryWarmup
          ? ['query path warmed up', 'query warm-up stopped', 'query warm-up failed (queries are only slower until V8 has compiled them)']
          : ['write path warmed up', 'write warm-up stopped', 'write warm-up failed (high-cardinality writes are only slower until V8 has compiled them)'],
      );
      await waitForLog((l) => typeof l.msg === 'string' && done.has(l.msg), 60_000);
    }
    if (options.waitWarm === true && ready?.parseWarmup === true) {
      const workers = Number(ready.parseWorkers);
      const warmed = (): number => logs.filter((l) => l.msg === 'parse worker warmed up').length;
      if (warmed() < workers) await waitForLog((l) => l.msg === 'parse worker warmed up' && warmed() >= workers, 60_000);
    }
  } catch (e) {
    // No server to hand back, so nobody else can remove the directory made for it.
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    if (ownDir) {
      rmSync(dataDir, { recursive: true, force: true });
      ownDirs.delete(dataDir);
    }
    throw e;
  }
  return {
    url: String(listening.url),
    pgPort: typeof listening.pgPort === 'number' ? listening.pgPort : undefined,
    dataDir,
    pid: child.pid!,
    child,
    logs,
    exited,
    waitForLog,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    cleanup: () => {
      if (!ownDirs.has(dataDir)) return;
      rmSync(dataDir, { recursive: true, force: true });
      ownDirs.delete(dataDir);
    },
  };
}
