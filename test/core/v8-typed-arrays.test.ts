// settleTypedArrayAssumptions (host/core/v8-typed-arrays.ts) breaks, at a thread's start, the two
// V8 assumptions whose first breaking later throws away compiled typed-array code. Checked in a
// child process with V8's test intrinsics, compiling on the main thread so that the outcome does
// not depend on timing: a function shaped like the write-batch encoder's writer (a growable
// Uint8Array in a field) is compiled, then a buffer is detached (as a postMessage transfer does)
// or a C++ Buffer is made (readdir with buffer names, as fs.rm does). Without the call either
// event discards the compiled function; with it, the function stays compiled.

import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const MODULE = new URL('../../dist/host/core/v8-typed-arrays.js', import.meta.url).href;

/** The child's script: compiles `fill`, makes the event happen, prints whether `fill` is still compiled. */
function script(settle: boolean, event: 'detach' | 'buffer'): string {
  return `
    import { readdirSync } from 'node:fs';
    import { settleTypedArrayAssumptions } from ${JSON.stringify(MODULE)};
    ${settle ? 'settleTypedArrayAssumptions();' : ''}
    class Writer {
      #buf = new Uint8Array(4);
      length = 0;
      u8(v) {
        if (this.length === this.#buf.length) { const next = new Uint8Array(this.#buf.length * 2); next.set(this.#buf); this.#buf = next; }
        this.#buf[this.length++] = v;
      }
    }
    function fill(n) { const w = new Writer(); for (let i = 0; i < n; i++) w.u8(i); return w.length; }
    for (let i = 0; i < 20000; i++) fill(40);
    const TURBOFAN = 1 << 4;
    if ((%GetOptimizationStatus(fill) & TURBOFAN) === 0) throw new Error('fill was not compiled');
    ${event === 'detach' ? 'const b = new ArrayBuffer(8); structuredClone(b, { transfer: [b] });' : "readdirSync('.', { encoding: 'buffer' });"}
    console.log((%GetOptimizationStatus(fill) & TURBOFAN) !== 0 ? 'compiled' : 'discarded');
  `;
}

function run(settle: boolean, event: 'detach' | 'buffer'): string {
  const r = spawnSync(
    process.execPath,
    ['--allow-natives-syntax', '--no-concurrent-recompilation', '--input-type=module', '-e', script(settle, event)],
    { encoding: 'utf8' },
  );
  expect(r.stderr).toBe('');
  return r.stdout.trim();
}

describe('settleTypedArrayAssumptions', () => {
  it('keeps typed-array code compiled when a buffer is first detached', () => {
    expect(run(false, 'detach')).toBe('discarded');
    expect(run(true, 'detach')).toBe('compiled');
  });

  it('keeps typed-array code compiled when the first C++ Buffer is made', () => {
    expect(run(false, 'buffer')).toBe('discarded');
    expect(run(true, 'buffer')).toBe('compiled');
  });
});
