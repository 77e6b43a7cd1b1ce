import { describe, expect, it } from 'vitest';
import { BlockCache } from '../../../host/storage/segment/block-cache.js';

describe('BlockCache', () => {
  it('keeps at most its limit of bytes, evicting the least recently used first', () => {
    const c = new BlockCache<string>(100);
    c.set('a', 'A', 40);
    c.set('b', 'B', 40);
    c.beginScan();
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

describe('BlockCache under scans larger than itself', () => {
  /** One scan over blocks 0..n-1 of 10 bytes each, as a repeated query reads them; returns its hits. */
  const scan = (c: BlockCache<number>, n: number): number => {
    c.beginScan();
    const before = c.hits;
    for (let b = 0; b < n; b++) if (c.get(`1:${b}`) === undefined) c.set(`1:${b}`, b, 10);
    return c.hits - before;
  };

  it('keeps what it holds when a scan would evict its own blocks, so that a repeated scan hits them', () => {
    const c = new BlockCache<number>(100);
    expect(scan(c, 12)).toBe(0);
    expect(c.bytes).toBe(100);
    // Blocks 0..9 were kept, 10 and 11 read and dropped: plain LRU would have evicted each
    // block before the next scan reached it and hit nothing.
    expect(scan(c, 12)).toBe(10);
    expect(scan(c, 12)).toBe(10);
  });

  it('evicts the blocks of earlier scans, least recently used first', () => {
    const c = new BlockCache<number>(100);
    scan(c, 10);
    c.beginScan();
    c.set('2:0', 0, 10);
    c.set('2:1', 1, 10);
    expect([c.get('1:0'), c.get('1:1'), c.get('1:2'), c.get('2:0'), c.get('2:1'), c.bytes]).toEqual([
      undefined,
      undefined,
      2,
      0,
      1,
      100,
    ]);
  });
});

describe('BlockCache.fits', () => {
  it('says whether set would keep a value: free room, or room made from earlier scans only', () => {
    const c = new BlockCache<number>(100);
    c.beginScan();
    c.set('old1', 1, 30);
    c.set('old2', 2, 30);
    expect(c.fits(40)).toBe(true); // free room
    expect(c.fits(101)).toBe(false); // over the limit
    c.beginScan();
    expect(c.fits(70)).toBe(true); // evicting old1 and old2 (an earlier scan) makes room
    c.get('old1'); // now the current scan's, and the most recently used
    expect(c.fits(70)).toBe(true); // 40 free and old2's 30
    expect(c.fits(71)).toBe(false); // then old1, the current scan's, blocks
    c.set('new', 3, 60);
    expect([c.get('old2'), c.get('old1'), c.get('new')]).toEqual([undefined, 1, 3]);
    expect([c.fits(10), c.fits(11)]).toEqual([true, false]); // 10 free, the rest the current scan's
  });
});
