// What a process has used, read from /proc (Linux; USER_HZ 100): CPU seconds, resident memory,
// and a wait for a server to go idle. The benchmarks' one copy of each.

import { readFileSync } from 'node:fs';

/** Fields of a /proc/<pid>/stat line after the command name (which may hold spaces). */
function statFields(path: string): string[] {
  const stat = readFileSync(path, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** CPU seconds a process has used so far (all threads), or its main thread's with `mainThread`. */
export function cpuSeconds(pid: number, mainThread = false): number {
  const f = statFields(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`);
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** CPU seconds of this process's waited-for children (cutime + cstime). */
export function childrenCpuSeconds(): number {
  const f = statFields('/proc/self/stat');
  return (Number(f[13]) + Number(f[14])) / 100;
}

/** Busy CPU seconds of the whole machine (/proc/stat: user, nice, system, irq, softirq). */
export function machineBusySeconds(): number {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return (f[0]! + f[1]! + f[2]! + f[5]! + f[6]!) / 100;
}

function statusKiB(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (m === null) throw new Error(`no ${field} in /proc/${pid}/status (a zombie?)`);
  return Number(m[1]);
}

/** The most resident memory the process has had (VmHWM), in MiB. */
export const peakRssMiB = (pid: number): number => statusKiB(pid, 'VmHWM') / 1024;

/** Resident memory now (VmRSS), in MiB. */
export const rssMiB = (pid: number): number => statusKiB(pid, 'VmRSS') / 1024;

/**
 * Waits until the process used less than `share` of a core over one second (the flushes and
 * compactions a load left behind are over), at most `maxMs`; resolves to the seconds waited.
 */
export async function settle(pid: number, share: number, maxMs = 60_000): Promise<number> {
  const start = Date.now();
  let last = cpuSeconds(pid);
  while (Date.now() - start < maxMs) {
    await new Promise((done) => setTimeout(done, 1000));
    const now = cpuSeconds(pid);
    if (now - last < share) break;
    last = now;
  }
  return (Date.now() - start) / 1000;
}
