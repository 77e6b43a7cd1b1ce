// A real etcd for the cluster tests (Debian package etcd-server, /usr/bin/etcd): one member on
// free loopback ports over a temporary data directory. `stop` and `start` again keep the ports
// and the data, so a test can take etcd away and bring it back.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestEtcd {
  /** The client URL (`http://127.0.0.1:<port>`). */
  endpoint: string;
  start(): Promise<void>;
  /** SIGTERM, and waits for the exit. */
  stop(): Promise<void>;
  /** Stops etcd and removes its data directory. */
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Fails with the package to install when there is no etcd binary. */
function checkBinary(): void {
  const probe = spawnSync('etcd', ['--version'], { encoding: 'utf8' });
  if (probe.error !== undefined || probe.status !== 0)
    throw new Error(
      `the cluster tests need etcd 3.4 or later on the PATH (Debian: apt-get install etcd-server): ${probe.error?.message ?? probe.stderr}`,
    );
}

export async function startEtcd(): Promise<TestEtcd> {
  checkBinary();
  const dir = mkdtempSync(join(tmpdir(), 'sundial-etcd-'));
  const clientPort = await freePort();
  const peerPort = await freePort();
  const endpoint = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  let child: ChildProcess | undefined;
  let output = '';
  const start = async (): Promise<void> => {
    if (child !== undefined) return;
    output = '';
    const proc = spawn(
      'etcd',
      [
        '--name=test',
        `--data-dir=${join(dir, 'data')}`,
        `--listen-client-urls=${endpoint}`,
        `--advertise-client-urls=${endpoint}`,
        `--listen-peer-urls=${peer}`,
        `--initial-advertise-peer-urls=${peer}`,
        `--initial-cluster=test=${peer}`,
        '--log-level=warn',
        '--logger=zap',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = proc;
    proc.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    proc.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    // Ready once it answers /health (bounded: a member of one starts in well under a second).
    for (let i = 0; ; i++) {
      const healthy = await fetch(`${endpoint}/health`)
        .then((r) => r.ok)
        .catch(() => false);
      if (healthy) return;
      if (proc.exitCode !== null || i === 300) {
        proc.kill('SIGKILL');
        await exited;
        child = undefined;
        throw new Error(`etcd did not start on ${endpoint}: ${output}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const stop = async (): Promise<void> => {
    const proc = child;
    if (proc === undefined) return;
    child = undefined;
    if (proc.exitCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGTERM');
    await exited;
  };
  await start();
  return {
    endpoint,
    start,
    stop,
    close: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
