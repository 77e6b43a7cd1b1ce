import { k_format_f64 } from '../kernels/float-text';
import { k_region } from '../kernels/region';
import { shortest, shortestDigits, shortestExponent, shortestLength } from '../kernels/shortest';

/** The texts k_format_f64 writes for `values` in `style`. */
function format(values: f64[], style: u32): string[] {
  const n = values.length;
  const base = k_region(n * 44);
  for (let i = 0; i < n; i++) store<f64>(base + (<usize>i << 3), values[i]);
  const out = base + n * 8;
  const ends = out + n * 32;
  const bytes = k_format_f64(base, n, style, out, ends);
  expect<isize>(bytes).toBeGreaterThan(0);
  const texts: string[] = [];
  let from: u32 = 0;
  for (let i = 0; i < n; i++) {
    const to = load<u32>(ends + (<usize>i << 2));
    texts.push(String.UTF8.decodeUnsafe(out + from, to - from));
    from = to;
  }
  return texts;
}

describe('shortest', () => {
  it('finds the fewest digits that read back, the nearest of them', () => {
    shortest(0.1);
    expect<u64>(shortestDigits).toBe(1);
    expect<i32>(shortestLength).toBe(1);
    expect<i32>(shortestExponent).toBe(-1);
    shortest(0.30000000000000004);
    expect<u64>(shortestDigits).toBe(30000000000000004);
    expect<i32>(shortestExponent).toBe(-1);
    shortest(5e-324);
    expect<u64>(shortestDigits).toBe(5);
    expect<i32>(shortestExponent).toBe(-324);
    shortest(1.7976931348623157e308);
    expect<u64>(shortestDigits).toBe(17976931348623157);
    expect<i32>(shortestExponent).toBe(308);
    shortest(9007199254740992.0);
    expect<u64>(shortestDigits).toBe(9007199254740992);
    expect<i32>(shortestExponent).toBe(15);
  });
});

describe('k_format_f64', () => {
  it("writes Arrow's display", () => {
    const got = format([1.0, -12.75, 0.0, -0.0, 1e-5, 1e-6, 4e9, 1e10, 3.5e10, NaN, Infinity, -Infinity, 5e-324, 123.456, 0.000015], 0);
    const want = ['1.0', '-12.75', '0.0', '-0.0', '0.00001', '1.0e-6', '4000000000.0', '1.0e10', '3.5e10', 'NaN', 'inf', '-inf', '5.0e-324', '123.456', '0.000015'];
    for (let i = 0; i < want.length; i++) expect<string>(got[i]).toBe(want[i]);
  });
  it("writes serde_json's text, and null for what JSON cannot hold", () => {
    const got = format([1.0, 1e15, 1e16, 1.5e-7, -1e-7, NaN, -Infinity, 2.5], 1);
    const want = ['1.0', '1000000000000000.0', '1e16', '1.5e-7', '-1e-7', 'null', 'null', '2.5'];
    for (let i = 0; i < want.length; i++) expect<string>(got[i]).toBe(want[i]);
  });
  it('refuses an unknown style', () => {
    expect<isize>(k_format_f64(0, 0, 2, 0, 0)).toBe(-1);
  });
});
