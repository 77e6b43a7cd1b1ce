// The client-side formats of `sundial export`: line protocol and Parquet, both from the server's
// Arrow IPC answer (typed, so BIGINT stays `1i` and a timestamp keeps its nanoseconds; CSV and
// NDJSON are the server's own bytes, passed through). Parquet through hyparquet-writer, the
// Parquet library COPY INTO writes with too (bench/RESULTS.md, "Parquet libraries": parquet-wasm,
// used here before, read slower and weighed 15 MB).

import { DataType, type RecordBatch } from 'apache-arrow';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
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

type Element = {
  name: string;
  type: 'BOOLEAN' | 'INT64' | 'DOUBLE' | 'BYTE_ARRAY';
  repetition_type: 'OPTIONAL';
  converted_type?: 'UTF8';
  logical_type?:
    | { type: 'TIMESTAMP'; isAdjustedToUTC: boolean; unit: 'MILLIS' | 'MICROS' | 'NANOS' }
    | { type: 'INTEGER'; bitWidth: 64; isSigned: false };
};

/** The Parquet column of an Arrow field; an Error for a type it cannot hold here. */
function elementOf(name: string, type: DataType): Element {
  if (DataType.isTimestamp(type)) {
    // Parquet has no seconds: Arrow writes them as milliseconds (values scaled in columnOf).
    const unit = (['MILLIS', 'MILLIS', 'MICROS', 'NANOS'] as const)[type.unit]!;
    return {
      name,
      type: 'INT64',
      repetition_type: 'OPTIONAL',
      logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: type.timezone != null, unit },
    };
  }
  if (DataType.isInt(type)) {
    if (!type.isSigned && type.bitWidth === 64)
      return {
        name,
        type: 'INT64',
        repetition_type: 'OPTIONAL',
        logical_type: { type: 'INTEGER', bitWidth: 64, isSigned: false },
      };
    return { name, type: 'INT64', repetition_type: 'OPTIONAL' };
  }
  if (DataType.isFloat(type)) return { name, type: 'DOUBLE', repetition_type: 'OPTIONAL' };
  if (DataType.isBool(type)) return { name, type: 'BOOLEAN', repetition_type: 'OPTIONAL' };
  const kind = kindOf(type);
  if (kind !== undefined && 'column' in kind && kind.column === 'string')
    return { name, type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL', converted_type: 'UTF8' };
  throw new Error(`column '${name}' is ${type}, which this Parquet writer does not hold`);
}

/** Rows per row group: a group is held in memory (as JavaScript arrays) until it is written. */
const ROW_GROUP_ROWS = 1 << 16;

/**
 * A Parquet byte stream of the Arrow batches `batches` yields, through hyparquet-writer (Snappy,
 * a row group per 64 Ki rows): each group's bytes are handed on once written, so the file takes
 * the memory of one group, not of the whole answer.
 */
export async function parquetStream(batches: AsyncIterable<RecordBatch>): Promise<AsyncIterable<Uint8Array>> {
  return (async function* () {
    const out: Uint8Array[] = [];
    const writer = new ByteWriter();
    // Called after each row group and at the end: the bytes so far leave, the file offset stays.
    (writer as ByteWriter & { flush: () => void }).flush = () => {
      out.push(new Uint8Array(writer.buffer, 0, writer.index).slice());
      writer.index = 0;
    };
    let pq: ParquetWriter | undefined;
    let names: string[] = [];
    let int64: boolean[] = [];
    let scales: bigint[] = [];
    let columns: unknown[][] = [];
    let rows = 0;
    const writeGroup = (): void => {
      if (rows === 0) return;
      pq!.write({
        columnData: names.map((name, k) => ({ name, data: columns[k]! })),
        rowGroupSize: rows,
      });
      columns = names.map(() => []);
      rows = 0;
    };
    for await (const batch of batches) {
      if (pq === undefined) {
        const fields = batch.schema.fields;
        const elements = fields.map((f) => elementOf(f.name, f.type));
        names = fields.map((f) => f.name);
        int64 = elements.map((e) => e.type === 'INT64');
        scales = fields.map((f) => (DataType.isTimestamp(f.type) && f.type.unit === 0 ? 1000n : 1n));
        columns = names.map(() => []);
        pq = new ParquetWriter({
          writer,
          schema: [{ name: 'root', num_children: elements.length }, ...elements],
          createdBy: 'sundial export',
        });
      }
      const getters = names.map((_, k) => getter(batch.getChildAt(k)!));
      for (let k = 0; k < names.length; k++) {
        const get = getters[k]!;
        const col = columns[k]!;
        const isInt64 = int64[k]!;
        const scale = scales[k]!;
        for (let i = 0; i < batch.numRows; i++) {
          const v = get(i);
          col.push(v === null ? null : isInt64 ? (typeof v === 'bigint' ? v : BigInt(v as number)) * scale : v);
        }
      }
      rows += batch.numRows;
      if (rows >= ROW_GROUP_ROWS) writeGroup();
      yield* out.splice(0);
    }
    if (pq === undefined) return; // no batch: the caller has no schema to write either
    writeGroup();
    pq.finish();
    (writer as ByteWriter & { flush: () => void }).flush();
    yield* out.splice(0);
  })();
}
