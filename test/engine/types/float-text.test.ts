import { describe, expect, it } from 'vitest';
import { formatArrowF64, formatJsonF64, formatRustF64 } from '../../../host/engine/types/float-text.js';
import { prng } from '../format/support.js';

// [value, Arrow display / CSV (lexical-core), JSON (ryu), Rust `{}`]
const CASES: ReadonlyArray<readonly [string, number, string, string, string]> = [
  ['one', 1, '1.0', '1.0', '1'],
  ['a half', 2.5, '2.5', '2.5', '2.5'],
  ['zero', 0, '0.0', '0.0', '0'],
  ['negative zero', -0, '-0.0', '-0.0', '-0'],
  ['negative', -12.75, '-12.75', '-12.75', '-12.75'],
  ['a tenth', 0.1, '0.1', '0.1', '0.1'],
  ['0.1 + 0.2', 0.1 + 0.2, '0.30000000000000004', '0.30000000000000004', '0.30000000000000004'],
  ['3.0 / 5 in world.slt', 3.0 / 5, '0.6', '0.6', '0.6'],
  ['pi', Math.PI, '3.141592653589793', '3.141592653589793', '3.141592653589793'],
  ['1e-5, the smallest decimal', 1e-5, '0.00001', '0.00001', '0.00001'],
  ['1.5e-5', 1.5e-5, '0.000015', '0.000015', '0.000015'],
  ['1e-6', 1e-6, '1.0e-6', '1e-6', '0.000001'],
  ['9.99e-6', 9.99e-6, '9.99e-6', '9.99e-6', '0.00000999'],
  ['1.5e-7', 1.5e-7, '1.5e-7', '1.5e-7', '0.00000015'],
  [
    '6.28e-17 from the legacy cases',
    6.280369834735101e-17,
    '6.280369834735101e-17',
    '6.280369834735101e-17',
    '0.00000000000000006280369834735101',
  ],
  ['4e9, the largest decimal exponent', 4e9, '4000000000.0', '4000000000.0', '4000000000'],
  ['1200100002.25', 1200100002.25, '1200100002.25', '1200100002.25', '1200100002.25'],
  ['9999999999.5', 9999999999.5, '9999999999.5', '9999999999.5', '9999999999.5'],
  ['1e10', 1e10, '1.0e10', '10000000000.0', '10000000000'],
  ['3.5e10', 3.5e10, '3.5e10', '35000000000.0', '35000000000'],
  ['2^53', 2 ** 53, '9.007199254740992e15', '9007199254740992.0', '9007199254740992'],
  ['1e15', 1e15, '1.0e15', '1000000000000000.0', '1000000000000000'],
  ['1e16', 1e16, '1.0e16', '1e16', '10000000000000000'],
  ['1.5e16', 1.5e16, '1.5e16', '1.5e16', '15000000000000000'],
  ['1e300', 1e300, '1.0e300', '1e300', '1' + '0'.repeat(300)],
  [
    'the largest double',
    Number.MAX_VALUE,
    '1.7976931348623157e308',
    '1.7976931348623157e308',
    '17976931348623157' + '0'.repeat(292),
  ],
  ['the smallest subnormal', 5e-324, '5.0e-324', '5e-324', '0.' + '0'.repeat(323) + '5'],
  ['-1e-7', -1e-7, '-1.0e-7', '-1e-7', '-0.0000001'],
];

describe('float text', () => {
  for (const [name, x, arrow, json, rust] of CASES) {
    it(`writes ${name} as Arrow, serde_json and Rust do`, () => {
      expect(formatArrowF64(x)).toBe(arrow);
      expect(formatJsonF64(x)).toBe(json);
      expect(formatRustF64(x)).toBe(rust);
    });
  }

  it('writes NaN and infinities as Arrow and Rust do; JSON has no text for them', () => {
    expect([NaN, Infinity, -Infinity].map(formatArrowF64)).toEqual(['NaN', 'inf', '-inf']);
    expect([NaN, Infinity, -Infinity].map(formatRustF64)).toEqual(['NaN', 'inf', '-inf']);
    expect(() => formatJsonF64(NaN)).toThrow(/BUG/);
  });

  it('matches a reference built from the shortest digits, and reads back, on 200000 seeded doubles', () => {
    const rand = prng(20240601);
    const bits = new Float64Array(1);
    const words = new Uint32Array(bits.buffer);
    const samples: number[] = [];
    for (let i = 0; i < 40000; i++) {
      // Arbitrary bit patterns (mostly far outside the decimal ranges).
      words[0] = (rand() * 2 ** 32) >>> 0;
      words[1] = (rand() * 2 ** 32) >>> 0;
      if (Number.isFinite(bits[0]!)) samples.push(bits[0]!);
      // Sensor-like decimals with 0 to 6 fraction digits.
      const k = Math.floor(rand() * 7);
      samples.push(Math.round(rand() * 1e6 * 10 ** k) / 10 ** k);
      // Arbitrary doubles at every scale, around both exponent thresholds.
      samples.push(rand() * 10 ** Math.floor(rand() * 30 - 10));
      // Neighbours of powers of ten.
      const p = 10 ** Math.floor(rand() * 40 - 15);
      samples.push(nextAfter(p, rand() < 0.5 ? -1 : 1));
      samples.push(-Math.floor(rand() * 2 ** 53));
    }
    const wrong: string[] = [];
    for (const x of samples) {
      const arrow = formatArrowF64(x);
      const json = formatJsonF64(x);
      const rust = formatRustF64(x);
      if (arrow !== reference(x, 9, true) || Number(arrow) !== x) wrong.push(`arrow ${x}: ${arrow}`);
      if (json !== reference(x, 15, false) || Number(json) !== x) wrong.push(`json ${x}: ${json}`);
      if (Number(rust) !== x || /e/.test(rust)) wrong.push(`rust ${x}: ${rust}`);
    }
    expect(samples.length).toBeGreaterThan(190000);
    expect(wrong.slice(0, 10)).toEqual([]);
  });
});

/** The neighbouring double of p toward `direction`. */
function nextAfter(p: number, direction: number): number {
  const f = new Float64Array([p]);
  const b = new BigInt64Array(f.buffer);
  b[0] = b[0]! + BigInt(direction);
  return f[0]!;
}

/** An independent, slow formatter from JavaScript's shortest digits (decimal for -5 <= exp <= maxExp). */
function reference(x: number, maxExp: number, pointInExponent: boolean): string {
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  const [mantissa, e] = Math.abs(x).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const exp = Number(e);
  if (exp < -5 || exp > maxExp) {
    const rest = digits.slice(1);
    return `${sign}${digits[0]}${rest ? '.' + rest : pointInExponent ? '.0' : ''}e${exp}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const int = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  const frac = digits.slice(exp + 1);
  return `${sign}${int}.${frac || '0'}`;
}
