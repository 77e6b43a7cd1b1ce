import { describe, expect, it } from 'vitest';
import { loadCore } from '../support/core.js';

describe('Core', () => {
  it('allocates memory that the host can write and read back', async () => {
    const core = await loadCore();
    const ptr = core.exports.alloc(64);
    expect(ptr % 16).toBe(0);
    core.write(ptr, new Uint8Array([1, 2, 3]));
    expect([...core.bytes().subarray(ptr, ptr + 3)]).toEqual([1, 2, 3]);
    core.exports.free(ptr);
  });

  it('keeps views valid after memory grows', async () => {
    const core = await loadCore();
    const before = core.exports.memory.buffer.byteLength;
    const big = core.exports.alloc(before * 2);
    expect(core.exports.memory.buffer.byteLength).toBeGreaterThan(before);
    expect(core.bytes().length).toBe(core.exports.memory.buffer.byteLength);
    core.exports.free(big);
  });
});
