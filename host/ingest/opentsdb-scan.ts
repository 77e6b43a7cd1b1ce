// OpenTSDB text -> write batches through the Wasm core's scanner (assembly/opentsdb/, ABI in
// assembly/README.md), the fast path of parseOpenTsdbText: the body goes through a bounded window
// of Wasm memory cut at line ends, each window yields one batch (copied out), and the host fills
// in the DOUBLEs the core's exact fast path left to Number(text). The core takes only lines it is
// sure of; for anything else (every error, a tag key given twice) it bails and the caller parses
// the body with the TypeScript reference, whose messages and checks stay the only ones.
// Runtime-agnostic: no node: imports.

import { bug } from '../core/errors.js';
import { unitConversion, type TimeUnit } from '../core/precision.js';
import type { Core } from '../core/wasm.js';
import { copyScannedBatch, R_BATCH_LEN, R_CONSUMED, scanResult } from './scan-result.js';

interface OpenTsdbExports {
  tsdb_input(capacity: number): number;
  tsdb_scan(ptr: number, len: number, flags: number, sMul: bigint, sDiv: bigint, msMul: bigint, msDiv: bigint, maxBatchBytes: number): number;
  tsdb_result(): number;
}

const FLAG_CONTINUED = 1;
const FLAG_FIXED_UNIT = 2;
const BAIL = 1;

const DEFAULT_WINDOW_BYTES = 8 * 1024 * 1024;
const DEFAULT_MAX_BATCH_BYTES = 64 * 1024 * 1024;
const LF = 10;

export interface OpenTsdbScanOptions {
  /** The request's `precision`; undefined applies OpenTSDB's 10/13-digit rule. */
  precision: TimeUnit | undefined;
  dbUnit: TimeUnit;
}

/** Scans OpenTSDB text with the Wasm core. One per core; not re-entrant (the core's scanner state is shared). */
export class OpenTsdbScanner {
  readonly #core: Core;
  readonly #exports: OpenTsdbExports;
  readonly #windowBytes: number;
  readonly #maxBatchBytes: number;

  constructor(core: Core, options?: { windowBytes?: number; maxBatchBytes?: number }) {
    this.#core = core;
    this.#exports = core.exports as unknown as OpenTsdbExports;
    this.#windowBytes = Math.max(1, Math.floor(options?.windowBytes ?? DEFAULT_WINDOW_BYTES));
    this.#maxBatchBytes = Math.max(1, Math.min(0xffffffff, Math.floor(options?.maxBatchBytes ?? DEFAULT_MAX_BATCH_BYTES)));
  }

  /**
   * The encoded write batches of a whole body (each its own 8-aligned Uint8Array), or undefined
   * when the core bailed: the caller must parse the body with the reference parser.
   */
  scan(body: Uint8Array, options: OpenTsdbScanOptions): Uint8Array[] | undefined {
    const fixed = options.precision !== undefined;
    const s = unitConversion(options.precision ?? 's', options.dbUnit);
    const ms = unitConversion('ms', options.dbUnit);
    const x = this.#exports;
    const batches: Uint8Array[] = [];
    let window = this.#windowBytes;
    let pos = 0;
    let flags = fixed ? FLAG_FIXED_UNIT : 0;
    while (pos < body.length) {
      let n = Math.min(window, body.length - pos);
      if (pos + n < body.length) {
        // Whole lines only: cut after the window's last newline.
        const cut = body.lastIndexOf(LF, pos + n - 1);
        if (cut < pos) {
          window *= 2; // a line longer than the window
          continue;
        }
        n = cut + 1 - pos;
      }
      const ptr = x.tsdb_input(n);
      if (ptr === 0) throw bug(`tsdb_input(${n}) failed`);
      this.#core.write(ptr, body.subarray(pos, pos + n));
      const rc = x.tsdb_scan(ptr, n, flags, s.multiplier, s.divisor, ms.multiplier, ms.divisor, this.#maxBatchBytes);
      flags |= FLAG_CONTINUED;
      if (rc === BAIL) return undefined;
      if (rc !== 0) throw bug(`tsdb_scan returned ${rc} (ptr ${ptr}, len ${n})`);
      const r = scanResult(this.#core, x.tsdb_result());
      const consumed = r[R_CONSUMED]!;
      if (consumed === 0) throw bug(`tsdb_scan consumed nothing of ${n} bytes`);
      if (r[R_BATCH_LEN]! > 0) {
        const batch = copyScannedBatch(this.#core, r, ptr);
        if (batch === undefined) return undefined;
        batches.push(batch);
      }
      pos += consumed;
    }
    return batches;
  }
}
