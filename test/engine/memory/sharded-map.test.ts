// The sharded tables behind GROUP BY and DISTINCT (memory/sharded-map.ts) must keep a Map's and a
// Set's key semantics across their split into shards: SameValueZero (0 and -0 one key, every NaN
// one key), bigints apart from numbers, strings longer than the hashed sample, and every entry
// kept, against a plain Map and Set fed the same keys.

import { describe, expect, it } from 'vitest';
import { ShardedMap, ShardedSet, shardOf } from '../../../host/engine/memory/sharded-map.js';
import { mulberry32 as rng } from '../../support/rng.js';

/** Keys of every kind, repeats included: past the split (65,536 entries) several times. */
function keys(n: number): unknown[] {
  const r = rng(24);
  const out: unknown[] = [
    0,
    -0,
    Number.NaN,
    0 / 0,
    1,
    1n,
    '1',
    -1n,
    2 ** 53,
    2 ** 53 + 2,
    1.5,
    -1.5,
    Infinity,
    true,
    null,
  ];
  const long = 'x'.repeat(1000);
  for (let i = 0; i < n; i++) {
    const k = Math.floor(r() * n);
    switch (i % 5) {
      case 0:
        out.push(k);
        break;
      case 1:
        out.push(BigInt(k) * 1_000_000_007n);
        break;
      case 2:
        out.push(`host_${k}/${k * 7}`);
        break;
      case 3:
        // Differ only where a sampled hash may not look: every key must still be kept apart.
        out.push(`${long}${k}${long}`);
        break;
      default:
        out.push(k + 0.25);
    }
  }
  return out;
}

describe('ShardedMap and ShardedSet', () => {
  const ks = keys(300_000);

  it('hold the same keys as a Map through the split into shards', () => {
    const plain = new Map<unknown, number>();
    const sharded = new ShardedMap<unknown, number>();
    const wrong: unknown[] = [];
    for (const [i, k] of ks.entries()) {
      if (!plain.has(k)) plain.set(k, i);
      if (sharded.getOrSet(k, i) !== plain.get(k)) wrong.push(k);
    }
    expect(wrong).toEqual([]);
    expect(sharded.size).toBe(plain.size);
    expect(plain.size).toBeGreaterThan(200_000);
    for (const [k, v] of plain) if (sharded.get(k) !== v) wrong.push(k);
    expect(wrong).toEqual([]);
    expect(sharded.get(-0)).toBe(0);
    expect(sharded.get(Number.NaN)).toBe(2);
    expect(sharded.get(1n)).toBe(5);
    expect([...sharded.values()].sort((a, b) => a - b)).toEqual([...plain.values()].sort((a, b) => a - b));
    sharded.clear();
    expect(sharded.size).toBe(0);
    expect(sharded.get(1)).toBeUndefined();
  });

  it('add each key once, as a Set does', () => {
    const plain = new Set<unknown>();
    const sharded = new ShardedSet<unknown>();
    const wrong: unknown[] = [];
    for (const k of ks) {
      const fresh = !plain.has(k);
      plain.add(k);
      if (sharded.add(k) !== fresh) wrong.push(k);
    }
    expect(wrong).toEqual([]);
    expect(sharded.size).toBe(plain.size);
    const seen = [...sharded];
    expect(seen.length).toBe(plain.size);
    expect(new Set(seen)).toEqual(plain);
  });

  // Keys a long string's sample skips over all go to one shard: a slower table, not a wrong one.
  it('spread numbers, bigints and strings over every shard, none holding twice its share', () => {
    const spread = ks.filter((k) => typeof k !== 'string' || k.length < 100);
    const counts = new Array<number>(256).fill(0);
    for (const k of spread) counts[shardOf(k)]!++;
    expect(Math.min(...counts)).toBeGreaterThan(0);
    expect(Math.max(...counts)).toBeLessThan((2 * spread.length) / 256);
  });
});
