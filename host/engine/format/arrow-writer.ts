// Arrow IPC stream results (`Accept: application/vnd.apache.arrow.stream`): the schema message,
// one record batch message per engine batch, then the end-of-stream marker, so that pandas,
// Polars, DuckDB and browsers take typed columns without parsing text. Built on `apache-arrow`;
// fixed-width columns are handed over as typed arrays, the rest through its builders.

import {
  Binary,
  Bool,
  type DataType as ArrowType,
  DateDay,
  Field as ArrowField,
  Float32,
  Float64,
  Int64,
  IntervalMonthDayNano,
  List,
  makeBuilder,
  makeData,
  Null,
  RecordBatch as ArrowBatch,
  RecordBatchStreamWriter,
  Schema as ArrowSchema,
  Struct,
  TimeNanosecond,
  Timestamp,
  TimeUnit as ArrowTimeUnit,
  Uint64,
  Utf8,
  type Data,
} from 'apache-arrow';
import {
  type DataType,
  getValue,
  type IntervalValue,
  isValid,
  type RecordBatch,
  type Scalar,
  type Schema,
  type TimeUnit,
  type Vector,
  VectorBuilder,
} from '../types/index.js';
import type { ResultWriter } from './result-writer.js';

const ARROW_UNIT: Readonly<Record<TimeUnit, ArrowTimeUnit>> = {
  Second: ArrowTimeUnit.SECOND,
  Millisecond: ArrowTimeUnit.MILLISECOND,
  Microsecond: ArrowTimeUnit.MICROSECOND,
  Nanosecond: ArrowTimeUnit.NANOSECOND,
};

/** The Arrow type of an engine type: the same type, Arrow being what the engine's types name. */
export function arrowType(t: DataType): ArrowType {
  switch (t.id) {
    case 'Null':
      return new Null();
    case 'Boolean':
      return new Bool();
    case 'Int64':
      return new Int64();
    case 'UInt64':
      return new Uint64();
    case 'Float64':
      return new Float64();
    case 'Float32':
      return new Float32();
    case 'Utf8':
      return new Utf8();
    case 'Binary':
      return new Binary();
    case 'Timestamp':
      return new Timestamp(ARROW_UNIT[t.unit], t.tz ?? null);
    case 'Date32':
      return new DateDay();
    case 'Time64':
      return new TimeNanosecond();
    case 'Interval':
      return new IntervalMonthDayNano();
    case 'Struct':
      return new Struct(t.fields.map((f) => new ArrowField(f.name, arrowType(f.type), f.nullable)));
    case 'List':
      return new List(new ArrowField('item', arrowType(t.item), true));
  }
}

/** Writes the stream's bytes into a list of its own instead of apache-arrow's async queue. */
class ChunkWriter extends RecordBatchStreamWriter {
  readonly chunks: Uint8Array[] = [];

  protected override _write(chunk: ArrayBufferView): this {
    if (this._started && chunk.byteLength > 0) {
      // Chunks come as typed arrays of any width (the continuation marker is an Int32Array).
      this.chunks.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      this._position += chunk.byteLength;
    }
    return this;
  }

  take(): Uint8Array {
    const out = concat(this.chunks);
    this.chunks.length = 0;
    return out;
  }
}

export class ArrowWriter implements ResultWriter {
  readonly #schema: ArrowSchema;
  readonly #writer = new ChunkWriter();

  constructor(schema: Schema) {
    this.#schema = new ArrowSchema(schema.fields.map((f) => new ArrowField(f.name, arrowType(f.type), true)));
    this.#writer.reset(undefined, this.#schema);
  }

