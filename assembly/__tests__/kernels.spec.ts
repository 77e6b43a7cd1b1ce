import { k_arith_i64 } from '../kernels/arithmetic';
import { k_cmp_i64 } from '../kernels/compare';
import { k_region } from '../kernels/region';

function fill(p: usize, values: i64[]): void {
  for (let i = 0; i < values.length; i++) store<i64>(p + (<usize>i << 3), values[i]);
}

describe('k_cmp_i64', () => {
  it('compares signed values with a column and with a scalar', () => {
    const base = k_region(256);
    fill(base, [-5, 0, 7, i64.MAX_VALUE]);
    fill(base + 32, [0, 0, 8, i64.MIN_VALUE]);
    expect<i32>(k_cmp_i64(base, base + 32, 4, 2, 0, base + 64)).toBe(0);
    expect<u32>(load<u32>(base + 64)).toBe(0x00010001); // -5<0, 0<0 no, 7<8, MAX<MIN no
    expect<i32>(k_cmp_i64(base, base + 32, 4, 4, 1, base + 64)).toBe(0); // > 0 (scalar b[0])
    expect<u32>(load<u32>(base + 64)).toBe(0x01010000);
  });
  it('compares unsigned values as unsigned', () => {
    const base = k_region(64);
    fill(base, [-1, 1]);
    fill(base + 16, [2]);
    expect<i32>(k_cmp_i64(base, base + 16, 2, 4, 3, base + 32)).toBe(0);
    expect<u16>(load<u16>(base + 32)).toBe(0x0001); // 2^64-1 > 2; 1 > 2 no
  });
  it('refuses an unknown operator', () => {
    expect<i32>(k_cmp_i64(0, 0, 0, 9, 0, 0)).toBe(-1);
  });
});

describe('k_arith_i64', () => {
  it('adds and reports the first overflowing row', () => {
    const base = k_region(256);
    fill(base, [1, i64.MAX_VALUE, 3]);
    fill(base + 24, [1]);
    expect<i32>(k_arith_i64(base, base + 24, 3, 0, 1, 0, base + 64)).toBe((1 << 2) | 1);
    expect<i64>(load<i64>(base + 64)).toBe(2);
  });
  it('skips NULL rows and reports division by zero', () => {
    const base = k_region(256);
    fill(base, [10, 20, 30]);
    fill(base + 24, [2, 0, 0]);
    store<u8>(base + 48, 1);
    store<u8>(base + 49, 0);
    store<u8>(base + 50, 1);
    expect<i32>(k_arith_i64(base, base + 24, 3, 3, 0, base + 48, base + 64)).toBe((2 << 2) | 2);
    expect<i64>(load<i64>(base + 64)).toBe(5);
  });
  it('ignores an overflow in a NULL row', () => {
    const base = k_region(256);
    fill(base, [1, i64.MAX_VALUE]);
    fill(base + 16, [1, 1]);
    store<u8>(base + 32, 1);
    store<u8>(base + 33, 0);
    expect<i32>(k_arith_i64(base, base + 16, 2, 0, 0, base + 32, base + 64)).toBe(-1);
    expect<i64>(load<i64>(base + 64)).toBe(2);
  });
  it('multiplies with overflow detection, also for MIN * -1', () => {
    const base = k_region(128);
    fill(base, [i64.MIN_VALUE, 3037000500]);
    fill(base + 16, [-1, 3037000500]);
    expect<i32>(k_arith_i64(base, base + 16, 1, 2, 0, 0, base + 32)).toBe(1);
    expect<i32>(k_arith_i64(base + 8, base + 24, 1, 2, 0, 0, base + 32)).toBe(1);
  });
});
