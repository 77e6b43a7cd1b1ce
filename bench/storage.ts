// npm run bench:storage — bytes on disk per field value after flush and compaction, for the
// TSBS cpu-only set (100 hosts x 1 day; integer and 2-decimal float variants), side by side with
// InfluxDB 1.6 and VictoriaMetrics loaded with the same file in the same run
// (../shared/bench/bench-peer.sh: fresh start, load, wait until their compaction settles);
// ingest rows/s while flushes and compactions run (flush_bytes small enough that the load is
// many times what the memtable holds), against the same load with no flush in the same run;
// encode and decode speed of each column codec.
//
// Options: --hosts 100 --duration 1d --types int,float --peers influxdb,vm (or none)
//          --flush-bytes 8MiB --codec-only
// Needs `npm run build` first (npm run bench:storage does it).

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { ValueType, type FieldType } from '../host/core/write-batch.js';
import type { ColumnCodecs } from '../host/storage/segment/column-codecs.js';
import { storageCodecs } from '../host/storage/segment/codecs.js';
import type { FieldValues } from '../host/storage/series/series-data.js';
import { Storage } from '../host/storage/storage.js';
import { loadCore } from '../test/support/core.js';
import { SHARED_BENCH_DIR } from '../test/support/shared-dir.js';
import { peakRssMiB } from './support/proc.js';
import { startFresh } from './support/sundial.js';
import { cpuLpFile, loaderArgs } from './support/tsbs-data.js';

const SHARED = SHARED_BENCH_DIR;
const WORK = '/tmp/sundial-bench';

const { values: opts } = parseArgs({
  options: {
    hosts: { type: 'string', default: '100' },
    duration: { type: 'string', default: '1d' },
    types: { type: 'string', default: 'int,float' },
    peers: { type: 'string', default: 'influxdb,vm' },
    'flush-bytes': { type: 'string', default: '8MiB' },
    'codec-only': { type: 'boolean', default: false },
  },
});

/** Allocated bytes of every file under `dir` (what du --block-size=1 counts). */
function allocated(dir: string): number {
  return Number(execFileSync('du', ['-s', '--block-size=1', dir], { encoding: 'utf8' }).split('\t')[0]);
}

function apparent(dir: string, suffix?: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile() && (suffix === undefined || e.name.endsWith(suffix))) n += statSync(join(e.parentPath, e.name)).size;
  }
  return n;
}

interface Result {
  name: string;
  rowsPerSec: number;
  /** Server CPU seconds during the load (the steadier figure on a shared machine). */
  cpuSeconds: number;
  fieldValues: number;
  bytesPerValue: number;
  sampleBytesPerValue: number;
  peakRssMiB: number;
  note: string;
}

interface LoadResult {
  rows: number;
  fieldValues: number;
  rowsPerSec: number;
  server?: { cpuSeconds: number };
  failedRows?: number;
}

