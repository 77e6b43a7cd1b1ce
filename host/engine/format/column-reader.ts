// What the CSV and JSON hot loops need of one column of a batch, unpacked once per batch: a small
// integer kind to switch on, the typed arrays, and for 64-bit integers an Int32Array over the
// same memory so that values are read as two halves instead of as BigInts (a BigInt read from a
// BigInt64Array allocates; see bench/format.ts).

import type { ByteSink, Vector } from '../types/index.js';

export const K_NULL = 0;
export const K_BOOL = 1;
export const K_I64 = 2;
export const K_U64 = 3;
export const K_F64 = 4;
export const K_UTF8 = 5;
export const K_TIMESTAMP = 6;
export const K_DATE = 7;
/** Interval, Struct, List: formatted through the slow path. */
export const K_OTHER = 8;

export interface ColumnReader {
  kind: number;
  vector: Vector;
  /** 1 = valid; undefined when every row is valid (Null columns get an all-zero array). */
  validity: Uint8Array | undefined;
  bools: Uint8Array;
  floats: Float64Array;
  ints: Int32Array;
  strings: string[];
  bigints: BigInt64Array;
}

const EMPTY_U8 = new Uint8Array(0);
const EMPTY_F64 = new Float64Array(0);
const EMPTY_I32 = new Int32Array(0);
const EMPTY_I64 = new BigInt64Array(0);

export function kindOf(v: Vector): number {
  switch (v.type.id) {
    case 'Null':
      return K_NULL;
    case 'Boolean':
      return K_BOOL;
    case 'Int64':
      return K_I64;
    case 'UInt64':
      return K_U64;
    case 'Float64':
      return K_F64;
    case 'Utf8':
    case 'Binary':
      return K_UTF8;
    case 'Timestamp':
      return K_TIMESTAMP;
    case 'Date32':
      return K_DATE;
    default:
      return K_OTHER;
  }
}

function int32Words(a: BigInt64Array | BigUint64Array): Int32Array {
  return new Int32Array(a.buffer, a.byteOffset, a.length * 2);
}

export function readColumn(v: Vector): ColumnReader {
  const kind = kindOf(v);
  const r: ColumnReader = {
    kind,
    vector: v,
    validity: v.validity,
    bools: EMPTY_U8,
    floats: EMPTY_F64,
    ints: EMPTY_I32,
    strings: [],
    bigints: EMPTY_I64,
  };
  switch (kind) {
    case K_NULL:
      r.validity = new Uint8Array(v.length);
      break;
    case K_BOOL:
      r.bools = v.values as Uint8Array;
      break;
    case K_I64:
    case K_TIMESTAMP:
      r.bigints = v.values as BigInt64Array;
      r.ints = int32Words(r.bigints);
      break;
    case K_U64:
      r.ints = int32Words(v.values as BigUint64Array);
      r.bigints = new BigInt64Array(
        (v.values as BigUint64Array).buffer,
        (v.values as BigUint64Array).byteOffset,
        v.length,
      );
      break;
    case K_F64:
      r.floats = v.values as Float64Array;
      break;
    case K_UTF8:
      r.strings = v.values as string[];
      break;
    case K_DATE:
      r.ints = v.values as Int32Array;
      break;
  }
  return r;
}

const TWO_32 = 4294967296;

/** Writes int64 `i` from its halves; beyond 2^53 through BigInt (exact, rare). Reserve 21 bytes first. */
export function writeI64(sink: ByteSink, words: Int32Array, values: BigInt64Array, i: number): void {
  const lo = words[2 * i]! >>> 0;
  const hi = words[2 * i + 1]!;
  if (hi === 0) sink.int(lo);
  else if (hi >= -0x200000 && hi < 0x200000) sink.int(hi * TWO_32 + lo);
  else sink.ascii(values[i]!.toString());
}

/** Writes uint64 `i` from its halves (`signed` is the same memory read as int64). */
export function writeU64(sink: ByteSink, words: Int32Array, signed: BigInt64Array, i: number): void {
  const lo = words[2 * i]! >>> 0;
  const hi = words[2 * i + 1]! >>> 0;
  if (hi < 0x200000) sink.int(hi * TWO_32 + lo);
  else sink.ascii(BigInt.asUintN(64, signed[i]!).toString());
}
