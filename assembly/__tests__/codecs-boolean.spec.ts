/// <reference types="@as-pect/assembly/types/as-pect" />
// The BOOLEAN block codec (also the validity of nullable blocks): exact bytes of CONST,
// BITPACK and BOOL_RLE, and round trips of every length around the 8- and 16-row boundaries.
import { ENC_BITPACK, ENC_BOOL_RLE, ENC_CONST, MODE_AUTO, MODE_BITPACK, MODE_PLAIN } from '../codecs/ids';
import { decodeBool, decodedU8, decodedValidity, encodeBool, Rng, sameU8 } from './codec-support';

function roundTrip(values: u8[], mode: u32 = MODE_AUTO): u8 {
  const b = encodeBool(values, null, mode);
  expect<i32>(decodeBool(b, values.length)).toBe(0);
  const want = values.map<u8>((x) => (x != 0 ? 1 : 0));
  if (!sameU8(decodedU8(values.length), want)) expect<string>(b.hex()).toBe('', 'values differ after decoding');
  return load<u8>(b.ptr);
}

describe('boolean blocks', () => {
  it('writes exact bytes for each encoding', () => {
    expect<string>(encodeBool([1, 1, 1], null, MODE_AUTO).hex()).toBe('0501');
    expect<string>(encodeBool([0], null, MODE_AUTO).hex()).toBe('0500');
    expect<string>(encodeBool([1, 0, 1], null, MODE_AUTO).hex()).toBe('0f05');
    expect<string>(encodeBool([1, 1, 1], null, MODE_BITPACK).hex()).toBe('0f07');
    expect<string>(encodeBool([1, 1, 1], null, MODE_PLAIN).hex()).toBe('0f07');
    expect<string>(encodeBool([], null, MODE_AUTO).hex()).toBe('0f');
    const runs = new Array<u8>(40);
    for (let k = 0; k < 40; k++) runs[k] = k < 20 ? 1 : 0;
    // first value 1, runs of 20 and 20 (stored minus one)
    expect<string>(encodeBool(runs, null, MODE_AUTO).hex()).toBe('10011313');
  });
  it('treats any non-zero byte as true', () => {
    roundTrip([2, 0, 255, 1, 0, 0, 128]);
  });
  it('round-trips every length from 0 to 70 in every mode', () => {
    const r = new Rng(3);
    for (let n = 0; n <= 70; n++) {
      const v = new Array<u8>(n);
      for (let k = 0; k < n; k++) v[k] = <u8>r.below(2);
      roundTrip(v);
      roundTrip(v, MODE_BITPACK);
    }
  });
  it('picks run-length for long runs and bit-packing for noise', () => {
    const v = new Array<u8>(1000);
    for (let k = 0; k < 1000; k++) v[k] = (k / 100) % 2 == 0 ? 1 : 0;
    expect<u8>(roundTrip(v)).toBe(ENC_BOOL_RLE);
    const r = new Rng(4);
    for (let k = 0; k < 1000; k++) v[k] = <u8>r.below(2);
    expect<u8>(roundTrip(v)).toBe(ENC_BITPACK);
    for (let k = 0; k < 1000; k++) v[k] = 1;
    expect<u8>(roundTrip(v)).toBe(ENC_CONST);
  });
  it('round-trips NULLs', () => {
    const b = encodeBool([1, 0, 1, 1], [1, 1, 0, 1], MODE_AUTO);
    expect<i32>(decodeBool(b, 4)).toBe(1);
    expect<bool>(sameU8(decodedU8(4), [1, 0, 0, 1])).toBe(true);
    expect<bool>(sameU8(decodedValidity(4), [1, 1, 0, 1])).toBe(true);
  });
});
