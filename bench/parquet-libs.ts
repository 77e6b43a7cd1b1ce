// npm run bench:parquet-libs — Sundial's Parquet library, hyparquet-writer + hyparquet (used by
// `sundial import`/`export`, COPY INTO and external tables), on the import/export bench's shape
// (TSBS cpu: time, 10 string tags, 10 BIGINT fields; 100 hosts x 1 day = 864,000 rows): write and
// read, CPU seconds and the process's peak RSS. parquet-wasm, measured against it on 2026-11-29
// and then removed, is in bench/RESULTS.md ("Parquet libraries: one kept").
// Options: --rows 864000

import { readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { asyncBufferFromFile, parquetMetadataAsync, parquetRead } from 'hyparquet';

const { values } = parseArgs({ options: { rows: { type: 'string', default: '864000' } } });
const ROWS = Number(values.rows);
const TAGS = [
  'hostname',
  'region',
  'datacenter',
  'rack',
  'os',
  'arch',
  'team',
  'service',
  'service_version',
  'service_environment',
];
const FIELDS = [
  'usage_user',
  'usage_system',
  'usage_idle',
  'usage_nice',
  'usage_iowait',
  'usage_irq',
  'usage_softirq',
  'usage_steal',
  'usage_guest',
  'usage_guest_nice',
];

const time = new BigInt64Array(ROWS);
const tags = TAGS.map(() => new Array<string>(ROWS));
const fields = FIELDS.map(() => new BigInt64Array(ROWS));
for (let i = 0; i < ROWS; i++) {
  time[i] = 1451606400000000000n + BigInt(Math.floor(i / 100)) * 10_000_000_000n;
  for (let t = 0; t < TAGS.length; t++) tags[t]![i] = `${TAGS[t]}_${(i % 100) % (t + 3)}`;
  for (let f = 0; f < FIELDS.length; f++) fields[f]![i] = BigInt((i * (f + 7)) % 100);
}

/** Wall and CPU seconds: on a shared machine the CPU is what compares. */
function report(name: string, t0: number, c0: NodeJS.CpuUsage): void {
  const s = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  const cpu = (c.user + c.system) / 1e6;
  console.log(
    `${name.padEnd(40)} ${s.toFixed(2)} s wall  ${cpu.toFixed(2)} s CPU  ${Math.round(ROWS / cpu).toLocaleString('en')} rows per CPU s`,
  );
}

function timed<T>(name: string, fn: () => T): T {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const r = fn();
  report(name, t0, c0);
  return r;
}
async function timedAsync<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const r = await fn();
  report(name, t0, c0);
  return r;
}

const BATCH = 65536; // rows per Arrow batch, as the server sends them (about)
const hyFile = join(tmpdir(), `parquet-libs-${process.pid}-hy.parquet`);

// hyparquet-writer: columns in batches of 64 Ki rows, as export hands them over.
timed('hyparquet-writer write', () => {
  const writer = new ByteWriter();
  const schema = [
    { name: 'root', num_children: 1 + TAGS.length + FIELDS.length },
    {
      name: 'time',
      type: 'INT64' as const,
      repetition_type: 'OPTIONAL' as const,
      logical_type: { type: 'TIMESTAMP' as const, isAdjustedToUTC: true, unit: 'NANOS' as const },
    },
    ...TAGS.map((name) => ({
      name,
      type: 'BYTE_ARRAY' as const,
      converted_type: 'UTF8' as const,
      repetition_type: 'OPTIONAL' as const,
    })),
    ...FIELDS.map((name) => ({ name, type: 'INT64' as const, repetition_type: 'OPTIONAL' as const })),
  ];
  const pq = new ParquetWriter({ writer, schema });
  for (let at = 0; at < ROWS; at += BATCH) {
    const end = Math.min(ROWS, at + BATCH);
    pq.write({
      columnData: [
        { name: 'time', data: time.subarray(at, end) },
        ...TAGS.map((name, t) => ({ name, data: tags[t]!.slice(at, end) })),
        ...FIELDS.map((name, f) => ({ name, data: fields[f]!.subarray(at, end) })),
      ],
      rowGroupSize: BATCH,
    });
  }
  pq.finish();
  writeFileSync(hyFile, new Uint8Array(writer.getBuffer()));
});

console.log(`size: ${(statSync(hyFile).size / 2 ** 20).toFixed(1)} MiB`);

await timedAsync('hyparquet read, a row group at a time', async () => {
  const buf = await asyncBufferFromFile(hyFile);
  const meta = await parquetMetadataAsync(buf);
  let n = 0;
  let at = 0;
  for (const rg of meta.row_groups) {
    const end = at + Number(rg.num_rows);
    await parquetRead({
      file: buf,
      metadata: meta,
      rowStart: at,
      rowEnd: end,
      onChunk: (c) => {
        if (c.columnName === 'time') n += c.rowEnd - c.rowStart;
      },
    });
    at = end;
  }
  if (n !== ROWS) throw new Error(`read ${n} rows`);
});
unlinkSync(hyFile);
const peak = Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;
console.log(`peak RSS ${peak.toFixed(0)} MiB`);
