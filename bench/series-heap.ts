// npm run bench:series-heap — heap per series of stored data, in process on real files: N
// series of a metrics-like table (host, region, service, pod tags; 2 rows and 2 fields each)
// written, flushed into segment files, then the storage closed and opened again on the
// directory. Prints the heap (used + array buffers, after GC) above an empty server after the
// open, after a first query that lists every series (count of one field), after a query for
// one series by tag, and after SHOW SERIES; per series in bytes.
//
// Options: --series 100000 (several runs: --series 100000,1000000). Needs `npm run build:wasm`.

import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import { pino } from 'pino';
import { WriteBatchBuilder } from '../host/core/write-batch-builder.js';
import { ValueType } from '../host/core/write-batch.js';
import { storageCodecs } from '../host/storage/segment/codecs.js';
import { Storage } from '../host/storage/storage.js';
import { loadCore } from '../test/support/core.js';

const { values: opts } = parseArgs({ options: { series: { type: 'string', default: '100000' } } });
const COUNTS = opts.series.split(',').map(Number);

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const heap = (): number => {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
const mib = (n: number): string => (n / 2 ** 20).toFixed(1);

/** Tags of series `i`: 1000 hosts a region... the usual shape of Kubernetes metrics with pod names. */
function tagsOf(i: number): Array<[string, string]> {
  return [
    ['host', `host-${i % 100_000}`],
    ['pod', `pod-${i.toString(36).padStart(6, '0')}`],
    ['region', `region-${i % 16}`],
    ['service', `svc-${i % 200}`],
  ];
}

async function openStorage(dir: string): Promise<Storage> {
  const s = await Storage.open({
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
  await s.recover();
  return s;
}

function segmentBytes(dir: string): number {
  let bytes = 0;
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (e.isFile() && e.name.endsWith('.seg')) bytes += statSync(join(e.parentPath, e.name)).size;
  return bytes;
}

/** Writes the N series and flushes them into segment files; the storage is closed after. */
async function write(dir: string, n: number): Promise<void> {
  const storage = await openStorage(dir);
  const db = storage.catalog.requireDatabase('cnosdb', 'public');
  const t0 = Date.UTC(2024, 0, 1) * 1e6;
  const BATCH = 10_000;
  for (let from = 0; from < n; from += BATCH) {
    const b = new WriteBatchBuilder();
    for (let i = from; i < Math.min(n, from + BATCH); i++) {
      const tags = tagsOf(i);
      for (let r = 0; r < 2; r++) {
        b.addRow('m', tags, BigInt(t0 + r * 10e9), [
          { name: 'usage', type: ValueType.Double, value: i + r },
          { name: 'count', type: ValueType.BigInt, value: BigInt(r) },
        ]);
      }
    }
    await storage.write(db, [b.finish()]);
  }
  await storage.flushAll(db);
  await storage.close();
}

async function run(n: number): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'sundial-series-heap-'));
  const rows: string[] = [];
  try {
    await write(dir, n);
    const base = heap();
    const t1 = performance.now();
    const storage = await openStorage(dir);
    const db = storage.catalog.requireDatabase('cnosdb', 'public');
    const openMs = performance.now() - t1;
    const line = (step: string, ms: number, extra = ''): void => {
      const h = heap() - base;
      const ic = (storage as { indexCache?: { bytes: number; hits: number; misses: number } }).indexCache;
      if (ic !== undefined) extra += `; index cache ${mib(ic.bytes)} MiB, ${ic.hits} hits, ${ic.misses} misses`;
      rows.push(
        `| ${n.toLocaleString('en')} | ${step} | ${ms.toFixed(0)} | ${mib(h)} | ${Math.round(h / n)} | ${extra} |`,
      );
    };
    line('open', openMs, `${mib(segmentBytes(dir))} MiB of segment files`);
    let t = performance.now();
    let count = 0;
    for await (const c of storage.scan(db, 'm', { fields: ['usage'] })) count += c.length;
    line('first query: every series', performance.now() - t, `${count} rows`);
    t = performance.now();
    count = 0;
    const want = tagsOf(Math.floor(n / 2))[1]![1];
    const filter = (tags: ReadonlyMap<string, string>): boolean => tags.get('pod') === want;
    for (let k = 0; k < 3; k++) {
      for await (const c of storage.scan(db, 'm', {
        fields: ['usage'],
        seriesFilter: filter,
        seriesTags: [{ tag: 'pod', values: [want] }],
      }))
        count += c.length;
    }
    line('one series by tag (3 times)', performance.now() - t, `${count} rows`);
    t = performance.now();
    let series = 0;
    for (const _ of await storage.series(db, 'm')) series++;
    line('SHOW SERIES', performance.now() - t, `${series} series`);
    await storage.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

const out: string[] = [];
for (const n of COUNTS) {
  console.error(`${n} series...`);
  out.push(...(await run(n)));
}
console.log('\n| series | step | ms | heap MiB | heap B/series | |');
console.log('|---|---|---|---|---|---|');
for (const r of out) console.log(r);
