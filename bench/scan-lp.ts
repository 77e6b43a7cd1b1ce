// The Wasm line-protocol scanner alone, on one core: MB/s and rows/s over a whole file, cut into
// request-sized bodies as the loader sends them (5000 lines), best of 5 passes. Run by
// bench/ingest.ts after the HTTP runs, or alone: `node --import tsx bench/scan-lp.ts FILE`.
// The pass includes everything /api/v1/write does to a body before storage: the copy into Wasm
// memory, the scan into columnar write batches and the copy of each batch out.

import { readFileSync } from 'node:fs';
import { Core } from '../host/core/wasm.js';
import { coreWasmBytes } from '../host/node/package-info.js';
import { LineProtocolScanner } from '../host/ingest/line-protocol.js';

const LINES_PER_BODY = 5000;
const PASSES = 5;

const file = process.argv[2];
if (file === undefined) throw new Error('usage: scan-lp.ts FILE');
const data = readFileSync(file);

// Split into bodies of LINES_PER_BODY lines, as load-lp.mjs does.
const bodies: Buffer[] = [];
let lines = 0;
for (let start = 0, count = 0, i = 0; i < data.length; i++) {
  if (data[i] !== 0x0a) continue;
  lines++;
  if (++count === LINES_PER_BODY || i === data.length - 1) {
    bodies.push(data.subarray(start, i + 1));
    start = i + 1;
    count = 0;
  }
}

const scanner = new LineProtocolScanner(await Core.load(coreWasmBytes()));
const options = { tsMultiplier: 1n, tsDivisor: 1n, defaultTs: 0n };
let best = Infinity;
let batchBytes = 0;
for (let pass = 0; pass < PASSES; pass++) {
  batchBytes = 0;
  const t0 = process.hrtime.bigint();
  for (const b of bodies) for (const batch of scanner.scan(b, options)) batchBytes += batch.length;
  best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9);
}
const mb = data.length / 1e6;
console.log(
  `${mb.toFixed(1)} MB, ${lines.toLocaleString('en')} lines in ${bodies.length} bodies: best of ${PASSES} ${(best * 1000).toFixed(0)} ms = ${(mb / best).toFixed(0)} MB/s, ${(lines / best / 1e6).toFixed(2)} M lines/s (write batches: ${(batchBytes / 1e6).toFixed(1)} MB)`,
);
