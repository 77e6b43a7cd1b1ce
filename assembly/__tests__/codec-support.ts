// Helpers for the codec specs: values in, blocks as hex out (STYLE.md §18), round trips compared
// bit for bit, and corruption sweeps that decode every truncation and every single-byte change
// of a block placed at the very end of Wasm memory, so that any read past the block traps.
import {
  codec_decode_bool, codec_decode_f64, codec_decode_i64, codec_decode_str, codec_encode_bool,
  codec_encode_f64, codec_encode_i64, codec_encode_str, codec_result,
} from '../codecs/index';

export type Decoder = (block: usize, len: u32, n: u32) => i32;

/** A copy of an encoded block in its own heap memory. */
export class Block {
  constructor(public ptr: usize, public len: u32) {}
  hex(): string {
    return hex(this.ptr, this.len);
  }
}

export function hex(p: usize, n: usize): string {
  const digits = '0123456789abcdef';
  const chars = new Array<string>(<i32>n);
  for (let i: usize = 0; i < n; i++) {
    const b = load<u8>(p + i);
    chars[<i32>i] = digits.charAt(b >> 4) + digits.charAt(b & 15);
  }
  return chars.join('');
}

export function fromHex(s: string): Block {
  const n = <u32>(s.length >> 1);
  const p = heap.alloc(n + 1);
  for (let i: u32 = 0; i < n; i++) store<u8>(p + i, <u8>I32.parseInt(s.substr(i << 1, 2), 16));
  return new Block(p, n);
}

@inline export function resultWord(i: usize): u32 {
  return load<u32>(codec_result() + (i << 2));
}

function copyResult(rc: i32): Block {
  if (rc < 0) return new Block(0, 0);
  const n = <u32>rc;
  const p = heap.alloc(n + 1);
  memory.copy(p, resultWord(0), n);
  return new Block(p, n);
}

function validityPtr(valid: u8[] | null): usize {
  if (valid == null) return 0;
  const p = heap.alloc(valid.length + 1);
  for (let i = 0; i < valid.length; i++) store<u8>(p + i, valid[i]);
  return p;
}

export function encodeI64(values: u64[], valid: u8[] | null, mode: u32): Block {
  const src = heap.alloc(<usize>values.length * 8 + 8);
  for (let i = 0; i < values.length; i++) store<u64>(src + (<usize>i << 3), values[i]);
  return copyResult(codec_encode_i64(src, values.length, validityPtr(valid), mode));
}

export function encodeF64(bits: u64[], valid: u8[] | null, mode: u32): Block {
  const src = heap.alloc(<usize>bits.length * 8 + 8);
  for (let i = 0; i < bits.length; i++) store<u64>(src + (<usize>i << 3), bits[i]);
  return copyResult(codec_encode_f64(src, bits.length, validityPtr(valid), mode));
}

export function encodeBool(values: u8[], valid: u8[] | null, mode: u32): Block {
  const src = heap.alloc(values.length + 1);
  for (let i = 0; i < values.length; i++) store<u8>(src + i, values[i]);
  return copyResult(codec_encode_bool(src, values.length, validityPtr(valid), mode));
}

export function encodeStr(values: string[], valid: u8[] | null, mode: u32): Block {
  const n = values.length;
  const offsets = heap.alloc((<usize>n + 1) << 2);
  let total: usize = 0;
  for (let i = 0; i < n; i++) total += <usize>String.UTF8.byteLength(values[i]);
  const bytes = heap.alloc(total + 1);
  let at: u32 = 0;
  store<u32>(offsets, 0);
  for (let i = 0; i < n; i++) {
    const len = String.UTF8.byteLength(values[i]);
    String.UTF8.encodeUnsafe(changetype<usize>(values[i]), values[i].length, bytes + at);
    at += <u32>len;
    store<u32>(offsets + ((<usize>i + 1) << 2), at);
  }
  return copyResult(codec_encode_str(offsets, bytes, n, validityPtr(valid), mode));
}

/** Decoded u64 values (or f64 bits) of the last i64/f64 decode. */
export function decodedU64(n: i32): u64[] {
  const out = new Array<u64>(n);
  const p = <usize>resultWord(0);
  for (let i = 0; i < n; i++) out[i] = load<u64>(p + (<usize>i << 3));
  return out;
}

