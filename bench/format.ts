// npm run bench:format — result formatting speed on one core: a 10-column numeric result (a
// nanosecond `time`, 5 BIGINT and 4 DOUBLE columns shaped like TSBS cpu-only values: small
// integers, and doubles with up to two decimals plus some with full 17-digit precision) in
// batches of 8192 rows, written by each format's ResultWriter. Prints rows/s and MB/s, the
// median of --runs runs. Target (DESIGN.md): >= 1 M rows/s of CSV.
//
// Options: --rows 2000000 --runs 5 --formats csv,tsv,json,ndjson,table --batch 8192
//          --no-core (without the Wasm kernels: DOUBLE text value by value in TypeScript)
// Profile: node --cpu-prof --import tsx bench/format.ts --formats csv

import { parseArgs } from 'node:util';
import { vectorFrom, type RecordBatch, type Schema } from '../host/engine/types/batch.js';
import { createResultWriter, type ResultFormat } from '../host/engine/format/index.js';
import { FLOAT64, INT64, timestamp, type Field } from '../host/engine/types/data-types.js';
import { installKernels } from '../host/engine/types/kernels.js';
import { loadCore } from '../test/support/core.js';
import { mulberry32 as prng } from '../test/support/rng.js';

const { values: opts } = parseArgs({
  options: {
    rows: { type: 'string', default: '2000000' },
    runs: { type: 'string', default: '5' },
    formats: { type: 'string', default: 'csv,tsv,json,ndjson,table' },
    batch: { type: 'string', default: '8192' },
    'no-core': { type: 'boolean', default: false },
  },
});

const ROWS = Number(opts.rows);
const BATCH = Number(opts.batch);
const RUNS = Number(opts.runs);

function makeBatches(): { schema: Schema; batches: RecordBatch[] } {
  const fields: Field[] = [{ name: 'time', type: timestamp('Nanosecond'), nullable: false }];
  for (let i = 0; i < 5; i++) fields.push({ name: `usage_${i}`, type: INT64, nullable: true });
  for (let i = 0; i < 4; i++) fields.push({ name: `load_${i}`, type: FLOAT64, nullable: true });
  const schema: Schema = { fields };
  const rand = prng(42);
  const batches: RecordBatch[] = [];
  const start = 1_672_531_200_000_000_000n;
  for (let at = 0; at < ROWS; at += BATCH) {
    const n = Math.min(BATCH, ROWS - at);
    const time = new BigInt64Array(n);
    for (let r = 0; r < n; r++) time[r] = start + BigInt(at + r) * 10_000_000_000n;
    const columns = [vectorFrom(fields[0]!.type, [])];
    columns[0] = { type: fields[0]!.type, length: n, values: time };
    for (let c = 0; c < 5; c++) {
      const a = new BigInt64Array(n);
      for (let r = 0; r < n; r++) a[r] = BigInt(Math.floor(rand() * 100));
      columns.push({ type: INT64, length: n, values: a });
    }
    for (let c = 0; c < 4; c++) {
      const a = new Float64Array(n);
      // Three columns of sensor-like values (two decimals), one of arbitrary doubles.
      for (let r = 0; r < n; r++) a[r] = c < 3 ? Math.round(rand() * 10000) / 100 : rand() * 1000;
      columns.push({ type: FLOAT64, length: n, values: a });
    }
    batches.push({ schema, columns, length: n });
  }
  return { schema, batches };
}

function runOnce(format: ResultFormat, schema: Schema, batches: RecordBatch[]): { seconds: number; bytes: number } {
  const t0 = performance.now();
  const w = createResultWriter(format, schema);
  let bytes = 0;
  for (const b of batches) bytes += w.write(b).length;
  bytes += w.end().length;
  return { seconds: (performance.now() - t0) / 1000, bytes };
}

// The Wasm kernels as the server installs them (DOUBLE columns are formatted there), unless --no-core.
if (opts['no-core'] !== true) installKernels(await loadCore());
const { schema, batches } = makeBatches();
console.log(`${ROWS} rows x ${schema.fields.length} columns, batches of ${BATCH}, median of ${RUNS} runs`);
for (const format of opts.formats!.split(',') as ResultFormat[]) {
  runOnce(format, schema, batches.slice(0, 8)); // warm up the JIT
  const runs = Array.from({ length: RUNS }, () => runOnce(format, schema, batches)).sort(
    (a, b) => a.seconds - b.seconds,
  );
  const { seconds, bytes } = runs[Math.floor(RUNS / 2)]!;
  console.log(
    `${format.padEnd(7)} ${(ROWS / seconds / 1e6).toFixed(2).padStart(6)} M rows/s  ${(bytes / seconds / 1e6).toFixed(0).padStart(5)} MB/s  ${(seconds * 1000).toFixed(0).padStart(6)} ms  ${(bytes / ROWS).toFixed(1)} bytes/row`,
  );
}
