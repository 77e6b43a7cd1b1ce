// LogClock: the bases of log documents without a time follow the wall clock in the database's
// precision, and a request's range (its line count) never overlaps another's in that precision,
// also within one unit; lineCount bounds a body's documents.

import { describe, expect, it } from 'vitest';
import { lineCount, LogClock } from '../../host/server/log-clock.js';

describe('LogClock', () => {
  it('gives requests of one unit ranges one after the other, and follows the wall clock after', () => {
    let now = 1_700_000_000_000;
    const clock = new LogClock(() => now);
    const a = clock.reserve('ns', 1000);
    expect(a).toBe(1_700_000_000_000_000_000n);
    expect(clock.reserve('ns', 10)).toBe(a + 1001n);
    // Milliseconds have ranges of their own: 3 documents take 3 ms.
    expect(clock.reserve('ms', 3)).toBe(1_700_000_000_000n);
    expect(clock.reserve('ms', 1)).toBe(1_700_000_000_004n);
    now += 10;
    expect(clock.reserve('ms', 1)).toBe(1_700_000_000_010n);
    expect(clock.reserve('ns', 5)).toBe(1_700_000_000_010_000_000n);
  });

  it('never goes back when the wall clock does', () => {
    let now = 1_700_000_000_000;
    const clock = new LogClock(() => now);
    const a = clock.reserve('us', 100);
    now -= 60_000;
    expect(clock.reserve('us', 100)).toBe(a + 101n);
  });

  it('counts the lines of a body, a last one without LF included', () => {
    const enc = new TextEncoder();
    expect([
      lineCount(enc.encode('')),
      lineCount(enc.encode('a')),
      lineCount(enc.encode('a\nb\n')),
      lineCount(enc.encode('a\nb')),
    ]).toEqual([1, 1, 3, 2]);
  });
});
