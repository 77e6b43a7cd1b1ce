// Parquet files as COPY INTO reads them, through hyparquet (pure JavaScript: the engine stays free
// of node:* and runs in a browser too). Flat files only: each top-level primitive column becomes a
// vector of its Arrow type (INT32/INT64 Int64, unsigned UInt64, FLOAT/DOUBLE Float64, strings Utf8,
// timestamps Timestamp of their unit); with a schema, columns are matched by name, a missing one NULL.

import { parquetMetadata, parquetRead, parquetSchema, type SchemaElement } from 'hyparquet';
import { executionError } from '../errors.js';
import {
  BOOLEAN,
  castVector,
  type DataType,
  type Field,
  FLOAT64,
  INT64,
  type RecordBatch,
  type Scalar,
  UINT64,
  UTF8,
  type Vector,
  vectorFrom,
} from '../types/index.js';

/** Timestamps as raw bigint counts of their unit, strings as text: hyparquet's defaults would build Date objects. */
const PARSERS = {
  timestampFromMilliseconds: (v: bigint) => v,
  timestampFromMicroseconds: (v: bigint) => v,
  timestampFromNanoseconds: (v: bigint) => v,
};

function columnType(e: SchemaElement): DataType | undefined {
  const lt = e.logical_type;
  if (lt?.type === 'TIMESTAMP')
    return {
      id: 'Timestamp',
      unit: lt.unit === 'MILLIS' ? 'Millisecond' : lt.unit === 'MICROS' ? 'Microsecond' : 'Nanosecond',
    };
  if (e.converted_type === 'TIMESTAMP_MILLIS') return { id: 'Timestamp', unit: 'Millisecond' };
  if (e.converted_type === 'TIMESTAMP_MICROS') return { id: 'Timestamp', unit: 'Microsecond' };
  switch (e.type) {
    case 'BOOLEAN':
      return BOOLEAN;
    case 'INT32':
      return INT64;
    case 'INT64':
      if (e.converted_type === 'UINT_64' || (lt?.type === 'INTEGER' && !lt.isSigned)) return UINT64;
      return INT64;
    case 'INT96':
      return { id: 'Timestamp', unit: 'Nanosecond' };
    case 'FLOAT':
    case 'DOUBLE':
      return FLOAT64;
    case 'BYTE_ARRAY':
      return UTF8;
    default:
      return undefined;
  }
}

function toScalar(v: unknown, type: DataType): Scalar {
  if (v === null || v === undefined) return null;
  if (type.id === 'Int64' || type.id === 'UInt64' || type.id === 'Timestamp')
    return typeof v === 'bigint' ? v : BigInt(v as number);
  if (type.id === 'Utf8') return typeof v === 'string' ? v : new TextDecoder().decode(v as Uint8Array);
  return v as Scalar;
}

/** The rows of a Parquet file, as `schema`'s columns (by name) when given, else every column. */
export async function readParquet(bytes: Uint8Array, schema: readonly Field[] | undefined): Promise<RecordBatch> {
  const file =
    bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
      ? (bytes.buffer as ArrayBuffer)
      : (bytes.slice().buffer as ArrayBuffer);
  let metadata: ReturnType<typeof parquetMetadata>;
  try {
    metadata = parquetMetadata(file);
  } catch (e) {
    throw executionError(`Arrow: Parquet error: ${(e as Error).message}`);
  }
  const rows = Number(metadata.num_rows);
  const top = parquetSchema(metadata).children;
  const fileColumns = new Map<string, DataType>();
  for (const c of top) {
    const t = c.children.length === 0 ? columnType(c.element) : undefined;
    if (t !== undefined) fileColumns.set(c.element.name, t);
    else if (schema === undefined)
      throw executionError(
        `This feature is not implemented: Parquet column ${c.element.name} of a nested or unsupported type`,
      );
  }
  const fields: Field[] =
    schema === undefined ? [...fileColumns].map(([name, type]) => ({ name, type, nullable: true })) : [...schema];
  const wanted = fields.filter((f) => fileColumns.has(f.name)).map((f) => f.name);
  const data = new Map<string, unknown[]>(wanted.map((n) => [n, new Array<unknown>(rows).fill(null)]));
  try {
    await parquetRead({
      file,
      metadata,
      columns: wanted,
      parsers: PARSERS,
      utf8: true,
      onChunk: (chunk) => {
        const out = data.get(chunk.columnName);
        if (out === undefined) return;
        const values = chunk.columnData as ArrayLike<unknown>;
        for (let i = 0; i < values.length; i++) out[chunk.rowStart + i] = values[i];
      },
    });
  } catch (e) {
    throw executionError(`Arrow: Parquet error: ${(e as Error).message}`);
  }
  const columns: Vector[] = fields.map((f) => {
    const type = fileColumns.get(f.name);
    if (type === undefined) return vectorFrom(f.type, new Array<Scalar>(rows).fill(null), new Uint8Array(rows));
    const values = data.get(f.name)!.map((v) => toScalar(v, type));
    const v = vectorFrom(
      type,
      values,
      Uint8Array.from(values, (x) => (x === null ? 0 : 1)),
    );
    return schema === undefined ? v : castVector(v, f.type);
  });
  return { schema: { fields }, columns, length: rows };
}
