// Decoding protobuf bodies with protobufjs and turning its values into ours: a decode failure
// (truncated message, invalid wire type) is the client's 400 040017, never a 500; 64-bit
// integers arrive as Long objects (protobufjs uses the `long` package when present) or numbers
// and leave as exact BigInts. Runtime-agnostic.

import protobuf from 'protobufjs';
import { UserError } from '../core/errors.js';

/** A 64-bit integer as protobufjs hands it out. */
export type Int64 = number | string | { low: number; high: number; unsigned: boolean };

/** Strings up to this many bytes go through the cache of InterningReader. */
const INTERN_MAX_BYTES = 64;
/** Slots of that cache (a power of two): direct-mapped by a hash of the bytes. */
const INTERN_SLOTS = 4096;
const internHash = new Int32Array(INTERN_SLOTS);
const internText: string[] = new Array<string>(INTERN_SLOTS).fill('');

/**
 * A protobufjs reader whose short ASCII strings come from a small cache of the strings read
 * before, one per slot, checked byte for byte: labels and attribute keys and values repeat
 * message after message (a Prometheus sample repeats its series' eleven labels, a span its
 * service's attribute names), and a native decode per string was a third of parsing remote
 * write. Repeats are then one string object each, which the batch builder also compares faster.
 * Strings that are longer, not ASCII, or truncated take the reader's own path (and its errors).
 */
function interning(Base: typeof protobuf.Reader): typeof protobuf.Reader {
  return class InterningReader extends Base {
    override string(): string {
      const len = this.uint32();
      const start = this.pos;
      const end = start + len;
      const buf = this.buf;
      if (len > INTERN_MAX_BYTES || end > this.len) return this.#own(start, len);
      let h = 0x811c9dc5 ^ len;
      for (let i = start; i < end; i++) {
        const c = buf[i]!;
        if (c >= 0x80) return this.#own(start, len);
        h = Math.imul(h ^ c, 0x01000193);
      }
      this.pos = end;
      const slot = h & (INTERN_SLOTS - 1);
      const cached = internText[slot]!;
      if (internHash[slot] === h && cached.length === len) {
        let same = true;
        for (let i = 0; i < len && same; i++) same = cached.charCodeAt(i) === buf[start + i];
        if (same) return cached;
      }
      const text = len === 0 ? '' : String.fromCharCode.apply(null, buf.subarray(start, end) as unknown as number[]);
      internHash[slot] = h;
      internText[slot] = text;
      return text;
    }

    /** The string at `start` read by the base reader (from its length again). */
    #own(start: number, len: number): string {
      this.pos = start - varintBytes(len);
      return super.string();
    }
  };
}

const InterningReader = interning(protobuf.Reader);
/** Under Node, protobufjs reads Buffers with a BufferReader (native UTF-8 for long strings). */
const InterningBufferReader =
  typeof Buffer === 'undefined'
    ? InterningReader
    : interning(protobuf.BufferReader as unknown as typeof protobuf.Reader);

/** The bytes of `n` as a protobuf varint (a length already read). */
function varintBytes(n: number): number {
  let bytes = 1;
  for (let v = n >>> 7; v !== 0; v >>>= 7) bytes++;
  return bytes;
}

/**
 * Decodes `bytes` as `type`; throws UserError('protobuf') naming `what` on malformed input.
 * `intern`: read short ASCII strings through InterningReader's cache, for messages that repeat
 * the same few strings. In one process, alternated pairs: Prometheus remote write 10.5-14.8 ->
 * 7.5-10 µs a sample (four pairs); OTLP spans faster in six pairs of eight, median 12.95 ->
 * 11.45 µs a span (decode and rows). Loki's strings are mostly log lines, seldom repeated: not
 * used there.
 */
export function decodeMessage<T>(type: protobuf.Type, bytes: Uint8Array, what: string, intern = false): T {
  try {
    if (!intern) return type.decode(bytes) as unknown as T;
    const reader =
      typeof Buffer !== 'undefined' && Buffer.isBuffer(bytes)
        ? new InterningBufferReader(bytes)
        : new InterningReader(bytes);
    return type.decode(reader) as unknown as T;
  } catch (e) {
    throw new UserError('protobuf', `cannot decode the body as ${what}: ${(e as Error).message}`, { cause: e });
  }
}

/** The exact value of a protobufjs 64-bit integer (signedness as the field declares it). */
export function int64ToBigInt(v: Int64 | null | undefined): bigint {
  if (v === null || v === undefined) return 0n;
  if (typeof v === 'number') return BigInt(v);
  if (typeof v === 'string') return BigInt(v);
  const bits = (BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0);
  return v.unsigned ? bits : BigInt.asIntN(64, bits);
}

/** The value of a protobufjs 64-bit integer as a double (exact below 2^53). */
export function int64ToNumber(v: Int64 | null | undefined): number {
  if (v === null || v === undefined) return 0;
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return Number(v);
  return v.unsigned ? (v.high >>> 0) * 4294967296 + (v.low >>> 0) : v.high * 4294967296 + (v.low >>> 0);
}

/**
 * `Number(a - b)` of two protobufjs 64-bit integers, exactly as the BigInt difference rounds: for
 * two Longs of one signedness whose high words are close (a span's end and start) the difference
 * is below 2^53 and computed exactly from the words, without the eight BigInts of the general way.
 */
export function int64Difference(a: Int64 | null | undefined, b: Int64 | null | undefined): number {
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && a.unsigned === b.unsigned) {
    const high = a.unsigned ? (a.high >>> 0) - (b.high >>> 0) : a.high - b.high;
    if (high > -(1 << 20) && high < 1 << 20) return high * 4294967296 + ((a.low >>> 0) - (b.low >>> 0));
  }
  return Number(int64ToBigInt(a) - int64ToBigInt(b));
}
