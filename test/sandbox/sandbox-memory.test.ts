// Issue 27: the sandbox's memory is bounded: a load or a write that would take it past its limit
// is refused with 010011, saying what it needed and what is held, and leaves what was loaded.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Sandbox, sandboxError } from '../../host/sandbox/sandbox.js';

const WASM = readFileSync(new URL('../../build/sundial.wasm', import.meta.url));

describe('the sandbox memory limit', () => {
  it('refuses a load past the limit with 010011 and keeps the rows it holds', async () => {
    const sandbox = await Sandbox.create(WASM, 4 * 1024 * 1024);
    // Two hours of three hosts fit; a day of a hundred does not.
    expect(sandbox.loadDemo({ hosts: 3, durationS: 7200 })).toBe(2160);
    let failure: unknown;
    try {
      sandbox.loadDemo({ hosts: 100, durationS: 86_400 }, 'public');
    } catch (e) {
      failure = e;
    }
    const err = sandboxError(failure);
    expect(err.code).toBe('010011');
    expect(err.message).toMatch(
      /^writing to public needs \d+\.\d MiB more, the sandbox holds \d+\.\d MiB of its 4\.0 MiB: load a shorter time range or fewer rows, or reload the page to start empty$/,
    );
    expect(sandbox.store.bytes).toBeLessThanOrEqual(4 * 1024 * 1024);
    const n = JSON.parse(
      (await sandbox.sql("SELECT count(*) AS n FROM cpu WHERE time < '2016-01-01T02:00:00Z'")).json,
    ) as Array<{ n: number }>;
    expect(n[0]!.n).toBe(2160);
  });
});
