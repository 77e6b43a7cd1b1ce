// The column codecs segment files use: the Wasm core's (host/core/codecs.ts, FORMAT.md §4),
// with zstd from zstd-napi for STRING blocks. One place, so that the server, its tools and its
// tests always read a directory with the codecs that wrote it.

import { isUtf8 } from 'node:buffer';
import * as zstd from 'zstd-napi';
import { BlockCodecs, type DecodedUtf8 } from '../../core/codecs.js';
import { CorruptionError } from '../../core/errors.js';
import type { Core } from '../../core/wasm.js';
import type { FieldType } from '../../core/write-batch.js';
import type { ColumnCodecs, DecodedColumn } from './column-codecs.js';
import type { FieldValues, Utf8Buffer } from '../series/index.js';

/** CorruptionError's source for a block (the segment reader names the file and offset). */
const SOURCE = 'column block';

/** ColumnCodecs over BlockCodecs. Not re-entrant, like BlockCodecs: calls are synchronous. */
export class WasmColumnCodecs implements ColumnCodecs {
  readonly #codecs: BlockCodecs;

  constructor(core: Core) {
    this.#codecs = BlockCodecs.create(core, zstd);
  }

  encodeTime(ts: BigInt64Array, codec: string): Uint8Array {
    return this.#codecs.encodeTimestamps(ts, ts.length, codec);
  }

  decodeTime(block: Uint8Array, rows: number): BigInt64Array {
    return this.#codecs.decodeTimestamps(block, rows);
  }

  encodeValues(type: FieldType, values: FieldValues, validity: Uint8Array | undefined, codec: string): Uint8Array {
    return this.#codecs.encode(type, values, validity, values.length, codec);
  }

  encodeUtf8(values: Utf8Buffer, rows: number, validity: Uint8Array | undefined, codec: string): Uint8Array {
    return this.#codecs.encodeUtf8(values.offsets, values.bytes, validity, rows, codec);
  }

  decodeValues(type: FieldType, block: Uint8Array, rows: number): DecodedColumn {
    return this.#codecs.decode(type, block, rows);
  }

  decodeUtf8(block: Uint8Array, rows: number): DecodedUtf8 {
    const d = this.#codecs.decodeUtf8(block, rows);
    checkUtf8(d);
    return d;
  }
}

/** Whether every dictionary value is UTF-8: the whole, and no value starting inside a character. */
function checkUtf8(d: DecodedUtf8): void {
  const { dictOffsets, dictBytes } = d;
  if (!isUtf8(dictBytes)) throw new CorruptionError(SOURCE, 0, 'string dictionary is not valid UTF-8');
  for (let j = 0; j < dictOffsets.length - 1; j++) {
    if ((dictBytes[dictOffsets[j]!]! & 0xc0) === 0x80)
      throw new CorruptionError(SOURCE, 0, `string ${j} of the dictionary is not valid UTF-8`);
  }
}

const byCore = new WeakMap<Core, ColumnCodecs>();

/** The codecs for segment blocks (one per core instance). */
export function storageCodecs(core: Core): ColumnCodecs {
  let c = byCore.get(core);
  if (c === undefined) byCore.set(core, (c = new WasmColumnCodecs(core)));
  return c;
}
