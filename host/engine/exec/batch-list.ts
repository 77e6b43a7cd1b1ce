// Batches an operator keeps (a join's build side, a sort's sorted runs) addressed by one row number
// across all of them, and the gather of any rows into new vectors. Nothing is concatenated: holding
// n rows costs their batches and 4 bytes a row (the batch of each row), where one concatenated batch
// cost a second copy of every column, built in one synchronous pass (10 million rows: seconds).

import {
  type DataType,
  getValue,
  type RecordBatch,
  type Scalar,
  type Vector,
  vectorFrom,
  type VectorValues,
} from '../types/index.js';

/** Rows of the row index a page holds: it grows a page at a time, never by copying. */
const PAGE_BITS = 16;
const PAGE_ROWS = 1 << PAGE_BITS;
const PAGE_MASK = PAGE_ROWS - 1;

export class BatchList {
  readonly batches: RecordBatch[] = [];
  /** The first row number of each batch. */
  readonly #starts: number[] = [];
  /**
   * The batch of each row number, in pages: one array doubled as it grew took 50-160 ms of one
   * step to copy at 10 million rows (bench/long-holds.ts, a sort's and a window's input).
   */
  readonly #pages: Int32Array[] = [];
  #length = 0;
  /** Each column's vectors, one per batch, as gather last read them. */
  readonly #columns: (Vector[] | undefined)[] = [];

  get length(): number {
    return this.#length;
  }

  /** The bytes of the row index (the batches are the caller's to count). */
  get indexBytes(): number {
    return this.#pages.reduce((sum, p) => sum + p.byteLength, 0);
  }

  /** Room for `need` rows: the first page doubles from 1,024 rows (most lists are small), then pages are added. */
  #reserve(need: number): void {
    const pages = this.#pages;
    if (pages.length <= 1) {
      const first = pages[0];
      const want = Math.min(PAGE_ROWS, need);
      if (first === undefined || first.length < want) {
        let size = first?.length ?? 1024;
        while (size < want) size *= 2;
        const page = new Int32Array(size);
        if (first !== undefined) page.set(first);
        pages[0] = page;
      }
    }
    while (pages.length * PAGE_ROWS < need) pages.push(new Int32Array(PAGE_ROWS));
  }

  /** Appends a batch; its rows get the next row numbers. */
  add(batch: RecordBatch): void {
    const b = this.batches.length;
    const need = this.#length + batch.length;
    this.#reserve(need);
    for (let at = this.#length; at < need; ) {
      const end = Math.min(need, (at | PAGE_MASK) + 1);
      this.#pages[at >>> PAGE_BITS]!.fill(b, at & PAGE_MASK, ((end - 1) & PAGE_MASK) + 1);
      at = end;
    }
    this.#starts.push(this.#length);
    this.batches.push(batch);
    this.#length = need;
  }

  /** The batch number and the row within it of row number `row`. */
  batchOf(row: number): number {
    return this.#pages[row >>> PAGE_BITS]![row & PAGE_MASK]!;
  }

  startOf(batch: number): number {
    return this.#starts[batch]!;
  }

  /** Column `col` at row numbers rows[0, n), where -1 stands for NULL. */
  gather(col: number, type: DataType, rows: ArrayLike<number>, n: number): Vector {
    return this.gatherFrom(this.#column(col), type, rows, n);
  }

  /** Like gather, from vectors of the batches' rows computed elsewhere (`sources[b]` for batch b). */
  gatherFrom(sources: readonly Vector[], type: DataType, rows: ArrayLike<number>, n: number): Vector {
    const batches = new Int32Array(n);
    const local = new Int32Array(n);
    for (let k = 0; k < n; k++) {
      const g = rows[k]!;
      if (g < 0) {
        batches[k] = -1;
        continue;
      }
      const b = this.#pages[g >>> PAGE_BITS]![g & PAGE_MASK]!;
      batches[k] = b;
      local[k] = g - this.#starts[b]!;
    }
    return gatherVector(type, sources, batches, local, n);
  }

  /** Column `col` at row local[k] of batch batches[k] for k < n (a batch -1 stands for NULL). */
  gatherAt(col: number, type: DataType, batches: ArrayLike<number>, local: ArrayLike<number>, n: number): Vector {
    return gatherVector(type, this.#column(col), batches, local, n);
  }

  /** Each batch's vector of column `col`, the same array until a batch is added. */
  #column(col: number): Vector[] {
    let sources = this.#columns[col];
    if (sources === undefined || sources.length !== this.batches.length)
      this.#columns[col] = sources = this.batches.map((b) => b.columns[col]!);
    return sources;
  }
}

/** The default value of a NULL slot of a type (types/batch.ts: "an arbitrary value of the right type"). */
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