export function decodedU8(n: i32): u8[] {
  const out = new Array<u8>(n);
  const p = <usize>resultWord(0);
  for (let i = 0; i < n; i++) out[i] = load<u8>(p + i);
  return out;
}

/** The validity of the last decode (all ones when there is none). */
export function decodedValidity(n: i32): u8[] {
  const out = new Array<u8>(n);
  const p = <usize>resultWord(2);
  for (let i = 0; i < n; i++) out[i] = p == 0 ? 1 : load<u8>(p + i);
  return out;
}

/** Strings of the last string decode ('' for NULL rows). */
export function decodedStrings(n: i32): string[] {
  const out = new Array<string>(n);
  const idx = <usize>resultWord(0);
  const offs = <usize>resultWord(4);
  const bytes = <usize>resultWord(5);
  for (let i = 0; i < n; i++) {
    const k = load<u32>(idx + (<usize>i << 2));
    if (k == 0xffffffff) {
      out[i] = '';
    } else {
      const o = load<u32>(offs + (<usize>k << 2));
      const e = load<u32>(offs + ((<usize>k + 1) << 2));
      out[i] = String.UTF8.decodeUnsafe(bytes + o, e - o);
    }
  }
  return out;
}

export function decodeI64(b: Block, n: u32): i32 {
  return codec_decode_i64(b.ptr, b.len, n);
}
export function decodeF64(b: Block, n: u32): i32 {
  return codec_decode_f64(b.ptr, b.len, n);
}
export function decodeBool(b: Block, n: u32): i32 {
  return codec_decode_bool(b.ptr, b.len, n);
}
export function decodeStr(b: Block, n: u32): i32 {
  return codec_decode_str(b.ptr, b.len, n);
}

// The guard: a page grown outside the allocator, whose end is the end of memory.
let guardEnd: usize = 0;

/** Copies `b` so that it ends exactly at the end of memory (growing a fresh page if needed). */
function atMemoryEnd(b: Block): usize {
  const end = <usize>memory.size() << 16;
  if (guardEnd != end) {
    memory.grow(1);
    guardEnd = <usize>memory.size() << 16;
  }
  const p = guardEnd - b.len;
  memory.copy(p, b.ptr, b.len);
  return p;
}

/**
 * Decodes every proper prefix of `b` (each must fail with a negative code) and every variant
 * with one byte changed (may succeed or fail, never trap), with the block at the end of memory.
 * Returns the number of truncations that did not fail.
 */
export function corruptionSweep(b: Block, n: u32, decode: Decoder): i32 {
  // Warm up: buffers and scratch reach their size for this n and length, so that the decodes
  // below allocate nothing and the guard page stays last.
  decode(b.ptr, b.len, n);
  let accepted = 0;
  for (let len: u32 = 0; len < b.len; len++) {
    const p = atMemoryEnd(new Block(b.ptr, len));
    if (decode(p, len, n) >= 0) accepted++;
  }
  const flips: u8[] = [0x01, 0x80, 0xff];
  for (let i: u32 = 0; i < b.len; i++) {
    for (let f = 0; f < flips.length; f++) {
      const p = atMemoryEnd(b);
      store<u8>(p + i, load<u8>(p + i) ^ flips[f]);
      decode(p, b.len, n);
    }
  }
  return accepted;
}

/** xorshift64* with a fixed seed: the same values on every run. */
export class Rng {
  constructor(private s: u64) {}
  next(): u64 {
    let x = this.s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    this.s = x;
    return x * 0x2545f4914f6cdd1d;
  }
  /** Uniform in [0, n). */
  below(n: u64): u64 {
    return this.next() % n;
  }
}

export function sameU64(a: u64[], b: u64[]): bool {
  if (a.length != b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] != b[i]) return false;
  return true;
}

export function sameU8(a: u8[], b: u8[]): bool {
  if (a.length != b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] != b[i]) return false;
  return true;
}

/** The values with NULL rows set to `nul` (what a decoder returns for them). */
export function masked(values: u64[], valid: u8[] | null): u64[] {
  const out = values.slice(0);
  if (valid != null) for (let i = 0; i < out.length; i++) if (valid[i] == 0) out[i] = 0;
  return out;
}
