// BlockCodecs (host/core/codecs.ts) over the real Wasm core: seeded random blocks of every type,
// shape and CnosDB codec round-trip bit for bit; mutated blocks decode or throw CorruptionError
// and nothing else; the zstd wrapper of STRING blocks is checked before it is trusted.
import { describe, expect, it } from 'vitest';
import * as zstd from 'zstd-napi';
import { BlockCodecs, codecAllowed, codecsFor, Encoding, type ColumnValues } from '../../host/core/codecs.js';
import { CorruptionError } from '../../host/core/errors.js';
import { ValueType } from '../../host/core/write-batch.js';
import { loadCore } from '../support/core.js';

/** sfc32 seeded through splitmix32, as ../shared/bench/gen-cpu.mjs. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  const sm = (): number => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = sm(),
    b = sm(),
    c = sm(),
    d = sm();
  return () => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t / 4294967296;
  };
}

type Rand = () => number;
const int = (r: Rand, n: number): number => Math.floor(r() * n);
const u64 = (r: Rand): bigint => (BigInt(int(r, 2 ** 32)) << 32n) | BigInt(int(r, 2 ** 32));

const SPECIAL_BITS = [
  0x7ff8000000000000n,
  0x7ff0000000000001n,
  0xfff8dead0000beefn,
  0x8000000000000000n,
  0n,
  0x7ff0000000000000n,
  0xfff0000000000000n,
  1n,
  0x800fffffffffffffn,
  0x7fefffffffffffffn,
];

/** A block of n i64 values of a random shape. */
function intShape(r: Rand, n: number): BigInt64Array {
  const out = new BigInt64Array(n);
  const shape = int(r, 7);
  let v = BigInt.asIntN(64, u64(r));
  const step = BigInt(int(r, 1000)) - 500n;
  for (let i = 0; i < n; i++) {
    switch (shape) {
      case 0: // constant
        break;
      case 1: // regular (timestamps)
        v = BigInt.asIntN(64, v + step);
        break;
      case 2: // small random walk (TSBS fields)
        v = BigInt.asIntN(64, v + BigInt(int(r, 5) - 2));
        break;
      case 3: // counter with jitter
        v = BigInt.asIntN(64, v + 1_000_000n + BigInt(int(r, 7)));
        break;
      case 4: // random 64-bit
        v = BigInt.asIntN(64, u64(r));
        break;
      case 5: // extremes and their neighbours
        v = [-(2n ** 63n), 2n ** 63n - 1n, -(2n ** 63n) + 1n, 2n ** 63n - 2n, 0n, -1n][int(r, 6)]!;
        break;
      default: // random width
        v = BigInt.asIntN(64, u64(r) >> BigInt(int(r, 64)));
    }
    out[i] = v;
  }
  return out;
}

/** A block of n doubles of a random shape (bit patterns included). */
function doubleShape(r: Rand, n: number): Float64Array {
  const out = new Float64Array(n);
  const bits = new BigUint64Array(out.buffer);
  const shape = int(r, 5);
  const places = int(r, 5);
  let w = r() * 100;
  for (let i = 0; i < n; i++) {
    if (shape === 0) {
      w = Math.min(100, Math.max(0, w + (r() - 0.5) * 2));
      out[i] = Math.round(w * 10 ** places) / 10 ** places;
    } else if (shape === 1) {
      bits[i] = u64(r);
    } else if (shape === 2) {
      out[i] = Math.sin(i / 50) * 1e-3 + w;
    } else if (shape === 3) {
      out[i] = i % 3 === 0 ? w : (out[i - 1] ?? w);
    } else {
      bits[i] = SPECIAL_BITS[int(r, SPECIAL_BITS.length)]!;
    }
    if (shape === 0 && int(r, 50) === 0) bits[i] = SPECIAL_BITS[int(r, SPECIAL_BITS.length)]!;
  }
  return out;
}

const WORDS = ['', 'a', 'host_1', 'us-east-1', 'é', '日本語', '🦀', 'a,b=c d', 'x'.repeat(300)];

