// Line protocol -> write batches, scanned by the Wasm core (assembly/lineprotocol/, ABI in
// assembly/README.md). The body goes through a bounded window of Wasm memory, so a 160 MiB body
// never needs 160 MiB there; each window yields one batch, copied out. The host does O(series)
// work per batch plus one Number(text) per DOUBLE the core's exact fast path could not decide.
// Runtime-agnostic: no node: imports.

import type { Core } from '../core/wasm.js';
import { bug, UserError, type ErrorKind } from '../core/errors.js';
import { unitConversion, type TimeUnit } from '../core/precision.js';
import { VALUE_TYPE_NAMES, type ValueType } from '../core/write-batch.js';
import { copyBatch, scanLimits, type ScanLimits } from './wasm-scan.js';

export interface LineProtocolOptions {
  /** Timestamps are converted as ts * tsMultiplier / tsDivisor (one of them 1). */
  tsMultiplier: bigint;
  tsDivisor: bigint;
  /** Timestamp of lines without one, already in the database precision. */
  defaultTs: bigint;
}

/** The (multiplier, divisor) that convert timestamps from the request to the database precision. */
export function precisionFactors(
  request: TimeUnit,
  database: Exclude<TimeUnit, 's'>,
): { tsMultiplier: bigint; tsDivisor: bigint } {
  const { multiplier, divisor } = unitConversion(request, database);
  return { tsMultiplier: multiplier, tsDivisor: divisor };
}

interface LineProtocolExports {
  lp_input(capacity: number): number;
  lp_scan(
    ptr: number,
    len: number,
    flags: number,
    mul: bigint,
    div: bigint,
    defaultTs: bigint,
    maxBatchBytes: number,
  ): number;
  lp_result(): number;
}

// Result record fields (u32 index), assembly/README.md "Line protocol".
const R_CONSUMED = 0;
const R_LINES = 1;
const R_BATCH_PTR = 2;
const R_BATCH_LEN = 3;
const R_FIXUP_PTR = 5;
const R_FIXUP_COUNT = 6;
const R_ERR_LINE = 8;
const R_ERR_COLUMN = 9;
const R_ERR_OFFSET = 10;
const R_ERR_LENGTH = 11;
const R_ERR_WHAT = 12;
const R_ERR_TABLE_PTR = 13;
const R_ERR_TABLE_LEN = 14;
const R_ERR_COLUMN_PTR = 15;
const R_ERR_COLUMN_LEN = 16;
const R_ERR_HAVE = 17;
const R_ERR_WANT = 18;
const RESULT_WORDS = 19;

const FLAG_LAST = 1;
const FLAG_CONTINUED = 2;

/** Bytes of the offending token shown in an error message. */
const EXCERPT_BYTES = 40;

const WHAT = ['', 'measurement', 'tag', 'field'];

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Error messages by core error code (assembly/lineprotocol/status.ts); `f` renders "found X". */
const MESSAGES: Record<number, (f: string, what: string) => string> = {
  1: (f) => `invalid UTF-8, found ${f}`,
  2: (f) => `expected a measurement name, found ${f}`,
  3: (f) => `invalid escape, found ${f}`,
  4: (f) => `expected a tag key, found ${f}`,
  5: (f) => `expected '=' after the tag key, found ${f}`,
  6: (f) => `expected a tag value, found ${f}`,
  7: (f) => `expected a field set, found ${f}`,
  8: (f) => `expected a field key, found ${f}`,
  9: (f) => `expected '=' after the field key, found ${f}`,
  10: (f) => `invalid field value, expected a number, boolean or quoted string, found ${f}`,
  11: (f) => `invalid boolean, expected t, T, true, True, TRUE, f, F, false, False or FALSE, found ${f}`,
  12: (f) => `invalid number, found ${f}`,
  13: (f) => `integer out of range for BIGINT, found ${f}`,
  14: (f) => `integer out of range for BIGINT UNSIGNED, found ${f}`,
  15: (f) => `unterminated quoted string, found ${f}`,
  16: (f) => `invalid escape in a quoted string (allowed: \\" \\\\ \\'), found ${f}`,
  17: (f) => `expected ',' or a space after the field value, found ${f}`,
  18: (f) => `invalid timestamp, expected an integer, found ${f}`,
  19: (f) => `timestamp out of the 64-bit range, found ${f}`,
  20: (f) => `expected the end of the line after the timestamp, found ${f}`,
  21: (_f, what) => `${what} name longer than 65535 bytes`,
  22: (f) => `more than 65535 columns in one table, found ${f}`,
  23: (_f, what) => `'time' is reserved and cannot be a ${what} name`,
  25: (f) => `timestamp ${f} is out of range when converted to the database precision`,
};

const KINDS: Record<number, ErrorKind> = { 23: 'schemaConflict', 24: 'schemaConflict', 25: 'timestampOverflow' };

/**
 * Scans line-protocol bodies with the Wasm core. One instance per core; not re-entrant (the
 * core's scanner state is shared), which a single-threaded host guarantees by calling `scan`
 * synchronously.
 */
export class LineProtocolScanner {
  readonly #core: Core;
  readonly #exports: LineProtocolExports;
  readonly #windowBytes: number;
  readonly #maxBatchBytes: number;

  constructor(core: Core, options?: ScanLimits) {
    this.#core = core;
    this.#exports = core.exports as unknown as LineProtocolExports;
    const limits = scanLimits(options);
    this.#windowBytes = limits.windowBytes;
    this.#maxBatchBytes = limits.maxBatchBytes;
  }

