import { k_arith_i64 } from '../kernels/arithmetic';
import { k_cmp_i64 } from '../kernels/compare';
import { FT_NO_MINMAX, k_bucket_runs, k_finish_groups, k_fold_groups } from '../kernels/bucket-fold';
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

/** Groups of an accumulator of capacity `cap` at `acc`: the f64 at array `a`, slot `g`. */
function accF64(acc: usize, cap: usize, a: usize, g: usize): f64 {
  return load<f64>(acc + ((a * cap + g) << 3));
}

describe('k_bucket_runs', () => {
  it('cuts ascending times into runs of one bucket, skipping empty buckets', () => {
    const base = k_region(1024);
    fill(base, [-7, -1, 0, 9, 10, 35, 36, 1000]);
    const bounds = base + 128;
    const offsets = base + 256;
    const first = base + 384;
    expect<i32>(k_bucket_runs(base, 8, 0, 10, bounds, offsets, first)).toBe(5);
    expect<i64>(load<i64>(first)).toBe(-1); // [-10, 0)
    const want: u32[] = [0, 2, 4, 5, 7, 8];
    for (let i = 0; i < 6; i++) expect<u32>(load<u32>(bounds + (<usize>i << 2))).toBe(want[i]);
    const offs: i32[] = [0, 1, 2, 4, 101];
    for (let i = 0; i < 5; i++) expect<i32>(load<i32>(offsets + (<usize>i << 2))).toBe(offs[i]);
  });
  it('honours the origin and finds long runs by galloping', () => {
    const base = k_region(40000);
    for (let i = 0; i < 3000; i++) store<i64>(base + (<usize>i << 3), 5 + <i64>i);
    const bounds = base + 24000;
    const offsets = base + 32000;
    expect<i32>(k_bucket_runs(base, 3000, 1005, 1000, bounds, offsets, base + 39000)).toBe(3);
    expect<i64>(load<i64>(base + 39000)).toBe(-1);
    expect<u32>(load<u32>(bounds, 4)).toBe(1000); // times 5..1004 before 1005
    expect<u32>(load<u32>(bounds, 8)).toBe(2000);
    expect<u32>(load<u32>(bounds, 12)).toBe(3000);
    expect<i32>(load<i32>(offsets, 8)).toBe(2);
  });
  it('refuses a stride <= 0, times too far from the origin, and buckets past 2^31', () => {
    const base = k_region(256);
    fill(base, [0, i64.MAX_VALUE]);
    expect<i32>(k_bucket_runs(base, 2, 0, 0, base + 64, base + 128, base + 192)).toBe(-1);
    expect<i32>(k_bucket_runs(base, 2, -10, 1, base + 64, base + 128, base + 192)).toBe(-1);
    expect<i32>(k_bucket_runs(base, 2, 0, 1, base + 64, base + 128, base + 192)).toBe(-2);
  });
});

