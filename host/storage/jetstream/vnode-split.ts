// Which vnode a series belongs to, and a write's batches split by vnode, for the JetStream WAL's
// one subject per vnode (docs/cluster.md). A series goes to `fnv1a(series key) mod vnodes`, as
// CnosDB shards by series hash; the key is the canonical one (FORMAT.md §1), hashed as UTF-8.

import { ValueType, batchString, readWriteBatch, type BatchTable, type WriteBatch } from '../../core/write-batch.js';
import { type FieldInput, WriteBatchBuilder } from '../../core/write-batch-builder.js';
import type { TableStamp } from '../memtable/index.js';

const utf8 = new TextEncoder();

/** FNV-1a (32 bits) of the key's UTF-8 bytes, modulo `vnodes`. */
export function vnodeOf(key: string, vnodes: number): number {
  if (vnodes <= 1) return 0;
  let h = 0x811c9dc5;
  let ascii = true;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c > 0x7f) {
      ascii = false;
      break;
    }
    h = Math.imul(h ^ c, 0x01000193);
  }
  if (!ascii) {
    h = 0x811c9dc5;
    for (const b of utf8.encode(key)) h = Math.imul(h ^ b, 0x01000193);
  }
  return (h >>> 0) % vnodes;
}

/** One vnode's share of a write: encoded batches and their stamps, in the order of the request. */
export interface VnodePart {
  vnode: number;
  encoded: Uint8Array[];
  stamps: TableStamp[][];
}

/**
 * Splits a request's batches by the vnode of each series. A batch whose series all go to one
 * vnode is passed on as it is; the others are rebuilt row by row per vnode (only with
 * `storage.vnodes` above 1), with stamps mapped by column name from the original's.
 */
export function splitByVnode(
  batches: readonly WriteBatch[],
  encoded: readonly Uint8Array[],
  stamps: ReadonlyArray<readonly TableStamp[]>,
  vnodes: number,
): VnodePart[] {
  const parts = new Map<number, VnodePart>();
  const part = (vnode: number): VnodePart => {
    let p = parts.get(vnode);
    if (p === undefined) {
      p = { vnode, encoded: [], stamps: [] };
      parts.set(vnode, p);
    }
    return p;
  };
  batches.forEach((batch, b) => {
    const one = singleVnode(batch, vnodes);
    if (one !== undefined) {
      const p = part(one);
      p.encoded.push(encoded[b]!);
      p.stamps.push([...stamps[b]!]);
      return;
    }
    const builders = new Map<number, WriteBatchBuilder>();
    batch.tables.forEach((table) => {
      for (const s of table.series) {
        const v = vnodeOf(s.key, vnodes);
        let builder = builders.get(v);
        if (builder === undefined) {
          builder = new WriteBatchBuilder();
          builders.set(v, builder);
        }
        addSeriesRows(builder, table, s.key, s.tags, s.rowStart, s.rowCount);
      }
    });
    const ids = new Map<string, Map<string, number>>();
    batch.tables.forEach((t, i) => {
      const byName = new Map<string, number>();
      t.columns.forEach((c, j) => {
        byName.set(c.name, stamps[b]![i]!.columnIds[j]!);
      });
      ids.set(t.name, byName);
    });
    const tableIds = new Map(batch.tables.map((t, i) => [t.name, stamps[b]![i]!.tableId]));
    for (const [v, builder] of [...builders].sort((x, y) => x[0] - y[0])) {
      const bytes = builder.finish();
      const rebuilt = readWriteBatch(bytes);
      const p = part(v);
      p.encoded.push(bytes);
      p.stamps.push(
        rebuilt.tables.map((t) => ({
          tableId: tableIds.get(t.name)!,
          columnIds: Uint32Array.from(t.columns, (c) => ids.get(t.name)!.get(c.name)!),
        })),
      );
    }
  });
  return [...parts.values()].sort((x, y) => x.vnode - y.vnode);
}

function singleVnode(batch: WriteBatch, vnodes: number): number | undefined {
  let only: number | undefined;
  for (const t of batch.tables)
    for (const s of t.series) {
      const v = vnodeOf(s.key, vnodes);
      if (only === undefined) only = v;
      else if (v !== only) return undefined;
    }
  return only ?? 0;
}

function addSeriesRows(
  builder: WriteBatchBuilder,
  table: BatchTable,
  key: string,
  tagIndexes: ReadonlyArray<readonly [number, string]>,
  rowStart: number,
  rowCount: number,
): void {
  const tags = tagIndexes.map(([i, value]) => [table.columns[i]!.name, value] as const);
  const columns = table.columns.filter((c) => c.type !== ValueType.Tag);
  for (let r = rowStart; r < rowStart + rowCount; r++) {
    const fields: FieldInput[] = [];
    for (const c of columns) {
      if (c.validity !== undefined && c.validity[r] === 0) continue;
      let value: FieldInput['value'];
      if (c.type === ValueType.String) value = batchString(c.strings!, r);
      else if (c.type === ValueType.Boolean) value = c.values![r] === 1;
      else value = c.values![r]!;
      fields.push({ name: c.name, type: c.type as FieldInput['type'], value });
    }
    // The series key as the builder's hint: it finds the series without reading the tags again.
    builder.addRow(table.name, tags, table.timestamps[r]!, fields, key);
  }
}
