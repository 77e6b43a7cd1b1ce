// Decoding protobuf bodies with protobufjs and turning its values into ours: a decode failure
// (truncated message, invalid wire type) is the client's 400 040017, never a 500; 64-bit
// integers arrive as Long objects (protobufjs uses the `long` package when present) or numbers
// and leave as exact BigInts. Runtime-agnostic.

import type protobuf from 'protobufjs';
import { UserError } from '../core/errors.js';

/** A 64-bit integer as protobufjs hands it out. */
export type Int64 = number | string | { low: number; high: number; unsigned: boolean };

/** Decodes `bytes` as `type`; throws UserError('protobuf') naming `what` on malformed input. */
export function decodeMessage<T>(type: protobuf.Type, bytes: Uint8Array, what: string): T {
  try {
    return type.decode(bytes) as unknown as T;
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
