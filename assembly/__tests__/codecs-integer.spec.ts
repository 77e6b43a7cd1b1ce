/// <reference types="@as-pect/assembly/types/as-pect" />
// The integer block codec (BIGINT, BIGINT UNSIGNED, timestamps): exact bytes for small inputs,
// round trips of edge cases bit for bit, the encoding each shape gets, and the encoder writing
// after a prefix without touching it.
import { ENC_CONST, ENC_DELTA_CONST, ENC_DELTA_RICE, ENC_DELTA_RLE, ENC_DELTA_SIMPLE8B, ENC_DOD_RICE, ENC_DOD_RLE, ENC_DOD_SIMPLE8B, ENC_PLAIN, MODE_AUTO, MODE_DELTA, MODE_DOD, MODE_PLAIN } from '../codecs/ids';
import { encodeInts, intBound, intScratch } from '../codecs/integer';
import { scratchReset } from '../codecs/scratch';
import { decodedU64, decodedValidity, decodeI64, encodeI64, hex, masked, Rng, sameU64 } from './codec-support';

@inline function i(v: i64): u64 {
  return <u64>v;
}

const I64_MIN: i64 = i64.MIN_VALUE;
const I64_MAX: i64 = i64.MAX_VALUE;

/** Encodes, decodes and compares bit for bit; returns the encoding id. */
function roundTrip(values: u64[], mode: u32 = MODE_AUTO): u8 {
  const b = encodeI64(values, null, mode);
  expect<bool>(b.len > 0).toBe(true);
  const rc = decodeI64(b, values.length);
  expect<i32>(rc).toBe(0);
  if (!sameU64(decodedU64(values.length), values)) expect<string>(b.hex()).toBe('', 'values differ after decoding');
  return load<u8>(b.ptr);
}

function walk(n: i32, seed: u64, step: i64, min: i64, max: i64): u64[] {
  const r = new Rng(seed);
  const out = new Array<u64>(n);
  let v: i64 = (min + max) / 2;
  for (let k = 0; k < n; k++) {
    v += <i64>r.below(<u64>(2 * step + 1)) - step;
    if (v < min) v = min;
    if (v > max) v = max;
    out[k] = <u64>v;
  }
  return out;
}

describe('integer blocks: exact bytes', () => {
  it('writes an empty block as PLAIN with no values', () => {
    expect<string>(encodeI64([], null, MODE_AUTO).hex()).toBe('04');
  });
  it('writes one value as CONST with a zigzag varint', () => {
    expect<string>(encodeI64([7], null, MODE_AUTO).hex()).toBe('050e');
    expect<string>(encodeI64([i(-1), i(-1), i(-1)], null, MODE_AUTO).hex()).toBe('0501');
  });
  it('writes a constant step as DELTA_CONST', () => {
    expect<string>(encodeI64([10, 20, 30, 40], null, MODE_AUTO).hex()).toBe('061414');
  });
  it('writes regular 10 s timestamps in 15 bytes whatever their number', () => {
    const ts = new Array<u64>(1000);
    for (let k = 0; k < 1000; k++) ts[k] = 1451606400000000000 + <u64>k * 10000000000;
    expect<string>(encodeI64(ts, null, MODE_AUTO).hex()).toBe('068080f89a8e9592a5288090dfc04a');
  });
  it('writes small zigzag deltas as Rice codes with k = 0', () => {
    // first 100 (c8 01), scale 1, base 0; deltas 1 0 -1 2 -1 0 -1 -> zigzag 2 0 1 4 1 0 1
    // -> k 0, no escapes, 2 unary bytes: 001 1 01 00001 01 1 01 -> 0x2c 0xb4
    expect<string>(encodeI64([100, 101, 101, 100, 102, 101, 101, 100], null, MODE_AUTO).hex()).toBe('09c80101000000022cb4');
  });
  it('writes PLAIN for CODEC(NULL)', () => {
    expect<string>(encodeI64([1, 2], null, MODE_PLAIN).hex()).toBe('0401000000000000000200000000000000');
  });
  it('writes after a prefix without touching it', () => {
    const values: u64[] = [100, 101, 101, 100, 102, 101, 101, 100];
    const src = heap.alloc(64);
    for (let k = 0; k < 8; k++) store<u64>(src + (<usize>k << 3), values[k]);
    const buf = heap.alloc(intBound(8) + 64);
    store<u32>(buf, 0xdeadbeef);
    scratchReset(intScratch(8));
    const end = encodeInts(src, 8, MODE_AUTO, buf + 4);
    expect<u32>(load<u32>(buf)).toBe(0xdeadbeef);
    expect<string>(hex(buf + 4, end - buf - 4)).toBe('09c80101000000022cb4');
  });
});

