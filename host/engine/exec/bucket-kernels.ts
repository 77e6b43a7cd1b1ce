// The time-bucket kernels (assembly/kernels/bucket-fold.ts, ABI in assembly/README.md) for one
// query: per chunk, the times and then each column are copied into the kernels' scratch region,
// the runs of one bucket are cut there, their groups set by the caller, and every column folded
// into a per-group accumulator that lives in Wasm memory until the query finishes it. Typed-array
// views over the memory are kept and renewed only when it grows, so that a chunk costs a handful
// of calls however many rows and runs it has.
//
// Contract: the calls for one chunk (cut, setGroup, fold) are synchronous, so queries running at
// the same time never see each other's scratch; accumulators belong to one query and are freed by
// release(), which the caller must reach (finally).

import type { Core } from '../../core/wasm.js';
import type { FieldStats } from '../catalog.js';
import { kernelCore } from '../types/index.js';

interface BucketExports {
  memory: WebAssembly.Memory;
  alloc(size: number): number;
  free(ptr: number): void;
  k_region(bytes: number): number;
  k_bucket_runs(
    time: number,
    n: number,
    origin: bigint,
    stride: bigint,
    bounds: number,
    offsets: number,
    first: number,
  ): number;
  k_fold_groups(
    values: number,
    valid: number,
    n: number,
    type: number,
    bounds: number,
    groups: number,
    nruns: number,
    acc: number,
    cap: number,
  ): number;
  k_finish_groups(acc: number, cap: number, ngroups: number, what: number, out: number, validity: number): number;
}

/** What a source accumulates: a column of one of these types, or rows (count(*)). */
export type SourceType = 'Int64' | 'UInt64' | 'Float64' | 'Rows';
const FT: Record<SourceType, number> = { Int64: 0, UInt64: 1, Float64: 2, Rows: 3 };
/** k_fold_groups: the min and max slots of this source are never read (integer folds skip them). */
const FT_NO_MINMAX = 0x100;

/** k_finish_groups outputs. */
export type Finish = 'count' | 'avg' | 'fsum' | 'min' | 'max' | 'isum';
const FIN: Record<Finish, number> = { count: 0, avg: 1, fsum: 2, min: 3, max: 4, isum: 5 };

const GROUP_BYTES = 48;
const A_COUNT = 0;
const A_FSUM = 1;
const A_HI = 2;
const A_LO = 3;
const A_MIN = 4;
const A_MAX = 5;

/** The kernels when the installed core has them (a core built before them does not). */
export function bucketKernels(): BucketKernels | undefined {
  const core = kernelCore();
  return core !== undefined && typeof (core.exports as Partial<BucketExports>).k_bucket_runs === 'function'
    ? new BucketKernels(core)
    : undefined;
}

interface Source {
  type: SourceType;
  ptr: number;
  cap: number;
  /** Some aggregate reads this source's min or max. */
  minmax: boolean;
}

export class BucketKernels {
  readonly #k: BucketExports;
  #buffer: ArrayBuffer | undefined;
  #u8 = new Uint8Array(0);
  #u32 = new Uint32Array(0);
  #i32 = new Int32Array(0);
  #f64 = new Float64Array(0);
  #i64 = new BigInt64Array(0);
  #u64 = new BigUint64Array(0);
  readonly #sources: Source[] = [];
  // The current chunk's layout in the scratch region.
  #n = 0;
  #nruns = 0;
  #values = 0;
  #valid = 0;
  #bounds = 0;
  #offsets = 0;
  #groups = 0;
  #first = 0;

  constructor(core: Core) {
    this.#k = core.exports as unknown as BucketExports;
  }

  /** Views over the whole memory, renewed after it grew. */
  #views(): void {
    const b = this.#k.memory.buffer;
    if (b === this.#buffer) return;
    this.#buffer = b;
    this.#u8 = new Uint8Array(b);
    this.#u32 = new Uint32Array(b);
    this.#i32 = new Int32Array(b);
    this.#f64 = new Float64Array(b);
    this.#i64 = new BigInt64Array(b);
    this.#u64 = new BigUint64Array(b);
  }

