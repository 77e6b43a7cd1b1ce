/// <reference types="@as-pect/assembly/types/as-pect" />
// The STRING block codec (before the host's zstd): exact bytes of CONST, PLAIN and DICT, round
// trips of empty, unicode and repeated values, NULLs, and CODEC(NULL) always writing PLAIN.
import { ENC_CONST, ENC_DICT, ENC_PLAIN, MODE_AUTO, MODE_PLAIN } from '../codecs/ids';
import { decodedStrings, decodedValidity, decodeStr, encodeStr, Rng, sameU8 } from './codec-support';

function roundTrip(values: string[], valid: u8[] | null = null, mode: u32 = MODE_AUTO): u8 {
  const b = encodeStr(values, valid, mode);
  const rc = decodeStr(b, values.length);
  expect<i32>(rc).toBe(valid == null ? 0 : rc == 0 ? 0 : 1);
  expect<bool>(rc >= 0).toBe(true);
  const got = decodedStrings(values.length);
  for (let k = 0; k < values.length; k++) {
    const want = valid != null && valid[k] == 0 ? '' : values[k];
    if (got[k] != want) expect<string>(got[k]).toBe(want, 'row ' + k.toString() + ' of ' + b.hex());
  }
  return load<u8>(b.ptr);
}

describe('string blocks', () => {
  it('writes exact bytes for each encoding', () => {
    expect<string>(encodeStr(['a', 'a'], null, MODE_AUTO).hex()).toBe('050161');
    expect<string>(encodeStr([''], null, MODE_AUTO).hex()).toBe('0500');
    expect<string>(encodeStr(['a', 'b'], null, MODE_AUTO).hex()).toBe('0401016162');
    // dictionary abc, xyz; indexes 0 0 0 1 0 as DELTA_RICE: first 0, scale 1, base 0, k 0, no escapes,
    // 1 unary byte (zigzag 0 0 2 1 -> 1 1 001 01 -> 0x53)
    expect<string>(encodeStr(['abc', 'abc', 'abc', 'xyz', 'abc'], null, MODE_AUTO).hex()).toBe('1102030361626378797a0900010000000153');
    // the same with one row less: DICT (17 bytes) is not smaller than PLAIN (17 bytes)
    expect<string>(encodeStr(['abc', 'abc', 'xyz', 'abc'], null, MODE_AUTO).hex()).toBe('040303030361626361626378797a616263');
    expect<string>(encodeStr(['a', 'a'], null, MODE_PLAIN).hex()).toBe('0401016161');
    expect<string>(encodeStr([], null, MODE_AUTO).hex()).toBe('04');
  });
  it('round-trips empty strings, unicode and long values', () => {
    expect<u8>(roundTrip(['', '', ''])).toBe(ENC_CONST);
    roundTrip(['', 'x', '', 'é', '日本語', '🦀', 'a\u0000b']);
    roundTrip(['host_1'.repeat(500), 'host_2', 'host_1'.repeat(500)]);
  });
  it('picks DICT for repeated values and PLAIN for distinct ones', () => {
    const r = new Rng(12);
    const levels = ['idle', 'low', 'normal', 'high', 'critical'];
    const v = new Array<string>(1000);
    for (let k = 0; k < 1000; k++) v[k] = levels[<i32>r.below(5)];
    expect<u8>(roundTrip(v)).toBe(ENC_DICT);
    for (let k = 0; k < 1000; k++) v[k] = 'id-' + k.toString();
    expect<u8>(roundTrip(v)).toBe(ENC_PLAIN);
    expect<u8>(roundTrip(v, null, MODE_PLAIN)).toBe(ENC_PLAIN);
  });
  it('round-trips NULLs and all-NULL blocks', () => {
    roundTrip(['a', 'b', 'a', 'c'], [1, 0, 1, 1]);
    const b = encodeStr(['a', 'b'], [0, 0], MODE_AUTO);
    expect<string>(b.hex()).toBe('01');
    expect<i32>(decodeStr(b, 2)).toBe(1);
    expect<bool>(sameU8(decodedValidity(2), [0, 0])).toBe(true);
    expect<string>(decodedStrings(2)[1]).toBe('');
  });
});