/** Loads `file` into a fresh server; `flushBytes` undefined: nothing leaves memory (the baseline). */
async function benchSundial(file: string, tag: string, flushBytes: string | undefined): Promise<Result> {
  const dataDir = join(WORK, `sundial-storage-${tag}`);
  const args =
    flushBytes === undefined
      ? ['--flush-bytes', '4GiB', '--memtable-bytes', '4GiB', '--flush-age', '1h']
      : ['--flush-bytes', flushBytes];
  const server = await startFresh(dataDir, { args });
  let res: LoadResult;
  let rss: number;
  try {
    const out = join(WORK, `load-sundial-${tag}.json`);
    // Asynchronously: the server's log lines (flushes, compactions) are read meanwhile.
    const loader = spawn(
      process.execPath,
      loaderArgs(file, `${server.url}/api/v1/write?db=public`, { pid: server.pid, json: out, auth: 'root:' }),
      { stdio: ['ignore', 'inherit', 'inherit'] },
    );
    const status = await new Promise<number | null>((resolve) => loader.once('exit', resolve));
    if (status !== 0) console.error(`loader exited with ${status}`);
    res = JSON.parse(readFileSync(out, 'utf8')) as LoadResult;
    rss = peakRssMiB(server.pid);
    // Let the background work started by the load finish (as the peers get to settle).
    const count = (msg: string): number => server.logs.filter((l) => l.msg === msg).length;
    const busy = (): boolean => count('compacting') > count('compacted') + count('compaction failed');
    for (let i = 0; i < 600 && busy(); i++) await new Promise((r) => setTimeout(r, 100));
  } finally {
    await server.stop();
  }
  const flushes = server.logs.filter((l) => l.msg === 'flushed').length;
  const compactions = server.logs.filter((l) => l.msg === 'compacted').length;
  // Force what the background would do eventually: flush the rest, compact every partition.
  const core = await loadCore();
  const storage = await Storage.open({
    dataDir,
    logger: pino({ level: 'warn' }),
    rootPasswordHash: 'unused',
    memtableBytes: 1 << 30,
    walSegmentBytes: 64 << 20,
    walSync: true,
    maintenanceIntervalMs: 0,
    codecs: storageCodecs(core),
  });
  await storage.recover();
  await storage.flushAll();
  await storage.compactAll();
  await storage.close();
  const total = allocated(dataDir);
  const segments = apparent(dataDir, '.seg');
  return {
    name: flushBytes === undefined ? 'Sundial, memtable only (baseline)' : 'Sundial',
    rowsPerSec: res.rowsPerSec,
    cpuSeconds: res.server?.cpuSeconds ?? NaN,
    fieldValues: res.fieldValues,
    bytesPerValue: total / res.fieldValues,
    sampleBytesPerValue: segments / res.fieldValues,
    peakRssMiB: rss,
    note:
      flushBytes === undefined
        ? `no flush during the load; files written after it; failed rows ${res.failedRows ?? 0}`
        : `${flushes} flushes and ${compactions} compactions by the server during and right after the load (flush_bytes ${flushBytes}); failed rows ${res.failedRows ?? 0}`,
  };
}

function peersBusy(): boolean {
  const run = '/tmp/peers/run';
  if (!existsSync(run)) return false;
  for (const f of readdirSync(run)) {
    try {
      process.kill(Number(readFileSync(join(run, f), 'utf8')), 0);
      return true;
    } catch {
      // not running
    }
  }
  return false;
}

function benchPeer(peer: 'influxdb' | 'vm', file: string, tag: string): Result | undefined {
  const binary = peer === 'influxdb' ? '/usr/bin/influxd' : '/usr/bin/victoria-metrics';
  if (!existsSync(binary)) {
    console.error(`${peer}: ${binary} not installed; see ../shared/bench/PEERS.md`);
    return undefined;
  }
  if (peersBusy()) {
    console.error(`${peer}: a peer is already running (someone else is benchmarking); skipped`);
    return undefined;
  }
  const peerTag = `sundial-storage-${peer}-${tag}`;
  const r = spawnSync(join(SHARED, 'bench-peer.sh'), [peer, file, opts.duration!, peerTag], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, RUNS: '1' },
  });
  execFileSync(join(SHARED, 'stop-peers.sh'), [peer], { stdio: 'ignore' });
  if (r.status !== 0) {
    console.error(`${peer}: bench-peer.sh exited with ${r.status}`);
    return undefined;
  }
  const s = JSON.parse(readFileSync(`/tmp/peers/results/${peerTag}-summary.json`, 'utf8')) as {
    rowsPerSec: number;
    fieldValues: number;
    bytesPerFieldValueFinal: number;
    bytesPerFieldValueSampleFiles: number;
    vmHWMMiB: number;
    compactionWaitSeconds: number;
    serverCpuSeconds: number;
  };
  return {
    name: peer === 'influxdb' ? 'InfluxDB 1.6' : 'VictoriaMetrics',
    rowsPerSec: s.rowsPerSec,
    cpuSeconds: s.serverCpuSeconds,
    fieldValues: s.fieldValues,
    bytesPerValue: s.bytesPerFieldValueFinal,
    sampleBytesPerValue: s.bytesPerFieldValueSampleFiles,
    peakRssMiB: s.vmHWMMiB,
    note: `size settled ${s.compactionWaitSeconds} s after the load`,
  };
}

