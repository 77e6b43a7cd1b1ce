// Series keys (host/core/series-key.ts). The memtable keys a write batch's series by seriesIdKey
// of its tags under the catalog's column ids. batchSeriesIdKey builds that key straight from the
// batch's bytes when the tags are ASCII and their ids increase in name order; it must give
// exactly the key of the general path (decoded tags, mapped, sorted by id) whatever the tags
// hold. KeyTags, a series' tags by name read from its id key, must answer as the Map of names
// built from the parsed key did.

import { describe, expect, it } from 'vitest';
import { WriteBatchBuilder } from '../../host/core/write-batch-builder.js';
import { readWriteBatch, ValueType } from '../../host/core/write-batch.js';
import { batchSeriesIdKey, KeyTags, parseSeriesIdKey, seriesIdKey } from '../../host/core/series-key.js';
import { rng } from '../ingest/ingest-support.js';
import { mulberry32 } from '../support/rng.js';

/** The general path: decoded tags, under `ids`, sorted by id. */
function reference(tags: ReadonlyArray<readonly [number, string]>, ids: ArrayLike<number>): string {
  return seriesIdKey(tags.map(([ci, v]) => [ids[ci]!, v] as [number, string]).sort((a, b) => a[0] - b[0]));
}

/** The batch series of one row with `tags`, and the ids its columns get: `idOf(name)`. */
function batchOf(tags: Array<[string, string]>, idOf: (name: string, i: number) => number) {
  const b = new WriteBatchBuilder();
  b.addRow('t', tags, 1n, [{ name: 'f', type: ValueType.Double, value: 1 }]);
  const t = readWriteBatch(b.finish()).tables[0]!;
  const ids = t.columns.map((c, i) => (c.name === 'f' ? 0 : idOf(c.name, i)));
  return { series: t.series[0]!, ids };
}

describe('batchSeriesIdKey', () => {
  it('builds the key of ASCII tags from the batch bytes, as the general path does', () => {
    const { series, ids } = batchOf(
      [
        ['host', 'a,b=c d\\e'],
        ['id', 'x'.repeat(100)],
        ['region', ''],
      ],
      (_, i) => [7, 12, 4099][i]!,
    );
    expect(series.rawTags).toBeDefined();
    const key = batchSeriesIdKey(series, ids);
    expect(key).toBe(reference(series.tags, ids));
    expect(key).toBe(`7:9:a,b=c d\\e12:100:${'x'.repeat(100)}4099:0:`);
    expect(parseSeriesIdKey(key)).toEqual([
      [7, 'a,b=c d\\e'],
      [12, 'x'.repeat(100)],
      [4099, ''],
    ]);
  });

  it('falls back for values that are not ASCII and for ids that do not follow name order', () => {
    const utf = batchOf([['host', 'é😀']], () => 3);
    expect(utf.series.rawTags).toBeUndefined();
    expect(batchSeriesIdKey(utf.series, utf.ids)).toBe('3:3:é😀');
    const swapped = batchOf(
      [
        ['a', '1'],
        ['b', '2'],
      ],
      (name) => (name === 'a' ? 9 : 2),
    );
    expect(batchSeriesIdKey(swapped.series, swapped.ids)).toBe('2:1:29:1:1');
  });

  it('agrees with the general path on random tags and ids', () => {
    const random = rng(Number(process.env.SERIES_KEY_SEED ?? 20261126));
    const alphabet = 'ab:,= \\0123456789xyzé';
    for (let run = 0; run < 2000; run++) {
      const n = 1 + Math.floor(random() * 6);
      const tags: Array<[string, string]> = [];
      for (let k = 0; k < n; k++) {
        let v = '';
        const len = random() < 0.1 ? 40 + Math.floor(random() * 40) : Math.floor(random() * 12);
        for (let i = 0; i < len; i++)
          v += alphabet[Math.floor(random() * (random() < 0.9 ? alphabet.length - 1 : alphabet.length))];
        tags.push([`tag${k}`, v]);
      }
      const increasing = random() < 0.7;
      const base = [1, 9, 10, 99, 4095, 123456][Math.floor(random() * 6)]!;
      const { series, ids } = batchOf(tags, (_, i) =>
        increasing ? base + i * (1 + Math.floor(random() * 50)) : 1 + Math.floor(random() * 1000),
      );
      expect(batchSeriesIdKey(series, ids)).toBe(reference(series.tags, ids));
    }
  });
});

const naming = (names: Array<[number, string]>) => ({
  names: new Map(names),
  ids: new Map(names.map(([id, n]) => [n, id])),
});

describe('KeyTags', () => {
  it('reads values with separators, digits, nothing and non-ASCII; leaves out tags the naming lacks', () => {
    const key = seriesIdKey([
      [3, 'a:1:b'],
      [7, ''],
      [12, '12:34'],
      [15, 'café ☕'],
      [40, 'gone'],
    ]);
    const t = new KeyTags(
      key,
      naming([
        [3, 'host'],
        [7, 'empty'],
        [12, 'port'],
        [15, 'drink'],
      ]),
    );
    expect(t.get('host')).toBe('a:1:b');
    expect(t.get('empty')).toBe('');
    expect(t.get('port')).toBe('12:34');
    expect(t.get('drink')).toBe('café ☕');
    expect(t.get('gone')).toBeUndefined();
    expect(t.get('nope')).toBeUndefined();
    expect(t.has('empty')).toBe(true);
    expect(t.has('gone')).toBe(false);
    expect(t.size).toBe(4);
    expect([...t]).toEqual([
      ['host', 'a:1:b'],
      ['empty', ''],
      ['port', '12:34'],
      ['drink', 'café ☕'],
    ]);
    expect([...t.keys()]).toEqual(['host', 'empty', 'port', 'drink']);
    expect([...t.values()]).toEqual(['a:1:b', '', '12:34', 'café ☕']);
    const seen: string[] = [];
    t.forEach((v, k, m) => {
      expect(m).toBe(t);
      seen.push(`${k}=${v}`);
    });
    expect(seen).toEqual(['host=a:1:b', 'empty=', 'port=12:34', 'drink=café ☕']);
    expect(new Map(t)).toEqual(new Map([...t]));
  });

  it('agrees with a Map of the parsed key on random tags', () => {
    const r = mulberry32(11);
    const alphabet = ['a', '1', ':', '9', ' ', ',', '=', 'é', '😀'];
    for (let n = 0; n < 500; n++) {
      const tags: Array<[number, string]> = [];
      let id = 0;
      for (let k = Math.floor(r() * 6); k > 0; k--) {
        id += 1 + Math.floor(r() * 20);
        let v = '';
        for (let c = Math.floor(r() * 12); c > 0; c--) v += alphabet[Math.floor(r() * alphabet.length)];
        tags.push([id, v]);
      }
      const named = tags.filter(() => r() < 0.8).map(([i]): [number, string] => [i, `t${i}`]);
      const t = new KeyTags(seriesIdKey(tags), naming(named));
      const expected = new Map(
        parseSeriesIdKey(seriesIdKey(tags)).flatMap(([i, v]) =>
          named.some(([j]) => j === i) ? [[`t${i}`, v] as [string, string]] : [],
        ),
      );
      expect(new Map(t)).toEqual(expected);
      expect(t.size).toBe(expected.size);
      for (const [k, v] of expected) expect(t.get(k)).toBe(v);
    }
  });
});