describe('integer blocks: round trips', () => {
  it('keeps the extremes of i64 and u64', () => {
    roundTrip([i(I64_MIN)]);
    roundTrip([i(I64_MAX)]);
    roundTrip([0xffffffffffffffff, 0, 0xffffffffffffffff]);
    roundTrip([i(I64_MIN), i(I64_MAX), i(I64_MIN), 0, i(-1), 1, i(I64_MAX)]);
  });
  it('keeps deltas that overflow i64 (min and max neighbours)', () => {
    const v = new Array<u64>(300);
    for (let k = 0; k < 300; k++) v[k] = k % 2 == 0 ? i(I64_MAX) : i(I64_MIN);
    roundTrip(v);
    roundTrip(v, MODE_DELTA);
    roundTrip(v, MODE_DOD);
    roundTrip([i(I64_MAX - 1), i(I64_MAX), i(I64_MIN), i(I64_MIN + 1)]);
  });
  it('keeps negative and descending values', () => {
    const v = new Array<u64>(500);
    for (let k = 0; k < 500; k++) v[k] = i(-1000 - <i64>k * 3);
    expect<u8>(roundTrip(v)).toBe(ENC_DELTA_CONST);
    v[250] = i(5);
    roundTrip(v);
  });
  it('keeps random values of every magnitude in every mode', () => {
    const r = new Rng(42);
    for (let bits = 1; bits <= 64; bits += 7) {
      const v = new Array<u64>(257);
      for (let k = 0; k < 257; k++) v[k] = bits == 64 ? r.next() : r.next() >> (64 - <u64>bits);
      roundTrip(v);
      roundTrip(v, MODE_DELTA);
      roundTrip(v, MODE_DOD);
      roundTrip(v, MODE_PLAIN);
    }
  });
  it('keeps blocks of every small length', () => {
    for (let n = 0; n < 40; n++) {
      roundTrip(walk(n, 7 + <u64>n, 3, -50, 50));
      roundTrip(walk(n, 9 + <u64>n, 3, -50, 50), MODE_DOD);
    }
  });
});

describe('integer blocks: the encoding each shape gets', () => {
  it('picks CONST, DELTA_CONST and PLAIN', () => {
    expect<u8>(roundTrip([3, 3, 3, 3])).toBe(ENC_CONST);
    expect<u8>(roundTrip([3, 1, i(-1), i(-3)])).toBe(ENC_DELTA_CONST);
    expect<u8>(roundTrip([1, 2, 3], MODE_PLAIN)).toBe(ENC_PLAIN);
    const r = new Rng(1);
    const v = new Array<u64>(100);
    for (let k = 0; k < 100; k++) v[k] = r.next();
    expect<u8>(roundTrip(v)).toBe(ENC_PLAIN); // random 64-bit values do not compress
  });
  it('picks Rice for small noisy deltas (TSBS-like fields)', () => {
    expect<u8>(roundTrip(walk(1000, 3, 2, 0, 100))).toBe(ENC_DELTA_RICE);
  });
  it('picks run-length for long stretches of one delta', () => {
    const v = new Array<u64>(1000);
    for (let k = 0; k < 1000; k++) v[k] = k < 500 ? <u64>k : <u64>(500 + (k - 500) * 7);
    expect<u8>(roundTrip(v, MODE_DELTA)).toBe(ENC_DELTA_RLE);
    expect<u8>(roundTrip(v, MODE_DOD)).toBe(ENC_DOD_RLE);
  });
  it('picks Simple-8b for deltas spread evenly over one width', () => {
    // deltas 0, -1, 1, -2 -> zigzag 0..3 uniformly: 2 bits in Simple-8b, 2.5 in Rice
    const r = new Rng(5);
    const v = new Array<u64>(600);
    let x: i64 = 0;
    const steps: i64[] = [0, -1, 1, -2];
    for (let k = 0; k < 600; k++) {
      x += steps[<i32>r.below(4)];
      v[k] = <u64>x;
    }
    expect<u8>(roundTrip(v, MODE_DELTA)).toBe(ENC_DELTA_SIMPLE8B);
  });
  it('picks deltas minus their average for counters with a steady rate and jitter', () => {
    const r = new Rng(6);
    const v = new Array<u64>(1000);
    let x: u64 = 1 << 40;
    for (let k = 0; k < 1000; k++) {
      x += 1000000 + r.below(3);
      v[k] = x;
    }
    const b = encodeI64(v, null, MODE_AUTO);
    expect<u8>(roundTrip(v)).toBe(ENC_DELTA_RICE);
    expect<bool>(b.len < 300).toBe(true); // under 2.4 bits per value
  });
  it('picks deltas of deltas for a steadily growing step', () => {
    const v = new Array<u64>(1000);
    for (let k = 0; k < 1000; k++) v[k] = <u64>(k * k * 3 + (k % 2));
    const id = roundTrip(v);
    expect<bool>(id == ENC_DOD_RICE || id == ENC_DOD_SIMPLE8B || id == ENC_DOD_RLE).toBe(true);
  });
  it('uses only the family the mode names', () => {
    const v = walk(300, 11, 5, -100, 100);
    const d = roundTrip(v, MODE_DELTA);
    expect<bool>(d >= ENC_DELTA_SIMPLE8B && d <= ENC_DELTA_RICE).toBe(true);
    const dd = roundTrip(v, MODE_DOD);
    expect<bool>(dd >= ENC_DOD_SIMPLE8B && dd <= ENC_DOD_RICE).toBe(true);
  });
  it('escapes Rice quotients past the cap (one outlier among small deltas)', () => {
    const v = walk(1000, 4, 1, 0, 100);
    v[500] = 1 << 50;
    expect<u8>(roundTrip(v)).toBe(ENC_DELTA_RICE);
  });
});

