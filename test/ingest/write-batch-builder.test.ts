// The fast WriteBatchBuilder against the straightforward reference builder on seeded random rows:
// the same bytes for every batch, the same error (code and message) for every refused row, and
// a refused row changes nothing.

import { describe, expect, it } from 'vitest';
import { UserError } from '../../host/core/errors.js';
import { tagsHash, WriteBatchBuilder, type FieldInput } from '../../host/core/write-batch-builder.js';
import { readWriteBatch, ValueType, type FieldType } from '../../host/core/write-batch.js';
import { ReferenceWriteBatchBuilder } from './reference-batch-builder.js';
import { rng } from './ingest-support.js';

const NAMES = ['a', 'b', 'host', 'région', 'z', 'time', '', 'k,=\\ x', '😀', '\ud800x', 'value', 'A'];
const TYPES: FieldType[] = [
  ValueType.Double,
  ValueType.BigInt,
  ValueType.Unsigned,
  ValueType.Boolean,
  ValueType.String,
];

function value(type: FieldType, random: () => number): FieldInput['value'] {
  switch (type) {
    case ValueType.Double:
      return [0, -0, 1.5, NaN, Infinity, -1e300][Math.floor(random() * 6)]!;
    case ValueType.BigInt:
      return [0n, -(2n ** 63n), 2n ** 63n - 1n, 42n][Math.floor(random() * 4)]!;
    case ValueType.Unsigned:
      return [0n, 2n ** 64n - 1n, 7n][Math.floor(random() * 3)]!;
    case ValueType.Boolean:
      return random() < 0.5;
    default:
      return ['', 'text', 'ünï ✓', '😀\ud800', 'x'.repeat(300)][Math.floor(random() * 5)]!;
  }
}

type Outcome = string | [string, string];

function add(b: { addRow: WriteBatchBuilder['addRow'] }, row: Parameters<WriteBatchBuilder['addRow']>): Outcome {
  try {
    b.addRow(...row);
    return 'ok';
  } catch (e) {
    if (e instanceof UserError) return [e.code, e.message];
    throw e;
  }
}

