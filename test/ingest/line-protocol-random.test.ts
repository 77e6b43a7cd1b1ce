// Seeded randomized tests: random points rendered as line protocol (random escaping, spacing,
// comments, CRLF, duplicates) against WriteBatchBuilder; DOUBLE parsing bit for bit against
// Number(text); and fuzzing where only UserError may escape and windows never change the answer.
import { describe, expect, it } from 'vitest';
import { UserError } from '../../host/core/errors.js';
import type { FieldInput } from '../../host/core/write-batch-builder.js';
import { readWriteBatch, ValueType, type FieldType } from '../../host/core/write-batch.js';
import type { LineProtocolScanner } from '../../host/ingest/line-protocol.js';
import { bytes, encode, hex, NS, printAll, renderLines, rng, rowsBySeries, scanner, type Point } from './lp-support.js';

type Rand = ReturnType<typeof rng>;

const NAME_PARTS = [
  'a',
  'b',
  'z',
  '_',
  '0',
  '9',
  'x y',
  'k,v',
  'p=q',
  'é',
  '日本',
  '😀',
  '\\\\',
  '\\"',
  "\\'",
  '"',
  "'",
  '#',
  '-',
  '.',
  'time',
];
const STRING_PARTS = ['', 'a', ' ', ',', '=', '"', '\\', "'", '\n', '\r\n', 'é', '😀', 'i', '1', '#', '\t'];

function randomName(r: Rand, used: Set<string>): string {
  for (;;) {
    let n = '';
    const parts = 1 + r.int(3);
    for (let k = 0; k < parts; k++) n += r.pick(NAME_PARTS);
    if (n === 'time' || n.startsWith('#') || used.has(n)) continue;
    used.add(n);
    return n;
  }
}

const DOUBLES = [
  // biome-ignore lint/correctness/noPrecisionLoss: literals that round are the cases under test
  0, -0, 1, -1, 0.1, 1.5, 1e23, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 123456.789, 9007199254740993,
  // biome-ignore lint/suspicious/noApproximativeNumericConstant: any double will do, not pi
  1e-7, 3.14159,
];

function randomValue(type: FieldType, r: Rand): FieldInput['value'] {
  switch (type) {
    case ValueType.Double:
      return r.chance(0.5) ? r.pick(DOUBLES) : (r.next() - 0.5) * 10 ** (r.int(40) - 20);
    case ValueType.BigInt:
      return r.chance(0.2)
        ? r.pick([0n, -9223372036854775808n, 9223372036854775807n])
        : BigInt(Math.floor((r.next() - 0.5) * 2 ** 53));
    case ValueType.Unsigned:
      return r.chance(0.2) ? r.pick([0n, 18446744073709551615n]) : BigInt(Math.floor(r.next() * 2 ** 53));
    case ValueType.Boolean:
      return r.chance(0.5);
    default: {
      let s = '';
      for (let k = r.int(5); k > 0; k--) s += r.pick(STRING_PARTS);
      return s;
    }
  }
}

interface Generated {
  body: string;
  points: Point[];
}

/** Random points over a few tables with fixed schemas; the body also holds repeated keys. */
function generate(seed: number, rows: number, defaultTs: bigint): Generated {
  const r = rng(seed);
  const tables = Array.from({ length: 1 + r.int(3) }, () => {
    const used = new Set<string>();
    const name = randomName(r, new Set());
    const tags = Array.from({ length: r.int(4) }, () => randomName(r, used));
    const values = tags.map(() => Array.from({ length: 1 + r.int(3) }, () => randomName(r, new Set())));
    const fields = Array.from({ length: 1 + r.int(6) }, () => ({
      name: randomName(r, used),
      type: (1 + r.int(5)) as FieldType,
    }));
    return { name, tags, values, fields };
  });
  const render: Point[] = [];
  const points: Point[] = [];
  for (let k = 0; k < rows; k++) {
    const t = r.pick(tables);
    const tags: Array<[string, string]> = [];
    t.tags.forEach((name, j) => {
      if (r.chance(0.7)) tags.push([name, r.pick(t.values[j]!)]);
    });
    for (let j = tags.length - 1; j > 0; j--) {
      const x = r.int(j + 1);
      [tags[j], tags[x]] = [tags[x]!, tags[j]!];
    }
    const fields: FieldInput[] = t.fields
      .filter(() => r.chance(0.6))
      .map((fd) => ({ ...fd, value: randomValue(fd.type, r) }));
    if (fields.length === 0) fields.push({ ...t.fields[0]!, value: randomValue(t.fields[0]!.type, r) });
    fields.sort(() => r.next() - 0.5);
    const ts = r.chance(0.2) ? defaultTs : BigInt(Math.floor((r.next() - 0.3) * 2 ** 60));
    points.push({ table: t.name, tags, ts, fields });
    // Repeated keys later in the line must be ignored.
    const extraTags = tags.length > 0 && r.chance(0.1) ? [[tags[0]![0], 'dup'] as [string, string]] : [];
    const extraFields = r.chance(0.1) ? [{ ...fields[0]!, value: randomValue(fields[0]!.type, r) }] : [];
    render.push({ table: t.name, tags: [...tags, ...extraTags], ts, fields: [...fields, ...extraFields] });
  }
  return { body: renderLines(render, r, defaultTs), points };
}

