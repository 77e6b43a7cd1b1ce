// npm run bench:tiny-series — storage costs of high-cardinality data, in process on real files:
// N OTLP spans (bench/ingest-bodies.ts; every span a series of its own, one row each) written
// through the storage engine, then flushed, the segment opened, compacted with a second such
// file, and scanned. Prints the time of each step, the memtable's accounted bytes against the
// measured heap, and the segment's bytes per series (blocks and footer index).
//
// Options: --spans 100000. Needs `npm run build:wasm` first.

import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import { pino } from 'pino';
import { decodeOtlpProtobuf, otlpTracesToBatches } from '../host/ingest/otlp-traces.js';
import { storageCodecs } from '../host/storage/segment/codecs.js';
import { Storage } from '../host/storage/storage.js';
import { loadCore } from '../test/support/core.js';
import { otlpWorkload } from './ingest-bodies.js';

const { values: opts } = parseArgs({
  options: { spans: { type: 'string', default: '100000' }, 'no-compaction': { type: 'boolean', default: false } },
});
const N = Number(opts.spans);

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const heap = (): number => {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
const mib = (n: number): string => (n / 2 ** 20).toFixed(1);

function segmentBytes(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile() && e.name.endsWith('.seg')) {
      files++;
      bytes += statSync(join(e.parentPath, e.name)).size;
    }
  }
  return { files, bytes };
}

function print(rows: readonly string[]): void {
  console.log(`\n${N.toLocaleString('en')} one-row series (OTLP spans):\n`);
  console.log('| step | ms | µs per span | |');
  console.log('|---|---|---|---|');
  for (const r of rows) console.log(r);
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sundial-tiny-'));
  const encode = (seed: number): Uint8Array[] =>
    otlpWorkload(N, 512, seed).bodies.flatMap(
      (b) => otlpTracesToBatches(decodeOtlpProtobuf(b), { table: 'spans', dbUnit: 'ns' }).batches,
    );
  const first = encode(3);
  const storage = await Storage.open({
    dataDir: dir,
    logger: pino({ level: process.env.BENCH_LOG ?? 'warn' }),
    codecs: storageCodecs(await loadCore()),
    rootPasswordHash: 'unused',
    memtableBytes: 4 * 2 ** 30,
    flushBytes: 4 * 2 ** 30,
    walSegmentBytes: 64 << 20,
    walSync: false,
    maintenanceIntervalMs: 0,
  });
  await storage.recover();
  const db = storage.catalog.requireDatabase('cnosdb', 'public');
  try {
    const rows: string[] = [];
    const step = async (name: string, f: () => Promise<void>, extra = ''): Promise<void> => {
      const t0 = performance.now();
      await f();
      const ms = performance.now() - t0;
      console.error(`${name}: ${ms.toFixed(0)} ms, heap ${mib(process.memoryUsage().heapUsed)} MiB`);
      rows.push(`| ${name} | ${ms.toFixed(0)} | ${((ms * 1000) / N).toFixed(1)} | ${extra} |`);
    };
    const h0 = heap();
    await step('write (memtable + WAL)', async () => {
      for (const b of first) await storage.write(db, [b]);
    });
    const h1 = heap();
    const accounted = storage.memtableBytes;
    rows.push(
      `| memtable | | | accounted ${mib(accounted)} MiB (${Math.round(accounted / N)} B/span), heap grew ${mib(h1 - h0)} MiB (${Math.round((h1 - h0) / N)} B/span) |`,
    );
    await step('flush', () => storage.flushAll(db));
    const seg = segmentBytes(dir);
    rows.push(`| segment | | | ${seg.files} file, ${mib(seg.bytes)} MiB, ${Math.round(seg.bytes / N)} B/span |`);
    const h2 = heap();
    rows.push(`| after flush | | | heap ${mib(h2 - h0)} MiB above the start (open segment's index, caches) |`);
    if (opts['no-compaction']) {
      print(rows);
      return;
    }
    const second = encode(5);
    for (const b of second) await storage.write(db, [b]);
    await storage.flushAll(db);
    await step('compaction of 2 such files', () => storage.compactAll());
    const merged = segmentBytes(dir);
    rows.push(
      `| compacted | | | ${merged.files} file, ${mib(merged.bytes)} MiB, ${Math.round(merged.bytes / (2 * N))} B/span |`,
    );
    let count = 0;
    await step('scan of every row (2 N)', async () => {
      for await (const c of storage.scan(db, 'spans', { fields: ['ResourceSpans/ScopeSpans/Span/duration_nano'] }))
        count += c.length;
    });
    rows.push(`| scanned | | | ${count} rows |`);
    print(rows);
  } finally {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
