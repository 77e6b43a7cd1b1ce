// JSON and NDJSON result bodies (CONTRACT.md "SQL"): row objects with keys in column order,
// duplicate names kept (CnosDB sorts keys and collapses duplicates: departs); NULL is `null`
// (CnosDB drops the key: departs). JSON is one array (`[]` for no rows), NDJSON one object per
// line (nothing for no rows). Integers are exact beyond 2^53; DOUBLE as serde_json writes it
// (`1.0`, `1e16`) and `null` for NaN and infinities; strings escaped as serde_json escapes them
// (`"` `\` and control characters; `\u001f` in lowercase hex; everything else raw UTF-8);
// timestamps, dates and intervals as strings in Arrow's display (`2023-07-28T02:12:11.001`);
// Struct as a nested object, List as an array.

import {
  ByteSink,
  type DataType,
  getValue,
  intervalText,
  type IntervalValue,
  type RecordBatch,
  type Scalar,
  type Schema,
  timeOfDayText,
  timestampText,
  TimestampWriter,
  utf8Bytes,
  writeDate,
  writeJsonF32,
  writeJsonF64,
} from '../types/index.js';
import {
  K_BOOL,
  K_DATE,
  K_F64,
  K_I64,
  K_NULL,
  K_OTHER,
  K_TIMESTAMP,
  K_U64,
  K_UTF8,
  readColumn,
  writeI64,
  writeU64,
} from './column-reader.js';
import { copyText, formatFloatColumn } from './float-column.js';
import type { ResultWriter } from './result-writer.js';

const QUOTE = 34;
const BACKSLASH = 92;
const HEX = '0123456789abcdef';
const FIELD_RESERVE = 48;
/** serde_json's short escapes for control characters; the rest are \u00XX. */
const SHORT_ESCAPES: Readonly<Record<number, number>> = { 8: 98, 9: 116, 10: 110, 12: 102, 13: 114 };

export class JsonWriter implements ResultWriter {
  readonly #sink = new ByteSink();
  readonly #ndjson: boolean;
  /** `{"name":` for the first column, `,"name":` for the others. */
  readonly #keys: Uint8Array[];
  readonly #timestamps: Array<TimestampWriter | undefined>;
  #started = false;
  #rowsWritten = 0;

