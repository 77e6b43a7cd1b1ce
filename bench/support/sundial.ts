// Sundial under a benchmark: a server process on an emptied data directory, warmed up before the
// clock starts (the warm-ups' second of CPU is not the cost of what a benchmark measures).

import { rmSync } from 'node:fs';
import { type ProcessServer, type StartOptions, startServer } from '../../test/support/server.js';

/** Node's options for a V8 CPU profile written into `dir` (none without one); `intervalUs` between samples. */
export function cpuProfArgs(dir: string | undefined, intervalUs?: number): string[] | undefined {
  if (dir === undefined) return undefined;
  return [
    '--cpu-prof',
    `--cpu-prof-dir=${dir}`,
    ...(intervalUs === undefined ? [] : [`--cpu-prof-interval=${intervalUs}`]),
  ];
}

/** A server process on `dataDir`, emptied first, once its warm-ups are over. */
export function startFresh(
  dataDir: string,
  options: Omit<StartOptions, 'dataDir' | 'inProcess'> = {},
): Promise<ProcessServer> {
  rmSync(dataDir, { recursive: true, force: true });
  return startServer({ waitWarm: true, ...options, dataDir });
}

/** `fn` against startFresh's server; then the server is stopped and its data directory removed. */
export async function withFreshServer<T>(
  dataDir: string,
  options: Omit<StartOptions, 'dataDir' | 'inProcess'>,
  fn: (server: ProcessServer) => Promise<T>,
): Promise<T> {
  const server = await startFresh(dataDir, options);
  try {
    return await fn(server);
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