describe('WriteBatchBuilder', () => {
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`matches the reference builder byte for byte and error for error (seed ${seed})`, () => {
      const random = rng(seed);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
      // A few names keep their type most of the time, so that conflicts are rare but present.
      const typeOf = new Map<string, FieldType>();
      for (let batch = 0; batch < 8; batch++) {
        const fast = new WriteBatchBuilder();
        const ref = new ReferenceWriteBatchBuilder();
        let accepted = 0;
        for (let n = 0; n < 300; n++) {
          const table = random() < 0.05 ? pick(['', 'time', 't,1']) : pick(['cpu', 'mem', 'logs']);
          const tags: Array<[string, string]> = [];
          for (let i = Math.floor(random() * 4); i > 0; i--)
            tags.push([
              pick(NAMES.slice(0, random() < 0.9 ? 5 : NAMES.length)),
              pick(['x', 'y', '', 'ü ,=', 'a b,c=d\\e', 'x'.repeat(40), 'long value, escaped \\ = yes']),
            ]);
          const fields: FieldInput[] = [];
          for (let i = Math.floor(random() * 5); i > 0; i--) {
            const name = random() < 0.9 ? pick(['f1', 'f2', 'f3', 'msg', 'n']) : pick(NAMES);
            let type = typeOf.get(name);
            if (type === undefined || random() < 0.03) typeOf.set(name, (type = pick(TYPES)));
            fields.push({ name, type, value: value(type, random) });
          }
          const ts = BigInt(Math.floor(random() * 20)) - 5n;
          const a = add(fast, [table, tags, ts, fields]);
          const b = add(ref, [table, tags, ts, fields]);
          expect(
            a,
            JSON.stringify({ table, tags, fields }, (_k, v) => (typeof v === 'bigint' ? String(v) : v)),
          ).toEqual(b);
          if (a === 'ok') accepted++;
        }
        expect(fast.rowCount).toBe(ref.rowCount);
        expect(accepted).toBeGreaterThan(0);
        expect(Buffer.from(fast.finish()).toString('hex')).toBe(Buffer.from(ref.finish()).toString('hex'));
      }
    });
  }

  it('matches the reference when most rows are new series (the raw-key cache switches off), with tagsKey hints', () => {
    const fast = new WriteBatchBuilder();
    const ref = new ReferenceWriteBatchBuilder();
    const f = [{ name: 'v', type: ValueType.Double, value: 1 }] as FieldInput[];
    for (let i = 0; i < 3000; i++) {
      const tags: Array<[string, string]> = [
        ['span', String(i % 2500)],
        ['b', 'x'],
      ];
      fast.addRow('spans', tags, BigInt(i), f);
      ref.addRow('spans', tags, BigInt(i), f);
      const hinted: Array<[string, string]> = [['h', String(i % 10)]];
      fast.addRow('hinted', hinted, BigInt(i), f, `h${i % 10}`);
      ref.addRow('hinted', hinted, BigInt(i), f);
    }
    expect(Buffer.from(fast.finish()).equals(Buffer.from(ref.finish()))).toBe(true);
  });

  // Version 2 (seriesKeys: false): the same batch less its keys, which the reader makes from the tags.
  it('leaves the series keys out without changing anything else (seed 9)', () => {
    const random = rng(9);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
    const keyed = new WriteBatchBuilder();
    const keyless = new WriteBatchBuilder({ seriesKeys: false });
    for (let n = 0; n < 2000; n++) {
      const tags: Array<[string, string]> = [];
      for (let i = Math.floor(random() * 4); i > 0; i--)
        tags.push([pick(NAMES.slice(0, 5)), pick(['x', 'y', '', 'ü ,=', 'a b,c=d\\e', 'x'.repeat(40)])]);
      const fields: FieldInput[] = [{ name: pick(['f1', 'f2']), type: ValueType.Double, value: random() }];
      const table = pick(['cpu', 'mem', 'a b']);
      const a = add(keyed, [table, tags, BigInt(n % 50), fields]);
      expect(add(keyless, [table, tags, BigInt(n % 50), fields])).toEqual(a);
    }
    const read = (b: Uint8Array) =>
      readWriteBatch(b).tables.map((t) => ({
        name: t.name,
        columns: t.columns.map((c) => [c.name, c.kind, c.type, c.validity === undefined ? undefined : [...c.validity]]),
        timestamps: [...t.timestamps],
        series: t.series.map((s) => [s.rowStart, s.rowCount, s.minTs, s.maxTs, s.sorted, s.key, s.tags]),
      }));
    const withKeys = keyed.finish();
    const without = keyless.finish();
    expect(without.length).toBeLessThan(withKeys.length);
    expect(read(without)).toEqual(read(withKeys));
  });

  it('keeps series apart whose tags hash alike', () => {
    // Two values of one tag with the same identity hash, found by search (32 bits collide within
    // some 10^5 values): a bucket of two series, each found again by comparing tags.
    const seen = new Map<number, string>();
    const colliding: string[] = [];
    for (let i = 0; colliding.length === 0 && i < 3_000_000; i++) {
      const v = `v${i}`;
      const h = tagsHash([0], [v]);
      const other = seen.get(h);
      if (other === undefined) seen.set(h, v);
      else colliding.push(other, v);
    }
    expect(colliding.length).toBe(2);
    const fast = new WriteBatchBuilder();
    const ref = new ReferenceWriteBatchBuilder();
    const f = [{ name: 'x', type: ValueType.Double, value: 1 }] as FieldInput[];
    for (let i = 0; i < 120; i++) {
      // Many new series first, so that the raw-key cache switches off and every row is found by its hash.
      const tags: Array<[string, string]> = [['k', i < 100 ? `n${i}` : colliding[i % colliding.length]!]];
      fast.addRow('t', tags, BigInt(i), f);
      ref.addRow('t', tags, BigInt(i), f);
    }
    expect(Buffer.from(fast.finish()).equals(Buffer.from(ref.finish()))).toBe(true);
  });

  it('keeps a column that first appears late in a big batch', () => {
    const fast = new WriteBatchBuilder();
    const ref = new ReferenceWriteBatchBuilder();
    for (const b of [fast, ref]) {
      for (let i = 0; i < 5000; i++)
        b.addRow('t', [['h', String(i % 7)]], BigInt(i), [
          { name: i === 4999 ? 'late' : 'v', type: ValueType.Double, value: i },
        ]);
    }
    expect(Buffer.from(fast.finish()).equals(Buffer.from(ref.finish()))).toBe(true);
  });
});

describe('WriteBatchBuilder limits', () => {
  it('refuses a row that would take a table past 65535 columns, and stays usable', () => {
    const b = new WriteBatchBuilder();
    const wide = Array.from(
      { length: 65536 },
      (_, i): FieldInput => ({ name: `f${i}`, type: ValueType.Double, value: i }),
    );
    expect(() => b.addRow('t', [], 1n, wide)).toThrow("table 't' would have 65536 columns; at most 65535 are allowed");
    b.addRow('t', [['h', 'a']], 2n, wide.slice(0, 3));
    expect(b.rowCount).toBe(1);
    const ref = new ReferenceWriteBatchBuilder();
    ref.addRow('t', [['h', 'a']], 2n, wide.slice(0, 3));
    expect(Buffer.from(b.finish()).equals(Buffer.from(ref.finish()))).toBe(true);
  });
});
