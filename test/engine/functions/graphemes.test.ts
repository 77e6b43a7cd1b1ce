// Grapheme counting in chunks (functions/graphemes.ts, issue 24) against Intl.Segmenter over the
// whole text: seeded random texts of clusters that join across chunk ends (emoji ZWJ sequences,
// flags, combining marks, CR LF, Hangul jamo, prepended marks), counted up to several limits.

import { describe, expect, it } from 'vitest';
import { graphemesUpTo } from '../../../host/engine/functions/graphemes.js';
import { mulberry32 as rng } from '../../support/rng.js';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

function reference(s: string, limit: number): { count: number; end: number } {
  let count = 0;
  let end = 0;
  for (const g of segmenter.segment(s)) {
    if (count === limit) break;
    count++;
    end = g.index + g.segment.length;
  }
  return { count, end };
}

const PIECES = [
  'a',
  'é',
  'e\u0301',
  '\r\n',
  '👍🏽',
  '👨‍👩‍👧',
  '🇫🇷',
  '🇫',
  '한',
  '\u1100\u1161',
  'x',
  '\u0600a',
  ' ',
  'e' + '\u0301'.repeat(30),
];

describe('graphemes counted in chunks (issue 24)', () => {
  it('agrees with Intl.Segmenter over the whole text', () => {
    const random = rng(2024);
    for (let k = 0; k < 120; k++) {
      const s = Array.from(
        { length: Math.floor(random() * 2500) },
        () => PIECES[Math.floor(random() * PIECES.length)],
      ).join('');
      for (const limit of [0, 5, 700, Infinity])
        expect(graphemesUpTo(s, limit), `text ${k}, limit ${limit}`).toEqual(reference(s, limit));
    }
  });

  it('counts a cluster longer than a chunk, and text without joining characters by code points', () => {
    expect(graphemesUpTo(`e${'\u0301'.repeat(5000)}x`, Infinity)).toEqual({ count: 2, end: 5002 });
    expect(graphemesUpTo('é😀'.repeat(100_000), 3)).toEqual({ count: 3, end: 4 });
  });
});