  constructor(schema: Schema, ndjson: boolean) {
    this.#ndjson = ndjson;
    this.#keys = schema.fields.map((f, c) => {
      const key = new ByteSink(64);
      key.byte(c === 0 ? 123 : 44);
      writeJsonString(key, f.name);
      key.byte(58);
      return key.take();
    });
    this.#timestamps = schema.fields.map((f) =>
      f.type.id === 'Timestamp' ? new TimestampWriter(f.type.unit, f.type.tz, 'display') : undefined,
    );
  }

  write(batch: RecordBatch): Uint8Array {
    if (!this.#started) {
      this.#started = true;
      if (!this.#ndjson) this.#sink.byte(91); // '['
    }
    this.#rows(batch);
    return this.#sink.take();
  }

  end(): Uint8Array {
    if (!this.#ndjson) {
      if (!this.#started) this.#sink.byte(91);
      this.#sink.byte(93); // ']'
    }
    this.#started = true;
    return this.#sink.take();
  }

  #rows(batch: RecordBatch): void {
    const sink = this.#sink;
    const columns = batch.columns.map(readColumn);
    const keys = this.#keys;
    const timestamps = this.#timestamps;
    const ndjson = this.#ndjson;
    const ncols = columns.length;
    const n = batch.length;
    const floats = columns.map((col) => (col.kind === K_F64 ? formatFloatColumn(col.floats, 1) : undefined));
    for (let r = 0; r < n; r++) {
      if (!ndjson && this.#rowsWritten > 0) sink.byte(44);
      this.#rowsWritten++;
      if (ncols === 0) sink.byte(123);
      for (let c = 0; c < ncols; c++) {
        const key = keys[c]!;
        sink.reserve(key.length + FIELD_RESERVE);
        sink.buf.set(key, sink.pos);
        sink.pos += key.length;
        const col = columns[c]!;
        const buf = sink.buf;
        if (col.validity !== undefined && col.validity[r] === 0) {
          sink.ascii('null');
          continue;
        }
        switch (col.kind) {
          case K_I64:
            writeI64(sink, col.ints, col.bigints, r);
            break;
          case K_F64: {
            const t = floats[c];
            if (t !== undefined) copyText(sink, t, r);
            else {
              const x = col.floats[r]!;
              if (x - x === 0) writeJsonF64(sink, x);
              else sink.ascii('null');
            }
            break;
          }
          case K_TIMESTAMP:
            buf[sink.pos++] = QUOTE;
            timestamps[c]!.write(sink, col.bigints, col.ints, r);
            sink.buf[sink.pos++] = QUOTE;
            break;
          case K_UTF8:
            writeJsonString(sink, col.strings[r]!);
            break;
          case K_BOOL:
            sink.ascii(col.bools[r] === 1 ? 'true' : 'false');
            break;
          case K_U64:
            writeU64(sink, col.ints, col.bigints, r);
            break;
          case K_DATE:
            buf[sink.pos++] = QUOTE;
            writeDate(sink, col.ints[r]!);
            sink.buf[sink.pos++] = QUOTE;
            break;
          case K_NULL:
            sink.ascii('null');
            break;
          case K_OTHER:
            writeJsonScalar(sink, col.vector.type, getValue(col.vector, r));
            break;
        }
      }
      sink.byte(125); // '}'
      if (ndjson) sink.byte(10);
    }
  }
}

/** A JSON string literal, escaped as serde_json escapes. */
export function writeJsonString(sink: ByteSink, s: string): void {
  const n = s.length;
  sink.reserve(6 * n + 2);
  let buf = sink.buf;
  let p = sink.pos;
  buf[p++] = QUOTE;
  let i = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c < 0x80 && c !== QUOTE && c !== BACKSLASH) {
      buf[p++] = c;
      i++;
    } else if (c < 0x80) {
      buf[p++] = BACKSLASH;
      const short = c === QUOTE || c === BACKSLASH ? c : SHORT_ESCAPES[c];
      if (short !== undefined) buf[p++] = short;
      else {
        buf[p++] = 117; // u
        buf[p++] = 48;
        buf[p++] = 48;
        buf[p++] = HEX.charCodeAt(c >> 4);
        buf[p++] = HEX.charCodeAt(c & 15);
      }
      i++;
    } else {
      // A run of non-ASCII code units (never splits a surrogate pair) through TextEncoder.
      let j = i + 1;
      while (j < n && s.charCodeAt(j) >= 0x80) j++;
      sink.pos = p;
      sink.utf8(s.slice(i, j));
      p = sink.pos;
      buf = sink.buf;
      i = j;
    }
  }
  buf[p++] = QUOTE;
  sink.pos = p;
}

/** Any value of `type` as JSON (slow path for Interval, Struct and List, and their children). */
export function writeJsonScalar(sink: ByteSink, type: DataType, value: Scalar): void {
  if (value === null) return sink.ascii('null');
  switch (type.id) {
    case 'Null':
      return sink.ascii('null');
    case 'Boolean':
      return sink.ascii(value ? 'true' : 'false');
    case 'Int64':
    case 'UInt64':
      return sink.ascii(String(value));
    case 'Float64':
    case 'Float32': {
      const x = value as number;
      if (!Number.isFinite(x)) sink.ascii('null');
      else if (type.id === 'Float32') writeJsonF32(sink, x);
      else writeJsonF64(sink, x);
      return;
    }
    case 'Utf8':
    case 'Binary':
      return writeJsonString(sink, value as string);
    case 'Timestamp':
      return writeJsonString(sink, timestampText(type, value as bigint, 'display'));
    case 'Date32':
      sink.byte(QUOTE);
      writeDate(sink, value as number);
      return sink.byte(QUOTE);
    case 'Interval':
      return writeJsonString(sink, intervalText(value as IntervalValue));
    case 'Time64':
      return writeJsonString(sink, timeOfDayText(value as bigint));
    case 'Struct': {
      const o = value as { [field: string]: Scalar };
      sink.byte(123);
      type.fields.forEach((f, k) => {
        if (k > 0) sink.byte(44);
        writeJsonString(sink, f.name);
        sink.byte(58);
        writeJsonScalar(sink, f.type, o[f.name] ?? null);
      });
      return sink.byte(125);
    }
    case 'List': {
      sink.byte(91);
      (value as Scalar[]).forEach((x, k) => {
        if (k > 0) sink.byte(44);
        writeJsonScalar(sink, type.item, x ?? null);
      });
      return sink.byte(93);
    }
  }
}

/** The bytes of `{"error_code":"..","error_message":".."}`, as every error body. */
export function errorObjectBytes(code: string, message: string): Uint8Array {
  return utf8Bytes(JSON.stringify({ error_code: code, error_message: message }));
}
