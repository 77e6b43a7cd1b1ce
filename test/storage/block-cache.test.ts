import { describe, expect, it } from 'vitest';
import { BlockCache } from '../../host/storage/block-cache.js';

describe('BlockCache', () => {
  it('keeps at most its limit of bytes, evicting the least recently used first', () => {
    const c = new BlockCache<string>(100);
    c.set('a', 'A', 40);
    c.set('b', 'B', 40);
    expect(c.get('a')).toBe('A'); // a is now the most recently used
    c.set('c', 'C', 40); // over the limit: b goes
    expect([c.get('b'), c.get('a'), c.get('c'), c.bytes]).toEqual([undefined, 'A', 'C', 80]);
    expect([c.hits, c.misses]).toEqual([3, 1]);
  });

  it('does not keep a value larger than the limit, and replaces a key in place', () => {
    const c = new BlockCache<string>(100);
    c.set('big', 'X', 101);
    c.set('k', 'v1', 10);
    c.set('k', 'v2', 30);
    expect([c.get('big'), c.get('k'), c.bytes]).toEqual([undefined, 'v2', 30]);
  });

  it('drops the blocks of a closed file', () => {
    const c = new BlockCache<number>(1000);
    c.set('1:16', 1, 10);
    c.set('1:99', 2, 10);
    c.set('2:16', 3, 10);
    c.dropPrefix('1:');
    expect([c.get('1:16'), c.get('2:16'), c.bytes]).toEqual([undefined, 3, 10]);
  });
});
