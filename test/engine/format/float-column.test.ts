// Whole columns of doubles through the Wasm core (k_format_f64, Ryū's shortest digits) give
// exactly the bytes of the per-value TypeScript writers (float-text.ts, itself checked against
// JavaScript's shortest digits), for every kind of double; the CSV and JSON writers use it.

import { beforeAll, describe, expect, it } from 'vitest';
import { installKernels } from '../../../host/engine/types/kernels.js';
import { formatFloatColumn, MIN_COLUMN_ROWS, type FloatTexts } from '../../../host/engine/format/float-column.js';
import { formatArrowF64, formatJsonF64 } from '../../../host/engine/types/float-text.js';
import { FLOAT64 } from '../../../host/engine/types/data-types.js';
import { loadCore } from '../../support/core.js';
import { batchOf, prng, render, schemaOf } from './support.js';

const decoder = new TextDecoder();

function texts(t: FloatTexts): string[] {
  const out: string[] = [];
  let from = 0;
  for (const to of t.ends) {
    out.push(decoder.decode(t.bytes.subarray(from, to)));
    from = to;
  }
  return out;
}

/** Every kind of double: arbitrary bits (NaNs, infinities, subnormals), decimals, all scales, neighbours of powers of ten and of the notation thresholds. */
function samples(n: number, seed: number): Float64Array {
  const rand = prng(seed);
  const bits = new Float64Array(1);
  const words = new Uint32Array(bits.buffer);
  const out = new Float64Array(n);
  const special = [
    0,
    -0,
    NaN,
    -NaN,
    Infinity,
    -Infinity,
    1,
    -1,
    0.5,
    9.5,
    0.1,
    0.3,
    2 / 3,
    1e-5,
    1e-6,
    1e10,
    1e16,
    1e15,
    2 ** 53,
    2 ** 53 + 2,
    2 ** 63,
    2 ** 64,
    5e-324,
    -5e-324,
    2.2250738585072014e-308,
    2.225073858507201e-308,
    Number.MAX_VALUE,
    1e21,
    1e22,
    1e23,
    // biome-ignore lint/correctness/noPrecisionLoss: literals that round are the cases under test
    9007199254740993,
    123456789.12345679,
    4.35,
    0.000015,
    1.5e-7,
  ];
  for (let i = 0; i < n; i++) {
    switch (i % 6) {
      case 0:
        words[0] = (rand() * 2 ** 32) >>> 0;
        words[1] = (rand() * 2 ** 32) >>> 0;
        out[i] = bits[0]!;
        break;
      case 1: {
        const k = Math.floor(rand() * 7);
        out[i] = (Math.round(rand() * 1e6 * 10 ** k) / 10 ** k) * (rand() < 0.3 ? -1 : 1);
        break;
      }
      case 2:
        out[i] = rand() * 10 ** Math.floor(rand() * 40 - 20);
        break;
      case 3: {
        const p = 10 ** Math.floor(rand() * 50 - 25);
        bits[0] = p;
        const b = new BigInt64Array(bits.buffer);
        b[0] = b[0]! + BigInt(Math.floor(rand() * 5) - 2);
        out[i] = bits[0]!;
        break;
      }
      case 4:
        out[i] = Math.floor(rand() * 2 ** 53) / 2 ** Math.floor(rand() * 60);
        break;
      default:
        out[i] = special[Math.floor(rand() * special.length)]!;
    }
  }
  return out;
}

beforeAll(async () => {
  installKernels(await loadCore());
});

describe('formatFloatColumn', () => {
  it('writes Arrow display and serde_json text byte for byte as the per-value writers, on 300000 doubles', () => {
    const values = samples(300_000, 7);
    const arrow = texts(formatFloatColumn(values, 0)!);
    const json = texts(formatFloatColumn(values, 1)!);
    const wrong: string[] = [];
    for (let i = 0; i < values.length; i++) {
      const x = values[i]!;
      if (arrow[i] !== formatArrowF64(x)) wrong.push(`arrow ${x}: ${arrow[i]} != ${formatArrowF64(x)}`);
      const want = Number.isFinite(x) ? formatJsonF64(x) : 'null';
      if (json[i] !== want) wrong.push(`json ${x}: ${json[i]} != ${want}`);
    }
    expect(wrong.slice(0, 10)).toEqual([]);
  });

  it('leaves columns shorter than the threshold to the per-value writers', () => {
    expect(formatFloatColumn(new Float64Array(MIN_COLUMN_ROWS - 1), 0)).toBeUndefined();
    expect(formatFloatColumn(new Float64Array(MIN_COLUMN_ROWS), 0)).toBeDefined();
  });
});

describe('the CSV and JSON writers over long DOUBLE columns', () => {
  it('write each value as the per-value path does, NULLs as the format wants', () => {
    const values = Array.from(samples(500, 11));
    const schema = schemaOf([['x', FLOAT64]]);
    const rows = values.map((x, i) => [i % 7 === 3 ? null : x]);
    const batch = batchOf(schema, rows);
    const csv = render('csv', schema, [batch]).split('\n');
    const json = JSON.parse(render('json', schema, [batch]).replace(/\bNaN\b/g, 'null')) as Array<{ x: unknown }>;
    const ndjson = render('ndjson', schema, [batch]).trim().split('\n');
    expect(csv[0]).toBe('x');
    for (let i = 0; i < values.length; i++) {
      const x = values[i]!;
      const isNull = i % 7 === 3;
      expect(csv[i + 1]).toBe(isNull ? '""' : formatArrowF64(x)); // a lone empty field is quoted
      expect(ndjson[i]).toBe(isNull || !Number.isFinite(x) ? '{"x":null}' : `{"x":${formatJsonF64(x)}}`);
      if (isNull || !Number.isFinite(x)) expect(json[i]!.x).toBeNull();
      else expect(json[i]!.x).toBe(x);
    }
  });
});