function valuesFor(type: ValueType, r: Rand, n: number): ColumnValues {
  switch (type) {
    case ValueType.BigInt:
      return intShape(r, n);
    case ValueType.Unsigned:
      return new BigUint64Array(intShape(r, n).buffer);
    case ValueType.Double:
      return doubleShape(r, n);
    case ValueType.Boolean: {
      const runs = int(r, 2) === 0;
      let v = int(r, 2);
      return Uint8Array.from({ length: n }, () => (runs ? (int(r, 40) === 0 ? (v ^= 1) : v) : int(r, 2)));
    }
    default: {
      const distinct = 1 + int(r, int(r, 2) === 0 ? 4 : 2000);
      return Array.from({ length: n }, () =>
        distinct > 1000 ? `id-${int(r, 1e9)}` : WORDS[int(r, Math.min(distinct, WORDS.length))]!,
      );
    }
  }
}

function validityFor(r: Rand, n: number): Uint8Array | undefined {
  switch (int(r, 4)) {
    case 0:
      return undefined;
    case 1:
      return new Uint8Array(n).fill(int(r, 2));
    default: {
      const density = r();
      return Uint8Array.from({ length: n }, () => (r() < density ? 1 : 0));
    }
  }
}

/** Values as comparable text: doubles as their bit patterns, NULL rows as the decoder's zero. */
function printed(type: ValueType, values: ColumnValues, validity: Uint8Array | undefined, n: number): string[] {
  const out: string[] = [];
  const bits =
    type === ValueType.Double
      ? new BigUint64Array((values as Float64Array).buffer, (values as Float64Array).byteOffset, n)
      : undefined;
  for (let i = 0; i < n; i++) {
    if (validity !== undefined && validity[i] === 0) out.push('NULL');
    else if (bits !== undefined) out.push(bits[i]!.toString(16));
    else if (type === ValueType.Boolean) out.push(String((values as Uint8Array)[i] !== 0));
    else out.push(String(values[i]));
  }
  return out;
}

const TYPES = [ValueType.BigInt, ValueType.Unsigned, ValueType.Double, ValueType.Boolean, ValueType.String];