describe('LineProtocolScanner against WriteBatchBuilder', () => {
  for (let seed = 1; seed <= 40; seed++) {
    it(`scans random points, seed ${seed}`, async () => {
      const g = generate(seed, 5 + (seed % 7) * 20, NS.defaultTs);
      const body = bytes(g.body);
      const want = encode(g.points);
      const got = (await scanner()).scan(body, NS);
      expect(printAll(got)).toBe(printAll(want));
      expect(hex(got)).toEqual(hex(want));
      const windowBytes = 1 + rng(seed).int(300);
      const windowed = (await scanner({ windowBytes })).scan(body, NS);
      expect(rowsBySeries(windowed), `window ${windowBytes}`).toBe(rowsBySeries(want));
    });
  }
});

/** Decimal texts in the grammar, with the cases that defeat fast paths. */
function decimalTexts(seed: number, n: number): string[] {
  const r = rng(seed);
  const texts = [
    '0',
    '-0',
    '0.0',
    '-0.0',
    '0e999',
    '-0e-999',
    '1',
    '1.',
    '+1.5',
    '5e-324',
    '4.9e-324',
    '2.4703282292062327e-324',
    '2.4703282292062328e-324',
    '2.2250738585072011e-308',
    '2.2250738585072014e-308',
    '1.7976931348623157e308',
    '1.7976931348623158e308',
    '1.7976931348623159e308',
    '1e400',
    '9007199254740992',
    '9007199254740993',
    '9007199254740993.0000000001',
    '0.1',
    '0.3',
    '0.30000000000000004',
    '1e22',
    '1e23',
    '8.5e22',
    '123456789012345678',
    '1234567890123456789',
    '12345678901234567890',
    '0.000000000000000000000000000001',
    '3.141592653589793238462643383279',
    '7.2057594037927933e16',
    '1.00000000000000011102230246251565404236316680908203125',
    '1.00000000000000011102230246251565404236316680908203124',
    '1.00000000000000011102230246251565404236316680908203126',
    '00000000000000000000001.5',
    '1E5',
    '1e+5',
    '1e-5',
  ];
  const digits = (k: number): string => Array.from({ length: k }, () => String(r.int(10))).join('');
  while (texts.length < n) {
    let t = r.chance(0.3) ? '-' : r.chance(0.1) ? '+' : '';
    t += digits(1 + r.int(r.chance(0.2) ? 25 : 10));
    if (r.chance(0.6)) t += '.' + digits(r.int(r.chance(0.2) ? 25 : 8));
    if (r.chance(0.4)) t += r.pick(['e', 'E']) + r.pick(['', '+', '-']) + String(r.int(r.chance(0.3) ? 330 : 30));
    texts.push(t);
  }
  return texts;
}

describe('DOUBLE parsing', () => {
  it('matches Number(text) bit for bit', async () => {
    const texts = decimalTexts(7, 20000);
    const body = bytes(texts.map((t, k) => `m v=${t} ${k}\n`).join(''));
    const [batch, ...rest] = (await scanner()).scan(body, NS);
    expect(rest).toEqual([]);
    const col = readWriteBatch(batch!).tables[0]!.columns.find((c) => c.name === 'v')!;
    const got = new BigUint64Array((col.values as Float64Array).slice().buffer);
    const want = new BigUint64Array(new Float64Array(texts.map(Number)).buffer);
    const bad = texts.filter((_, k) => got[k] !== want[k]).slice(0, 5);
    expect(bad).toEqual([]);
  });
});

/** One scan's outcome as text: the rows, or the error. Anything but a UserError fails the test. */
function outcome(sc: LineProtocolScanner, body: Uint8Array): string {
  const t0 = performance.now();
  let text: string;
  try {
    const batches = sc.scan(body, NS);
    for (const b of batches) readWriteBatch(b);
    text = rowsBySeries(batches);
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    text = `${e.kind}: ${e.message}`;
  }
  expect(performance.now() - t0).toBeLessThan(2000);
  return text;
}

const FUZZ_BYTES = [...bytes('ab1 ,=",\\\n\r\t#iutfTF.e-+0xé'), 0xff, 0xc3, 0x80, 0xe6, 0xed, 0xa0];

describe('LineProtocolScanner fuzzing', () => {
  it('answers random bytes with batches or a UserError, the same in any window', async () => {
    const r = rng(99);
    const one = await scanner();
    for (let k = 0; k < 1500; k++) {
      const n = r.int(300);
      const body = new Uint8Array(n);
      for (let j = 0; j < n; j++) body[j] = r.chance(0.9) ? r.pick(FUZZ_BYTES) : r.int(256);
      const windowed = await scanner({ windowBytes: 1 + r.int(64) });
      expect(outcome(windowed, body), `case ${k}: ${JSON.stringify(Buffer.from(body).toString('latin1'))}`).toBe(
        outcome(one, body),
      );
    }
  });

  it('answers mutated valid bodies with batches or a UserError, the same in any window', async () => {
    const r = rng(1234);
    const one = await scanner();
    for (let k = 0; k < 1500; k++) {
      const base = bytes(generate(1000 + k, 1 + r.int(8), NS.defaultTs).body);
      const body = Array.from(base);
      for (let m = 1 + r.int(6); m > 0; m--) {
        const at = r.int(body.length + 1);
        const op = r.int(4);
        if (op === 0) body.splice(at, 1);
        else if (op === 1) body.splice(at, 0, r.pick(FUZZ_BYTES));
        else if (op === 2 && at < body.length) body[at] = r.int(256);
        else body.splice(at, 0, ...body.slice(at, at + r.int(20)));
      }
      const input = new Uint8Array(body.slice(0, 8192));
      const windowed = await scanner({ windowBytes: 1 + r.int(200) });
      expect(outcome(windowed, input), `case ${k}`).toBe(outcome(one, input));
    }
  });
});
