// The accumulator for aggregates that need every row of a group before they can answer
// (median, mode, array_agg, sample, gauge_agg, state_agg, ...): it keeps each group's rows as
// tuples of JS values and hands them to the function's `reduce` at the end. The slow general
// path by design; the everyday aggregates have typed-array accumulators (accumulators.ts).

import { type DataType, getValue, isValid, type Scalar, type Vector, vectorFrom } from '../types/index.js';
import type { GroupsAccumulator } from './function-types.js';
import { OBJECT_BYTES, scalarBytes, SLOT_BYTES } from '../memory/index.js';

/** Which rows a group keeps: all, or only those whose listed arguments are not NULL. */
export type KeepRows = 'all' | readonly number[];

export class CollectingAccumulator implements GroupsAccumulator {
  #groups: Scalar[][][] = [];
  #rows = 0;
  /** The groups' arrays and the rows they keep, as memory/memory-size.ts counts them. */
  #bytes = 0;
  readonly #type: DataType;
  readonly #keep: KeepRows;
  readonly #reduce: (rows: Scalar[][]) => Scalar;

  /**
   * `reduce` gets a group's rows (argument tuples in input order, possibly none) and returns its
   * result, a JS value of `type`; it must not change the rows (finish may run more than once).
   */
  constructor(type: DataType, keep: KeepRows, reduce: (rows: Scalar[][]) => Scalar) {
    this.#type = type;
    this.#keep = keep;
    this.#reduce = reduce;
  }

  update(args: readonly Vector[], groups: Int32Array, n: number, numGroups: number): void {
    while (this.#groups.length < numGroups) {
      this.#groups.push([]);
      this.#bytes += OBJECT_BYTES + SLOT_BYTES;
    }
    const keep = this.#keep;
    for (let i = 0; i < n; i++) {
      if (keep !== 'all' && !keep.every((k) => isValid(args[k]!, i))) continue;
      const row = new Array<Scalar>(args.length);
      let bytes = OBJECT_BYTES + 2 * SLOT_BYTES;
      for (let k = 0; k < args.length; k++) {
        const v = getValue(args[k]!, i);
        row[k] = v;
        bytes += SLOT_BYTES + scalarBytes(v);
      }
      this.#groups[groups[i]!]!.push(row);
      this.#rows++;
      this.#bytes += bytes;
    }
  }

  merge(other: GroupsAccumulator, src: number, dst: number): void {
    while (this.#groups.length <= dst) this.#groups.push([]);
    const rows = (other as CollectingAccumulator).#groups[src] ?? [];
    for (const r of rows) {
      this.#groups[dst]!.push(r);
      let bytes = OBJECT_BYTES + 2 * SLOT_BYTES;
      for (const v of r) bytes += SLOT_BYTES + scalarBytes(v);
      this.#bytes += bytes;
    }
    this.#rows += rows.length;
  }

  finish(numGroups: number): Vector {
    const values: Scalar[] = [];
    for (let g = 0; g < numGroups; g++) values.push(this.#reduce(this.#groups[g] ?? []));
    return vectorFrom(
      this.#type,
      values,
      Uint8Array.from(values, (v) => (v === null ? 0 : 1)),
    );
  }

  sizeBytes(): number {
    return this.#bytes;
  }
}

/** Compares two non-NULL values of one type (numbers, bigints, strings, booleans). */
export function compareScalars(a: Scalar, b: Scalar): number {
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean') return Number(a) - Number(b as boolean);
  if (typeof a === 'number' && typeof b === 'number') {
    // NaN sorts last, as arrow's total order puts it.
    if (Number.isNaN(a)) return Number.isNaN(b) ? 0 : 1;
    if (Number.isNaN(b)) return -1;
  }
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
}

/** A Map key for a value: structured values by their JSON text, bigints kept apart from numbers. */
export function scalarKey(v: Scalar): unknown {
  if (v === null || typeof v !== 'object') return typeof v === 'bigint' ? `${v}n` : v;
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x));
}
