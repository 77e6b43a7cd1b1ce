/// <reference types="@as-pect/assembly/types/as-pect" />
// The DOUBLE block codec: exact bytes of CONST, DECIMAL and GORILLA blocks, bit-exact round
// trips of every special pattern (NaN payloads, -0, infinities, subnormals), and which
// encoding short decimals, noisy doubles and CODEC(GORILLA) get.
import { ENC_CONST, ENC_DECIMAL, ENC_GORILLA, ENC_PLAIN, MODE_AUTO, MODE_GORILLA, MODE_PLAIN } from '../codecs/ids';
import { decodedU64, decodeF64, encodeF64, masked, Rng, sameU64 } from './codec-support';

@inline function bits(v: f64): u64 {
  return reinterpret<u64>(v);
}

function roundTrip(values: u64[], mode: u32 = MODE_AUTO): u8 {
  const b = encodeF64(values, null, mode);
  expect<i32>(decodeF64(b, values.length)).toBe(0);
  if (!sameU64(decodedU64(values.length), values)) expect<string>(b.hex()).toBe('', 'values differ after decoding');
  return values.length == 0 ? 0 : load<u8>(b.ptr);
}

/** TSBS-like: a clamped random walk rounded to `decimals` places. */
function decimals(n: i32, seed: u64, places: i32): u64[] {
  const r = new Rng(seed);
  const scale = Math.pow(10, places);
  const out = new Array<u64>(n);
  let w: f64 = 50;
  for (let k = 0; k < n; k++) {
    w += (<f64>r.below(2001) - 1000) / 1000;
    if (w < 0) w = 0;
    if (w > 100) w = 100;
    out[k] = bits(Math.round(w * scale) / scale);
  }
  return out;
}

const SPECIALS: u64[] = [
  0x7ff8000000000000, // quiet NaN
  0x7ff0000000000001, // signalling NaN, payload 1
  0xfff8dead0000beef, // negative NaN with a payload
  0x7ffc000000000123,
  0x8000000000000000, // -0
  0x0000000000000000, // +0
  0x7ff0000000000000, // +inf
  0xfff0000000000000, // -inf
  0x0000000000000001, // smallest subnormal
  0x800fffffffffffff, // largest negative subnormal
  0x7fefffffffffffff, // largest finite
  0x0010000000000000, // smallest normal
];

describe('double blocks: exact bytes', () => {
  it('writes one repeated bit pattern as CONST', () => {
    expect<string>(encodeF64([bits(1.5), bits(1.5)], null, MODE_AUTO).hex()).toBe('05000000000000f83f');
  });
  it('writes whole numbers as DECIMAL with exponent 0', () => {
    // e 0, no exceptions, integer block DELTA_CONST 1, 1
    expect<string>(encodeF64([bits(1), bits(2)], null, MODE_AUTO).hex()).toBe('0e000003060202');
  });
  it('writes GORILLA for CODEC(GORILLA)', () => {
    // 1.0 raw, then control 11, lead 1, sig 11, the 11 bits of 1.0 ^ 2.0 = 0x7ff << 52
    expect<string>(encodeF64([bits(1), bits(2)], null, MODE_GORILLA).hex()).toBe('0d000000000000f03f87e5ff');
  });
  it('writes short decimals with their exponent and an exception for -0', () => {
    // 0.25 -> 25, -0 -> exception at 1 (its slot repeats 25), 0.5 -> 50 ...; e = 2
    const v: u64[] = [bits(0.25), bits(-0.0), bits(0.5), bits(0.75), bits(1), bits(1.25), bits(1.5), bits(1.75), bits(2)];
    const b = encodeF64(v, null, MODE_AUTO);
    expect<u8>(load<u8>(b.ptr)).toBe(ENC_DECIMAL);
    expect<u8>(load<u8>(b.ptr + 1)).toBe(2);
    expect<u8>(load<u8>(b.ptr + 2)).toBe(1);
    roundTrip(v);
  });
});

