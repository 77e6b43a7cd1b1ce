// The straightforward write-batch builder (a per-row Map, sorts and checks on every row), as
// host/core/write-batch-builder.ts was before it was made fast. Kept as the reference the fast
// one must match byte for byte and error for error (write-batch-builder.test.ts).

import { UserError } from '../../host/core/errors.js';
import { compareBytes, seriesKey } from '../../host/core/series-key.js';
import { BATCH_MAGIC, ColumnKind, ValueType, VALUE_TYPE_NAMES, type FieldType } from '../../host/core/write-batch.js';

export type FieldValue = number | bigint | boolean | string;

export interface FieldInput {
  name: string;
  type: FieldType;
  value: FieldValue;
}

interface TableState {
  name: string;
  /** column name -> kind and type, in order of first appearance */
  columns: Map<string, { kind: ColumnKind; type: ValueType }>;
  series: Map<string, SeriesState>;
  rowCount: number;
}

interface SeriesState {
  key: string;
  tags: Array<[string, string]>;
  ts: bigint[];
  fields: Array<Map<string, FieldValue>>;
}

const encoder = new TextEncoder();
const MAX_NAME_BYTES = 65535;

export class ReferenceWriteBatchBuilder {
  #tables = new Map<string, TableState>();
  #rowCount = 0;

  get rowCount(): number {
    return this.#rowCount;
  }

  /**
   * Adds one point. Tags and fields with a repeated name keep their first occurrence, as the
   * line protocol does. Throws UserError('schemaConflict') when a column changes type or kind
   * within the batch; the builder is unchanged in that case.
   */
  addRow(
    table: string,
    tags: ReadonlyArray<readonly [string, string]>,
    ts: bigint,
    fields: readonly FieldInput[],
  ): void {
    checkName(table, 'table');
    let t = this.#tables.get(table);
    const isNew = t === undefined;
    t ??= { name: table, columns: new Map(), series: new Map(), rowCount: 0 };

    const seenTags = new Set<string>();
    const uniqueTags: Array<[string, string]> = [];
    for (const [k, v] of tags) {
      if (seenTags.has(k)) continue;
      seenTags.add(k);
      checkName(k, 'tag');
      uniqueTags.push([k, v]);
    }
    const row = new Map<string, FieldValue>();
    const newColumns: Array<[string, { kind: ColumnKind; type: ValueType }]> = [];
    const check = (name: string, kind: ColumnKind, type: ValueType): void => {
      const have = t!.columns.get(name) ?? newColumns.find(([n]) => n === name)?.[1];
      if (have === undefined) {
        newColumns.push([name, { kind, type }]);
      } else if (have.kind !== kind || have.type !== type) {
        throw new UserError(
          'schemaConflict',
          `column '${name}' of table '${table}' is ${VALUE_TYPE_NAMES[have.type]} in this request, written as ${VALUE_TYPE_NAMES[type]}`,
        );
      }
    };
    uniqueTags.sort((a, b) => compareBytes(a[0], b[0]));
    for (const [k] of uniqueTags) check(k, ColumnKind.Tag, ValueType.Tag);
    const uniqueFields: FieldInput[] = [];
    for (const f of fields) {
      if (row.has(f.name)) continue;
      checkName(f.name, 'field');
      row.set(f.name, f.value);
      uniqueFields.push(f);
    }
    uniqueFields.sort((a, b) => compareBytes(a.name, b.name));
    for (const f of uniqueFields) check(f.name, ColumnKind.Field, f.type);
    if (row.size === 0) throw new UserError('badParameter', `a point of table '${table}' has no fields`);

    if (isNew) this.#tables.set(table, t);
    for (const [n, c] of newColumns) t.columns.set(n, c);
    const key = seriesKey(table, uniqueTags);
    let s = t.series.get(key);
    if (s === undefined) {
      s = { key, tags: uniqueTags, ts: [], fields: [] };
      t.series.set(key, s);
    }
    s.ts.push(ts);
    s.fields.push(row);
    t.rowCount++;
    this.#rowCount++;
  }