/** Values like the TSBS set's: regular timestamps, random-walk integers and 2-decimal floats. */
function sample(type: FieldType | 'time', n: number, seed: number): BigInt64Array | FieldValues {
  let x = seed;
  const rnd = (): number => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32;
  if (type === 'time')
    return BigInt64Array.from({ length: n }, (_, i) => 1_451_606_400_000_000_000n + BigInt(i) * 10_000_000_000n);
  let walk = 50;
  const step = (): number => (walk = Math.min(100, Math.max(0, walk + (rnd() - 0.5) * 2)));
  switch (type) {
    case ValueType.BigInt:
      return BigInt64Array.from({ length: n }, () => BigInt(Math.round(step())));
    case ValueType.Unsigned:
      return BigUint64Array.from({ length: n }, () => BigInt(Math.round(step())));
    case ValueType.Double:
      return Float64Array.from({ length: n }, () => Math.round(step() * 100) / 100);
    case ValueType.Boolean:
      return Uint8Array.from({ length: n }, () => (rnd() < 0.9 ? 1 : 0));
    default:
      return Array.from({ length: n }, () => `service_${Math.floor(rnd() * 20)}`);
  }
}

function codecSpeeds(codecs: ColumnCodecs): string[] {
  const n = 4320; // a TSBS series' day (8640 rows) makes two blocks of this size
  const out: string[] = [
    '| column | codec | bytes/value | encode M values/s | decode M values/s |',
    '|---|---|---|---|---|',
  ];
  const cases: Array<[string, FieldType | 'time', string]> = [
    ['timestamps (10 s apart)', 'time', 'DEFAULT'],
    ['BIGINT (random walk)', ValueType.BigInt, 'DEFAULT'],
    ['BIGINT UNSIGNED (random walk)', ValueType.Unsigned, 'DEFAULT'],
    ['DOUBLE (2 decimals)', ValueType.Double, 'DEFAULT'],
    ['DOUBLE (2 decimals)', ValueType.Double, 'GORILLA'],
    ['BOOLEAN', ValueType.Boolean, 'DEFAULT'],
    ['STRING (20 distinct)', ValueType.String, 'DEFAULT'],
  ];
  for (const [name, type, codec] of cases) {
    const values = sample(type, n, 7);
    const enc = (): Uint8Array =>
      type === 'time'
        ? codecs.encodeTime(values as BigInt64Array, codec)
        : codecs.encodeValues(type, values as FieldValues, undefined, codec);
    const block = enc();
    const dec = (): unknown => (type === 'time' ? codecs.decodeTime(block, n) : codecs.decodeValues(type, block, n));
    const rate = (fn: () => unknown): number => {
      let reps = 0;
      const t0 = performance.now();
      while (performance.now() - t0 < 400) {
        fn();
        reps++;
      }
      return (reps * n) / ((performance.now() - t0) / 1000) / 1e6;
    };
    rate(enc);
    rate(dec); // warm up
    out.push(
      `| ${name} | ${codec} | ${(block.length / n).toFixed(3)} | ${rate(enc).toFixed(1)} | ${rate(dec).toFixed(1)} |`,
    );
  }
  return out;
}

async function main(): Promise<void> {
  const core = await loadCore();
  const codecs = storageCodecs(core);
  console.log(
    `Column codecs (${codecs.constructor.name}), one core, blocks of 4320 values as segment files hold them:\n`,
  );
  console.log(codecSpeeds(codecs).join('\n'));
  if (opts['codec-only']) return;
  const peers = opts.peers === 'none' ? [] : (opts.peers!.split(',') as Array<'influxdb' | 'vm'>);
  for (const types of opts.types!.split(',')) {
    const file = cpuLpFile(WORK, opts.hosts!, opts.duration!, types);
    const results: Result[] = [
      await benchSundial(file, types, opts['flush-bytes']),
      await benchSundial(file, `${types}-baseline`, undefined),
    ];
    for (const p of peers) {
      const r = benchPeer(p, file, types);
      if (r) results.push(r);
    }
    console.log(
      `\n${file} (${types} fields), loaded with 5000-line batches on 2 connections, then flushed and compacted:\n`,
    );
    console.log(
      '| server | bytes/value on disk | bytes/value data files | ingest rows/s | server CPU s | peak RSS MiB | note |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const r of results) {
      console.log(
        `| ${r.name} | ${r.bytesPerValue.toFixed(3)} | ${r.sampleBytesPerValue.toFixed(3)} | ${Math.round(r.rowsPerSec).toLocaleString('en')} | ${r.cpuSeconds.toFixed(2)} | ${r.peakRssMiB.toFixed(0)} | ${r.note} |`,
      );
    }
  }
}

await main();
