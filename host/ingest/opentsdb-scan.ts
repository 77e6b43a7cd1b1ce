// OpenTSDB text -> write batches through the Wasm core's scanner (assembly/opentsdb/, ABI in
// assembly/README.md), the fast path of parseOpenTsdbText: the body goes through a bounded window
// of Wasm memory cut at line ends, each window yields one batch (copied out), and the host fills
// in the DOUBLEs the core's exact fast path left to Number(text) (wasm-scan.ts). The core takes only lines it is
// sure of; for anything else (every error, a tag key given twice) it bails and the caller parses
// the body with the TypeScript reference, whose messages and checks stay the only ones.
// Runtime-agnostic: no node: imports.

import { unitConversion, type RequestUnit, type TimeUnit } from '../core/precision.js';
import type { Core } from '../core/wasm.js';
import { scanInWindows, scanLimits, type ScanLimits } from './wasm-scan.js';

interface OpenTsdbExports {
  tsdb_input(capacity: number): number;
  tsdb_scan(
    ptr: number,
    len: number,
    flags: number,
    sMul: bigint,
    sDiv: bigint,
    msMul: bigint,
    msDiv: bigint,
    maxBatchBytes: number,
  ): number;
  tsdb_result(): number;
}

const FLAG_CONTINUED = 1;
const FLAG_FIXED_UNIT = 2;

export interface OpenTsdbScanOptions {
  /** The request's `precision`; undefined applies OpenTSDB's 10/13-digit rule. */
  precision: RequestUnit | undefined;
  dbUnit: TimeUnit;
}

/** Scans OpenTSDB text with the Wasm core. One per core; not re-entrant (the core's scanner state is shared). */
export class OpenTsdbScanner {
  readonly #core: Core;
  readonly #exports: OpenTsdbExports;
  readonly #windowBytes: number;
  readonly #maxBatchBytes: number;

  constructor(core: Core, options?: ScanLimits) {
    this.#core = core;
    this.#exports = core.exports as unknown as OpenTsdbExports;
    const limits = scanLimits(options);
    this.#windowBytes = limits.windowBytes;
    this.#maxBatchBytes = limits.maxBatchBytes;
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
    const flags = fixed ? FLAG_FIXED_UNIT : 0;
    return scanInWindows(this.#core, body, this.#windowBytes, {
      name: 'tsdb',
      input: (n) => x.tsdb_input(n),
      scan: (ptr, n, first) =>
        x.tsdb_scan(
          ptr,
          n,
          flags | (first ? 0 : FLAG_CONTINUED),
          s.multiplier,
          s.divisor,
          ms.multiplier,
          ms.divisor,
          this.#maxBatchBytes,
        ),
      result: () => x.tsdb_result(),
    })?.batches;
  }
}
