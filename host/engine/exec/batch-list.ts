// Batches an operator keeps (a join's build side, a sort's sorted runs) addressed by one row number
// across all of them, and the gather of any rows into new vectors. Nothing is concatenated: holding
// n rows costs their batches and 4 bytes a row (the batch of each row), where one concatenated batch
// cost a second copy of every column, built in one synchronous pass (10 million rows: seconds).

import type { RecordBatch, Scalar, Vector, VectorValues } from '../batch.js';
import { getValue, vectorFrom } from '../batch.js';
import type { DataType } from '../types.js';

export class BatchList {
  readonly batches: RecordBatch[] = [];
  /** The first row number of each batch. */
  readonly #starts: number[] = [];
  /** The batch of each row number. */
  #batchOf = new Int32Array(1024);
  #length = 0;

  get length(): number {
    return this.#length;
  }

  /** The bytes of the row index (the batches are the caller's to count). */
  get indexBytes(): number {
    return this.#batchOf.byteLength;
  }

  /** Appends a batch; its rows get the next row numbers. */
  add(batch: RecordBatch): void {
    const n = batch.length;
    const need = this.#length + n;
    if (need > this.#batchOf.length) {
      let size = this.#batchOf.length * 2;
      while (size < need) size *= 2;
      const next = new Int32Array(size);
      next.set(this.#batchOf.subarray(0, this.#length));
      this.#batchOf = next;
    }
    this.#batchOf.fill(this.batches.length, this.#length, need);
    this.#starts.push(this.#length);
    this.batches.push(batch);
    this.#length = need;
  }

  /** The batch number and the row within it of row number `row`. */
  batchOf(row: number): number {
    return this.#batchOf[row]!;
  }

  startOf(batch: number): number {
    return this.#starts[batch]!;
  }

  /** Column `col` at row numbers rows[0, n), where -1 stands for NULL. */
  gather(col: number, type: DataType, rows: ArrayLike<number>, n: number): Vector {
    return this.gatherFrom(this.batches.map((b) => b.columns[col]!), type, rows, n);
  }

  /** Like gather, from vectors of the batches' rows computed elsewhere (`sources[b]` for batch b). */
  gatherFrom(sources: readonly Vector[], type: DataType, rows: ArrayLike<number>, n: number): Vector {
    return gatherVector(type, sources, this.#batchOf, this.#starts, rows, n);
  }
}

/** The default value of a NULL slot of a type (batch.ts: "an arbitrary value of the right type"). */
function emptyValue(type: DataType): unknown {
  switch (type.id) {
    case 'Utf8':
    case 'Binary':
      return '';
    case 'Interval':
      return { months: 0, days: 0, nanos: 0n };
    default:
      return [];
  }
}

/**
 * Rows of `sources` (one vector per batch) as one vector: row number rows[k] is row
 * rows[k] - starts[b] of sources[b], b = batchOf[rows[k]]; -1 is NULL.
 */
export function gatherVector(type: DataType, sources: readonly Vector[], batchOf: Int32Array, starts: readonly number[], rows: ArrayLike<number>, n: number): Vector {
  if (type.id === 'Null') return { type, length: n, values: null };
  let nullable = false;
  for (const s of sources) if (s.validity !== undefined || s.values === null) nullable = true;
  if (!nullable) {
    for (let k = 0; k < n; k++) {
      if (rows[k]! < 0) {
        nullable = true;
        break;
      }
    }
  }
  let validity: Uint8Array | undefined;
  if (nullable) {
    validity = new Uint8Array(n);
    for (let k = 0; k < n; k++) {
      const g = rows[k]!;
      if (g < 0) continue;
      const s = sources[batchOf[g]!]!;
      if (s.values === null) continue;
      validity[k] = s.validity === undefined ? 1 : s.validity[g - starts[batchOf[g]!]!]!;
    }
  }
  const first = sources.find((s) => s.values !== null)?.values;
  if (first === undefined || type.id === 'Struct') return gatherGeneric(type, sources, batchOf, starts, rows, n, validity);
  let out: VectorValues;
  if (Array.isArray(first)) {
    const empty = emptyValue(type);
    const a = new Array<unknown>(n);
    for (let k = 0; k < n; k++) {
      const g = rows[k]!;
      if (g < 0) {
        a[k] = empty;
        continue;
      }
      const b = batchOf[g]!;
      const vals = sources[b]!.values as unknown[] | null;
      a[k] = vals === null ? empty : vals[g - starts[b]!];
    }
    out = a as VectorValues;
  } else if (first instanceof BigInt64Array || first instanceof BigUint64Array) {
    // Word by word: reading a BigInt64Array allocates a BigInt per element.
    const words = sources.map((s) => (s.values === null ? undefined : new Int32Array((s.values as BigInt64Array).buffer, (s.values as BigInt64Array).byteOffset, s.length * 2)));
    const a = first instanceof BigInt64Array ? new BigInt64Array(n) : new BigUint64Array(n);
    const dw = new Int32Array(a.buffer);
    for (let k = 0; k < n; k++) {
      const g = rows[k]!;
      if (g < 0) continue;
      const b = batchOf[g]!;
      const w = words[b];
      if (w === undefined) continue;
      const j = 2 * (g - starts[b]!);
      dw[2 * k] = w[j]!;
      dw[2 * k + 1] = w[j + 1]!;
    }
    out = a as unknown as VectorValues;
  } else {
    const ctor = (first as Float64Array).constructor as new (n: number) => Float64Array;
    const a = new ctor(n);
    for (let k = 0; k < n; k++) {
      const g = rows[k]!;
      if (g < 0) continue;
      const b = batchOf[g]!;
      const vals = sources[b]!.values as Float64Array | null;
      if (vals !== null) a[k] = vals[g - starts[b]!]!;
    }
    out = a as unknown as VectorValues;
  }
  return { type, length: n, values: out, validity };
}

function gatherGeneric(type: DataType, sources: readonly Vector[], batchOf: Int32Array, starts: readonly number[], rows: ArrayLike<number>, n: number, validity: Uint8Array | undefined): Vector {
  const values = new Array<Scalar>(n);
  for (let k = 0; k < n; k++) {
    const g = rows[k]!;
    if (g < 0) {
      values[k] = null;
      continue;
    }
    const b = batchOf[g]!;
    values[k] = getValue(sources[b]!, g - starts[b]!);
  }
  return vectorFrom(type, values, validity);
}
