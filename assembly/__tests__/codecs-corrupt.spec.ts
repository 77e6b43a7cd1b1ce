/// <reference types="@as-pect/assembly/types/as-pect" />
// Decoders never trust a block (STYLE.md §16): every truncation of a block of every encoding
// fails with an error code, every single-byte change decodes or fails but never traps or reads
// past the block (the block sits at the end of memory), specific damage gets its specific code
// and offset, and the exports reject bad arguments.
import {
  codec_decode_bool, codec_decode_f64, codec_decode_i64, codec_decode_str, codec_encode_f64,
  codec_encode_i64, codec_result,
} from '../codecs/index';
import {
  ERR_ARGUMENT, ERR_CODEC, ERR_COUNT, ERR_PADDING, ERR_TRAILING, ERR_TRUNCATED, ERR_VALUE, ERR_VARINT,
} from '../codecs/errors';
import { MAX_ROWS, MODE_AUTO, MODE_DELTA, MODE_DOD, MODE_GORILLA, MODE_PLAIN } from '../codecs/ids';
import {
  Block, corruptionSweep, decodeBool, decodeF64, decodeI64, decodeStr, encodeBool, encodeF64, encodeI64,
  encodeStr, fromHex, Rng,
} from './codec-support';

function walk(n: i32, seed: u64, step: u64): u64[] {
  const r = new Rng(seed);
  const out = new Array<u64>(n);
  let v: i64 = 1000;
  for (let k = 0; k < n; k++) {
    v += <i64>r.below(2 * step + 1) - <i64>step;
    out[k] = <u64>v;
  }
  return out;
}

function sparse(n: i32, seed: u64): u8[] {
  const r = new Rng(seed);
  const out = new Array<u8>(n);
  for (let k = 0; k < n; k++) out[k] = r.below(3) == 0 ? 0 : 1;
  return out;
}

function sweep(b: Block, n: i32, decode: (block: usize, len: u32, n: u32) => i32): void {
  expect<bool>(decode(b.ptr, b.len, n) >= 0).toBe(true, 'the intact block decodes');
  expect<i32>(corruptionSweep(b, n, decode)).toBe(0, 'truncations that decoded');
}

function errorOffset(): u32 {
  return load<u32>(codec_result() + 24);
}

