// The state of one time-bucket aggregation (time-bucket-aggregate-exec.ts): groups keyed by the
// group-by tags and the bucket number, and one accumulator per aggregate. With the Wasm kernels
// (bucket-kernels.ts) count/sum/avg/min/max of BIGINT, BIGINT UNSIGNED and DOUBLE fields and
// count(*) accumulate in Wasm memory, and a chunk costs TypeScript one Map lookup per run and a
// few calls per column; first/last and other types keep the TypeScript accumulators, folded run
// by run (time-bucket-fold.ts). Without the kernels every aggregate takes the TypeScript path.

import {
  compareStrings,
  type DataType,
  FLOAT64,
  floorDiv,
  INT64,
  nonNullMask,
  type RecordBatch,
  type Schema,
  takeVector,
  type Vector,
  vectorFrom,
} from '../types/index.js';
import type { SeriesChunk, SeriesStats } from '../catalog.js';
import { bug } from '../../core/errors.js';
import { words } from '../functions/accumulators.js';
import type { GroupsAccumulator } from '../functions/function-types.js';
import type { LExpr } from '../plan/expr.js';
import type { BucketKernels, Finish, SourceType } from './bucket-kernels.js';
import type { ExecContext } from './exec-plan.js';
import {
  bucketRuns,
  createAccumulator,
  foldRun,
  foldStats,
  lowerBoundTime,
  RunScratch,
  type AggSpec,
} from './time-bucket-fold.js';

export interface GroupSpec {
  kind: 'tag' | 'bucket';
  tag?: string;
  stride?: LExpr;
  origin?: LExpr;
  type: DataType;
}

/**
 * An ORDER BY key over the group columns (`group` indexes the GROUP BY list). A full ordering
 * names every group column once (checked by `supportsOrder`).
 */
export interface GroupOrder {
  group: number;
  asc: boolean;
  nullsFirst: boolean;
}

/** Whether finish() can emit the groups in this order: every group column once, in any order. */
export function supportsOrder(groups: readonly GroupSpec[], order: readonly GroupOrder[]): boolean {
  if (order.length !== groups.length || new Set(order.map((o) => o.group)).size !== order.length) return false;
  return order.every((o) => o.group >= 0 && o.group < groups.length);
}

/** Bucket numbers are Map keys as numbers when exact (a string otherwise: BigInt keys hash slowly). */
type BucketKey = number | string;

/** Bucket numbers in numeric order (a string key is a number too large for a double). */
function compareBuckets(x: BucketKey, y: BucketKey): number {
  if (typeof x === 'number' && typeof y === 'number') return x - y;
  const bx = BigInt(x);
  const by = BigInt(y);
  return bx === by ? 0 : bx < by ? -1 : 1;
}

interface Series {
  buckets: Map<BucketKey, number>;
  tags: (string | null)[];
}

/** Where an aggregate accumulates: a Wasm source (and what to finish it as), or a TypeScript accumulator. */
type Sink =
  | { kind: 'wasm'; source: number; finish: Finish; type: DataType; rowsTag?: string | undefined }
  | { kind: 'ts'; acc: GroupsAccumulator };

const KERNEL_KINDS = new Set(['count', 'sum', 'avg', 'min', 'max']);
const KERNEL_TYPES = new Set(['Int64', 'UInt64', 'Float64']);

export class BucketGroups {
  readonly #groups: readonly GroupSpec[];
  readonly #aggs: readonly AggSpec[];
  readonly #ctx: ExecContext;
  readonly #origin: bigint;
  readonly #stride: bigint | undefined;
  readonly #kernels: BucketKernels | undefined;
  readonly #sinks: Sink[] = [];
  /** Wasm column sources: [field name, source]; Rows sources: [tag or undefined, source]. */
  readonly #columnSources: Array<[string, number]> = [];
  readonly #rowSources: Array<[string | undefined, number]> = [];
  readonly #seriesGroups = new Map<string, Series>();
  readonly #tagValues: (string | null)[][];
  readonly #bucketValues: bigint[] = [];
  readonly #scratch = new RunScratch();
  #lastTags: ReadonlyMap<string, string> | undefined;
  #lastSeries: Series | undefined;
  #runGroups = new Int32Array(64);
  #numGroups = 0;
  #reserved = 0;
  /** The distinct buckets that have a group (for ORDER BY bucket LIMIT k). */
  readonly #buckets = new Set<BucketKey>();