describe('BlockCodecs', () => {
  it('round-trips random blocks of every type and codec bit for bit', async () => {
    const codecs = BlockCodecs.create(await loadCore(), zstd);
    const r = rng(20261123);
    let blocks = 0;
    for (const type of TYPES) {
      for (let round = 0; round < 60; round++) {
        const n = [0, 1, 2, 3, 999, 1000][int(r, 6)]! + (int(r, 3) === 0 ? int(r, 1200) : 0);
        const values = valuesFor(type, r, n);
        const validity = validityFor(r, n);
        for (const codec of codecsFor(type)) {
          const block = codecs.encode(type, values, validity, n, codec);
          const back = codecs.decode(type, block, n);
          const want = printed(type, values, validity, n);
          expect(printed(type, back.values, back.validity, n)).toEqual(want);
          // NULL rows hold the type's zero; a block without NULLs has no validity.
          if (validity === undefined || validity.every((v) => v === 1)) expect(back.validity).toBeUndefined();
          else expect([...back.validity!]).toEqual([...validity]);
          blocks++;
        }
      }
    }
    expect(blocks).toBeGreaterThan(1000);
  });

  it('encodes UTF-8 values into the block their strings make', async () => {
    const codecs = BlockCodecs.create(await loadCore(), zstd);
    const r = rng(20261126);
    const utf8 = new TextEncoder();
    for (let round = 0; round < 80; round++) {
      const n = [0, 1, 2, 700][int(r, 4)]!;
      const values = valuesFor(ValueType.String, r, n) as string[];
      const validity = validityFor(r, n);
      // Absent rows have no bytes; the values start past a few bytes of something else.
      const skip = int(r, 3) * 5;
      const parts = values.map((v, i) =>
        validity !== undefined && validity[i] === 0 ? new Uint8Array(0) : utf8.encode(v),
      );
      const offsets = new Uint32Array(n + 1);
      offsets[0] = skip;
      parts.forEach((p, i) => {
        offsets[i + 1] = offsets[i]! + p.length;
      });
      const bytes = new Uint8Array(offsets[n]! + 3);
      parts.forEach((p, i) => {
        bytes.set(p, offsets[i]!);
      });
      for (const codec of codecsFor(ValueType.String)) {
        const block = codecs.encodeUtf8(offsets, bytes, validity, n, codec);
        expect([...block]).toEqual([...codecs.encode(ValueType.String, values, validity, n, codec)]);
      }
    }
  });

  it('decodes a STRING block to its UTF-8 dictionary, the same values as decode', async () => {
    const codecs = BlockCodecs.create(await loadCore(), zstd);
    const r = rng(11);
    const text = new TextDecoder();
    for (let round = 0; round < 60; round++) {
      const n = [0, 1, 5, 900][int(r, 4)]!;
      const values = valuesFor(ValueType.String, r, n) as string[];
      const validity = validityFor(r, n);
      for (const codec of codecsFor(ValueType.String)) {
        const block = codecs.encode(ValueType.String, values, validity, n, codec);
        const want = codecs.decode(ValueType.String, block, n);
        const got = codecs.decodeUtf8(block, n);
        expect(got.validity).toEqual(want.validity);
        const strings = Array.from(got.index, (j, i) =>
          got.validity !== undefined && got.validity[i] === 0
            ? ''
            : text.decode(got.dictBytes.subarray(got.dictOffsets[j]!, got.dictOffsets[j + 1]!)),
        );
        expect(strings).toEqual(want.values);
      }
    }
  });

  it('round-trips timestamps and keeps regular ones to a few bytes', async () => {
    const codecs = BlockCodecs.create(await loadCore(), zstd);
    const r = rng(7);
    const regular = BigInt64Array.from({ length: 1000 }, (_, i) => 1451606400000000000n + BigInt(i) * 10_000_000_000n);
    const block = codecs.encodeTimestamps(regular, 1000);
    expect(block.length).toBeLessThanOrEqual(16);
    expect(block[0]).toBe(Encoding.DeltaConst);
    expect([...codecs.decodeTimestamps(block, 1000)]).toEqual([...regular]);
    for (let round = 0; round < 50; round++) {
      const n = int(r, 1500);
      const ts = intShape(r, n);
      for (const codec of codecsFor('time')) {
        expect([...codecs.decodeTimestamps(codecs.encodeTimestamps(ts, n, codec), n)]).toEqual([...ts]);
      }
    }
  });

  it('decodes mutated blocks or throws CorruptionError, nothing else', async () => {
    const codecs = BlockCodecs.create(await loadCore(), zstd);
    const r = rng(99);
    let corrupt = 0;
    let decoded = 0;
    for (let round = 0; round < 400; round++) {
      const type = TYPES[int(r, TYPES.length)]!;
      const n = 1 + int(r, 300);
      const good = codecs.encode(type, valuesFor(type, r, n), validityFor(r, n), n);
      const bad = Uint8Array.from(good);
      let block: Uint8Array = bad;
      switch (int(r, 4)) {
        case 0:
          for (let k = 0; k <= int(r, 3); k++) bad[int(r, bad.length)] ^= 1 << int(r, 8);
          break;
        case 1:
          block = bad.subarray(0, int(r, bad.length));
          break;
        case 2:
          block = Uint8Array.from([...bad, ...Array.from({ length: 1 + int(r, 4) }, () => int(r, 256))]);
          break;
        default:
          bad[int(r, bad.length)] = int(r, 256);
      }
      try {
        codecs.decode(type, block, n);
        decoded++;
      } catch (e) {
        if (!(e instanceof CorruptionError)) throw e;
        expect(e.source).toBe('column block');
        expect(e.offset).toBeGreaterThanOrEqual(0);
        expect(e.offset).toBeLessThanOrEqual(block.length);
        corrupt++;
      }
    }
    // Most damage is detected: decoders check lengths, counts, padding and trailing bytes.
    expect(corrupt).toBeGreaterThan(decoded);
  });

  it('names the failed check and its offset', async () => {
    const codecs = BlockCodecs.create(await loadCore(), zstd);
    const block = codecs.encode(ValueType.BigInt, BigInt64Array.from([10n, 20n, 30n]), undefined, 3);
    expect([...block]).toEqual([Encoding.DeltaConst, 20, 20]);
    expect(() => codecs.decode(ValueType.BigInt, Uint8Array.from([...block, 0]), 3)).toThrow(
      'corrupt column block at offset 3: unexpected bytes after the last field',
    );
    expect(() => codecs.decode(ValueType.Double, block, 3)).toThrow(
      'corrupt column block at offset 0: unknown or misplaced encoding id',
    );
    expect(() => codecs.decode(ValueType.BigInt, new Uint8Array(0), 3)).toThrow(
      'corrupt column block at offset 0: block truncated',
    );
    const nulls = codecs.encode(ValueType.BigInt, BigInt64Array.from([1n, 2n]), Uint8Array.from([1, 0]), 2);
    expect(() => codecs.decodeTimestamps(nulls, 2)).toThrow('timestamps have NULL rows');
  });

  it('compresses STRING blocks with zstd and checks the frame before trusting it', async () => {
    const codecs = BlockCodecs.create(await loadCore(), zstd);
    const values = Array.from({ length: 1000 }, (_, i) => `request ${i % 10} from host_${i % 7}`);
    const block = codecs.encode(ValueType.String, values, undefined, 1000);
    expect(block[0]).toBe(Encoding.Zstd);
    expect(codecs.decode(ValueType.String, block, 1000).values).toEqual(values);
    // CODEC(NULL): no compression at all.
    expect(codecs.encode(ValueType.String, values, undefined, 1000, 'NULL')[0]).toBe(Encoding.Plain);
    // The raw length in the wrapper disagrees with the frame's content size.
    const wrongLength = Uint8Array.from(block);
    wrongLength[1]! ^= 1;
    expect(() => codecs.decode(ValueType.String, wrongLength, 1000)).toThrow(CorruptionError);
    // A damaged frame body.
    const damaged = Uint8Array.from(block);
    damaged[damaged.length - 5]! ^= 0xff;
    expect(() => codecs.decode(ValueType.String, damaged, 1000)).toThrow(CorruptionError);
    // Not a frame at all.
    expect(() => codecs.decode(ValueType.String, Uint8Array.from([Encoding.Zstd, 3, 1, 2, 3, 4, 5, 6]), 1)).toThrow(
      'not a zstd frame',
    );
    // A zstd wrapper on another type.
    expect(() => codecs.decode(ValueType.Double, block, 1000)).toThrow('zstd wrapper on a non-string column');
  });

  it('maps every CnosDB codec name and rejects only unknown names', async () => {
    const codecs = BlockCodecs.create(await loadCore(), zstd);
    expect(codecsFor(ValueType.BigInt)).toEqual(['DEFAULT', 'NULL', 'DELTA', 'DELTATS', 'QUANTILE']);
    expect(codecsFor(ValueType.Double)).toEqual(['DEFAULT', 'NULL', 'GORILLA', 'QUANTILE']);
    expect(codecsFor(ValueType.Boolean)).toEqual(['DEFAULT', 'NULL', 'BITPACK']);
    expect(codecsFor(ValueType.String)).toEqual(['DEFAULT', 'NULL', 'GZIP', 'BZIP', 'ZSTD', 'SNAPPY', 'ZLIB']);
    expect(codecAllowed(ValueType.Tag, 'ZSTD')).toBe(true);
    expect(codecAllowed('time', 'DELTATS')).toBe(true);
    expect(codecAllowed(ValueType.Double, 'DELTA')).toBe(false);
    // A name CnosDB rejects for the type (only an old catalog could hold it) still writes.
    const v = Float64Array.from([1.5, 2.5, 3.5]);
    expect(
      codecs.decode(ValueType.Double, codecs.encode(ValueType.Double, v, undefined, 3, 'DELTA'), 3).values,
    ).toEqual(v);
    expect(() => codecs.encode(ValueType.Double, v, undefined, 3, 'LZ4')).toThrow(/^BUG: unknown codec "LZ4"/);
    expect(() => codecs.encode(ValueType.Double, v, undefined, 4)).toThrow(/^BUG: row count 4 out of range/);
    // CODEC(NULL) stores values as they are; DELTATS uses deltas of deltas.
    const ints = BigInt64Array.from([1n, 5n, 2n, 9n, 3n]);
    expect(codecs.encode(ValueType.BigInt, ints, undefined, 5, 'NULL')[0]).toBe(Encoding.Plain);
    expect(codecs.encode(ValueType.BigInt, ints, undefined, 5, 'DELTATS')[0]).toBeGreaterThanOrEqual(
      Encoding.DodSimple8b,
    );
    expect(codecs.encode(ValueType.Double, Float64Array.from([1.5, 2.25, 1.5]), undefined, 3, 'GORILLA')[0]).toBe(
      Encoding.Gorilla,
    );
  });
});