  /** Adds an accumulator (zeroed) and returns its index; its min and max are kept once `needMinMax` says so. */
  addSource(type: SourceType): number {
    const cap = 64;
    const ptr = this.#k.alloc(cap * GROUP_BYTES);
    if (ptr === 0) throw new Error('BUG: no Wasm memory for a group accumulator');
    this.#views();
    this.#u8.fill(0, ptr, ptr + cap * GROUP_BYTES);
    this.#sources.push({ type, ptr, cap, minmax: false });
    return this.#sources.length - 1;
  }

  /** An aggregate will read the min or max of `source` (call before the first fold). */
  needMinMax(source: number): void {
    this.#sources[source]!.minmax = true;
  }

  /** Makes every accumulator hold at least `groups` groups (the layout is per capacity, so growing moves each array). */
  reserveGroups(groups: number): void {
    for (const s of this.#sources) {
      if (s.cap >= groups) continue;
      let cap = s.cap * 2;
      while (cap < groups) cap *= 2;
      const ptr = this.#k.alloc(cap * GROUP_BYTES);
      if (ptr === 0) throw new Error('BUG: no Wasm memory for a group accumulator');
      this.#views();
      this.#u8.fill(0, ptr, ptr + cap * GROUP_BYTES);
      for (let a = 0; a < 6; a++)
        this.#u8.copyWithin(ptr + a * cap * 8, s.ptr + a * s.cap * 8, s.ptr + (a + 1) * s.cap * 8);
      this.#k.free(s.ptr);
      s.ptr = ptr;
      s.cap = cap;
    }
  }

  /** Frees the accumulators. */
  release(): void {
    for (const s of this.#sources) this.#k.free(s.ptr);
    this.#sources.length = 0;
  }

  /** Room in the scratch region for a chunk of `n` rows (and at most n runs). */
  #layout(n: number): void {
    const v8 = n * 8;
    const validBytes = (n + 7) & ~7;
    const runBytes = ((n + 2) * 4 + 7) & ~7;
    const base = this.#k.k_region(v8 + validBytes + 3 * runBytes + 8);
    if (base === 0) throw new Error(`BUG: kernel region for ${n} rows refused`);
    this.#views();
    this.#n = n;
    this.#values = base;
    this.#valid = base + v8;
    this.#bounds = this.#valid + validBytes;
    this.#offsets = this.#bounds + runBytes;
    this.#groups = this.#offsets + runBytes;
    this.#first = this.#groups + runBytes;
  }

  /**
   * Starts a chunk of `time.length` sorted times and cuts it into runs of one bucket; returns
   * the number of runs, or -1 when the kernel cannot (see `runsOf` for the fallback). Then:
   * offset(r), setGroup(r, g) for every run, fold() per column.
   */
  cut(time: BigInt64Array, origin: bigint, stride: bigint): number {
    const n = time.length;
    this.#layout(n);
    this.#i64.set(time, this.#values / 8);
    const runs = this.#k.k_bucket_runs(this.#values, n, origin, stride, this.#bounds, this.#offsets, this.#first);
    this.#nruns = runs < 0 ? 0 : runs;
    return runs < 0 ? -1 : runs;
  }

  /** Starts a chunk of `n` rows whose runs the caller found: `bounds` holds nruns + 1 row indexes. */
  runsOf(n: number, bounds: ArrayLike<number>, nruns: number): void {
    this.#layout(n);
    const b = this.#bounds / 4;
    for (let r = 0; r <= nruns; r++) this.#u32[b + r] = bounds[r]!;
    this.#nruns = nruns;
  }

  /** The first run's bucket number (after cut). */
  get firstBucket(): bigint {
    return this.#i64[this.#first / 8]!;
  }

  /** Run r's bucket, relative to the first run's. */
  offset(r: number): number {
    return this.#i32[this.#offsets / 4 + r]!;
  }

  /** Run r's first row; bound(nruns) is the chunk's length. */
  bound(r: number): number {
    return this.#u32[this.#bounds / 4 + r]!;
  }

  setGroup(r: number, g: number): void {
    this.#u32[this.#groups / 4 + r] = g;
  }

