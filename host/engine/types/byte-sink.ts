// A growable byte buffer the result writers fill in place: ASCII and integers are written byte by
// byte with no intermediate strings (STYLE.md §23: the CSV hot loop must not allocate per value),
// other text through TextEncoder.encodeInto. One sink is reused for every batch of a result.

import { writeUtf8 } from '../../core/utf8.js';

const encoder = new TextEncoder();

/** 10^0 .. 10^22: every power of ten a double holds exactly. */
export const POW10: readonly number[] = Array.from({ length: 23 }, (_, i) => Number(`1e${i}`));

export class ByteSink {
  buf: Uint8Array;
  pos = 0;

  /** Small by default: most results are a few rows, and a writer's sink grows once to its batches' size. */
  constructor(initialBytes = 1 << 12) {
    this.buf = new Uint8Array(initialBytes);
  }

  /** Makes room for `n` more bytes. Callers reserve once per row for fixed-width values. */
  reserve(n: number): void {
    const need = this.pos + n;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  /** The bytes written since the last take, as a new array the caller owns; the sink is emptied. */
  take(): Uint8Array {
    const out = this.buf.slice(0, this.pos);
    this.pos = 0;
    return out;
  }

  byte(b: number): void {
    this.reserve(1);
    this.buf[this.pos++] = b;
  }

  bytes(b: Uint8Array): void {
    this.reserve(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** A string known to be ASCII (digits, punctuation, formatted numbers and times). */
  ascii(s: string): void {
    const n = s.length;
    this.reserve(n);
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < n; i++) buf[p++] = s.charCodeAt(i);
    this.pos = p;
  }

  /** Any string as UTF-8 (lone surrogates become U+FFFD, as TextEncoder does). */
  utf8(s: string): void {
    this.reserve(s.length * 3);
    this.pos += writeUtf8(s, this.buf, this.pos);
  }

  /**
   * A safe integer (|n| < 2^53) in decimal, with no allocation. The caller has reserved 21 bytes.
   */
  int(n: number): void {
    const buf = this.buf;
    let p = this.pos;
    if (n < 0) {
      buf[p++] = 45; // '-'
      n = -n;
    }
    const len = digitCount(n);
    let end = p + len;
    this.pos = end;
    if (n < 2147483648) {
      let v = n | 0;
      while (v >= 10) {
        const q = (v / 10) | 0;
        buf[--end] = 48 + v - q * 10;
        v = q;
      }
      buf[--end] = 48 + v;
      return;
    }
    while (n >= 10) {
      const q = Math.floor(n / 10);
      buf[--end] = 48 + n - q * 10;
      n = q;
    }
    buf[--end] = 48 + n;
  }

  /** `n` (0 <= n < 10^width, a safe integer) zero-padded to `width` digits; reserved by the caller. */
  padded(n: number, width: number): void {
    if (n >= 1e9) {
      // Nine low digits at a time, so that the loop below stays in 32-bit integer arithmetic.
      const high = Math.floor(n / 1e9);
      this.padded(high, width - 9);
      this.padded(n - high * 1e9, 9);
      return;
    }
    const buf = this.buf;
    const start = this.pos;
    let end = start + width;
    this.pos = end;
    let v = n | 0;
    while (v !== 0) {
      const q = (v / 10) | 0;
      buf[--end] = 48 + v - q * 10;
      v = q;
    }
    while (end > start) buf[--end] = 48;
  }
}

/** Decimal digits of a non-negative safe integer. */
export function digitCount(n: number): number {
  if (n < 1e8) {
    if (n < 1e4) return n < 10 ? 1 : n < 100 ? 2 : n < 1000 ? 3 : 4;
    return n < 1e5 ? 5 : n < 1e6 ? 6 : n < 1e7 ? 7 : 8;
  }
  let d = 9;
  while (d < 22 && n >= POW10[d]!) d++;
  return d;
}

/** Bytes of an ASCII or UTF-8 string, for precomputed header and key fragments. */
export function utf8Bytes(s: string): Uint8Array {
  return encoder.encode(s);
}
