// What the segment layer needs from the column codecs: encode one column block, decode it back.
// Blocks are self-describing (their first bytes name the codec), so a reader needs only the value
// type and the row count, both in the segment footer. The Wasm codecs (host/core/codecs.ts,
// FORMAT.md §4) implement it (codecs.ts); the segment layer knows only this interface.
//
// Contract: inputs hold exactly `rows` values (the caller slices); returned arrays and bytes are
// owned by the caller (never views into Wasm memory). Decoders throw on malformed input; the
// segment reader wraps that in a CorruptionError naming the file and offset.

import type { DecodedUtf8 } from '../../core/codecs.js';
import type { FieldType } from '../../core/write-batch.js';
import type { FieldValues, Utf8Buffer } from '../series/index.js';

export type { DecodedUtf8 };

export interface DecodedColumn {
  values: FieldValues;
  /** 1 = present; undefined when every row is present. */
  validity: Uint8Array | undefined;
}

export interface ColumnCodecs {
  /** `codec` is the column's CnosDB codec name (upper case, DEFAULT unless chosen). */
  encodeTime(ts: BigInt64Array, codec: string): Uint8Array;
  decodeTime(block: Uint8Array, rows: number): BigInt64Array;
  encodeValues(type: FieldType, values: FieldValues, validity: Uint8Array | undefined, codec: string): Uint8Array;
  /** A STRING block of rows [0, rows) of UTF-8 values (what encodeValues makes of them as strings). */
  encodeUtf8(values: Utf8Buffer, rows: number, validity: Uint8Array | undefined, codec: string): Uint8Array;
  decodeValues(type: FieldType, block: Uint8Array, rows: number): DecodedColumn;
  /** A STRING block as its dictionary of UTF-8 values (checked), without a string per value. */
  decodeUtf8(block: Uint8Array, rows: number): DecodedUtf8;
}
