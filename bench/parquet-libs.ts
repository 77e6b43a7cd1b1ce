// npm run bench:parquet-libs — the two maintained Parquet libraries on the import/export bench's
// shape (TSBS cpu: time, 10 string tags, 10 BIGINT fields; 100 hosts x 1 day = 864,000 rows):
// hyparquet-writer + hyparquet (JavaScript) against parquet-wasm (Rust arrow-rs in Wasm, fed
// Arrow IPC), write and read, in one process. `sundial export` and `import` use parquet-wasm:
// about equal at writing, 2 to 4 times faster at reading (bench/RESULTS.md, "Parquet libraries").
// Options: --rows 864000

import { unlinkSync, writeFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  makeVector,
  type RecordBatch,
  Schema,
  Field,
  Int64,
  Utf8,
  TimestampNanosecond,
  tableToIPC,
  Table as ArrowTable,
  vectorFromArray,
} from 'apache-arrow';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { asyncBufferFromFile, parquetMetadataAsync, parquetRead } from 'hyparquet';
import * as pw from 'parquet-wasm';

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

function timed<T>(name: string, fn: () => T): T {
  const t0 = performance.now();
  const r = fn();
  const s = (performance.now() - t0) / 1000;
  console.log(`${name.padEnd(44)} ${s.toFixed(2)} s  ${Math.round(ROWS / s).toLocaleString('en')} rows/s`);
  return r;
}
async function timedAsync<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const r = await fn();
  const s = (performance.now() - t0) / 1000;
  console.log(`${name.padEnd(44)} ${s.toFixed(2)} s  ${Math.round(ROWS / s).toLocaleString('en')} rows/s`);
  return r;
}

const BATCH = 65536; // rows per Arrow batch, as the server sends them (about)
const hyFile = join(tmpdir(), `parquet-libs-${process.pid}-hy.parquet`);
const pwFile = join(tmpdir(), `parquet-libs-${process.pid}-pw.parquet`);

// hyparquet-writer: columns in batches, as export hands them over.
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

// parquet-wasm: Arrow batches (as the server's Arrow IPC answer holds them) through IPC into Wasm.
const arrowSchema = new Schema([
  new Field('time', new TimestampNanosecond(), true),
  ...TAGS.map((n) => new Field(n, new Utf8(), true)),
  ...FIELDS.map((n) => new Field(n, new Int64(), true)),
]);
const batches: RecordBatch[] = [];
for (let at = 0; at < ROWS; at += BATCH) {
  const end = Math.min(ROWS, at + BATCH);
  const cols = [
    makeVector(time.subarray(at, end)),
    ...tags.map((t) => vectorFromArray(t.slice(at, end), new Utf8())),
    ...fields.map((f) => makeVector(f.subarray(at, end))),
  ];
  const table = new ArrowTable(Object.fromEntries(arrowSchema.fields.map((f, i) => [f.name, cols[i]!])));
  batches.push(...table.batches);
}
timed('parquet-wasm write (Arrow IPC in)', () => {
  const ipc = tableToIPC(new ArrowTable(batches), 'stream');
  const t = pw.Table.fromIPCStream(ipc);
  const props = new pw.WriterPropertiesBuilder().setCompression(pw.Compression.SNAPPY).build();
  writeFileSync(pwFile, pw.writeParquet(t, props));
});
console.log(
  `sizes: hyparquet-writer ${(statSync(hyFile).size / 2 ** 20).toFixed(1)} MiB, parquet-wasm ${(statSync(pwFile).size / 2 ** 20).toFixed(1)} MiB`,
);

for (const [lib, file] of [
  ['hyparquet-writer', hyFile],
  ['parquet-wasm', pwFile],
] as const) {
  await timedAsync(`hyparquet read of ${lib}'s file`, async () => {
    const buf = await asyncBufferFromFile(file);
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
  await timedAsync(`parquet-wasm read of ${lib}'s file`, async () => {
    const blob = await (await import('node:fs')).openAsBlob(file);
    const pf = await pw.ParquetFile.fromFile(blob);
    const groups = pf.metadata().numRowGroups();
    let n = 0;
    for (let g = 0; g < groups; g++) {
      const t = await pf.read({ rowGroups: [g] });
      const ipc = t.intoIPCStream();
      const { tableFromIPC } = await import('apache-arrow');
      n += tableFromIPC(ipc).numRows;
    }
    if (n !== ROWS) throw new Error(`read ${n} rows`);
  });
}
unlinkSync(hyFile);
unlinkSync(pwFile);
