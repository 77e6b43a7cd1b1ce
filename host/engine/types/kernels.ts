// The Wasm column kernels (assembly/kernels/, ABI in assembly/README.md) behind a small
// interface, used where a profile showed TypeScript pays per row: comparisons and arithmetic on
// 64-bit integer columns, where every BigInt64Array read allocates a BigInt (864k rows: 5-9 ms
// in TypeScript, about 2 ms with the copies in and out). Installed once per process by the
// engine when the host has the core; without it (or for short vectors) the TypeScript loops run.

import type { Core } from '../../core/wasm.js';

/** Below this many rows the copies cost more than the TypeScript loop. */
export const KERNEL_MIN_ROWS = 512;

type Ints = BigInt64Array | BigUint64Array;

interface KernelExports {
  k_region(bytes: number): number;
  k_cmp_i64(a: number, b: number, n: number, op: number, flags: number, out: number): number;
  k_arith_i64(a: number, b: number, n: number, op: number, flags: number, valid: number, out: number): number;
}

const CMP_OPS = { '=': 0, '!=': 1, '<': 2, '<=': 3, '>': 4, '>=': 5 } as const;
const ARITH_OPS = { '+': 0, '-': 1, '*': 2, '/': 3, '%': 4 } as const;
const F_SCALAR = 1;
const F_UNSIGNED = 2;

export type ArithmeticFailure = { row: number; kind: 'overflow' | 'divideByZero' };

export class Int64Kernels {
  readonly #core: Core;
  readonly #k: KernelExports;

  constructor(core: Core) {
    this.#core = core;
    this.#k = core.exports as unknown as KernelExports;
  }

  /** Room for `bytes` in Wasm memory (views must be taken after this call). */
  #region(bytes: number): number {
    const p = this.#k.k_region(bytes);
    if (p === 0) throw new Error(`BUG: kernel region of ${bytes} bytes refused`);
    return p;
  }

  #put(ptr: number, v: Ints, n: number): void {
    new BigInt64Array(this.#core.exports.memory.buffer, ptr, n).set(
      v instanceof BigUint64Array ? new BigInt64Array(v.buffer, v.byteOffset, n) : v.subarray(0, n),
    );
  }

  /** a[i] op b[i] (or b[0] when `scalar`) as 0/1 bytes. */
  compare(op: keyof typeof CMP_OPS, a: Ints, b: Ints, scalar: boolean, unsigned: boolean, n: number): Uint8Array {
    const bBytes = scalar ? 8 : n * 8;
    const base = this.#region(n * 8 + bBytes + n + 16);
    const pa = base;
    const pb = base + n * 8;
    const po = pb + bBytes;
    this.#put(pa, a, n);
    this.#put(pb, b, scalar ? 1 : n);
    const rc = this.#k.k_cmp_i64(pa, pb, n, CMP_OPS[op], (scalar ? F_SCALAR : 0) | (unsigned ? F_UNSIGNED : 0), po);
    if (rc !== 0) throw new Error(`BUG: k_cmp_i64 returned ${rc}`);
    return new Uint8Array(this.#core.exports.memory.buffer, po, n).slice();
  }

  /** a[i] op b[i] into a new array, or the first failing row. NULL rows (validity 0) are skipped. */
  arithmetic(
    op: keyof typeof ARITH_OPS,
    a: Ints,
    b: Ints,
    scalar: boolean,
    unsigned: boolean,
    validity: Uint8Array | undefined,
    n: number,
  ): { values: Ints } | { failure: ArithmeticFailure } {
    const bBytes = scalar ? 8 : n * 8;
    const vBytes = validity === undefined ? 0 : (n + 7) & ~7;
    const base = this.#region(n * 16 + bBytes + vBytes + 16);
    const pa = base;
    const pb = pa + n * 8;
    const pv = pb + bBytes;
    const po = pv + vBytes;
    this.#put(pa, a, n);
    this.#put(pb, b, scalar ? 1 : n);
    if (validity !== undefined) new Uint8Array(this.#core.exports.memory.buffer, pv, n).set(validity.subarray(0, n));
    const rc = this.#k.k_arith_i64(
      pa,
      pb,
      n,
      ARITH_OPS[op],
      (scalar ? F_SCALAR : 0) | (unsigned ? F_UNSIGNED : 0),
      validity === undefined ? 0 : pv,
      po,
    );
    if (rc === -2) throw new Error(`BUG: k_arith_i64 refused op ${op}`);
    if (rc >= 0) return { failure: { row: rc >>> 2, kind: (rc & 3) === 2 ? 'divideByZero' : 'overflow' } };
    const out = new BigInt64Array(n);
    out.set(new BigInt64Array(this.#core.exports.memory.buffer, po, n));
    return { values: unsigned ? new BigUint64Array(out.buffer) : out };
  }
}

let installed: Int64Kernels | undefined;
let installedCore: Core | undefined;

/** Makes the Wasm kernels available to every query of this process. */
export function installKernels(core: Core): void {
  if (typeof (core.exports as Partial<KernelExports>).k_cmp_i64 !== 'function') return;
  installed ??= new Int64Kernels(core);
  installedCore ??= core;
}

/** The core the kernels were installed from (bucket-kernels.ts builds its own view of it). */
export function kernelCore(): Core | undefined {
  return installedCore;
}

/** The installed kernels, when there are any and the vector is long enough to pay. */
export function int64Kernels(n: number): Int64Kernels | undefined {
  return n >= KERNEL_MIN_ROWS ? installed : undefined;
}
