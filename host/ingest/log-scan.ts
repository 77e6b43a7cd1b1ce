// NDJSON and Elasticsearch bulk bodies -> write batches through the Wasm core's JSON log scanner
// (assembly/jsonlogs/, ABI in assembly/README.md), the fast path of es-bulk.ts: the body goes
// through a bounded window of Wasm memory cut at line ends, each window yields one batch (copied
// out), and the host fills in the DOUBLEs the core's exact fast path left to Number(text). The
// core takes only documents it is sure of; for anything else (every error, and the rare valid
// shapes it leaves alone, listed in assembly/jsonlogs/scanner.ts) it bails, and the caller parses
// the body with the TypeScript reference, whose rows, messages and checks stay the only ones.
// Runtime-agnostic: no node: imports.

import { unitConversion } from '../core/precision.js';
import type { Core } from '../core/wasm.js';
import { readWriteBatch } from '../core/write-batch.js';
import type { LogOptions } from './log-documents.js';
import { scanInWindows, scanLimits, type ScanLimits } from './wasm-scan.js';

interface JsonLogExports {
  json_input(capacity: number): number;
  json_config(capacity: number): number;
  json_scan(
    ptr: number,
    len: number,
    flags: number,
    configLen: number,
    now: bigint,
    mul: bigint,
    div: bigint,
    maxBatchBytes: number,
  ): number;
  json_result(): number;
}

const FLAG_CONTINUED = 1;
const FLAG_LAST = 2;
const FLAG_BULK = 4;

const encoder = new TextEncoder();

export interface LogScan {
  batches: Uint8Array[];
  /** Documents stored (rows of the batches). */
  rows: number;
}

/** Scans log bodies with the Wasm core. One per core; not re-entrant (the core's scanner state is shared). */
export class LogScanner {
  readonly #core: Core;
  readonly #exports: JsonLogExports;
  readonly #windowBytes: number;
  readonly #maxBatchBytes: number;

  constructor(core: Core, options?: ScanLimits) {
    this.#core = core;
    this.#exports = core.exports as unknown as JsonLogExports;
    const limits = scanLimits(options);
    this.#windowBytes = limits.windowBytes;
    this.#maxBatchBytes = limits.maxBatchBytes;
  }

  /**
   * The batches of a whole body, or undefined when the core bailed: the caller must parse the
   * body with the reference parser. `action`, for a bulk body: the text of its first action line,
   * which the caller has checked, and which every action line must repeat exactly.
   */
  scan(body: Uint8Array, options: LogOptions, action?: string): LogScan | undefined {
    const x = this.#exports;
    const configLen = this.#configure(options, action);
    if (configLen === undefined) return undefined;
    const conv = unitConversion('ns', options.dbUnit);
    const bulk = action === undefined ? 0 : FLAG_BULK;
    const out = scanInWindows(this.#core, body, this.#windowBytes, {
      name: 'json',
      input: (n) => x.json_input(n),
      scan: (ptr, n, first, last) =>
        x.json_scan(
          ptr,
          n,
          bulk | (first ? 0 : FLAG_CONTINUED) | (last ? FLAG_LAST : 0),
          configLen,
          options.now,
          conv.multiplier,
          conv.divisor,
          this.#maxBatchBytes,
        ),
      result: () => x.json_result(),
    });
    // The core keeps the rows of one series apart within a batch; across batches it cannot tell.
    return out === undefined || out.batches.length === 1 || seriesApart(out.batches) ? out : undefined;
  }

  /** Writes the configuration area; its length, or undefined when the options are not the scanner's to take. */
  #configure(options: LogOptions, action: string | undefined): number | undefined {
    const parts = [options.table, options.timeColumn, action ?? ''].map((s) => encoder.encode(s));
    const tags = [...options.tagColumns].map((s) => encoder.encode(s));
    // Names the reference refuses (an empty table, a tag named `time`, names past 64 KiB) are its to word.
    // A fallback time other than `time` (which the core bails on as a field name) is the reference's too.
    if (options.fallbackTimeColumn !== undefined && options.fallbackTimeColumn !== 'time') return undefined;
    if (
      parts[0]!.length === 0 ||
      parts[0]!.length > 65535 ||
      options.tagColumns.has('time') ||
      tags.some((b) => b.length > 65535)
    )
      return undefined;
    const len = [...parts, ...tags].reduce((n, b) => n + 4 + b.length, 4);
    const ptr = this.#exports.json_config(len + 16 * tags.length);
    if (ptr === 0) return undefined;
    const mem = this.#core.bytes();
    const dv = new DataView(mem.buffer);
    let at = ptr;
    const put = (b: Uint8Array): void => {
      dv.setUint32(at, b.length, true);
      mem.set(b, at + 4);
      at += 4 + b.length;
    };
    for (const b of parts) put(b);
    dv.setUint32(at, tags.length, true);
    at += 4;
    for (const b of tags) put(b);
    return len;
  }
}

/**
 * Whether no series has rows in two of `batches` whose time ranges meet: documents of one series
 * at one time must go to the reference, which keeps them apart (log-documents.ts).
 */
function seriesApart(batches: Uint8Array[]): boolean {
  const ranges = new Map<string, Array<[bigint, bigint]>>();
  for (const bytes of batches) {
    for (const table of readWriteBatch(bytes, 'JSON log scan').tables) {
      for (const series of table.series) {
        const key = `${table.name}\u0000${series.key}`;
        let list = ranges.get(key);
        if (list === undefined) ranges.set(key, (list = []));
        for (const [min, max] of list) if (series.minTs <= max && series.maxTs >= min) return false;
        list.push([series.minTs, series.maxTs]);
      }
    }
  }
  return true;
}