  /** Folds the chunk's runs of one column (or its rows, for a Rows source) into their groups. */
  fold(
    source: number,
    values: Float64Array | BigInt64Array | BigUint64Array | undefined,
    validity: Uint8Array | undefined,
  ): void {
    const s = this.#sources[source]!;
    const n = this.#n;
    if (values instanceof Float64Array) this.#f64.set(values, this.#values / 8);
    else if (values instanceof BigUint64Array) this.#u64.set(values, this.#values / 8);
    else if (values !== undefined) this.#i64.set(values, this.#values / 8);
    if (validity !== undefined) this.#u8.set(validity, this.#valid);
    const rc = this.#k.k_fold_groups(
      this.#values,
      validity === undefined ? 0 : this.#valid,
      n,
      FT[s.type] | (s.minmax ? 0 : FT_NO_MINMAX),
      this.#bounds,
      this.#groups,
      this.#nruns,
      s.ptr,
      s.cap,
    );
    if (rc !== 0) throw new Error(`BUG: k_fold_groups returned ${rc}`);
  }

  /** Adds `rows` rows to group g of a Rows source (statistics of a whole block). */
  addRows(source: number, g: number, rows: number): void {
    const s = this.#sources[source]!;
    this.#views();
    this.#f64[s.ptr / 8 + A_COUNT * s.cap + g]! += rows;
  }

  /** Folds a block's statistics into group g of a column source, as a run with these values would. */
  addStats(source: number, g: number, f: FieldStats): void {
    if (f.count === 0) return;
    const s = this.#sources[source]!;
    this.#views();
    const base = s.ptr / 8 + g;
    const cap = s.cap;
    const f64 = this.#f64;
    const seen = f64[base + A_COUNT * cap]! > 0;
    f64[base + A_COUNT * cap]! += f.count;
    f64[base + A_FSUM * cap]! += Number(f.sum);
    if (s.type === 'Float64') {
      const mn = f.min as number;
      const mx = f.max as number;
      const bn = f64[base + A_MIN * cap]!;
      const bx = f64[base + A_MAX * cap]!;
      if (!seen || mn < bn || (bn !== bn && mn === mn)) f64[base + A_MIN * cap] = mn;
      if (!seen || mx > bx || (mx !== mx && bx === bx)) f64[base + A_MAX * cap] = mx;
      return;
    }
    // Exact integer sum: the high part, and a low part kept below 2^32.
    const i64 = this.#i64;
    const sum = BigInt(f.sum!);
    const hi = sum >> 32n;
    const lo = i64[base + A_LO * cap]! + (sum - (hi << 32n));
    i64[base + A_HI * cap] = i64[base + A_HI * cap]! + hi + (lo >> 32n);
    i64[base + A_LO * cap] = lo & 0xffffffffn;
    const ints = s.type === 'UInt64' ? this.#u64 : i64;
    const mn = BigInt(f.min!);
    const mx = BigInt(f.max!);
    if (!seen || mn < ints[base + A_MIN * cap]!) ints[base + A_MIN * cap] = mn;
    if (!seen || mx > ints[base + A_MAX * cap]!) ints[base + A_MAX * cap] = mx;
  }

  /**
   * One result column of the first `groups` groups: 8-byte values (i64, u64 or f64 as `what`
   * and the source's type make them; an integer sum wrapped into its type) and validity.
   */
  finish(source: number, what: Finish, groups: number): { values: ArrayBuffer; validity: Uint8Array } {
    const s = this.#sources[source]!;
    const base = this.#k.k_region(groups * 9 + 16);
    if (base === 0) throw new Error(`BUG: kernel region for ${groups} groups refused`);
    const validity = base + groups * 8;
    const rc = this.#k.k_finish_groups(s.ptr, s.cap, groups, FIN[what], base, validity);
    if (rc !== 0) throw new Error(`BUG: k_finish_groups returned ${rc}`);
    this.#views();
    return {
      values: this.#u8.slice(base, base + groups * 8).buffer,
      validity: this.#u8.slice(validity, validity + groups),
    };
  }
}