  /** `fieldTypes`: the type of each field column by name. */
  constructor(
    groups: readonly GroupSpec[],
    aggs: readonly AggSpec[],
    fieldTypes: ReadonlyMap<string, DataType>,
    ctx: ExecContext,
    originUnits: bigint,
    strideUnits: bigint | undefined,
    kernels: BucketKernels | undefined,
  ) {
    this.#groups = groups;
    this.#aggs = aggs;
    this.#ctx = ctx;
    this.#origin = originUnits;
    this.#stride = strideUnits;
    this.#kernels = kernels;
    this.#tagValues = groups.map(() => []);
    for (const a of aggs) this.#sinks.push(this.#sinkOf(a, fieldTypes));
    if (groups.length === 0) {
      // Without GROUP BY there is one group, also when no row arrives.
      this.#seriesGroups.set('', { buckets: new Map([[0, this.#numGroups++]]), tags: [] });
      this.#bucketValues.push(0n);
      kernels?.reserveGroups(1);
    }
  }

  #sinkOf(a: AggSpec, fieldTypes: ReadonlyMap<string, DataType>): Sink {
    const k = this.#kernels;
    if (k === undefined || !KERNEL_KINDS.has(a.kind)) return { kind: 'ts', acc: createAccumulator(a) };
    if (a.kind === 'count' && a.columnKind !== 'field') {
      const tag = a.columnKind === 'tag' ? a.column : undefined;
      let entry = this.#rowSources.find(([t]) => t === tag);
      if (entry === undefined) this.#rowSources.push((entry = [tag, k.addSource('Rows')]));
      return { kind: 'wasm', source: entry[1], finish: 'count', type: INT64, rowsTag: tag };
    }
    const type = fieldTypes.get(a.column!);
    if (type === undefined || !KERNEL_TYPES.has(type.id)) return { kind: 'ts', acc: createAccumulator(a) };
    let entry = this.#columnSources.find(([c]) => c === a.column);
    if (entry === undefined) this.#columnSources.push((entry = [a.column!, k.addSource(type.id as SourceType)]));
    const finish: Finish =
      a.kind === 'count'
        ? 'count'
        : a.kind === 'avg'
          ? 'avg'
          : a.kind === 'sum'
            ? type.id === 'Float64'
              ? 'fsum'
              : 'isum'
            : (a.kind as 'min' | 'max');
    if (finish === 'min' || finish === 'max') k.needMinMax(entry[1]);
    return {
      kind: 'wasm',
      source: entry[1],
      finish,
      type: a.kind === 'count' ? INT64 : a.kind === 'avg' ? FLOAT64 : type,
    };
  }

  /** The number of the bucket holding t: floor((t - origin) / stride). */
  #bucketOf(t: bigint): bigint {
    return this.#stride === undefined ? 0n : floorDiv(t - this.#origin, this.#stride);
  }

  /**
   * The buckets of a series' group-by tags. The last answer is kept by the identity of the tags
   * map: the storage hands out one map per series, and a series' chunks and statistics come one
   * after another (TSBS mean per host per hour: 24 pages of statistics a series).
   */
  #seriesOf(chunkTags: ReadonlyMap<string, string>): Series {
    if (chunkTags === this.#lastTags) return this.#lastSeries!;
    const s = this.#seriesByKey(chunkTags);
    this.#lastTags = chunkTags;
    this.#lastSeries = s;
    return s;
  }

  #seriesByKey(chunkTags: ReadonlyMap<string, string>): Series {
    let key = '';
    const tags: (string | null)[] = [];
    for (const g of this.#groups) {
      const t = g.kind === 'tag' ? (chunkTags.get(g.tag!) ?? null) : null;
      tags.push(t);
      key += t === null ? '\u0000N' : `\u0000${t}`;
    }
    let s = this.#seriesGroups.get(key);
    if (s === undefined) this.#seriesGroups.set(key, (s = { buckets: new Map(), tags }));
    return s;
  }

  /** The group of bucket `first + offset` (an offset keeps BigInt arithmetic out of the common case). */
  #groupAt(series: Series, first: bigint, firstNum: number, offset: number): number {
    const x = firstNum + offset;
    const key = Number.isSafeInteger(x) ? x : String(first + BigInt(offset));
    let g = series.buckets.get(key);
    if (g === undefined) {
      g = this.#numGroups++;
      series.buckets.set(key, g);
      this.#buckets.add(key);
      for (let j = 0; j < this.#groups.length; j++)
        this.#tagValues[j]!.push(this.#groups[j]!.kind === 'tag' ? series.tags[j]! : null);
      this.#bucketValues.push(this.#stride === undefined ? 0n : this.#origin + (first + BigInt(offset)) * this.#stride);
      this.#ctx.memory.reserve(128, 'GROUP BY hash table');
      this.#reserved += 128;
    }
    return g;
  }

  /** How many distinct buckets have rows so far. */
  get distinctBuckets(): number {
    return this.#buckets.size;
  }

  #groupOf(series: Series, k: bigint): number {
    return this.#groupAt(series, k, Number(k), 0);
  }

  /** Runs of one bucket of a chunk in TypeScript: into the scratch bounds; their groups into #runGroups. */
  #tsRuns(chunk: SeriesChunk, series: Series): number {
    const n = chunk.length;
    const sc = this.#scratch;
    sc.reserve(n);
    if (this.#runGroups.length < n + 1) this.#runGroups = new Int32Array(Math.max(n + 1, this.#runGroups.length * 2));
    if (this.#stride === undefined) {
      sc.bounds[0] = 0;
      sc.bounds[1] = n;
      this.#runGroups[0] = this.#groupAt(series, 0n, 0, 0);
      return 1;
    }
    const runs = bucketRuns(chunk.time, n, this.#origin, this.#stride, sc);
    if (runs !== undefined) {
      const firstNum = Number(runs.first);
      for (let r = 0; r < runs.nruns; r++)
        this.#runGroups[r] = this.#groupAt(series, runs.first, firstNum, runs.offsets[r]!);
      return runs.nruns;
    }
    // Spans too long for exact doubles: bisect with BigInts.
    const w = words(chunk.time);
    let nruns = 0;
    for (let s = 0; s < n; ) {
      const k = this.#bucketOf(chunk.time[s]!);
      const e = lowerBoundTime(w, s, n, this.#origin + (k + 1n) * this.#stride);
      sc.bounds[nruns] = s;
      this.#runGroups[nruns++] = this.#groupOf(series, k);
      s = e;
    }
    sc.bounds[nruns] = n;
    return nruns;
  }

  addChunk(chunk: SeriesChunk): void {
    const n = chunk.length;
    if (n === 0) return;
    const series = this.#seriesOf(chunk.tags);
    const k = this.#kernels;
    let nruns: number;
    let bound: (r: number) => number;
    if (k !== undefined && this.#stride !== undefined && (nruns = k.cut(chunk.time, this.#origin, this.#stride)) >= 0) {
      if (this.#runGroups.length < nruns) this.#runGroups = new Int32Array(Math.max(nruns, this.#runGroups.length * 2));
      const first = k.firstBucket;
      const firstNum = Number(first);
      for (let r = 0; r < nruns; r++) {
        const g = this.#groupAt(series, first, firstNum, k.offset(r));
        this.#runGroups[r] = g;
        k.setGroup(r, g);
      }
      bound = (r) => k.bound(r);
    } else {
      nruns = this.#tsRuns(chunk, series);
      const bounds = this.#scratch.bounds;
      bound = (r) => bounds[r]!;
      if (k !== undefined) {
        k.runsOf(n, bounds, nruns);
        for (let r = 0; r < nruns; r++) k.setGroup(r, this.#runGroups[r]!);
      }
    }
    if (k !== undefined) {
      k.reserveGroups(this.#numGroups);
      for (const [column, source] of this.#columnSources) {
        const data = chunk.fields.get(column);
        if (data === undefined) continue; // NULL throughout
        if (
          data.values instanceof Float64Array ||
          data.values instanceof BigInt64Array ||
          data.values instanceof BigUint64Array
        )
          k.fold(source, data.values, data.validity);
        else throw bug(`column ${column} of a time-bucket aggregate holds no 64-bit values`);
      }
      for (const [tag, source] of this.#rowSources)
        if (tag === undefined || chunk.tags.has(tag)) k.fold(source, undefined, undefined);
    }
    for (let a = 0; a < this.#aggs.length; a++) {
      const sink = this.#sinks[a]!;
      if (sink.kind !== 'ts') continue;
      const spec = this.#aggs[a]!;
      const data = spec.columnKind === 'field' ? chunk.fields.get(spec.column!) : undefined;
      const w =
        data !== undefined && spec.kind !== 'count' && (spec.type.id === 'Int64' || spec.type.id === 'UInt64')
          ? words(data.values as BigInt64Array)
          : undefined;
      for (let r = 0; r < nruns; r++)
        foldRun(spec, sink.acc, this.#runGroups[r]!, chunk, data, w, bound(r), bound(r + 1));
    }
  }

  /** Folds a whole block known by its statistics (complete for every aggregate: statsComplete). */
  addStats(st: SeriesStats): void {
    const g = this.#groupOf(this.#seriesOf(st.tags), this.#bucketOf(st.minTime));
    const k = this.#kernels;
    if (k !== undefined) {
      k.reserveGroups(this.#numGroups);
      for (const [column, source] of this.#columnSources) {
        const f = st.fields.get(column);
        if (f !== undefined) k.addStats(source, g, f);
      }
      for (const [tag, source] of this.#rowSources)
        if (tag === undefined || st.tags.has(tag)) k.addRows(source, g, st.rows);
    }
    for (let a = 0; a < this.#aggs.length; a++) {
      const sink = this.#sinks[a]!;
      if (sink.kind === 'ts') foldStats(this.#aggs[a]!, sink.acc, g, st);
    }
  }

  /** The series' tag combinations sorted by the tag keys of `order`. */
  #sortedSeries(order: readonly GroupOrder[]): Series[] {
    const tagKeys = order.filter((o) => this.#groups[o.group]!.kind === 'tag');
    const series = [...this.#seriesGroups.values()];
    series.sort((x, y) => {
      for (const o of tagKeys) {
        const a = x.tags[o.group]!;
        const b = y.tags[o.group]!;
        if (a === b) continue;
        if (a === null || b === null) return (a === null) === o.nullsFirst ? -1 : 1;
        const c = compareStrings(a, b);
        return o.asc ? c : -c;
      }
      return 0;
    });
    return series;
  }

  /**
   * The groups in `order` (supportsOrder). With the bucket last (or none): the series' tag
   * combinations sorted by their keys, each one's buckets by number; cheaper than sorting the
   * result's rows (a hundred hosts by hour over a day sort 100 strings and 100 lists of 24
   * numbers, not 2,400 rows). With the bucket first or between tags: the groups sorted by the
   * bucket number and the rank of their series.
   */
  #permutation(order: readonly GroupOrder[]): Int32Array {
    const series = this.#sortedSeries(order);
    const at = order.findIndex((o) => this.#groups[o.group]!.kind === 'bucket');
    const bucket = at < 0 ? undefined : order[at]!;
    const dir = bucket === undefined || bucket.asc ? 1 : -1;
    const perm = new Int32Array(this.#numGroups);
    if (at < 0 || at === order.length - 1) {
      let k = 0;
      const byNumber = (a: [BucketKey, number], b: [BucketKey, number]): number => dir * compareBuckets(a[0], b[0]);
      for (const s of series) {
        const entries = [...s.buckets];
        if (entries.length > 1) entries.sort(byNumber);
        for (const [, g] of entries) perm[k++] = g;
      }
      if (k !== perm.length) throw bug(`ordered groups: ${k} of ${perm.length}`);
      return perm;
    }
    // Tag keys before the bucket compare first: series that tie on them share a rank there.
    const before = order.slice(0, at).map((o) => o.group);
    const rankBefore = new Int32Array(this.#numGroups);
    const rankAll = new Int32Array(this.#numGroups);
    const bucketOf: BucketKey[] = new Array<BucketKey>(this.#numGroups);
    let rank = -1;
    let prev: Series | undefined;
    series.forEach((s, i) => {
      if (prev === undefined || before.some((j) => s.tags[j] !== prev!.tags[j])) rank++;
      prev = s;
      for (const [key, g] of s.buckets) {
        rankBefore[g] = rank;
        rankAll[g] = i;
        bucketOf[g] = key;
      }
    });
    for (let g = 0; g < perm.length; g++) perm[g] = g;
    perm.sort(
      (x, y) =>
        rankBefore[x]! - rankBefore[y]! ||
        dir * compareBuckets(bucketOf[x]!, bucketOf[y]!) ||
        rankAll[x]! - rankAll[y]!,
    );
    return perm;
  }

  /** The result: group-by columns, then one column per aggregate; in `order` when given (supportsOrder). */
  finish(schema: Schema, order?: readonly GroupOrder[]): RecordBatch {
    const batch = this.#finish(schema);
    if (order === undefined || order.length === 0 || batch.length < 2) return batch;
    const perm = this.#permutation(order);
    return { schema, length: batch.length, columns: batch.columns.map((c) => takeVector(c, perm)) };
  }

  #finish(schema: Schema): RecordBatch {
    const n = this.#numGroups;
    const columns: Vector[] = this.#groups.map((spec, j) => {
      if (spec.kind === 'tag') return vectorFrom(spec.type, this.#tagValues[j]!, nonNullMask(this.#tagValues[j]!));
      return { type: spec.type, length: n, values: BigInt64Array.from(this.#bucketValues) };
    });
    for (const sink of this.#sinks) {
      if (sink.kind === 'ts') {
        columns.push(sink.acc.finish(n));
        continue;
      }
      const out = this.#kernels!.finish(sink.source, sink.finish, n);
      const values =
        sink.type.id === 'Float64'
          ? new Float64Array(out.values)
          : sink.type.id === 'UInt64'
            ? new BigUint64Array(out.values)
            : new BigInt64Array(out.values);
      columns.push(
        sink.finish === 'count'
          ? { type: INT64, length: n, values }
          : { type: sink.type, length: n, values, validity: out.validity },
      );
    }
    return { schema, length: n, columns };
  }

  release(): void {
    this.#kernels?.release();
    this.#ctx.memory.release(this.#reserved);
    this.#reserved = 0;
  }
}
