// LogClock: the bases of log documents without a time follow the wall clock, and a request's
// range (its body's length in nanoseconds) never overlaps another's, also within a millisecond.

import { describe, expect, it } from 'vitest';
import { LogClock } from '../../host/server/log-clock.js';

describe('LogClock', () => {
  it('gives requests of one millisecond ranges one after the other, and follows the wall clock after', () => {
    let now = 1_700_000_000_000;
    const clock = new LogClock(() => now);
    const a = clock.reserve(1000);
    const b = clock.reserve(10);
    expect(a).toBe(1_700_000_000_000_000_000n);
    expect(b).toBe(a + 1001n);
    expect(clock.reserve(0)).toBe(b + 11n);
    now += 1;
    expect(clock.reserve(5)).toBe(1_700_000_000_001_000_000n);
  });

  it('never goes back when the wall clock does', () => {
    let now = 1_700_000_000_000;
    const clock = new LogClock(() => now);
    const a = clock.reserve(100);
    now -= 60_000;
    expect(clock.reserve(100)).toBe(a + 101n);
  });
});
