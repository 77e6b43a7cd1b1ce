// Columnar data of the engine: a Vector is one column of values of one DataType in a typed array
// (JS arrays for strings and composite types), with an optional validity byte per row; a
// RecordBatch is equally long vectors under a schema. Operators exchange RecordBatches.
//
// Physical layout by type:
//   Null            no values (every row is NULL)
//   Boolean         Uint8Array of 0/1
//   Int64           BigInt64Array          Timestamp   BigInt64Array (in the type's unit)
//   Time64          BigInt64Array (nanoseconds since midnight)
//   UInt64          BigUint64Array         Float64     Float64Array (Float32 too, values rounded to single)
//   Utf8            string[]               Date32      Int32Array (days since the epoch)
//   Binary          string[] of lowercase hex (two digits per byte)
//   Interval        IntervalValue[]        Struct      one child Vector per field
//   List            unknown[][] (element values as getValue returns them)
// A NULL row's value slot holds an arbitrary value of the right type (0, '', ...).

import type { DataType, Field } from './data-types.js';
import { BOOLEAN, FLOAT64, INT64, NULL, UINT64, UTF8 } from './data-types.js';

export interface IntervalValue {
  months: number;
  days: number;
  nanos: bigint;
}

export type VectorValues =
  | Uint8Array
  | BigInt64Array
  | BigUint64Array
  | Float64Array
  | Int32Array
  | string[]
  | IntervalValue[]
  | Vector[]
  | unknown[][]
  | null;

export interface Vector {
  readonly type: DataType;
  readonly length: number;
  readonly values: VectorValues;
  /** 1 = valid, 0 = NULL; undefined means every row is valid (except for type Null). */
  readonly validity?: Uint8Array;
  /** A hint: every row holds the same valid value (a literal, a tag of one series). */
  readonly constant?: boolean;
}

export interface Schema {
  readonly fields: readonly Field[];
}

export interface RecordBatch {
  readonly schema: Schema;
  readonly columns: readonly Vector[];
  readonly length: number;
}

/** A JS value of one cell: bigint (Int64, UInt64, Timestamp), number (Float64, Date32), string, boolean, IntervalValue, object (Struct), array (List) or null. */
export type Scalar = bigint | number | string | boolean | IntervalValue | { [field: string]: Scalar } | Scalar[] | null;

export function isValid(v: Vector, i: number): boolean {
  if (v.type.id === 'Null') return false;
  return v.validity === undefined || v.validity[i] === 1;
}

/** The value at row `i` as a JS value (slow path: use the typed arrays in hot loops). */
export function getValue(v: Vector, i: number): Scalar {
  if (!isValid(v, i)) return null;
  switch (v.type.id) {
    case 'Boolean':
      return (v.values as Uint8Array)[i] === 1;
    case 'Struct': {
      const out: { [field: string]: Scalar } = {};
      const children = v.values as Vector[];
      v.type.fields.forEach((f, k) => {
        out[f.name] = getValue(children[k]!, i);
      });
      return out;
    }
    default:
      return (v.values as ArrayLike<Scalar>)[i]!;
  }
}

/** Builds a vector of one type from JS values (slow path). */
export class VectorBuilder {
  readonly type: DataType;
  #values: Scalar[] = [];
  #valid: number[] = [];
  #nulls = 0;

  constructor(type: DataType) {
    this.type = type;
  }

  get length(): number {
    return this.#values.length;
  }

  push(value: Scalar): void {
    if (value === null) {
      this.#nulls++;
      this.#valid.push(0);
      this.#values.push(null);
    } else {
      this.#valid.push(1);
      this.#values.push(value);
    }
  }

