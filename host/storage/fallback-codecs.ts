// A plain TypeScript implementation of ColumnCodecs, used until (and wherever) the Wasm codecs
// are not available: delta (timestamps: delta-of-delta) zigzag varints or raw little-endian
// values, then zstd. Block layout (FORMAT.md §5.4): marker byte 0xF0, flags byte (bit 0: a
// validity bitmap follows), u32 rows, [validity bitmap, ceil(rows/8) bytes, bit i = row i present],
// zstd frame of the encoded values (absent rows are not encoded).

import { compress, decompress } from 'zstd-napi';
import { bug } from '../core/errors.js';
import { ValueType, type FieldType } from '../core/write-batch.js';
import type { ColumnCodecs, DecodedColumn } from './column-codecs.js';
import { allocValues, type FieldValues } from './series-data.js';

export const FALLBACK_MARKER = 0xf0;
const ZSTD_LEVEL = 3;
const utf8 = new TextEncoder();
const utf8d = new TextDecoder('utf-8', { fatal: true });

class ByteSink {
  buf = new Uint8Array(256);
  len = 0;
  #grow(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.len + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }
  /** Unsigned LEB128 of a non-negative bigint < 2^64. */
  varint(v: bigint): void {
    this.#grow(10);
    while (v >= 0x80n) {
      this.buf[this.len++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.len++] = Number(v);
  }
  bytes(b: Uint8Array): void {
    this.#grow(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }
}

class ByteSource {
  pos = 0;
  constructor(readonly buf: Uint8Array) {}
  varint(): bigint {
    let v = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.buf.length) throw new Error(`varint runs past the end at byte ${this.pos}`);
      const b = this.buf[this.pos++]!;
      v |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return v;
      shift += 7n;
      if (shift > 63n) throw new Error(`varint longer than 10 bytes at byte ${this.pos}`);
    }
  }
  take(n: number): Uint8Array {
    if (this.pos + n > this.buf.length) throw new Error(`${n} bytes wanted at byte ${this.pos}, ${this.buf.length - this.pos} left`);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}

const zigzag = (v: bigint): bigint => BigInt.asUintN(64, (v << 1n) ^ (v >> 63n));
const unzigzag = (u: bigint): bigint => BigInt.asIntN(64, (u >> 1n) ^ -(u & 1n));

function frame(flags: number, rows: number, validity: Uint8Array | undefined, body: Uint8Array): Uint8Array {
  const packed = validity ? packBits(validity, rows) : undefined;
  const z = compress(body, { compressionLevel: ZSTD_LEVEL });
  const out = new Uint8Array(6 + (packed?.length ?? 0) + z.length);
  out[0] = FALLBACK_MARKER;
  out[1] = flags | (packed ? 1 : 0);
  new DataView(out.buffer).setUint32(2, rows, true);
  if (packed) out.set(packed, 6);
  out.set(z, 6 + (packed?.length ?? 0));
  return out;
}

function unframe(block: Uint8Array, rows: number): { validity: Uint8Array | undefined; body: Uint8Array } {
  if (block.length < 6 || block[0] !== FALLBACK_MARKER) throw new Error(`not a fallback block (marker 0x${(block[0] ?? 0).toString(16)})`);
  const n = new DataView(block.buffer, block.byteOffset, block.byteLength).getUint32(2, true);
  if (n !== rows) throw new Error(`block holds ${n} rows, the index says ${rows}`);
  let pos = 6;
  let validity: Uint8Array | undefined;
  if (block[1]! & 1) {
    const len = (rows + 7) >>> 3;
    if (pos + len > block.length) throw new Error('validity bitmap truncated');
    validity = new Uint8Array(rows);
    for (let i = 0; i < rows; i++) validity[i] = (block[pos + (i >>> 3)]! >>> (i & 7)) & 1;
    pos += len;
  }
  return { validity, body: new Uint8Array(decompress(block.subarray(pos))) };
}

function packBits(v: Uint8Array, rows: number): Uint8Array {
  const out = new Uint8Array((rows + 7) >>> 3);
  for (let i = 0; i < rows; i++) if (v[i]) out[i >>> 3]! |= 1 << (i & 7);
  return out;
}

export class FallbackCodecs implements ColumnCodecs {
  encodeTime(ts: BigInt64Array): Uint8Array {
    const sink = new ByteSink();
    let prev = 0n;
    let prevDelta = 0n;
    for (let i = 0; i < ts.length; i++) {
      const delta = BigInt.asIntN(64, ts[i]! - prev);
      sink.varint(zigzag(BigInt.asIntN(64, delta - prevDelta)));
      prev = ts[i]!;
      prevDelta = delta;
    }
    return frame(0, ts.length, undefined, sink.buf.subarray(0, sink.len));
  }