describe('k_fold_groups and k_finish_groups', () => {
  it('folds signed integer runs into groups: counts, exact sums, extremes, NULLs skipped', () => {
    const base = k_region(4096);
    fill(base, [5, -3, 9, 7, 2, 100]);
    for (let i = 0; i < 6; i++) store<u8>(base + 48 + i, i == 2 ? 0 : 1);
    const bounds = base + 64;
    store<u32>(bounds, 0);
    store<u32>(bounds, 3, 4);
    store<u32>(bounds, 4, 8);
    store<u32>(bounds, 6, 12);
    const groups = base + 96;
    store<u32>(groups, 1);
    store<u32>(groups, 0, 4);
    store<u32>(groups, 1, 8);
    const acc = base + 128;
    memory.fill(acc, 0, 48 * 4);
    expect<i32>(k_fold_groups(base, base + 48, 6, 0, bounds, groups, 3, acc, 4)).toBe(0);
    expect<f64>(accF64(acc, 4, 0, 1)).toBe(4); // 5, -3, 2, 100
    expect<f64>(accF64(acc, 4, 1, 1)).toBe(104);
    const out = base + 1024;
    const valid = base + 2048;
    expect<i32>(k_finish_groups(acc, 4, 3, 5, out, valid)).toBe(0);
    expect<i64>(load<i64>(out)).toBe(7);
    expect<i64>(load<i64>(out, 8)).toBe(104);
    expect<u8>(load<u8>(valid, 2)).toBe(0);
    expect<i32>(k_finish_groups(acc, 4, 2, 3, out, valid)).toBe(0);
    expect<i64>(load<i64>(out, 8)).toBe(-3);
    expect<i32>(k_finish_groups(acc, 4, 2, 4, out, valid)).toBe(0);
    expect<i64>(load<i64>(out, 8)).toBe(100);
    expect<i32>(k_finish_groups(acc, 4, 3, 0, out, valid)).toBe(0);
    expect<i64>(load<i64>(out, 16)).toBe(0);
    expect<u8>(load<u8>(valid, 2)).toBe(1); // a count is never NULL
  });
  it('keeps integer sums exact past 64 bits and wraps the result into 64 bits', () => {
    const base = k_region(4096);
    fill(base, [i64.MAX_VALUE, i64.MAX_VALUE, -1]);
    const bounds = base + 64;
    store<u32>(bounds, 0);
    store<u32>(bounds, 2, 4);
    store<u32>(bounds, 3, 8);
    const groups = base + 96;
    store<u32>(groups, 0);
    store<u32>(groups, 1, 4);
    const acc = base + 128;
    memory.fill(acc, 0, 48 * 2);
    expect<i32>(k_fold_groups(base, 0, 3, 0, bounds, groups, 2, acc, 2)).toBe(0);
    expect<i32>(k_finish_groups(acc, 2, 2, 5, base + 1024, base + 2048)).toBe(0);
    expect<i64>(load<i64>(base + 1024)).toBe(-2); // 2^64 - 2, wrapped as DataFusion 27's SUM wraps
    expect<f64>(accF64(acc, 2, 1, 0)).toBe(18446744073709551614.0); // the exact sum, rounded once
    memory.fill(acc, 0, 48 * 2);
    expect<i32>(k_fold_groups(base, 0, 3, 1, bounds, groups, 2, acc, 2)).toBe(0); // as unsigned: 2^64 - 2 fits
    expect<i32>(k_finish_groups(acc, 2, 1, 5, base + 1024, base + 2048)).toBe(0);
    expect<u64>(load<u64>(base + 1024)).toBe(u64.MAX_VALUE - 1);
  });
  it('takes the same counts and exact sums without the extremes (FT_NO_MINMAX), runs of odd and even length', () => {
    const base = k_region(8192);
    const n = 37;
    for (let i = 0; i < n; i++) store<i64>(base + (<usize>i << 3), i % 3 == 0 ? i64.MAX_VALUE - i : -(<i64>i * 1000003) << 20);
    const bounds = base + 512;
    // runs [0, 1), [1, 4), [4, 20), [20, 37): lengths 1, 3, 16, 17
    store<u32>(bounds, 0);
    store<u32>(bounds, 1, 4);
    store<u32>(bounds, 4, 8);
    store<u32>(bounds, 20, 12);
    store<u32>(bounds, 37, 16);
    const groups = base + 576;
    store<u32>(groups, 0);
    store<u32>(groups, 1, 4);
    store<u32>(groups, 0, 8);
    store<u32>(groups, 1, 12);
    const all = base + 1024;
    const sums = base + 2048;
    for (let t: u32 = 0; t < 2; t++) {
      memory.fill(all, 0, 48 * 2);
      memory.fill(sums, 0, 48 * 2);
      expect<i32>(k_fold_groups(base, 0, n, t, bounds, groups, 4, all, 2)).toBe(0);
      expect<i32>(k_fold_groups(base, 0, n, t | FT_NO_MINMAX, bounds, groups, 4, sums, 2)).toBe(0);
      // count, double sum, high and low words: the first 4 of the 6 arrays, 2 groups each
      for (let k = 0; k < 8; k++) expect<i64>(load<i64>(sums + (<usize>k << 3))).toBe(load<i64>(all + (<usize>k << 3)));
      expect<i64>(load<i64>(sums + 64)).toBe(0); // min left alone
    }
  });
  it('sums doubles in row order; NaN is the largest value and the smallest only alone', () => {
    const base = k_region(4096);
    store<f64>(base, 1.5);
    store<f64>(base, NaN, 8);
    store<f64>(base, -2.0, 16);
    store<f64>(base, NaN, 24);
    const bounds = base + 64;
    store<u32>(bounds, 0);
    store<u32>(bounds, 3, 4);
    store<u32>(bounds, 4, 8);
    const groups = base + 96;
    store<u32>(groups, 0);
    store<u32>(groups, 1, 4);
    const acc = base + 128;
    memory.fill(acc, 0, 48 * 2);
    expect<i32>(k_fold_groups(base, 0, 4, 2, bounds, groups, 2, acc, 2)).toBe(0);
    const out = base + 1024;
    expect<i32>(k_finish_groups(acc, 2, 2, 3, out, base + 2048)).toBe(0);
    expect<f64>(load<f64>(out)).toBe(-2.0);
    expect<bool>(isNaN(load<f64>(out, 8))).toBe(true);
    expect<i32>(k_finish_groups(acc, 2, 2, 4, out, base + 2048)).toBe(0);
    expect<bool>(isNaN(load<f64>(out))).toBe(true);
    expect<i32>(k_finish_groups(acc, 2, 1, 1, out, base + 2048)).toBe(0);
    expect<bool>(isNaN(load<f64>(out))).toBe(true); // 1.5 + NaN - 2
  });
  it('counts rows of runs without reading values', () => {
    const base = k_region(1024);
    const bounds = base;
    store<u32>(bounds, 0);
    store<u32>(bounds, 7, 4);
    const groups = base + 32;
    store<u32>(groups, 0);
    const acc = base + 64;
    memory.fill(acc, 0, 48);
    expect<i32>(k_fold_groups(0, 0, 7, 3, bounds, groups, 1, acc, 1)).toBe(0);
    expect<f64>(accF64(acc, 1, 0, 0)).toBe(7);
  });
  it('refuses bounds that go back or pass the rows, groups past the capacity, unknown types', () => {
    const base = k_region(256);
    const bounds = base + 64;
    const groups = base + 96;
    store<u32>(groups, 0);
    store<u32>(bounds, 2);
    store<u32>(bounds, 1, 4);
    expect<i32>(k_fold_groups(base, 0, 4, 0, bounds, groups, 1, base + 128, 1)).toBe(-1);
    store<u32>(bounds, 0);
    store<u32>(bounds, 5, 4);
    expect<i32>(k_fold_groups(base, 0, 4, 0, bounds, groups, 1, base + 128, 1)).toBe(-1);
    store<u32>(bounds, 4, 4);
    store<u32>(groups, 1);
    expect<i32>(k_fold_groups(base, 0, 4, 0, bounds, groups, 1, base + 128, 1)).toBe(-1);
    store<u32>(groups, 0);
    expect<i32>(k_fold_groups(base, 0, 4, 4, bounds, groups, 1, base + 128, 1)).toBe(-1);
    expect<i32>(k_finish_groups(base + 128, 1, 1, 6, base, base + 32)).toBe(-2);
  });
});