  finish(): Vector {
    return vectorFrom(this.type, this.#values, this.#nulls > 0 ? Uint8Array.from(this.#valid) : undefined);
  }
}

/**
 * 1 for each value that is not null, 0 for null: the validity of values gathered as JS values.
 * A plain loop: `Uint8Array.from(values, mapFn)` takes V8's generic iterator path, 0.2-1.5 ms for
 * the 2,400 groups of a one-day hourly GROUP BY over 100 series.
 */
export function nonNullMask(values: readonly unknown[]): Uint8Array {
  const n = values.length;
  const mask = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (values[i] !== null) mask[i] = 1;
  return mask;
}

/** A vector from JS values; `validity` marks NULLs (their value slots may hold null). */
export function vectorFrom(type: DataType, values: readonly Scalar[], validity?: Uint8Array): Vector {
  const n = values.length;
  const valid = (i: number): boolean => validity === undefined || validity[i] === 1;
  switch (type.id) {
    case 'Null':
      return { type, length: n, values: null };
    case 'Boolean': {
      const a = new Uint8Array(n);
      for (let i = 0; i < n; i++) if (valid(i)) a[i] = values[i] ? 1 : 0;
      return { type, length: n, values: a, validity };
    }
    case 'Int64':
    case 'Timestamp':
    case 'Time64': {
      const a = new BigInt64Array(n);
      for (let i = 0; i < n; i++) if (valid(i)) a[i] = values[i] as bigint;
      return { type, length: n, values: a, validity };
    }
    case 'UInt64': {
      const a = new BigUint64Array(n);
      for (let i = 0; i < n; i++) if (valid(i)) a[i] = values[i] as bigint;
      return { type, length: n, values: a, validity };
    }
    case 'Float64': {
      const a = new Float64Array(n);
      for (let i = 0; i < n; i++) if (valid(i)) a[i] = values[i] as number;
      return { type, length: n, values: a, validity };
    }
    case 'Float32': {
      const a = new Float64Array(n);
      for (let i = 0; i < n; i++) if (valid(i)) a[i] = Math.fround(values[i] as number);
      return { type, length: n, values: a, validity };
    }
    case 'Date32': {
      const a = new Int32Array(n);
      for (let i = 0; i < n; i++) if (valid(i)) a[i] = values[i] as number;
      return { type, length: n, values: a, validity };
    }
    case 'Utf8':
    case 'Binary': {
      const a = new Array<string>(n);
      for (let i = 0; i < n; i++) a[i] = valid(i) ? (values[i] as string) : '';
      return { type, length: n, values: a, validity };
    }
    case 'Interval': {
      const a = new Array<IntervalValue>(n);
      for (let i = 0; i < n; i++) a[i] = valid(i) ? (values[i] as IntervalValue) : { months: 0, days: 0, nanos: 0n };
      return { type, length: n, values: a, validity };
    }
    case 'Struct': {
      const children = type.fields.map((f) =>
        vectorFrom(
          f.type,
          values.map((v, i) => (valid(i) && v !== null ? ((v as { [k: string]: Scalar })[f.name] ?? null) : null)),
          Uint8Array.from(values, (v, i) =>
            valid(i) && v !== null && (v as { [k: string]: Scalar })[f.name] != null ? 1 : 0,
          ),
        ),
      );
      return { type, length: n, values: children, validity };
    }
    case 'List': {
      const a = new Array<unknown[]>(n);
      for (let i = 0; i < n; i++) a[i] = valid(i) ? (values[i] as unknown[]) : [];
      return { type, length: n, values: a, validity };
    }
  }
}

/** A vector holding `value` `n` times (filled directly: scans build one per tag per chunk). */
export function constantVector(type: DataType, value: Scalar, n: number): Vector {
  const validity = value === null ? new Uint8Array(n) : undefined;
  const constant = value !== null;
  switch (type.id) {
    case 'Null':
      return { type, length: n, values: null };
    case 'Utf8':
    case 'Binary':
      return {
        type,
        length: n,
        values: new Array<string>(n).fill(value === null ? '' : (value as string)),
        validity,
        constant,
      };
    case 'Float64':
      return {
        type,
        length: n,
        values: new Float64Array(n).fill(value === null ? 0 : (value as number)),
        validity,
        constant,
      };
    case 'Float32':
      return {
        type,
        length: n,
        values: new Float64Array(n).fill(value === null ? 0 : Math.fround(value as number)),
        validity,
        constant,
      };
    case 'Int64':
    case 'Timestamp':
    case 'Time64':
      return {
        type,
        length: n,
        values: new BigInt64Array(n).fill(value === null ? 0n : (value as bigint)),
        validity,
        constant,
      };
    case 'UInt64':
      return {
        type,
        length: n,
        values: new BigUint64Array(n).fill(value === null ? 0n : (value as bigint)),
        validity,
        constant,
      };
    case 'Boolean':
      return { type, length: n, values: new Uint8Array(n).fill(value === true ? 1 : 0), validity, constant };
    default:
      if (value === null)
        return {
          type,
          length: n,
          values: vectorFrom(type, new Array<Scalar>(n).fill(null), validity).values,
          validity,
        };
      return vectorFrom(type, new Array<Scalar>(n).fill(value));
  }
}

/** Rows [start, end) of a vector (shares typed-array memory). */
export function sliceVector(v: Vector, start: number, end: number): Vector {
  if (start === 0 && end === v.length) return v;
  const length = end - start;
  const validity = v.validity?.subarray(start, end);
  if (v.values === null) return { type: v.type, length, values: null };
  if (v.type.id === 'Struct') {
    return { type: v.type, length, values: (v.values as Vector[]).map((c) => sliceVector(c, start, end)), validity };
  }
  const values = Array.isArray(v.values) ? v.values.slice(start, end) : (v.values as Uint8Array).subarray(start, end);
  return v.constant === true
    ? { type: v.type, length, values: values as VectorValues, validity, constant: true }
    : { type: v.type, length, values: values as VectorValues, validity };
}

/** The rows of `v` at `indices`, in that order. */
export function takeVector(v: Vector, indices: ArrayLike<number>): Vector {
  const n = indices.length;
  let validity: Uint8Array | undefined;
  if (v.validity !== undefined) {
    validity = new Uint8Array(n);
    for (let i = 0; i < n; i++) validity[i] = v.validity[indices[i]!]!;
  }
  if (v.values === null) return { type: v.type, length: n, values: null };
  if (v.type.id === 'Struct')
    return { type: v.type, length: n, values: (v.values as Vector[]).map((c) => takeVector(c, indices)), validity };
  const src = v.values;
  let out: VectorValues;
  if (Array.isArray(src)) {
    const a = new Array(n);
    for (let i = 0; i < n; i++) a[i] = src[indices[i]!];
    out = a as VectorValues;
  } else if (src instanceof BigInt64Array || src instanceof BigUint64Array) {
    // Word by word: reading a BigInt64Array allocates a BigInt per element.
    const a = src instanceof BigInt64Array ? new BigInt64Array(n) : new BigUint64Array(n);
    const sw = new Int32Array(src.buffer, src.byteOffset, src.length * 2);
    const dw = new Int32Array(a.buffer);
    for (let i = 0; i < n; i++) {
      const j = 2 * indices[i]!;
      dw[2 * i] = sw[j]!;
      dw[2 * i + 1] = sw[j + 1]!;
    }
    out = a as unknown as VectorValues;
  } else {
    const ctor = (src as Float64Array).constructor as new (n: number) => Float64Array;
    const a = new ctor(n);
    const s = src as Float64Array;
    for (let i = 0; i < n; i++) a[i] = s[indices[i]!]!;
    out = a as unknown as VectorValues;
  }
  return { type: v.type, length: n, values: out, validity };
}

/** Concatenates vectors of the same type. */
export function concatVectors(type: DataType, parts: readonly Vector[]): Vector {
  if (parts.length === 1) return parts[0]!;
  let n = 0;
  for (const p of parts) n += p.length;
  const anyNull = parts.some((p) => p.validity !== undefined || p.values === null);
  let validity: Uint8Array | undefined;
  if (anyNull) {
    validity = new Uint8Array(n);
    let at = 0;
    for (const p of parts) {
      if (p.values === null) validity.fill(0, at, at + p.length);
      else if (p.validity) validity.set(p.validity, at);
      else validity.fill(1, at, at + p.length);
      at += p.length;
    }
  }
  if (type.id === 'Null') return { type, length: n, values: null };
  if (type.id === 'Struct') {
    const children = type.fields.map((f, k) =>
      concatVectors(
        f.type,
        parts.map((p) => (p.values === null ? constantVector(f.type, null, p.length) : (p.values as Vector[])[k]!)),
      ),
    );
    return { type, length: n, values: children, validity };
  }
  const first = parts.find((p) => p.values !== null);
  if (first === undefined)
    return {
      type,
      length: n,
      values: vectorFrom(type, new Array<Scalar>(n).fill(null)).values,
      validity: new Uint8Array(n),
    };
  if (Array.isArray(first.values)) {
    const out: unknown[] = [];
    for (const p of parts) {
      if (p.values === null) for (let i = 0; i < p.length; i++) out.push(vectorFrom(type, [null]).values![0 as never]);
      else for (const x of p.values as unknown[]) out.push(x);
    }
    return { type, length: n, values: out as VectorValues, validity };
  }
  const ctor = (first.values as Float64Array).constructor as new (n: number) => Float64Array;
  const a = new ctor(n);
  let at = 0;
  for (const p of parts) {
    if (p.values !== null) a.set(p.values as Float64Array, at);
    at += p.length;
  }
  return { type, length: n, values: a as unknown as VectorValues, validity };
}

/** A batch of no rows. */
export function emptyBatch(schema: Schema): RecordBatch {
  return { schema, length: 0, columns: schema.fields.map((f) => vectorFrom(f.type, [])) };
}

/** Rows [start, end) of a batch. */
export function sliceBatch(b: RecordBatch, start: number, end: number): RecordBatch {
  if (start === 0 && end === b.length) return b;
  return { schema: b.schema, length: end - start, columns: b.columns.map((c) => sliceVector(c, start, end)) };
}

/** The engine type of a storage value type (host/core/write-batch.ts ValueType numbering). */
export function typeOfValueType(valueType: number): DataType {
  switch (valueType) {
    case 0:
    case 5:
      return UTF8;
    case 1:
      return FLOAT64;
    case 2:
      return INT64;
    case 3:
      return UINT64;
    case 4:
      return BOOLEAN;
    default:
      return NULL;
  }
}

/** The AND of two validity masks (undefined = all valid). */
export function andValidity(a: Uint8Array | undefined, b: Uint8Array | undefined, n: number): Uint8Array | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = a[i]! & b[i]!;
  return out;
}

/** A vector's validity as a mask, materialized for Null vectors. */
export function validityOf(v: Vector): Uint8Array | undefined {
  if (v.type.id === 'Null') return new Uint8Array(v.length);
  return v.validity;
}