describe('integer blocks: common scale of the deltas', () => {
  it('divides deltas by their greatest common divisor (ms timestamps in a ns column)', () => {
    const r = new Rng(21);
    const v = new Array<u64>(1000);
    let t: u64 = 1451606400000000000;
    for (let k = 0; k < 1000; k++) {
      t += 10000000000 + (r.below(2001) - 1000) * 1000000; // 10 s +- up to 1 s, in whole ms
      v[k] = t;
    }
    const b = encodeI64(v, null, MODE_AUTO);
    expect<u8>(roundTrip(v)).toBe(ENC_DELTA_RICE);
    // scale varint right after the first value: 10^6 = 0xc0843d
    expect<string>(b.hex().substr(20, 6)).toBe('c0843d');
    expect<bool>(b.len < 1700).toBe(true); // about 12.5 bits per value, not 32
  });
  it('keeps scaled blocks exact across wrapping and negative steps', () => {
    roundTrip([0, i(-4), 8, i(-4000), 12, i(I64_MIN), 16]);
    roundTrip([i(I64_MAX - 5), i(I64_MIN + 5), i(I64_MAX - 5), i(I64_MIN + 5), i(I64_MAX - 15)]);
    roundTrip([i(I64_MIN), 0, i(I64_MIN), 0, i(I64_MIN), i(I64_MIN)]);
    roundTrip([7, 7 + 3 * 5, 7 + 3 * 9, 7 + 3 * 11, 7], MODE_DOD);
  });
});

describe('integer blocks: NULLs', () => {
  it('writes every row NULL as ALL_NULL and decodes zeros with a validity', () => {
    const b = encodeI64([5, 6, 7], [0, 0, 0], MODE_AUTO);
    expect<string>(b.hex()).toBe('01');
    expect<i32>(decodeI64(b, 3)).toBe(1);
    expect<bool>(sameU64(decodedU64(3), [0, 0, 0])).toBe(true);
    expect<bool>(sameU64(decodedValidity(3).map<u64>((x) => <u64>x), [0, 0, 0])).toBe(true);
  });
  it('stores only the present values, after the validity', () => {
    // validity 101 -> BITPACK 0f 05; present values 5, 7 -> DELTA_CONST 06 0a 04
    const b = encodeI64([5, 999, 7], [1, 0, 1], MODE_AUTO);
    expect<string>(b.hex()).toBe('02020f05060a04');
    expect<i32>(decodeI64(b, 3)).toBe(1);
    expect<bool>(sameU64(decodedU64(3), [5, 0, 7])).toBe(true);
  });
  it('writes no validity when every row is present', () => {
    expect<string>(encodeI64([5, 6], [1, 1], MODE_AUTO).hex()).toBe('060a02');
  });
  it('round-trips sparse random columns', () => {
    const r = new Rng(77);
    for (let t = 0; t < 20; t++) {
      const n = 1 + <i32>r.below(600);
      const v = walk(n, 100 + <u64>t, 4, -20, 20);
      const valid = new Array<u8>(n);
      const density = r.below(5);
      for (let k = 0; k < n; k++) valid[k] = r.below(4) < density ? 1 : 0;
      const b = encodeI64(v, valid, MODE_AUTO);
      const rc = decodeI64(b, n);
      expect<bool>(rc == 0 || rc == 1).toBe(true);
      expect<bool>(sameU64(decodedU64(n), masked(v, valid))).toBe(true);
      const dv = decodedValidity(n);
      for (let k = 0; k < n; k++) expect<u8>(dv[k]).toBe(valid[k]);
    }
  });
});