  write(batch: RecordBatch): Uint8Array {
    if (batch.length === 0) return new Uint8Array(0);
    const children = batch.columns.map((v, i) => columnData(v, this.#schema.fields[i]!.type, batch.length));
    const data = makeData({ type: new Struct(this.#schema.fields), length: batch.length, nullCount: 0, children });
    this.#writer.write(new ArrowBatch(this.#schema, data));
    return this.#writer.take();
  }

  end(): Uint8Array {
    // A result without rows is still a stream: its schema, then the end-of-stream marker.
    this.#writer.finish();
    return this.#writer.take();
  }
}

/** Arrow's validity bitmap from the engine's validity bytes, with its NULL count. */
function bitmap(v: Vector, n: number): { nullBitmap: Uint8Array | undefined; nullCount: number } {
  if (v.type.id === 'Null') return { nullBitmap: undefined, nullCount: n };
  const valid = v.validity;
  if (valid === undefined) return { nullBitmap: undefined, nullCount: 0 };
  const bits = new Uint8Array((n + 7) >> 3);
  let nulls = 0;
  for (let i = 0; i < n; i++) {
    if (valid[i] === 1) bits[i >> 3]! |= 1 << (i & 7);
    else nulls++;
  }
  return nulls === 0 ? { nullBitmap: undefined, nullCount: 0 } : { nullBitmap: bits, nullCount: nulls };
}

/** One column of one batch as Arrow data: typed arrays as they are, nested types by their children. */
function columnData(v: Vector, type: ArrowType, n: number): Data {
  const { nullBitmap, nullCount } = bitmap(v, n);
  switch (v.type.id) {
    case 'Null':
      return makeData({ type: type as Null, length: n, nullCount: n });
    case 'Int64':
    case 'UInt64':
    case 'Float64':
    case 'Timestamp':
    case 'Date32':
    case 'Time64': {
      const values = (v.values as BigInt64Array | BigUint64Array | Float64Array | Int32Array).subarray(0, n);
      return makeData({ type: type as Int64, length: n, nullCount, nullBitmap, data: values as never });
    }
    case 'Float32':
      return makeData({
        type: type as Float32,
        length: n,
        nullCount,
        nullBitmap,
        data: Float32Array.from((v.values as Float64Array).subarray(0, n)),
      });
    case 'Interval': {
      // Arrow's MonthDayNano: months i32, days i32, nanoseconds i64, little endian.
      const data = new Int32Array(4 * n);
      const view = new DataView(data.buffer);
      const values = v.values as IntervalValue[];
      for (let i = 0; i < n; i++) {
        if (!isValid(v, i)) continue;
        data[4 * i] = values[i]!.months;
        data[4 * i + 1] = values[i]!.days;
        view.setBigInt64(16 * i + 8, values[i]!.nanos, true);
      }
      return makeData({ type: type as IntervalMonthDayNano, length: n, nullCount, nullBitmap, data });
    }
    case 'Struct': {
      const fields = (type as Struct).children;
      const children = (v.values as Vector[]).map((c, k) => columnData(c, fields[k]!.type, n));
      return makeData({ type: type as Struct, length: n, nullCount, nullBitmap, children });
    }
    case 'List': {
      // The items of every row in one child vector, cut by offsets.
      const items = new VectorBuilder(v.type.item);
      const valueOffsets = new Int32Array(n + 1);
      for (let i = 0; i < n; i++) {
        const list = isValid(v, i) ? (getValue(v, i) as Scalar[]) : [];
        for (const e of list) items.push(e);
        valueOffsets[i + 1] = items.length;
      }
      const child = items.finish();
      const item = (type as List).children[0]!.type;
      return makeData({
        type: type as List,
        length: n,
        nullCount,
        nullBitmap,
        valueOffsets,
        child: columnData(child, item, child.length),
      });
    }
    default:
      return built(v, type, n);
  }
}

/** Strings, bytes and booleans through apache-arrow's builders. */
function built(v: Vector, type: ArrowType, n: number): Data {
  const builder = makeBuilder({ type, nullValues: [null] });
  const binary = v.type.id === 'Binary';
  for (let i = 0; i < n; i++) {
    const s = getValue(v, i);
    builder.append(s === null ? null : binary ? hexBytes(s as string) : s);
  }
  return builder.finish().flush();
}

function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!.slice();
  let n = 0;
  for (const p of parts) n += p.byteLength;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}