/** What the gather of one set of sources reads per row, made once per set (see `prepared`). */
interface Prepared {
  /** Some source has a validity, or no values (all NULL). */
  readonly nullable: boolean;
  readonly values: (ArrayLike<unknown> | null)[];
  /** 64-bit integers as 32-bit word pairs (reading a BigInt64Array allocates). */
  readonly words: (Int32Array | undefined)[] | undefined;
  readonly validity: (Uint8Array | undefined)[];
  /** The first non-NULL source's values, which decide the output's array type. */
  readonly first: ArrayLike<unknown> | null;
}

/**
 * The sources of a gather, read once: a sort gathers each column from the same sources a batch
 * of rows at a time (millions of rows: thousands of gathers over hundreds of batches).
 */
const preparedSources = new WeakMap<readonly Vector[], Prepared>();

function prepared(sources: readonly Vector[]): Prepared {
  let p = preparedSources.get(sources);
  if (p !== undefined) return p;
  const first = sources.find((s) => s.values !== null)?.values ?? null;
  const wide = first instanceof BigInt64Array || first instanceof BigUint64Array;
  p = {
    nullable: sources.some((s) => s.validity !== undefined || s.values === null),
    values: sources.map((s) => s.values as ArrayLike<unknown> | null),
    words: wide
      ? sources.map((s) =>
          s.values === null
            ? undefined
            : new Int32Array((s.values as BigInt64Array).buffer, (s.values as BigInt64Array).byteOffset, s.length * 2),
        )
      : undefined,
    validity: sources.map((s) => (s.values === null ? new Uint8Array(s.length) : s.validity)),
    first: first as ArrayLike<unknown> | null,
  };
  preparedSources.set(sources, p);
  return p;
}

/**
 * Rows of `sources` (one vector per batch) as one vector: row k is row local[k] of
 * sources[batches[k]]; a batch -1 is NULL. Pass the same `sources` array again for the same set:
 * what is read of it is kept with it.
 */
export function gatherVector(
  type: DataType,
  sources: readonly Vector[],
  batches: ArrayLike<number>,
  local: ArrayLike<number>,
  n: number,
): Vector {
  if (type.id === 'Null') return { type, length: n, values: null };
  const p = prepared(sources);
  let nullable = p.nullable;
  if (!nullable) {
    for (let k = 0; k < n; k++) {
      if (batches[k]! < 0) {
        nullable = true;
        break;
      }
    }
  }
  let validity: Uint8Array | undefined;
  if (nullable) {
    validity = new Uint8Array(n);
    const valid = p.validity;
    for (let k = 0; k < n; k++) {
      const b = batches[k]!;
      if (b < 0) continue;
      const v = valid[b];
      validity[k] = v === undefined ? 1 : v[local[k]!]!;
    }
  }
  const first = p.first;
  if (first === null || type.id === 'Struct') return gatherGeneric(type, sources, batches, local, n, validity);
  const values = p.values;
  let out: VectorValues;
  if (Array.isArray(first)) {
    const empty = emptyValue(type);
    const a = new Array<unknown>(n);
    for (let k = 0; k < n; k++) {
      const b = batches[k]!;
      const vals = b < 0 ? null : values[b];
      a[k] = vals === null || vals === undefined ? empty : vals[local[k]!];
    }
    out = a as VectorValues;
  } else if (p.words !== undefined) {
    const words = p.words;
    const a = first instanceof BigInt64Array ? new BigInt64Array(n) : new BigUint64Array(n);
    const dw = new Int32Array(a.buffer);
    for (let k = 0; k < n; k++) {
      const b = batches[k]!;
      const w = b < 0 ? undefined : words[b];
      if (w === undefined) continue;
      const j = 2 * local[k]!;
      dw[2 * k] = w[j]!;
      dw[2 * k + 1] = w[j + 1]!;
    }
    out = a as unknown as VectorValues;
  } else {
    const ctor = (first as Float64Array).constructor as new (n: number) => Float64Array;
    const a = new ctor(n);
    for (let k = 0; k < n; k++) {
      const b = batches[k]!;
      const vals = b < 0 ? null : (values[b] as Float64Array | null);
      if (vals !== null) a[k] = vals[local[k]!]!;
    }
    out = a as unknown as VectorValues;
  }
  return { type, length: n, values: out, validity };
}

function gatherGeneric(
  type: DataType,
  sources: readonly Vector[],
  batches: ArrayLike<number>,
  local: ArrayLike<number>,
  n: number,
  validity: Uint8Array | undefined,
): Vector {
  const values = new Array<Scalar>(n);
  for (let k = 0; k < n; k++) {
    const b = batches[k]!;
    values[k] = b < 0 ? null : getValue(sources[b]!, local[k]!);
  }
  return vectorFrom(type, values, validity);
}
