// node --import tsx bench/long-holds.ts PROFILE --monitor JSON [--over 40] [--top 6]
//
// What held the event loop: for each hold of the server's thread that the loop monitor saw pass
// --over ms of CPU, the samples of a `node --cpu-prof` profile of the same run in that span: the
// functions that spent the most of it (self time) and the nearest host/ frames they ran under
// (which operator's loop it was). `npm run bench:isolation -- --node-args='--cpu-prof
// --cpu-prof-dir=DIR'` makes the profiles and keeps the monitor's files beside them.

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }>;
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const { values: opts, positionals: files } = parseArgs({
  allowPositionals: true,
  options: {
    over: { type: 'string', default: '40' },
    top: { type: 'string', default: '6' },
    monitor: { type: 'string' },
  },
});
if (files.length !== 1 || opts.monitor === undefined) {
  console.error('usage: node --import tsx bench/long-holds.ts PROFILE --monitor JSON [--over MS] [--top N]');
  process.exit(2);
}
const p = JSON.parse(readFileSync(files[0]!, 'utf8')) as CpuProfile;
const overUs = Number(opts.over) * 1000;
const top = Number(opts.top);

const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const name = (id: number): string => {
  const f = byId.get(id)!.callFrame;
  const file = f.url.replace(/^.*\/(host|node_modules)\//, '$1/');
  return `${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}`;
};
const idle = (id: number): boolean => byId.get(id)!.callFrame.functionName === '(idle)';
/** The host/ frame nearest the leaf, and the one nearest the root below the loop: what ran, and for whom. */
const hostFrames = (id: number): string => {
  const frames: string[] = [];
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const f = byId.get(at)!.callFrame;
    if (f.url.includes('/host/')) frames.push(name(at));
  }
  return frames.slice(0, 3).join(' < ') || name(id);
};

// The holds are the loop monitor's (bench/loop-monitor.mjs): [hrtime µs when its timer fired, wall
// ms late, CPU ms late]. A statement yields with setImmediate, so the profile shows no idle
// samples between its slices; the monitor's clock (CLOCK_MONOTONIC) is the profile's.
let t = p.startTime;
const times = p.timeDeltas.map((d) => (t += d));
interface Hold {
  from: number;
  to: number;
  cpuMs: number;
  samples: number[];
}
const holds: Hold[] = (JSON.parse(readFileSync(opts.monitor!, 'utf8')) as Array<[number, number, number]>)
  .filter(([, , cpu]) => cpu * 1000 >= overUs)
  .map(([at, wall, cpu]) => ({ from: at - wall * 1000, to: at, cpuMs: cpu, samples: [] as number[] }));
for (const h of holds)
  for (let i = 0; i < p.samples.length; i++)
    if (times[i]! >= h.from && times[i]! < h.to && !idle(p.samples[i]!)) h.samples.push(i);

const ms = (us: number): string => (us / 1000).toFixed(0);
console.log(`${holds.length} holds over ${opts.over} ms of CPU in ${ms(p.endTime - p.startTime)} ms of profile`);
for (const h of holds) {
  const self = new Map<string, number>();
  const where = new Map<string, number>();
  for (const i of h.samples) {
    const d = (times[i + 1] ?? times[i]!) - times[i]!;
    const id = p.samples[i]!;
    self.set(name(id), (self.get(name(id)) ?? 0) + d);
    const w = hostFrames(id);
    where.set(w, (where.get(w) ?? 0) + d);
  }
  const list = (m: Map<string, number>): string =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, v]) => `    ${ms(v).padStart(5)} ms  ${k}`)
      .join('\n');
  console.log(
    `\n${ms(h.to - h.from)} ms (${h.cpuMs} CPU) at +${ms(h.from - p.startTime)} ms\n  self:\n${list(self)}\n  under:\n${list(where)}`,
  );
}
