// The text of a whole column of doubles at once, through the Wasm core's k_format_f64 (shortest
// round-trip digits by Ryū's method, assembly/kernels/shortest.ts) when the kernels are installed:
// about five times faster than one String(x) per value, which a CSV of measurements spent most of
// its time in. The bytes are exactly what writeArrowF64 / writeJsonF64 (types/float-text.ts) write
// (tested against them); short columns and engines without the core keep those.

import { type ByteSink, kernelCore } from '../types/index.js';

interface FormatExports {
  memory: WebAssembly.Memory;
  k_region(bytes: number): number;
  k_format_f64(values: number, n: number, style: number, out: number, ends: number): number;
}

/** Bytes of one value at most (assembly/kernels/float-text.ts F64_TEXT_MAX). */
const TEXT_MAX = 32;
/** Below this many rows the per-value path costs less than the copies in and out. */
export const MIN_COLUMN_ROWS = 32;

/** The texts of a column: value i is bytes [ends[i - 1] (0 for i = 0), ends[i]). */
export interface FloatTexts {
  bytes: Uint8Array;
  ends: Uint32Array;
}

/** 0: Arrow's display (CSV, TSV); 1: serde_json, NaN and infinities as `null`. */
export type FloatStyle = 0 | 1;

/** The column's texts, or undefined when the caller should format value by value. */
export function formatFloatColumn(values: Float64Array, style: FloatStyle): FloatTexts | undefined {
  const n = values.length;
  if (n < MIN_COLUMN_ROWS) return undefined;
  const core = kernelCore();
  const k = core?.exports as Partial<FormatExports> | undefined;
  if (k?.k_format_f64 === undefined || k.k_region === undefined || k.memory === undefined) return undefined;
  const base = k.k_region(n * (8 + TEXT_MAX + 4));
  if (base === 0) return undefined;
  const out = base + n * 8;
  const ends = out + n * TEXT_MAX;
  new Float64Array(k.memory.buffer, base, n).set(values);
  const bytes = k.k_format_f64(base, n, style, out, ends);
  if (bytes < 0) throw new Error(`BUG: k_format_f64 returned ${bytes}`);
  const mem = k.memory.buffer;
  return { bytes: new Uint8Array(mem, out, bytes).slice(), ends: new Uint32Array(mem, ends, n).slice() };
}

/** Appends value `i` of `t` (at most TEXT_MAX bytes: the writers' per-field reserve covers it). */
export function copyText(sink: ByteSink, t: FloatTexts, i: number): void {
  const from = i === 0 ? 0 : t.ends[i - 1]!;
  const to = t.ends[i]!;
  const src = t.bytes;
  const buf = sink.buf;
  let p = sink.pos;
  for (let j = from; j < to; j++) buf[p++] = src[j]!;
  sink.pos = p;
}
