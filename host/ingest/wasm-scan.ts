// The host side of the Wasm core's OpenTSDB and JSON log scans: the body fed through a bounded
// window of Wasm memory cut at line ends, the result record of each call (assembly/README.md:
// consumed, batch pointer and length, rows, fixups pointer and count, as u32 words), and the
// batch of any of the core's scans (line protocol too) copied out of Wasm memory with the DOUBLEs
// the core's exact fast path left to the host filled in by Number(text), so every DOUBLE is
// bit-identical to the TypeScript reference's parse. Runtime-agnostic.

import { bug } from '../core/errors.js';
import type { Core } from '../core/wasm.js';

const R_CONSUMED = 0;
const R_BATCH_PTR = 1;
const R_BATCH_LEN = 2;
const R_ROWS = 3;
const R_FIXUP_PTR = 4;
const R_FIXUP_COUNT = 5;
const RESULT_WORDS = 6;

const ascii = new TextDecoder('utf-8');
const LF = 10;
/** scan()'s return for a body the core left to the reference parser. */
const BAIL = 1;

/** Options every Wasm scanner takes. */
export interface ScanLimits {
  /** Wasm memory used for the body at a time (default 8 MiB); a longer line grows it for the call. */
  windowBytes?: number;
  /**
   * Estimated batch size after which a batch ends early (default 64 MiB, at most 4 GiB - 1; a
   * batch always holds at least one row), bounding memory for sparse columns.
   */
  maxBatchBytes?: number;
}

/** `options` with the defaults filled in and the values brought into range. */
export function scanLimits(options: ScanLimits | undefined): Required<ScanLimits> {
  return {
    windowBytes: Math.max(1, Math.floor(options?.windowBytes ?? 8 * 1024 * 1024)),
    maxBatchBytes: Math.max(1, Math.min(0xffffffff, Math.floor(options?.maxBatchBytes ?? 64 * 1024 * 1024))),
  };
}

/** One scan kind's exports: its input window, a call over `[ptr, ptr + len)`, its result record. */
export interface WindowScan {
  name: string;
  input(capacity: number): number;
  /** `first`: the request's first window; `last`: its last. Returns 0, BAIL (1), or a bug code. */
  scan(ptr: number, len: number, first: boolean, last: boolean): number;
  result(): number;
}

/**
 * Scans `body` window by window (each at most `windowBytes`, cut after its last newline, grown
 * for a longer line or when the core takes nothing of a window that is not the last): the
 * batches and their rows, or undefined when the core bailed or left a non-finite DOUBLE.
 */
export function scanInWindows(
  core: Core,
  body: Uint8Array,
  windowBytes: number,
  kind: WindowScan,
): { batches: Uint8Array[]; rows: number } | undefined {
  const batches: Uint8Array[] = [];
  let rows = 0;
  let window = windowBytes;
  let pos = 0;
  while (pos < body.length) {
    let n = Math.min(window, body.length - pos);
    const last = pos + n === body.length;
    if (!last) {
      const cut = body.lastIndexOf(LF, pos + n - 1);
      if (cut < pos) {
        window *= 2; // a line longer than the window
        continue;
      }
      n = cut + 1 - pos;
    }
    const ptr = kind.input(n);
    if (ptr === 0) throw bug(`${kind.name}_input(${n}) failed`);
    core.write(ptr, body.subarray(pos, pos + n));
    const rc = kind.scan(ptr, n, pos === 0, last);
    if (rc === BAIL) return undefined;
    if (rc !== 0) throw bug(`${kind.name}_scan returned ${rc} (ptr ${ptr}, len ${n})`);
    const r = scanResult(core, kind.result());
    const consumed = r[R_CONSUMED]!;
    if (r[R_BATCH_LEN]! > 0) {
      rows += r[R_ROWS]!;
      const batch = copyScannedBatch(core, r, ptr);
      if (batch === undefined) return undefined;
      batches.push(batch);
    } else if (consumed < n) {
      // Nothing taken: a bulk action whose document lies past this window.
      if (last) throw bug(`${kind.name}_scan took ${consumed} of the last ${n} bytes and made no rows`);
      window *= 2;
    }
    pos += consumed;
  }
  return { batches, rows };
}

/** A view of the record at `ptr` (valid until the core's memory grows). */
function scanResult(core: Core, ptr: number): Uint32Array {
  return new Uint32Array(core.exports.memory.buffer, ptr, RESULT_WORDS);
}

/**
 * Copies the batch of result `r` out and fills in its fixups (tokens at offsets from `inputPtr`);
 * undefined if one is not a finite DOUBLE, which the reference refuses or stores on its own terms.
 */
function copyScannedBatch(core: Core, r: Uint32Array, inputPtr: number): Uint8Array | undefined {
  return copyBatch(core, r[R_BATCH_PTR]!, r[R_BATCH_LEN]!, r[R_FIXUP_PTR]!, r[R_FIXUP_COUNT]!, inputPtr, true);
}

/**
 * Copies the batch `[at, at + len)` out of Wasm memory and fills in its `count` fixups (12 bytes
 * each at `fixupPtr`: token offset from `inputPtr`, token length, destination offset in the batch)
 * with Number(text); with `finiteOnly`, undefined if one is not finite.
 */
export function copyBatch(
  core: Core,
  at: number,
  len: number,
  fixupPtr: number,
  count: number,
  inputPtr: number,
  finiteOnly: boolean,
): Uint8Array | undefined {
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