describe('double blocks: round trips', () => {
  it('keeps every special bit pattern in every mode', () => {
    roundTrip(SPECIALS);
    roundTrip(SPECIALS, MODE_GORILLA);
    roundTrip(SPECIALS, MODE_PLAIN);
    for (let k = 0; k < SPECIALS.length; k++) {
      roundTrip([SPECIALS[k]]);
      roundTrip([SPECIALS[k], SPECIALS[k], bits(1.25)]);
    }
  });
  it('keeps specials among short decimals as exceptions', () => {
    const v = decimals(1000, 3, 2);
    for (let k = 0; k < SPECIALS.length; k++) v[k * 83] = SPECIALS[k];
    expect<u8>(roundTrip(v)).toBe(ENC_DECIMAL);
  });
  it('keeps random bit patterns and random doubles', () => {
    const r = new Rng(9);
    const v = new Array<u64>(500);
    for (let k = 0; k < 500; k++) v[k] = r.next();
    roundTrip(v);
    roundTrip(v, MODE_GORILLA);
    for (let k = 0; k < 500; k++) v[k] = bits(<f64>r.next() / 3.7e18);
    roundTrip(v);
  });
  it('keeps decimals with 0 to 6 places, negative and large', () => {
    for (let places = 0; places <= 6; places++) {
      const v = decimals(700, 20 + <u64>places, places);
      roundTrip(v);
      for (let k = 0; k < 700; k++) v[k] = bits(-reinterpret<f64>(v[k]) * 1e6);
      roundTrip(v);
    }
    roundTrip([bits(0.1), bits(0.2), bits(0.30000000000000004), bits(1e300), bits(123456789.125)]);
  });
  it('keeps blocks of every small length', () => {
    for (let n = 0; n < 30; n++) {
      roundTrip(decimals(n, 50 + <u64>n, 2));
      roundTrip(decimals(n, 60 + <u64>n, 2), MODE_GORILLA);
    }
  });
});

describe('double blocks: the encoding each shape gets', () => {
  it('picks DECIMAL for two-decimal walks, at about one byte per value', () => {
    const v = decimals(1000, 5, 2);
    const b = encodeF64(v, null, MODE_AUTO);
    expect<u8>(load<u8>(b.ptr)).toBe(ENC_DECIMAL);
    expect<bool>(b.len < 1500).toBe(true);
    roundTrip(v);
  });
  it('picks GORILLA for slowly changing doubles that are not short decimals', () => {
    const v = new Array<u64>(500);
    for (let k = 0; k < 500; k++) v[k] = bits(Math.sin(<f64>k / 1000) * Math.PI);
    for (let k = 100; k < 200; k++) v[k] = v[99];
    expect<u8>(roundTrip(v)).toBe(ENC_GORILLA);
  });
  it('falls back to PLAIN when nothing is smaller', () => {
    const r = new Rng(10);
    const v = new Array<u64>(200);
    for (let k = 0; k < 200; k++) v[k] = r.next();
    expect<u8>(roundTrip(v)).toBe(ENC_PLAIN);
    expect<u8>(roundTrip(v, MODE_GORILLA)).toBe(ENC_PLAIN);
  });
  it('picks CONST for a constant NaN', () => {
    expect<u8>(roundTrip([0x7ff8000000000001, 0x7ff8000000000001])).toBe(ENC_CONST);
  });
  it('round-trips NULLs around doubles', () => {
    const v = decimals(300, 8, 2);
    const valid = new Array<u8>(300);
    for (let k = 0; k < 300; k++) valid[k] = k % 7 == 0 ? 0 : 1;
    const b = encodeF64(v, valid, MODE_AUTO);
    expect<i32>(decodeF64(b, 300)).toBe(1);
    expect<bool>(sameU64(decodedU64(300), masked(v, valid))).toBe(true);
  });
});