  decodeTime(block: Uint8Array, rows: number): BigInt64Array {
    const { body } = unframe(block, rows);
    const src = new ByteSource(body);
    const out = new BigInt64Array(rows);
    let prev = 0n;
    let prevDelta = 0n;
    for (let i = 0; i < rows; i++) {
      const delta = BigInt.asIntN(64, prevDelta + unzigzag(src.varint()));
      prev = BigInt.asIntN(64, prev + delta);
      out[i] = prev;
      prevDelta = delta;
    }
    if (src.pos !== body.length) throw new Error(`unexpected tail of ${body.length - src.pos} bytes`);
    return out;
  }

  encodeValues(type: FieldType, values: FieldValues, validity: Uint8Array | undefined): Uint8Array {
    const rows = values.length;
    const present = (i: number): boolean => validity === undefined || validity[i] === 1;
    const sink = new ByteSink();
    switch (type) {
      case ValueType.Double: {
      const raw = new Float64Array(rows);
        let n = 0;
        for (let i = 0; i < rows; i++) if (present(i)) raw[n++] = (values as Float64Array)[i]!;
        sink.bytes(new Uint8Array(raw.buffer, 0, n * 8));
        break;
      }
      case ValueType.BigInt:
      case ValueType.Unsigned: {
        let prev = 0n;
        for (let i = 0; i < rows; i++) {
          if (!present(i)) continue;
          const v = BigInt.asIntN(64, (values as BigInt64Array)[i]!);
          sink.varint(zigzag(BigInt.asIntN(64, v - prev)));
          prev = v;
        }
        break;
      }
      case ValueType.Boolean: {
        const raw = new Uint8Array(rows);
        let n = 0;
        for (let i = 0; i < rows; i++) if (present(i)) raw[n++] = (values as Uint8Array)[i]!;
        sink.bytes(raw.subarray(0, n));
        break;
      }
      case ValueType.String:
        for (let i = 0; i < rows; i++) {
          if (!present(i)) continue;
          const b = utf8.encode((values as string[])[i]!);
          sink.varint(BigInt(b.length));
          sink.bytes(b);
        }
        break;
      default:
        throw bug(`fallback codec for type ${type as number}`);
    }
    return frame(0, rows, validity, sink.buf.subarray(0, sink.len));
  }

  decodeValues(type: FieldType, block: Uint8Array, rows: number): DecodedColumn {
    const { validity, body } = unframe(block, rows);
    const present = (i: number): boolean => validity === undefined || validity[i] === 1;
    const values = allocValues(type, rows);
    const src = new ByteSource(body);
    switch (type) {
      case ValueType.Double: {
        let n = 0;
        for (let i = 0; i < rows; i++) if (present(i)) n++;
        const raw = src.take(n * 8);
        const dv = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
        for (let i = 0, k = 0; i < rows; i++) if (present(i)) (values as Float64Array)[i] = dv.getFloat64(8 * k++, true);
        break;
      }
      case ValueType.BigInt:
      case ValueType.Unsigned: {
        let prev = 0n;
        for (let i = 0; i < rows; i++) {
          if (!present(i)) continue;
          prev = BigInt.asIntN(64, prev + unzigzag(src.varint()));
          (values as BigInt64Array)[i] = type === ValueType.BigInt ? prev : (BigInt.asUintN(64, prev) as never);
        }
        break;
      }
      case ValueType.Boolean:
        for (let i = 0; i < rows; i++) if (present(i)) (values as Uint8Array)[i] = src.take(1)[0]!;
        break;
      case ValueType.String:
        for (let i = 0; i < rows; i++) if (present(i)) (values as string[])[i] = utf8d.decode(src.take(Number(src.varint())));
        break;
      default:
        throw bug(`fallback codec for type ${type as number}`);
    }
    if (src.pos !== body.length) throw new Error(`unexpected tail of ${body.length - src.pos} bytes`);
    return { values, validity };
  }
}
