// node --import tsx bench/cpu-timeline.ts PROFILE... [--bucket 100] [--last 3000]
//
// How busy each thread was over time, from `node --cpu-prof` profiles of one process (the server's
// thread and its workers write one each; `npm run bench:ingest -- --cpu-prof DIR` makes them):
// milliseconds of non-idle samples per bucket, the threads side by side on one clock. Time spent
// in a flush (functions of flush.ts and of the segment writer) is shown apart for the first
// profile. This is how the span load's pattern was found: between flushes the parse worker is
// the busy one, during a flush the server's thread, with the worker waiting (bench/RESULTS.md).

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string } }>;
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Functions counted as flush work: the flush and the segment writer it drives. */
const FLUSH = /\/storage\/(compaction\/flush|segment\/(segment-writer|segment-index|index-blocks))\.js$/;

const { values: opts, positionals: files } = parseArgs({
  allowPositionals: true,
  options: { bucket: { type: 'string', default: '100' }, last: { type: 'string' } },
});
if (files.length === 0) {
  console.error('usage: node --import tsx bench/cpu-timeline.ts PROFILE... [--bucket MS] [--last MS]');
  process.exit(2);
}
const bucketUs = Number(opts.bucket) * 1000;

const profiles = files.map((f) => JSON.parse(readFileSync(f, 'utf8')) as CpuProfile);
const end = Math.min(...profiles.map((p) => p.endTime));
const start = opts.last === undefined ? Math.max(...profiles.map((p) => p.startTime)) : end - Number(opts.last) * 1000;
const buckets = Math.ceil((end - start) / bucketUs);

/** Busy and flush microseconds per bucket of one profile. */
function busy(p: CpuProfile): { busy: Float64Array; flush: Float64Array } {
  const nodes = new Map(p.nodes.map((n) => [n.id, n]));
  const out = { busy: new Float64Array(buckets), flush: new Float64Array(buckets) };
  let t = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    const dt = p.timeDeltas[i]!;
    t += dt;
    if (t < start || t >= end) continue;
    const frame = nodes.get(p.samples[i]!)!.callFrame;
    if (frame.functionName === '(idle)') continue;
    const b = Math.floor((t - start) / bucketUs);
    out.busy[b]! += dt;
    if (FLUSH.test(frame.url)) out.flush[b]! += dt;
  }
  return out;
}

const rows = profiles.map(busy);
const ms = (us: number): string => (us / 1000).toFixed(0).padStart(6);
console.log(
  `${'ms'.padStart(6)} ${files.map((_, i) => `thread ${i}`.padStart(9)).join(' ')} ${'flush (0)'.padStart(9)}`,
);
for (let b = 0; b < buckets; b++) {
  console.log(
    `${String(b * Number(opts.bucket)).padStart(6)} ${rows.map((r) => ms(r.busy[b]!).padStart(9)).join(' ')} ${ms(rows[0]!.flush[b]!).padStart(9)}`,
  );
}
