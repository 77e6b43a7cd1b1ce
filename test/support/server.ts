// Starts the real server (dist/, built by the global setup) on a free port with a temporary data
// directory, and talks to it over HTTP: as a child process (dist/host/cli/main.js), or with
// `inProcess: true` in the test's own process (node/serve.ts' startServer: the same composition,
// storage and listener, without the 1 s and 100 MB of a process; not for kills, signals, exit
// codes, node's options or the SUNDIAL_TEST_* fault points, which are the process's).

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type * as NodeHost from '../../host/node/index.js';

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
  /**
   * Run the server in this process (`env` may hold settings only; no `nodeArgs`, `main` or
   * `command`). Default false: a child process.
   */
  inProcess?: boolean;
}

/** A server under test, in a process of its own or in this one. */
export interface TestServer {
  url: string;
  /** The PostgreSQL port, when the server was started with `--pg-port`. */
  pgPort: number | undefined;
  dataDir: string;
  /** Log lines (parsed JSON) seen so far. */
  logs: Array<Record<string, unknown>>;
  /** Stops it as SIGTERM does and waits; resolves to the exit code (in process: the one serve() would exit with). */
  stop(): Promise<number | null>;
  /** Resolves when a log line satisfies `pred`. */
  waitForLog(pred: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Removes the data directory (unless it was given). */
  cleanup(): void;
}

/** A server in a child process: also its process, to kill or to wait for. */
export interface ProcessServer extends TestServer {
  pid: number;
  child: ChildProcess;
  /** Resolves to the exit code once the process has exited (sends no signal). */
  exited: Promise<number | null>;
  /** SIGKILL and wait for exit. */
  kill(): Promise<void>;
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

/**
 * The options `npm start` gives node itself (package.json; docs/configuration.md, "Memory"): a
 * young generation that V8 never shrinks below 16 MiB a semi-space, which it otherwise does at the
 * first collection after the server has been idle for a while. Checked by test/readme.test.ts too.
 */
export const LAUNCH_NODE_ARGS: readonly string[] = ['--min-semi-space-size=16'];

type Log = Record<string, unknown>;

/** Log lines as they come, and waiters for a line; `failure` rejects the waiters left (the server is gone). */
function logBook(describeEnd: () => string): {
  logs: Log[];
  add(line: string): void;
  waitForLog: TestServer['waitForLog'];
  fail(reason: string): void;
} {
  const logs: Log[] = [];
  const waiters: Array<{ pred: (l: Log) => boolean; resolve: (l: Log) => void; reject: (e: Error) => void }> = [];
  let failed: string | undefined;
  return {
    logs,
    add(line) {
      let parsed: Log;
      try {
        parsed = JSON.parse(line) as Log;
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
    },
    waitForLog(pred, timeoutMs = 30_000) {
      const seen = logs.find(pred);
      if (seen) return Promise.resolve(seen);
      if (failed !== undefined)
        return Promise.reject(new Error(`${failed} before the expected log line; ${describeEnd()}`));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`timed out waiting for a log line; ${describeEnd()}`)),
          timeoutMs,
        );
        waiters.push({
          pred,
          resolve: (l) => (clearTimeout(timer), resolve(l)),
          reject: (e) => (clearTimeout(timer), reject(e)),
        });
      });
    },
    fail(reason) {
      failed = reason;
      for (const w of waiters.splice(0))
        w.reject(new Error(`${reason} before the expected log line; ${describeEnd()}`));
    },
  };
}

/** After 'listening': waits for 'ready' and, with `waitWarm`, for the warm-ups (StartOptions). */
async function waitStarted(options: StartOptions, logs: Log[], waitForLog: TestServer['waitForLog']): Promise<void> {
  const ready =
    options.waitReady !== false || options.waitWarm === true ? await waitForLog((l) => l.msg === 'ready') : undefined;
  const setting = (name: string): string | undefined => options.env?.[name] ?? process.env[name];
  // The write warm-up runs first, then the query warm-up: wait for the last one that runs.
  const queryWarmup = setting('SUNDIAL_WARMUP') !== 'false';
  if (options.waitWarm === true && (queryWarmup || setting('SUNDIAL_WRITE_WARMUP') !== 'false')) {
    const done = new Set(
      queryWarmup
        ? [
            'query path warmed up',
            'query warm-up stopped',
            'query warm-up failed (queries are only slower until V8 has compiled them)',
          ]
        : [
            'write path warmed up',
            'write warm-up stopped',
            'write warm-up failed (high-cardinality writes are only slower until V8 has compiled them)',
          ],
    );
    await waitForLog((l) => typeof l.msg === 'string' && done.has(l.msg), 60_000);
  }
  if (options.waitWarm === true && ready?.parseWarmup === true) {
    const workers = Number(ready.parseWorkers);
    const warmed = (): number => logs.filter((l) => l.msg === 'parse worker warmed up').length;
    if (warmed() < workers) await waitForLog((l) => l.msg === 'parse worker warmed up' && warmed() >= workers, 60_000);
  }
}

