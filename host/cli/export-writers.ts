// The client-side formats of `sundial export`: line protocol and Parquet, both from the server's
// Arrow IPC answer (typed, so BIGINT stays `1i` and a timestamp keeps its nanoseconds; CSV and
// NDJSON are the server's own bytes, passed through). Parquet through parquet-wasm's streaming
// writer: each Arrow batch re-encoded as IPC into Wasm, a row group per 1 Mi rows, Snappy, so the
// file is written in constant memory (bench/parquet-libs.ts compares it with hyparquet-writer).

import { DataType, type RecordBatch, Table, tableToIPC } from 'apache-arrow';
import * as parquet from 'parquet-wasm';
import { getter, kindOf } from './arrow-values.js';
import { escapeKey, escapeTable, quoteString } from './lp-text.js';

/** Line-protocol text of one Arrow batch; `skipped` counts rows without a field value (line protocol cannot hold them). */
export function lpOfBatch(
  batch: RecordBatch,
  table: string,
  tags: ReadonlySet<string>,
  timeColumn: string,
): { text: string; rows: number; skipped: number } {
  const prefix = escapeTable(table);
  const cols = batch.schema.fields.map((f, at) => ({
    name: f.name,
    key: escapeKey(f.name),
    kind: kindOf(f.type),
    type: f.type,
    get: getter(batch.getChildAt(at)!),
  }));
  const time = cols.find((c) => c.name === timeColumn);
  if (time === undefined || time.kind === undefined || !('time' in time.kind))
    throw new Error(`the answer has no timestamp column '${timeColumn}'`);
  const factor = time.kind.time;
  const tagCols = cols.filter((c) => tags.has(c.name));
  const fieldCols = cols.filter((c) => c !== time && !tags.has(c.name) && c.kind !== undefined && 'column' in c.kind);
  const unsigned = new Set(
    fieldCols.filter((c) => DataType.isInt(c.type) && !c.type.isSigned && c.type.bitWidth === 64).map((c) => c.name),
  );
  const out: string[] = [];
  let skipped = 0;
  for (let i = 0; i < batch.numRows; i++) {
    let line = prefix;
    for (const t of tagCols) {
      const v = t.get(i);
      if (v !== null && v !== '') line += ',' + t.key + '=' + escapeKey(String(v));
    }
    let sep = ' ';
    for (const f of fieldCols) {
      const v = f.get(i);
      if (v === null) continue;
      let text: string;
      if (typeof v === 'string') text = quoteString(v);
      else if (typeof v === 'bigint') text = v.toString() + (unsigned.has(f.name) ? 'u' : 'i');
      else if (typeof v === 'number') text = DataType.isInt(f.type) ? `${v}i` : Number.isFinite(v) ? String(v) : '';
      else text = String(v);
      if (text === '') continue; // NaN and infinities: line protocol has no spelling for them
      line += sep + f.key + '=' + text;
      sep = ',';
    }
    if (sep === ' ') {
      skipped++;
      continue;
    }
    const t = time.get(i);
    if (t === null) {
      skipped++;
      continue;
    }
    out.push(line + ' ' + (BigInt(t) * factor).toString());
  }
  return { text: out.length === 0 ? '' : out.join('\n') + '\n', rows: out.length, skipped };
}

/** A Parquet byte stream of the Arrow batches `batches` yields. */
export async function parquetStream(batches: AsyncIterable<RecordBatch>): Promise<AsyncIterable<Uint8Array>> {
  const it = batches[Symbol.asyncIterator]();
  // parquet-wasm ends its output normally when its input stream errors (the file then lacks the
  // rows after the failure but has a footer): the failure is kept here and thrown at the end.
  let failure: unknown;
  const input = new ReadableStream<parquet.RecordBatch>({
    async pull(controller) {
      try {
        const r = await it.next();
        if (r.done === true) return controller.close();
        const wasm = parquet.Table.fromIPCStream(tableToIPC(new Table([r.value]), 'stream'));
        for (const b of wasm.recordBatches()) controller.enqueue(b);
      } catch (e) {
        failure = e;
        controller.error(e);
      }
    },
  });
  const props = new parquet.WriterPropertiesBuilder()
    .setCompression(parquet.Compression.SNAPPY)
    .setMaxRowGroupSize(1 << 20)
    .setCreatedBy('sundial export')
    .build();
  const out = (await parquet.transformParquetStream(input, props)) as unknown as AsyncIterable<Uint8Array>;
  return (async function* () {
    yield* out;
    if (failure !== undefined) throw failure;
  })();
}