describe('corrupt blocks', () => {
  it('never trap or pass truncated: integers', () => {
    const big = walk(200, 1, 2);
    big[100] = 1 << 55;
    const blocks: Block[] = [
      encodeI64([], null, MODE_AUTO),
      encodeI64([5, 5, 5], null, MODE_AUTO),
      encodeI64([5, 7, 9], null, MODE_AUTO),
      encodeI64(walk(200, 2, 2), null, MODE_AUTO),
      encodeI64(walk(200, 3, 300), null, MODE_AUTO),
      encodeI64(big, null, MODE_AUTO),
      encodeI64(walk(200, 4, 2), null, MODE_DOD),
      encodeI64(walk(200, 5, 1 << 40), null, MODE_DELTA),
      encodeI64(walk(200, 6, 0), null, MODE_DELTA),
      encodeI64(walk(60, 7, 2), null, MODE_PLAIN),
      encodeI64(walk(200, 8, 2), sparse(200, 9), MODE_AUTO),
      encodeI64(walk(20, 10, 2), [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], MODE_AUTO),
    ];
    const ns: i32[] = [0, 3, 3, 200, 200, 200, 200, 200, 200, 60, 200, 20];
    for (let k = 0; k < blocks.length; k++) sweep(blocks[k], ns[k], codec_decode_i64);
  });
  it('never trap or pass truncated: doubles', () => {
    const r = new Rng(11);
    const dec = new Array<u64>(200);
    const rnd = new Array<u64>(200);
    for (let k = 0; k < 200; k++) {
      dec[k] = reinterpret<u64>(<f64>(<i64>r.below(100000)) / 100);
      rnd[k] = reinterpret<u64>(Math.sin(<f64>k) * 1e-3);
    }
    dec[17] = 0x7ff8000000000bad;
    dec[18] = 0x8000000000000000;
    const blocks: Block[] = [
      encodeF64([0x7ff8000000000001], null, MODE_AUTO),
      encodeF64(dec, null, MODE_AUTO),
      encodeF64(rnd, null, MODE_AUTO),
      encodeF64(dec, null, MODE_GORILLA),
      encodeF64(dec.slice(0, 50), null, MODE_PLAIN),
      encodeF64(dec, sparse(200, 12), MODE_AUTO),
    ];
    const ns: i32[] = [1, 200, 200, 200, 50, 200];
    for (let k = 0; k < blocks.length; k++) sweep(blocks[k], ns[k], codec_decode_f64);
  });
  it('never trap or pass truncated: booleans and strings', () => {
    const r = new Rng(13);
    const noise = new Array<u8>(300);
    const runs = new Array<u8>(300);
    const words = new Array<string>(300);
    const names = ['a', 'bb', 'ccc', '', 'é'];
    for (let k = 0; k < 300; k++) {
      noise[k] = <u8>r.below(2);
      runs[k] = (k / 37) % 2 == 0 ? 1 : 0;
      words[k] = names[<i32>r.below(5)];
    }
    sweep(encodeBool(noise, null, MODE_AUTO), 300, codec_decode_bool);
    sweep(encodeBool(runs, null, MODE_AUTO), 300, codec_decode_bool);
    sweep(encodeBool([1, 1], null, MODE_AUTO), 2, codec_decode_bool);
    sweep(encodeBool(noise, sparse(300, 14), MODE_AUTO), 300, codec_decode_bool);
    sweep(encodeStr(words, null, MODE_AUTO), 300, codec_decode_str);
    sweep(encodeStr(words.slice(0, 40), null, MODE_PLAIN), 40, codec_decode_str);
    sweep(encodeStr(['x', 'x', 'x'], null, MODE_AUTO), 3, codec_decode_str);
    sweep(encodeStr(words, sparse(300, 15), MODE_AUTO), 300, codec_decode_str);
  });
  it('reports each kind of damage with its code and offset', () => {
    // A trailing byte after a DELTA_CONST block.
    expect<i32>(decodeI64(fromHex('06141400'), 4)).toBe(ERR_TRAILING);
    expect<u32>(errorOffset()).toBe(3);
    // Unknown ids, and ids of another type.
    expect<i32>(decodeI64(fromHex('ff'), 1)).toBe(ERR_CODEC);
    expect<i32>(decodeI64(fromHex('0d000000000000f03f'), 1)).toBe(ERR_CODEC);
    expect<i32>(decodeBool(fromHex('11'), 1)).toBe(ERR_CODEC);
    // The host removes ZSTD wrappers; the core never sees one.
    expect<i32>(decodeStr(fromHex('030100'), 1)).toBe(ERR_CODEC);
    // A NULLABLE inside a NULLABLE.
    expect<i32>(decodeI64(fromHex('02020f03' + '02020f01050a'), 2)).toBe(ERR_CODEC);
    // Truncated varint, overlong varint.
    expect<i32>(decodeI64(fromHex('0580'), 1)).toBe(ERR_TRUNCATED);
    expect<i32>(decodeI64(fromHex('05ffffffffffffffffff7f'), 1)).toBe(ERR_VARINT);
    // Rice k beyond 56, at offset 4 (after id, first value, scale and base).
    expect<i32>(decodeI64(fromHex('090001003900000000'), 2)).toBe(ERR_VALUE);
    expect<u32>(errorOffset()).toBe(4);
    // A scale of 0.
    expect<i32>(decodeI64(fromHex('0900000000000000'), 2)).toBe(ERR_VALUE);
    // Rice unary plane with more codes (4) than values (2).
    expect<i32>(decodeI64(fromHex('09000100000000010f'), 3)).toBe(ERR_COUNT);
    // Simple-8b: selector 9 (7 x 8 bits) with its 4 spare high bits set.
    expect<i32>(decodeI64(fromHex('07000100' + '09000000000000f0'), 8)).toBe(ERR_PADDING);
    // BITPACK with bits set past the last row.
    expect<i32>(decodeBool(fromHex('0f0f'), 3)).toBe(ERR_PADDING);
    // BOOL_RLE with a run longer than the block.
    expect<i32>(decodeBool(fromHex('100105'), 3)).toBe(ERR_COUNT);
    // CONST boolean that is neither 0 nor 1.
    expect<i32>(decodeBool(fromHex('0502'), 3)).toBe(ERR_VALUE);
    // DICT index past the dictionary: d = 1, indexes CONST 1.
    expect<i32>(decodeStr(fromHex('1101016105' + '02'), 2)).toBe(ERR_VALUE);
    // PLAIN with fewer bytes than its lengths announce.
    expect<i32>(decodeStr(fromHex('04030161'), 1)).toBe(ERR_TRUNCATED);
    // DECIMAL exponent past 18.
    expect<i32>(decodeF64(fromHex('0e13000105' + '00'), 1)).toBe(ERR_VALUE);
    // GORILLA reusing a window before any was set.
    expect<i32>(decodeF64(fromHex('0d000000000000f03f' + '01'), 2)).toBe(ERR_VALUE);
    // Empty block.
    expect<i32>(decodeI64(fromHex(''), 1)).toBe(ERR_TRUNCATED);
  });
  it('rejects bad arguments without touching memory', () => {
    const src = heap.alloc(64);
    expect<i32>(codec_encode_i64(src, MAX_ROWS + 1, 0, MODE_AUTO)).toBe(ERR_ARGUMENT);
    expect<i32>(codec_encode_i64(src, 8, 0, 99)).toBe(ERR_ARGUMENT);
    expect<i32>(codec_encode_f64(src, 8, 0, MODE_DELTA)).toBe(ERR_ARGUMENT);
    expect<i32>(codec_encode_i64(<usize>(memory.size() << 16) - 8, 8, 0, MODE_AUTO)).toBe(ERR_ARGUMENT);
    expect<i32>(codec_decode_i64(<usize>(memory.size() << 16) - 4, 8, 1)).toBe(ERR_ARGUMENT);
    expect<i32>(codec_decode_i64(src, 8, MAX_ROWS + 1)).toBe(ERR_ARGUMENT);
  });
});
