// Sundial's column types as PostgreSQL types, and result rows as DataRow messages in the text or
// binary format each column was asked in. TIMESTAMP is `timestamp` (1114; `timestamptz` 1184
// with a zone): its text keeps all nine fraction digits (PostgreSQL prints six, and its clients
// read more: pgjdbc, pgx, lib/pq, node-postgres), its binary form is PostgreSQL's microseconds
// since 2000-01-01, so nanoseconds are cut there. BIGINT UNSIGNED is `numeric` (no unsigned
// 64-bit type exists). Intervals, structs and lists travel as `text` in Sundial's display.
// The hot loop writes straight into the message buffer, as the CSV and JSON writers do.

import {
  type ByteSink,
  type DataType,
  displayValue,
  type Field,
  type RecordBatch,
  TimestampWriter,
  writeDate,
  writeJsonF64,
} from '../engine/types/index.js';
import {
  readColumn,
  writeI64,
  writeU64,
  K_BOOL,
  K_DATE,
  K_F64,
  K_I64,
  K_NULL,
  K_OTHER,
  K_TIMESTAMP,
  K_U64,
  K_UTF8,
  type ColumnReader,
} from '../engine/format/column-reader.js';
import { copyText, formatFloatColumn } from '../engine/format/float-column.js';
import { floorDiv } from '../core/precision.js';
import type { FieldDescription, MessageWriter } from './messages.js';

export const OID = {
  bool: 16,
  bytea: 17,
  name: 19,
  int8: 20,
  int2: 21,
  int4: 23,
  text: 25,
  oid: 26,
  json: 114,
  float4: 700,
  float8: 701,
  unknown: 705,
  bpchar: 1042,
  varchar: 1043,
  date: 1082,
  time: 1083,
  timestamp: 1114,
  timestamptz: 1184,
  interval: 1186,
  numeric: 1700,
  jsonb: 3802,
  /** text[]: the `Access privileges` arrays of the catalog answers. */
  textArray: 1009,
} as const;

/** The PostgreSQL type of a column: its oid and typlen. */
export function pgTypeOf(t: DataType): { oid: number; size: number } {
  switch (t.id) {
    case 'Boolean':
      return { oid: OID.bool, size: 1 };
    case 'Int64':
      return { oid: OID.int8, size: 8 };
    case 'UInt64':
      return { oid: OID.numeric, size: -1 };
    case 'Float64':
      return { oid: OID.float8, size: 8 };
    case 'Binary':
      return { oid: OID.bytea, size: -1 };
    case 'Timestamp':
      return { oid: t.tz === undefined ? OID.timestamp : OID.timestamptz, size: 8 };
    case 'Date32':
      return { oid: OID.date, size: 4 };
    case 'Time64':
      return { oid: OID.time, size: 8 };
    default:
      return { oid: OID.text, size: -1 };
  }
}

/** PostgreSQL's name of a type (format_type, information_schema.columns.data_type). */
export function pgTypeName(t: DataType): string {
  switch (pgTypeOf(t).oid) {
    case OID.bool:
      return 'boolean';
    case OID.int8:
      return 'bigint';
    case OID.numeric:
      return 'numeric';
    case OID.float8:
      return 'double precision';
    case OID.bytea:
      return 'bytea';
    case OID.timestamp:
      return 'timestamp without time zone';
    case OID.timestamptz:
      return 'timestamp with time zone';
    case OID.date:
      return 'date';
    case OID.time:
      return 'time without time zone';
    default:
      return 'text';
  }
}

/** The result format of each of `n` columns from Bind's codes (none: text; one: all; else one each). */
export function resultFormats(codes: readonly number[], n: number): number[] {
  if (codes.length === 0) return new Array<number>(n).fill(0);
  if (codes.length === 1) return new Array<number>(n).fill(codes[0]!);
  return codes.slice();
}

export function describeFields(fields: readonly Field[], formats: readonly number[]): FieldDescription[] {
  return fields.map((f, i) => {
    const { oid, size } = pgTypeOf(f.type);
    return { name: f.name, typeOid: oid, typeSize: size, format: formats[i] ?? 0 };
  });
}

