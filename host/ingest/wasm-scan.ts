// The result record of the Wasm core's OpenTSDB and JSON log scans (assembly/README.md: consumed,
// batch pointer and length, rows, fixups pointer and count, as u32 words) and the batch of any of
// the core's scans (line protocol too), copied out of Wasm memory with the DOUBLEs the core's exact
// fast path left to the host filled in by Number(text), so every DOUBLE is bit-identical to the
// TypeScript reference's parse. Runtime-agnostic.

import type { Core } from '../core/wasm.js';

export const R_CONSUMED = 0;
export const R_BATCH_PTR = 1;
export const R_BATCH_LEN = 2;
export const R_ROWS = 3;
export const R_FIXUP_PTR = 4;
export const R_FIXUP_COUNT = 5;
const RESULT_WORDS = 6;

const ascii = new TextDecoder('utf-8');

/** A view of the record at `ptr` (valid until the core's memory grows). */
export function scanResult(core: Core, ptr: number): Uint32Array {
  return new Uint32Array(core.exports.memory.buffer, ptr, RESULT_WORDS);
}

/**
 * Copies the batch of result `r` out and fills in its fixups (tokens at offsets from `inputPtr`);
 * undefined if one is not a finite DOUBLE, which the reference refuses or stores on its own terms.
 */
export function copyScannedBatch(core: Core, r: Uint32Array, inputPtr: number): Uint8Array | undefined {
  return copyBatch(core, r[R_BATCH_PTR]!, r[R_BATCH_LEN]!, r[R_FIXUP_PTR]!, r[R_FIXUP_COUNT]!, inputPtr, true);
}

/**
 * Copies the batch `[at, at + len)` out of Wasm memory and fills in its `count` fixups (12 bytes
 * each at `fixupPtr`: token offset from `inputPtr`, token length, destination offset in the batch)
 * with Number(text); with `finiteOnly`, undefined if one is not finite.
 */
export function copyBatch(core: Core, at: number, len: number, fixupPtr: number, count: number, inputPtr: number, finiteOnly: boolean): Uint8Array | undefined {
  const mem = core.bytes();
  const batch = mem.slice(at, at + len);
  if (count > 0) {
    const fixups = new Uint32Array(mem.buffer, fixupPtr, count * 3);
    const dv = new DataView(batch.buffer);
    for (let i = 0; i < count * 3; i += 3) {
      const src = inputPtr + fixups[i]!;
      const v = Number(ascii.decode(mem.subarray(src, src + fixups[i + 1]!)));
      if (finiteOnly && !Number.isFinite(v)) return undefined;
      dv.setFloat64(fixups[i + 2]!, v, true);
    }
  }
  return batch;
}
