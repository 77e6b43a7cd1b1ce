// NATS JetStream for the JetStream WAL tests: real `nats-server -js` processes (the Debian
// package `nats-server`) on free loopback ports over temporary store folders, one server or a
// cluster of three. `kill` (SIGKILL) and `start` again keep the ports and the store.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BINARY = process.env.NATS_SERVER ?? 'nats-server';

export interface NatsNode {
  url: string;
  /** The running process's id (benchmarks read its CPU time). */
  readonly pid: number | undefined;
  /** SIGKILL, and wait until it is gone. */
  kill(): Promise<void>;
  /** Start it again on the same ports and store; resolves once it accepts clients. */
  start(): Promise<void>;
}

export interface TestNats {
  nodes: NatsNode[];
  /** Every node's URL, comma-separated: the value of `--nats-urls`. */
  urls: string;
  close(): Promise<void>;
}

/** Whether `port` can be listened on now. */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/**
 * A free port below Linux's ephemeral range (32768-60999), which port 0 and every outgoing
 * connection draw from: a node killed and started again must get its port back, and an ephemeral
 * one was taken meanwhile by a client's own end of a connection often enough to fail a run
 * ("address already in use" on the restart, seen under load).
 */
async function freePort(): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await bindable(port)) return port;
  }
  throw new Error('no free port between 20000 and 32000');
}

/** Fails with the package to install when the binary is missing. */
function checkBinary(): void {
  const r = spawnSync(BINARY, ['--version'], { encoding: 'utf8' });
  if (r.error !== undefined || r.status !== 0)
    throw new Error(
      `${BINARY} not found (${r.error?.message ?? r.stderr}): install the Debian package nats-server (apt-get install nats-server) to run the JetStream WAL tests`,
    );
}

/** Starts `size` servers (1, or 3 as a JetStream cluster) and waits until JetStream is up on each. */
export async function startNats(size: 1 | 3 = 1): Promise<TestNats> {
  checkBinary();
  const ports = await Promise.all(
    Array.from({ length: size }, async () => ({ client: await freePort(), cluster: await freePort() })),
  );
  const dirs: string[] = [];
  const nodes = ports.map((p, i): NatsNode & { stop(): Promise<void> } => {
    const dir = mkdtempSync(join(tmpdir(), 'sundial-nats-'));
    dirs.push(dir);
    const args = ['-a', '127.0.0.1', '-p', String(p.client), '-js', '-sd', dir, '-n', `n${i}`];
    if (size > 1)
      args.push(
        '--cluster_name',
        'sundial',
        '--cluster',
        `nats://127.0.0.1:${p.cluster}`,
        '--routes',
        ports
          .filter((_, j) => j !== i)
          .map((q) => `nats://127.0.0.1:${q.cluster}`)
          .join(','),
      );
    let child: ChildProcess | undefined;
    let exited: Promise<void> = Promise.resolve();
    const start = async (): Promise<void> => {
      const c = spawn(BINARY, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      child = c;
      exited = new Promise((resolve) => c.once('exit', () => resolve()));
      let log = '';
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`nats-server n${i} did not start: ${log}`)), 20_000);
        c.stderr!.on('data', (d: Buffer) => {
          log += d.toString();
          if (log.includes('Server is ready')) {
            clearTimeout(timer);
            resolve();
          }
        });
        c.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`nats-server n${i} exited with ${code}: ${log}`));
        });
      });
      c.stderr!.removeAllListeners('data');
      c.stderr!.resume();
    };
    const stop = async (signal: NodeJS.Signals): Promise<void> => {
      if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    };
    return {
      url: `nats://127.0.0.1:${p.client}`,
      get pid() {
        return child?.pid;
      },
      start,
      kill: () => stop('SIGKILL'),
      stop: () => stop('SIGTERM'),
    };
  });
  await Promise.all(nodes.map((n) => n.start()));
  return {
    nodes,
    urls: nodes.map((n) => n.url).join(','),
    close: async () => {
      await Promise.all(nodes.map((n) => n.stop()));
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    },
  };
}