  /** Encodes the batch. The result starts at byteOffset 0 of its own buffer (8-aligned). */
  finish(): Uint8Array {
    const w = new Writer();
    w.u32(BATCH_MAGIC);
    w.u32(0); // byteLength, patched below
    w.u32(this.#tables.size);
    w.u32(this.#rowCount);
    for (const t of this.#tables.values()) encodeTable(w, t);
    w.patchU32(4, w.length);
    return w.bytes();
  }
}

function checkName(name: string, what: string): void {
  if (name.length === 0) throw new UserError('badParameter', `empty ${what} name`);
  if (name === 'time' && what !== 'table')
    throw new UserError('schemaConflict', `'time' is reserved and cannot be a ${what} name`);
  if (name.length > MAX_NAME_BYTES / 3 && encoder.encode(name).length > MAX_NAME_BYTES) {
    throw new UserError('badParameter', `${what} name longer than ${MAX_NAME_BYTES} bytes`);
  }
}

function encodeTable(w: Writer, t: TableState): void {
  const start = w.length;
  const columns = [...t.columns.entries()];
  const colIndex = new Map(columns.map(([n], i) => [n, i]));
  const series = [...t.series.values()];
  const rows = t.rowCount;

  w.u32(0); // blockLength, patched
  w.u32(rows);
  w.u32(series.length);
  w.u16(columns.length);
  const name = encoder.encode(t.name);
  w.u16(name.length);
  w.raw(name);
  const hasNulls = new Map<string, boolean>();
  for (const [n, c] of columns) {
    let nulls = false;
    if (c.kind === ColumnKind.Field) for (const s of series) for (const r of s.fields) if (!r.has(n)) nulls = true;
    hasNulls.set(n, nulls);
    const nb = encoder.encode(n);
    w.u8(c.kind);
    w.u8(c.type);
    w.u8(nulls ? 1 : 0);
    w.u8(0);
    w.u16(nb.length);
    w.raw(nb);
  }
  w.pad8(start);

  for (const s of series) {
    let min = s.ts[0]!;
    let max = min;
    let sorted = true;
    for (let i = 1; i < s.ts.length; i++) {
      const v = s.ts[i]!;
      if (v < s.ts[i - 1]!) sorted = false;
      if (v < min) min = v;
      if (v > max) max = v;
    }
    w.i64(min);
    w.i64(max);
    w.u32(s.ts.length);
    w.u8(sorted ? 1 : 0);
    w.u8(0);
    w.u16(s.tags.length);
    const key = encoder.encode(s.key);
    w.u32(key.length);
    w.raw(key);
    for (const [k, v] of s.tags) {
      const vb = encoder.encode(v);
      w.u16(colIndex.get(k)!);
      w.u16(0);
      w.u32(vb.length);
      w.raw(vb);
    }
    w.pad8(start);
  }

  for (const s of series) for (const ts of s.ts) w.i64(ts);

  for (const [n, c] of columns) {
    if (c.kind !== ColumnKind.Field) continue;
    if (hasNulls.get(n)) {
      for (const s of series) for (const r of s.fields) w.u8(r.has(n) ? 1 : 0);
      w.pad8(start);
    }
    switch (c.type) {
      case ValueType.Double:
        for (const s of series) for (const r of s.fields) w.f64(r.has(n) ? Number(r.get(n)) : 0);
        break;
      case ValueType.BigInt:
        for (const s of series)
          for (const r of s.fields) w.i64(r.has(n) ? BigInt.asIntN(64, BigInt(r.get(n) as bigint)) : 0n);
        break;
      case ValueType.Unsigned:
        for (const s of series)
          for (const r of s.fields) w.u64(r.has(n) ? BigInt.asUintN(64, BigInt(r.get(n) as bigint)) : 0n);
        break;
      case ValueType.Boolean:
        for (const s of series) for (const r of s.fields) w.u8(r.get(n) === true ? 1 : 0);
        w.pad8(start);
        break;
      case ValueType.String: {
        const parts: Uint8Array[] = [];
        let off = 0;
        w.u32(0);
        for (const s of series) {
          for (const r of s.fields) {
            const b = r.has(n) ? encoder.encode(String(r.get(n))) : new Uint8Array(0);
            parts.push(b);
            off += b.length;
            w.u32(off);
          }
        }
        w.pad8(start);
        for (const p of parts) w.raw(p);
        w.pad8(start);
        break;
      }
    }
  }
  w.patchU32(start, w.length - start);
}

/** A growable little-endian byte writer. */
class Writer {
  #buf = new Uint8Array(1024);
  #dv = new DataView(this.#buf.buffer);
  length = 0;

  #reserve(n: number): void {
    if (this.length + n <= this.#buf.length) return;
    let cap = this.#buf.length * 2;
    while (cap < this.length + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.#buf.subarray(0, this.length));
    this.#buf = next;
    this.#dv = new DataView(next.buffer);
  }

  u8(v: number): void {
    this.#reserve(1);
    this.#buf[this.length++] = v;
  }
  u16(v: number): void {
    this.#reserve(2);
    this.#dv.setUint16(this.length, v, true);
    this.length += 2;
  }
  u32(v: number): void {
    this.#reserve(4);
    this.#dv.setUint32(this.length, v, true);
    this.length += 4;
  }
  i64(v: bigint): void {
    this.#reserve(8);
    this.#dv.setBigInt64(this.length, v, true);
    this.length += 8;
  }
  u64(v: bigint): void {
    this.#reserve(8);
    this.#dv.setBigUint64(this.length, v, true);
    this.length += 8;
  }
  f64(v: number): void {
    this.#reserve(8);
    this.#dv.setFloat64(this.length, v, true);
    this.length += 8;
  }
  raw(b: Uint8Array): void {
    this.#reserve(b.length);
    this.#buf.set(b, this.length);
    this.length += b.length;
  }
  /** Pads with zeros to a multiple of 8 from the batch start (tables start 8-aligned). */
  pad8(_tableStart: number): void {
    while (this.length % 8 !== 0) this.u8(0);
  }
  patchU32(at: number, v: number): void {
    this.#dv.setUint32(at, v, true);
  }
  bytes(): Uint8Array {
    return this.#buf.slice(0, this.length);
  }
}
