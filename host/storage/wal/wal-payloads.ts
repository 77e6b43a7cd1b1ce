// Payloads of WAL records (FORMAT.md §2): a stamped write (the batches plus the table and column
// ids they resolved to when they were accepted) and a delete (a DELETE resolved to series keys).
// The ids are what make replay safe after DDL: a record is applied to the table and columns it
// was written to, never to whatever carries that name today (FORMAT.md §6).

import { CorruptionError } from '../../core/errors.js';
import { readWriteBatch, type WriteBatch } from '../../core/write-batch.js';
import type { TableStamp } from '../memtable/index.js';

const pad8 = (n: number): number => (n + 7) & ~7;
const utf8 = new TextEncoder();
const utf8d = new TextDecoder('utf-8', { fatal: true });

/** The parts of a StampedWrite payload: the stamp section, then the encoded batches as given. */
export function encodeStampedWrite(
  stamps: ReadonlyArray<readonly TableStamp[]>,
  batches: readonly Uint8Array[],
): Uint8Array[] {
  let words = 2;
  for (const b of stamps) {
    words += 1;
    for (const t of b) words += 2 + t.columnIds.length;
  }
  const bytes = pad8(words * 4);
  const head = new Uint8Array(bytes);
  const u32 = new Uint32Array(head.buffer, 0, words);
  let k = 0;
  u32[k++] = bytes;
  u32[k++] = stamps.length;
  for (const b of stamps) {
    u32[k++] = b.length;
    for (const t of b) {
      u32[k++] = t.tableId;
      u32[k++] = t.columnIds.length;
      for (let i = 0; i < t.columnIds.length; i++) u32[k++] = t.columnIds[i]!;
    }
  }
  return [head, ...batches];
}

export interface StampedWrite {
  stamps: TableStamp[][];
  batches: WriteBatch[];
}

/** Decodes a StampedWrite payload (8-aligned); throws CorruptionError naming `source`. */
export function decodeStampedWrite(payload: Uint8Array, source: string): StampedWrite {
  const fail = (offset: number, what: string): never => {
    throw new CorruptionError(source, offset, what);
  };
  if (payload.length < 8) fail(0, `stamp header truncated: ${payload.length} bytes`);
  const dv = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const bytes = dv.getUint32(0, true);
  const count = dv.getUint32(4, true);
  if (bytes % 8 !== 0 || bytes > payload.length)
    fail(0, `stamp length ${bytes} invalid for a payload of ${payload.length} bytes`);
  let pos = 8;
  const word = (): number => {
    if (pos + 4 > bytes) fail(pos, 'stamp section truncated');
    const v = dv.getUint32(pos, true);
    pos += 4;
    return v;
  };
  const stamps: TableStamp[][] = [];
  for (let b = 0; b < count; b++) {
    const tables: TableStamp[] = [];
    const n = word();
    for (let t = 0; t < n; t++) {
      const tableId = word();
      const cols = word();
      if (pos + cols * 4 > bytes) fail(pos, `stamp of ${cols} columns runs past the stamp section`);
      const columnIds = new Uint32Array(cols);
      for (let c = 0; c < cols; c++) columnIds[c] = word();
      tables.push({ tableId, columnIds });
    }
    stamps.push(tables);
  }
  const batches = splitBatches(payload.subarray(bytes), source);
  if (batches.length !== stamps.length) fail(bytes, `${stamps.length} stamps for ${batches.length} batches`);
  batches.forEach((batch, i) => {
    if (batch.tables.length !== stamps[i]!.length)
      fail(bytes, `batch ${i} has ${batch.tables.length} tables, its stamp ${stamps[i]!.length}`);
    batch.tables.forEach((t, j) => {
      if (t.columns.length !== stamps[i]![j]!.columnIds.length)
        fail(bytes, `table ${t.name} has ${t.columns.length} columns, its stamp ${stamps[i]![j]!.columnIds.length}`);
    });
  });
  return { stamps, batches };
}

/** Splits a payload of write batches back to back (each declares its own length). */
export function splitBatches(payload: Uint8Array, source: string): WriteBatch[] {
  const out: WriteBatch[] = [];
  let pos = 0;
  while (pos < payload.length) {
    const dv = new DataView(payload.buffer, payload.byteOffset + pos);
    const len = payload.length - pos >= 8 ? dv.getUint32(4, true) : 0;
    if (len < 16 || pos + len > payload.length) {
      out.push(readWriteBatch(payload.subarray(pos), source)); // throws the precise CorruptionError
      break;
    }
    out.push(readWriteBatch(payload.subarray(pos, pos + len), source));
    pos += len;
  }
  return out;
}

/** A DELETE as logged: rows of `table` with minTs <= time <= maxTs in the listed series (null = all). */
export interface DeleteRecord {
  tableId: number;
  minTs: bigint;
  maxTs: bigint;
  /** seriesIdKey of each series, or null for every series of the table. */
  series: string[] | null;
}

export function encodeDelete(d: DeleteRecord): Uint8Array {
  const keys = (d.series ?? []).map((k) => utf8.encode(k));
  let size = 32;
  for (const k of keys) size += 4 + k.length;
  const out = new Uint8Array(pad8(size));
  const dv = new DataView(out.buffer);
  dv.setUint32(0, d.tableId, true);
  dv.setUint32(4, d.series === null ? 1 : 0, true);
  dv.setBigInt64(8, d.minTs, true);
  dv.setBigInt64(16, d.maxTs, true);
  dv.setUint32(24, keys.length, true);
  dv.setUint32(28, size, true);
  let pos = 32;
  for (const k of keys) {
    dv.setUint32(pos, k.length, true);
    out.set(k, pos + 4);
    pos += 4 + k.length;
  }
  return out;
}

export function decodeDelete(payload: Uint8Array, source: string): DeleteRecord {
  const fail = (offset: number, what: string): never => {
    throw new CorruptionError(source, offset, what);
  };
  if (payload.length < 32) fail(0, `delete record truncated: ${payload.length} bytes`);
  const dv = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const all = (dv.getUint32(4, true) & 1) !== 0;
  const count = dv.getUint32(24, true);
  const size = dv.getUint32(28, true);
  if (size > payload.length) fail(28, `delete record says ${size} bytes, payload has ${payload.length}`);
  const series: string[] = [];
  let pos = 32;
  for (let i = 0; i < count; i++) {
    if (pos + 4 > size) fail(pos, 'series key length truncated');
    const len = dv.getUint32(pos, true);
    if (pos + 4 + len > size) fail(pos, `series key of ${len} bytes runs past the record`);
    series.push(utf8d.decode(payload.subarray(pos + 4, pos + 4 + len)));
    pos += 4 + len;
  }
  return {
    tableId: dv.getUint32(0, true),
    minTs: dv.getBigInt64(8, true),
    maxTs: dv.getBigInt64(16, true),
    series: all ? null : series,
  };
}