function removeOwnDir(dataDir: string): void {
  if (!ownDirs.has(dataDir)) return;
  rmSync(dataDir, { recursive: true, force: true });
  ownDirs.delete(dataDir);
}

/** The server's arguments after the command: a free port, the data directory, info logs, then `args`. */
const serverArgs = (dataDir: string, options: StartOptions): string[] => [
  '--port',
  '0',
  '--data-dir',
  dataDir,
  '--log-level',
  'info',
  ...(options.args ?? []),
];

export function startServer(options: StartOptions & { inProcess: true }): Promise<TestServer>;
export function startServer(options?: StartOptions & { inProcess?: false }): Promise<ProcessServer>;
export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  return options.inProcess === true ? startInProcess(options) : startProcess(options);
}

/** The built composition (dist/, as the child process runs it: its parse workers are dist/ files too). */
const NODE_HOST = new URL('../../dist/host/node/index.js', import.meta.url).href;

async function startInProcess(options: StartOptions): Promise<TestServer> {
  if (options.nodeArgs !== undefined || options.main !== undefined || options.command !== undefined)
    throw new Error('nodeArgs, main and command need a process: drop inProcess');
  const host = (await import(NODE_HOST)) as typeof NodeHost;
  const settings = new Set<string>(host.SETTINGS.map((s) => host.envName(s.key)));
  const notSettings = Object.keys(options.env ?? {}).filter((name) => !settings.has(name));
  if (notSettings.length > 0)
    throw new Error(`${notSettings.join(', ')}: not a setting, the process's: drop inProcess`);
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'sundial-test-'));
  if (ownDir) ownDirs.add(dataDir);
  let startError = '';
  const book = logBook(() => `${startError}logs: ${JSON.stringify(book.logs.slice(-5))}`);
  let running: NodeHost.RunningServer | undefined;
  try {
    // Settings as the process reads them: its arguments, then the environment it inherits.
    const config = host.loadConfig({ argv: serverArgs(dataDir, options), env: { ...process.env, ...options.env } });
    const log = {
      write: (chunk: string): void => {
        for (const line of chunk.split('\n')) if (line !== '') book.add(line);
      },
    };
    running = await host.startServer(config, { log });
    running.ready.catch((err: unknown) => {
      startError = `start failed: ${String(err)}; `;
      book.fail('the server failed to start');
    });
    await waitStarted(options, book.logs, book.waitForLog);
  } catch (e) {
    // No server to hand back, so nobody else can stop it or remove the directory made for it.
    await running?.stop('start failed').catch(() => undefined);
    if (ownDir) removeOwnDir(dataDir);
    throw e;
  }
  const server = running;
  let exitCode: Promise<number> | undefined;
  return {
    url: server.url,
    pgPort: server.pgPort,
    dataDir,
    logs: book.logs,
    waitForLog: book.waitForLog,
    stop: () =>
      (exitCode ??= server.stop('stop()').then(
        () => 0,
        (err: unknown) => {
          server.logger.fatal({ err }, 'shutdown failed');
          return 1;
        },
      )),
    cleanup: () => removeOwnDir(dataDir),
  };
}

async function startProcess(options: StartOptions): Promise<ProcessServer> {
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'sundial-test-'));
  if (ownDir) ownDirs.add(dataDir);
  const child = spawn(
    process.execPath,
    [
      ...LAUNCH_NODE_ARGS,
      ...(options.nodeArgs ?? []),
      options.main ?? MAIN,
      ...(options.command ?? []),
      ...serverArgs(dataDir, options),
    ],
    {
      env: { ...LAUNCH_ENV, ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  const book = logBook(() => `stderr: ${stderr}; logs: ${JSON.stringify(book.logs.slice(-5))}`);
  const { logs, waitForLog } = book;
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  createInterface({ input: child.stdout! }).on('line', (line) => book.add(line));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  void exited.then((code) => book.fail(`server exited with ${code}`));

  let listening: Record<string, unknown>;
  try {
    listening = await waitForLog((l) => l.msg === 'listening');
    await waitStarted(options, logs, waitForLog);
  } catch (e) {
    // No server to hand back, so nobody else can remove the directory made for it.
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    if (ownDir) removeOwnDir(dataDir);
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
    cleanup: () => removeOwnDir(dataDir),
  };
}
