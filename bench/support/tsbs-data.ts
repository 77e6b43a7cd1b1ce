// TSBS's cpu data set as line protocol, generated once by the shared gen-cpu.mjs and kept in the
// work folder (a second run of any benchmark reuses it).

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SHARED_BENCH_DIR } from '../../test/support/shared-dir.js';

/** The file of `hosts` hosts over `duration` (gen-cpu's syntax), fields as ints or floats. */
export function cpuLpFile(work: string, hosts: string, duration: string, types: 'int' | 'float' | string): string {
  mkdirSync(work, { recursive: true });
  const file = join(work, `cpu-${hosts}h-${duration}${types === 'float' ? '-float' : ''}.lp`);
  if (!existsSync(file)) {
    const args = ['--hosts', hosts, '--duration', duration, '--types', types, '--out', file];
    execFileSync(process.execPath, [join(SHARED_BENCH_DIR, 'gen-cpu.mjs'), ...args], { stdio: 'inherit' });
  }
  return file;
}

/** What the shared loader is told besides file and URL. */
export interface LoaderOptions {
  /** The server's process, whose CPU the loader reports. */
  pid?: number;
  /** Where the loader writes its report (JSON). */
  json?: string;
  /** user:password for Basic auth. */
  auth?: string;
}

/**
 * The arguments for node to run the shared line-protocol loader (load-lp.mjs) on `file` against
 * `url`: 5000-line bodies over 2 connections, as every system in bench/ is loaded.
 */
export function loaderArgs(file: string, url: string, o: LoaderOptions = {}): string[] {
  const args = [join(SHARED_BENCH_DIR, 'load-lp.mjs'), file, url, '--batch', '5000', '--workers', '2', '--quiet'];
  if (o.pid !== undefined) args.push('--pid', String(o.pid));
  if (o.json !== undefined) args.push('--json', o.json);
  if (o.auth !== undefined) args.push('--auth', o.auth);
  return args;
}