/** 2000-01-01 in Unix microseconds and days: PostgreSQL's epoch for binary dates and times. */
const PG_EPOCH_US = 946_684_800_000_000n;
const PG_EPOCH_DAYS = 10_957;
const T = 84;
const Z = 90;
const HEX_VALUE = (c: number): number => (c <= 57 ? c - 48 : (c | 32) - 87);

const f64 = new Float64Array(1);
const f64Bytes = new Uint8Array(f64.buffer);

/** Writes DataRow messages for the rows of batches of one result. */
export class RowEncoder {
  readonly #fields: readonly Field[];
  readonly #formats: readonly number[];
  readonly #timestamps: Array<TimestampWriter | undefined>;

  constructor(fields: readonly Field[], formats: readonly number[]) {
    this.#fields = fields;
    this.#formats = fields.map((_, i) => formats[i] ?? 0);
    this.#timestamps = fields.map((f) =>
      f.type.id === 'Timestamp' ? new TimestampWriter(f.type.unit, f.type.tz, 'display') : undefined,
    );
  }

  /** Writes rows [from, to) of `batch`. */
  write(w: MessageWriter, batch: RecordBatch, from: number, to: number): void {
    const columns = batch.columns.map(readColumn);
    const ncols = columns.length;
    const formats = this.#formats;
    const floats = columns.map((col, c) =>
      col.kind === K_F64 && formats[c] === 0 && to - from === batch.length
        ? formatFloatColumn(col.floats, 1)
        : undefined,
    );
    const sink = w.sink;
    for (let r = from; r < to; r++) {
      sink.reserve(7);
      const rowAt = sink.pos;
      sink.buf[rowAt] = 0x44; // 'D'
      sink.pos += 5;
      sink.buf[sink.pos++] = ncols >>> 8;
      sink.buf[sink.pos++] = ncols & 0xff;
      for (let c = 0; c < ncols; c++) {
        const col = columns[c]!;
        if (col.validity !== undefined && col.validity[r] === 0) {
          sink.reserve(4);
          const b = sink.buf;
          b[sink.pos++] = 0xff;
          b[sink.pos++] = 0xff;
          b[sink.pos++] = 0xff;
          b[sink.pos++] = 0xff;
          continue;
        }
        sink.reserve(52);
        const lenAt = sink.pos;
        sink.pos += 4;
        if (formats[c] === 0) this.#text(sink, col, c, r, floats[c]);
        else this.#binary(sink, col, c, r);
        putInt32(sink.buf, lenAt, sink.pos - lenAt - 4);
      }
      putInt32(sink.buf, rowAt + 1, sink.pos - rowAt - 1);
    }
  }

  #text(sink: ByteSink, col: ColumnReader, c: number, r: number, floats: ReturnType<typeof formatFloatColumn>): void {
    switch (col.kind) {
      case K_I64:
        return writeI64(sink, col.ints, col.bigints, r);
      case K_F64: {
        const x = col.floats[r]!;
        if (x - x !== 0) return sink.ascii(x !== x ? 'NaN' : x > 0 ? 'Infinity' : '-Infinity');
        if (floats !== undefined) return copyText(sink, floats, r);
        return writeJsonF64(sink, x);
      }
      case K_TIMESTAMP: {
        const start = sink.pos;
        this.#timestamps[c]!.write(sink, col.bigints, col.ints, r);
        // Arrow's display `2023-07-28T02:12:11.5` (and `Z` for UTC) as PostgreSQL prints it.
        const buf = sink.buf;
        for (let p = start; p < sink.pos; p++) {
          if (buf[p] === T) {
            buf[p] = 32;
            break;
          }
        }
        if (buf[sink.pos - 1] === Z) {
          buf[sink.pos - 1] = 43; // '+'
          buf[sink.pos++] = 48;
          buf[sink.pos++] = 48;
        }
        return;
      }
      case K_UTF8: {
        const s = col.strings[r]!;
        if (col.vector.type.id === 'Binary') {
          sink.ascii('\\x');
          return sink.ascii(s);
        }
        return sink.utf8(s);
      }
      case K_BOOL:
        sink.buf[sink.pos++] = col.bools[r] === 1 ? 116 : 102;
        return;
      case K_U64:
        return writeU64(sink, col.ints, col.bigints, r);
      case K_DATE:
        return writeDate(sink, col.ints[r]!);
      case K_NULL:
      case K_OTHER:
        return sink.utf8(displayValue(col.vector, r));
    }
  }

  #binary(sink: ByteSink, col: ColumnReader, c: number, r: number): void {
    const buf = sink.buf;
    switch (col.kind) {
      case K_I64:
        putInt32(buf, sink.pos, col.ints[2 * r + 1]!);
        putInt32(buf, sink.pos + 4, col.ints[2 * r]!);
        sink.pos += 8;
        return;
      case K_F64:
        f64[0] = col.floats[r]!;
        for (let k = 0; k < 8; k++) buf[sink.pos + k] = f64Bytes[7 - k]!;
        sink.pos += 8;
        return;
      case K_BOOL:
        buf[sink.pos++] = col.bools[r] === 1 ? 1 : 0;
        return;
      case K_UTF8: {
        const s = col.strings[r]!;
        if (col.vector.type.id !== 'Binary') return sink.utf8(s);
        sink.reserve(s.length >> 1);
        for (let k = 0; k + 1 < s.length; k += 2)
          sink.buf[sink.pos++] = (HEX_VALUE(s.charCodeAt(k)) << 4) | HEX_VALUE(s.charCodeAt(k + 1));
        return;
      }
      case K_TIMESTAMP: {
        const type = this.#fields[c]!.type as Extract<DataType, { id: 'Timestamp' }>;
        const v = col.bigints[r]!;
        const us =
          type.unit === 'Nanosecond'
            ? floorDiv(v, 1000n)
            : type.unit === 'Microsecond'
              ? v
              : type.unit === 'Millisecond'
                ? v * 1000n
                : v * 1_000_000n;
        putInt64(buf, sink.pos, us - PG_EPOCH_US);
        sink.pos += 8;
        return;
      }
      case K_DATE:
        putInt32(buf, sink.pos, col.ints[r]! - PG_EPOCH_DAYS);
        sink.pos += 4;
        return;
      case K_U64:
        return writeNumeric(sink, BigInt.asUintN(64, col.bigints[r]!));
      default: {
        if (col.vector.type.id === 'Time64') {
          putInt64(
            buf,
            sink.pos,
            floorDiv(col.vector.values instanceof BigInt64Array ? col.vector.values[r]! : 0n, 1000n),
          );
          sink.pos += 8;
          return;
        }
        return sink.utf8(displayValue(col.vector, r));
      }
    }
  }
}

export function putInt32(buf: Uint8Array, at: number, v: number): void {
  buf[at] = v >>> 24;
  buf[at + 1] = (v >>> 16) & 0xff;
  buf[at + 2] = (v >>> 8) & 0xff;
  buf[at + 3] = v & 0xff;
}

function putInt64(buf: Uint8Array, at: number, v: bigint): void {
  const u = BigInt.asUintN(64, v);
  putInt32(buf, at, Number(u >> 32n) | 0);
  putInt32(buf, at + 4, Number(u & 0xffffffffn) | 0);
}

/** A non-negative integer in numeric's binary form: ndigits, weight, sign, dscale, base-10000 digits. */
function writeNumeric(sink: ByteSink, v: bigint): void {
  const digits: number[] = [];
  for (let x = v; x > 0n; x /= 10000n) digits.unshift(Number(x % 10000n));
  sink.reserve(8 + 2 * digits.length);
  const w = (n: number): void => {
    sink.buf[sink.pos++] = (n >>> 8) & 0xff;
    sink.buf[sink.pos++] = n & 0xff;
  };
  w(digits.length);
  w(digits.length === 0 ? 0 : digits.length - 1);
  w(0);
  w(0);
  for (const d of digits) w(d);
}
