// KeyTags (host/storage/key-tags.ts): a series' tags by name, read from its id key, must answer
// as the Map of names built from the parsed key did.

import { describe, expect, it } from 'vitest';
import { KeyTags } from '../../host/storage/key-tags.js';
import { parseSeriesIdKey, seriesIdKey } from '../../host/storage/series-data.js';
import { mulberry32 } from '../support/rng.js';

const naming = (names: Array<[number, string]>) => ({ names: new Map(names), ids: new Map(names.map(([id, n]) => [n, id])) });

describe('KeyTags', () => {
  it('reads values with separators, digits, nothing and non-ASCII; leaves out tags the naming lacks', () => {
    const key = seriesIdKey([[3, 'a:1:b'], [7, ''], [12, '12:34'], [15, 'café ☕'], [40, 'gone']]);
    const t = new KeyTags(key, naming([[3, 'host'], [7, 'empty'], [12, 'port'], [15, 'drink']]));
    expect(t.get('host')).toBe('a:1:b');
    expect(t.get('empty')).toBe('');
    expect(t.get('port')).toBe('12:34');
    expect(t.get('drink')).toBe('café ☕');
    expect(t.get('gone')).toBeUndefined();
    expect(t.get('nope')).toBeUndefined();
    expect(t.has('empty')).toBe(true);
    expect(t.has('gone')).toBe(false);
    expect(t.size).toBe(4);
    expect([...t]).toEqual([['host', 'a:1:b'], ['empty', ''], ['port', '12:34'], ['drink', 'café ☕']]);
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
      const expected = new Map(parseSeriesIdKey(seriesIdKey(tags)).flatMap(([i, v]) => (named.some(([j]) => j === i) ? [[`t${i}`, v] as [string, string]] : [])));
      expect(new Map(t)).toEqual(expected);
      expect(t.size).toBe(expected.size);
      for (const [k, v] of expected) expect(t.get(k)).toBe(v);
    }
  });
});