  /**
   * Scans a whole request body. Returns the encoded write batches (each its own 8-aligned
   * Uint8Array, copied out of Wasm memory, readable with readWriteBatch), in body order.
   * Throws UserError ('lineProtocol', 'schemaConflict', 'timestampOverflow') naming the line and
   * byte column. An empty or comment-only body returns [].
   */
  scan(body: Uint8Array, options: LineProtocolOptions): Uint8Array[] {
    const { tsMultiplier: mul, tsDivisor: div, defaultTs } = options;
    if (mul < 1n || div < 1n || (mul !== 1n && div !== 1n)) throw bug(`bad timestamp factors ${mul}/${div}`);
    const lp = this.#exports;
    const batches: Uint8Array[] = [];
    let window = this.#windowBytes;
    let pos = 0;
    let line = 1;
    let flags = 0;
    while (pos < body.length) {
      const n = Math.min(window, body.length - pos);
      const last = pos + n === body.length;
      const ptr = lp.lp_input(n);
      if (ptr === 0) throw bug(`lp_input(${n}) failed`);
      this.#core.write(ptr, body.subarray(pos, pos + n));
      const rc = lp.lp_scan(ptr, n, flags | (last ? FLAG_LAST : 0), mul, div, defaultTs, this.#maxBatchBytes);
      flags = FLAG_CONTINUED;
      const r = new Uint32Array(this.#core.exports.memory.buffer, lp.lp_result(), RESULT_WORDS);
      if (rc < 0) throw bug(`lp_scan rejected its arguments (ptr ${ptr}, len ${n})`);
      if (rc > 0) throw this.#error(rc, r, line, ptr);
      const consumed = r[R_CONSUMED]!;
      if (consumed === 0) {
        // The first line does not fit in the window (or is cut by it): grow the window.
        if (last) throw bug('lp_scan consumed nothing of a final window');
        window *= 2;
        continue;
      }
      if (r[R_BATCH_LEN]! > 0)
        batches.push(
          copyBatch(this.#core, r[R_BATCH_PTR]!, r[R_BATCH_LEN]!, r[R_FIXUP_PTR]!, r[R_FIXUP_COUNT]!, ptr, false)!,
        );
      pos += consumed;
      line += r[R_LINES]!;
    }
    return batches;
  }

  #error(code: number, r: Uint32Array, firstLine: number, inputPtr: number): Error {
    const mem = this.#core.bytes();
    const where = `line ${firstLine + r[R_ERR_LINE]! - 1}, column ${r[R_ERR_COLUMN]!}`;
    const kind = KINDS[code] ?? 'lineProtocol';
    let message: string;
    if (code === 24) {
      const name = (p: number, n: number): string => utf8.decode(mem.subarray(r[p]!, r[p]! + r[n]!));
      const have = VALUE_TYPE_NAMES[r[R_ERR_HAVE]! as ValueType];
      const want = VALUE_TYPE_NAMES[r[R_ERR_WANT]! as ValueType];
      message = `column '${name(R_ERR_COLUMN_PTR, R_ERR_COLUMN_LEN)}' of table '${name(R_ERR_TABLE_PTR, R_ERR_TABLE_LEN)}' is ${have} in this request, written as ${want}`;
    } else {
      const start = inputPtr + r[R_ERR_OFFSET]!;
      const len = r[R_ERR_LENGTH]!;
      const found =
        code === 1
          ? `'${hexBytes(mem, start)}'`
          : len === 0
            ? 'end of line'
            : `'${excerpt(mem.subarray(start, start + len))}'`;
      const render = MESSAGES[code];
      if (render === undefined) return bug(`unknown line protocol error code ${code}`);
      message = render(found, WHAT[r[R_ERR_WHAT]!] ?? 'column');
    }
    return new UserError(kind, `${where}: ${message}`);
  }
}

/** The bytes of an invalid UTF-8 sequence as \xNN (the lead byte and its continuation bytes). */
function hexBytes(mem: Uint8Array, at: number): string {
  let s = hex(mem[at]!);
  for (let i = 1; i < 4 && at + i < mem.length && (mem[at + i]! & 0xc0) === 0x80; i++) s += hex(mem[at + i]!);
  return s;
}

function hex(b: number): string {
  return '\\x' + b.toString(16).padStart(2, '0');
}

/**
 * A token for an error message: at most EXCERPT_BYTES bytes; backslash, control and invalid bytes
 * escaped as Rust's and JSON's string literals do (`\\`, `\n`, `\x00`).
 */
export function excerpt(bytes: Uint8Array): string {
  const n = Math.min(bytes.length, EXCERPT_BYTES);
  let s = '';
  let i = 0;
  while (i < n) {
    const b = bytes[i]!;
    if (b >= 0x20 && b < 0x7f) {
      s += b === 0x5c ? '\\\\' : String.fromCharCode(b);
      i++;
    } else if (b < 0x80) {
      s += b === 0x0a ? '\\n' : b === 0x0d ? '\\r' : b === 0x09 ? '\\t' : hex(b);
      i++;
    } else {
      const len = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
      let ch: string | undefined;
      if (len > 1 && i + len <= bytes.length) {
        try {
          ch = utf8.decode(bytes.subarray(i, i + len));
        } catch {
          ch = undefined;
        }
      }
      if (ch === undefined) {
        s += hex(b);
        i++;
      } else {
        s += ch;
        i += len;
      }
    }
  }
  return bytes.length > n ? s + '...' : s;
}
