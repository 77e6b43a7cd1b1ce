// The bytes of one file that COPY INTO 'location' writes: CSV and newline-delimited JSON through
// the HTTP result writers (format/), so a file holds exactly what /api/v1/sql answers in that
// format; Parquet through hyparquet-writer (snappy, one row group per 1 M rows), timestamps as
// INT64 TIMESTAMP of their unit (not adjusted to UTC, as Arrow writes a zoneless timestamp).

import { parquetWriteBuffer } from 'hyparquet-writer';
import { CsvWriter } from '../format/csv-writer.js';
import { JsonWriter } from '../format/json-writer.js';
import { notImplemented } from '../errors.js';
import { type DataType, getValue, isValid, type RecordBatch, type Scalar, type Schema } from '../types/index.js';
import type { FileFormat } from './file-format.js';

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

type ParquetElement = {
  name: string;
  type: 'BOOLEAN' | 'INT64' | 'DOUBLE' | 'BYTE_ARRAY';
  repetition_type: 'OPTIONAL';
  converted_type?: 'UTF8';
  logical_type?:
    | { type: 'TIMESTAMP'; isAdjustedToUTC: boolean; unit: 'MILLIS' | 'MICROS' | 'NANOS' }
    | { type: 'INTEGER'; bitWidth: 64; isSigned: false };
};

function parquetElement(name: string, t: DataType): ParquetElement {
  switch (t.id) {
    case 'Boolean':
      return { name, type: 'BOOLEAN', repetition_type: 'OPTIONAL' };
    case 'Int64':
      return { name, type: 'INT64', repetition_type: 'OPTIONAL' };
    case 'UInt64':
      return {
        name,
        type: 'INT64',
        repetition_type: 'OPTIONAL',
        logical_type: { type: 'INTEGER', bitWidth: 64, isSigned: false },
      };
    case 'Float64':
    case 'Float32':
      return { name, type: 'DOUBLE', repetition_type: 'OPTIONAL' };
    case 'Utf8':
      return { name, type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL', converted_type: 'UTF8' };
    case 'Timestamp': {
      // Parquet has no seconds: Arrow writes them as milliseconds.
      const unit = t.unit === 'Nanosecond' ? 'NANOS' : t.unit === 'Microsecond' ? 'MICROS' : 'MILLIS';
      return {
        name,
        type: 'INT64',
        repetition_type: 'OPTIONAL',
        logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: t.tz !== undefined, unit },
      };
    }
    default:
      throw notImplemented(`COPY of a ${t.id} column (${name}) to Parquet`);
  }
}

function parquetBytes(schema: Schema, batches: readonly RecordBatch[]): Uint8Array {
  const elements = schema.fields.map((f) => parquetElement(f.name, f.type));
  const columnData = schema.fields.map((f, k) => {
    const data: Scalar[] = [];
    const seconds = f.type.id === 'Timestamp' && f.type.unit === 'Second';
    for (const b of batches) {
      const v = b.columns[k]!;
      for (let i = 0; i < b.length; i++) {
        const x = isValid(v, i) ? getValue(v, i) : null;
        data.push(seconds && x !== null ? (x as bigint) * 1000n : x);
      }
    }
    return { name: f.name, data: data as unknown[] };
  });
  const out = parquetWriteBuffer({
    columnData,
    schema: [{ name: 'root', num_children: elements.length }, ...elements],
    rowGroupSize: 1_000_000,
    createdBy: 'sundial',
  });
  return new Uint8Array(out);
}

/** One file of `format` holding the rows of `batches`. */
export function encodeFile(format: FileFormat, schema: Schema, batches: readonly RecordBatch[]): Uint8Array {
  switch (format.type) {
    case 'CSV': {
      const d = format.delimiter.charCodeAt(0);
      const w = new CsvWriter(schema, d);
      const parts = batches.map((b) => w.write(b));
      parts.push(w.end());
      const bytes = concat(parts);
      if (format.withHeader) return bytes;
      // Without a header: the same bytes less the header line the writer always starts with.
      return bytes.subarray(new CsvWriter(schema, d).end().length);
    }
    case 'JSON': {
      const w = new JsonWriter(schema, true);
      const parts = batches.map((b) => w.write(b));
      parts.push(w.end());
      return concat(parts);
    }
    case 'PARQUET':
      return parquetBytes(schema, batches);
  }
}
