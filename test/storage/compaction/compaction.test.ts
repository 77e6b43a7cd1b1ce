// Compaction walks its inputs' series as sorted lists (compaction.ts SeriesMerge): every key once,
// in order, with the entry of each input that holds it; a file whose series are out of key order
// is refused as corrupt rather than merged wrong.

import { describe, expect, it } from 'vitest';
import { CorruptionError } from '../../../host/core/errors.js';
import { SeriesMerge } from '../../../host/storage/compaction/compaction.js';
import type { SegmentSlot } from '../../../host/storage/segment/segment-set.js';
import type { SeriesEntry } from '../../../host/storage/segment/segment-format.js';

/** An input holding `keys` (in the order given) for table 1. */
function input(path: string, keys: string[]): SegmentSlot {
  const entries = keys.map((key) => ({ key }) as SeriesEntry);
  const tables = new Map([[1, entries]]);
  return {
    reader: { path, name: path, tableSeries: async (id: number) => tables.get(id) ?? [] },
  } as unknown as SegmentSlot;
}

function walk(merge: SeriesMerge): Array<[string, number, Array<string | undefined>]> {
  const out: Array<[string, number, Array<string | undefined>]> = [];
  while (merge.next()) out.push([merge.key, merge.count, merge.entries.map((e) => e?.key)]);
  return out;
}

describe('SeriesMerge', () => {
  it('gives every key once, in order, with the inputs that hold it', async () => {
    const inputs = [input('a', ['1:1:a', '1:1:c', '1:1:d']), input('b', ['1:1:b', '1:1:c']), input('c', [])];
    expect(walk(await SeriesMerge.of(inputs, 1))).toEqual([
      ['1:1:a', 1, ['1:1:a', undefined, undefined]],
      ['1:1:b', 1, [undefined, '1:1:b', undefined]],
      ['1:1:c', 2, ['1:1:c', '1:1:c', undefined]],
      ['1:1:d', 1, ['1:1:d', undefined, undefined]],
    ]);
    expect(walk(await SeriesMerge.of(inputs, 2))).toEqual([]);
  });

  it('refuses an input whose series are out of key order', async () => {
    const merge = await SeriesMerge.of([input('/data/seg/7.seg', ['1:1:b', '1:1:a'])], 1);
    let err: unknown;
    try {
      walk(merge);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CorruptionError);
    expect((err as CorruptionError).source).toBe('/data/seg/7.seg');
    expect((err as CorruptionError).check).toBe("index: series '1:1:a' after '1:1:b', not in key order");
  });
});
