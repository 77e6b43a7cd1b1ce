// The start-up warm-up: every statement runs (none fails on the synthetic table), the event
// loop gets a turn between statements, and an abort stops it.

import { describe, expect, it } from 'vitest';
import { warmUp } from '../../host/engine/warm-up.js';

describe('warmUp', () => {
  it('runs every statement each round, pausing between them', async () => {
    let pauses = 0;
    const n = await warmUp({ rounds: 2, pause: async () => void pauses++ });
    expect(n).toBe(14);
    expect(pauses).toBe(14);
  });

  it('stops when aborted', async () => {
    const abort = new AbortController();
    let pauses = 0;
    const n = await warmUp({
      rounds: 5,
      signal: abort.signal,
      pause: async () => {
        if (++pauses === 3) abort.abort();
      },
    });
    expect(n).toBe(3);
  });
});
