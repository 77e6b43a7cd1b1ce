// npm run bench:parse-chunks — the parse worker's path for OTLP spans in one process, measured in
// short chunks: the worker's warm-up (as a parse worker runs it), then the 98,304-span bodies of
// bench:ingest `--passes` times, timed 8 bodies (4,096 spans) at a time. Prints µs a span per
// chunk and their 10th, 25th and 50th percentiles.
//
// Why chunks and percentiles: this machine has phases in which memory-heavy code runs at half
// speed for seconds at a time (bench/RESULTS.md, eleventh session), so one total says more
// about the phase than about the code. The low percentile of many chunks is what compares two
// builds; run them alternately all the same.
//
// Options: --passes 3 --json (one line: the percentiles).

import { parseArgs } from 'node:util';
import { settleTypedArrayAssumptions } from '../host/core/v8-typed-arrays.js';
import { runParseJob, type ParseJob } from '../host/ingest/parse-jobs.js';
import { WARMUP_ROUNDS, warmupJobs } from '../host/ingest/parse-warmup.js';
import { otlpWorkload } from './ingest-bodies.js';

const { values: opts } = parseArgs({
  options: { passes: { type: 'string', default: '3' }, json: { type: 'boolean', default: false } },
});
const CHUNK_BODIES = 8;

settleTypedArrayAssumptions();
const w = otlpWorkload(98_304);
for (let round = 0; round < WARMUP_ROUNDS; round++)
  for (const { job, body } of warmupJobs(Date.now())) runParseJob(job, Buffer.from(body));

const job: ParseJob = { format: 'otlp-protobuf', table: 'spans', dbUnit: 'ns' };
const chunks: number[] = [];
for (let pass = 0; pass < Number(opts.passes); pass++) {
  for (let first = 0; first < w.bodies.length; first += CHUNK_BODIES) {
    const bodies = w.bodies.slice(first, first + CHUNK_BODIES);
    let spans = 0;
    const started = performance.now();
    for (const body of bodies) spans += runParseJob(job, body).rows ?? 0;
    chunks.push(((performance.now() - started) * 1000) / spans);
  }
}

const sorted = [...chunks].sort((a, b) => a - b);
const at = (q: number): number => sorted[Math.floor(q * (sorted.length - 1))]!;
const percentiles = {
  p10: +at(0.1).toFixed(2),
  p25: +at(0.25).toFixed(2),
  p50: +at(0.5).toFixed(2),
  chunks: chunks.length,
};
if (opts.json) {
  console.log(JSON.stringify(percentiles));
} else {
  console.log(`µs a span, ${chunks.length} chunks of ${CHUNK_BODIES} bodies:`);
  console.log(chunks.map((c) => c.toFixed(1)).join(' '));
  console.log(`p10 ${percentiles.p10}, p25 ${percentiles.p25}, median ${percentiles.p50}`);
}
