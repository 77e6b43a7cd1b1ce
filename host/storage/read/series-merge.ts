// Merging rows of one series from several sources (segments, memtables) into one sorted run
// without duplicate timestamps: the newer source wins, field by field (a NULL in the newer row
// keeps the older value, as for two writes of the same point). Shared by the read path and
// compaction, so both resolve duplicates the same way.

import type { Tombstone } from '../segment/index.js';
import { allocValues, compareI64, concatRows, filterRows, type ColumnData, type SeriesRows } from '../series/index.js';

/**
 * Merges `parts`, each sorted without duplicates, given oldest first. Only `columnIds` are kept
 * (all columns of the parts when undefined). Returns a new run.
 */
export function mergeRows(parts: readonly SeriesRows[], columnIds?: readonly number[]): SeriesRows {
  const live = parts.filter((p) => p.length > 0);
  if (live.length === 0) return { length: 0, ts: new BigInt64Array(0), columns: new Map() };
  if (live.length === 1 && columnIds === undefined) return live[0]!;
  // Common case (files of successive flushes): no time overlap, so no duplicate to resolve and
  // no sort needed; the parts only need putting in time order.
  const byTime = [...live].sort((a, b) => (a.ts[0]! < b.ts[0]! ? -1 : a.ts[0]! > b.ts[0]! ? 1 : 0));
  if (byTime.every((p, i) => i === 0 || p.ts[0]! > byTime[i - 1]!.ts[byTime[i - 1]!.length - 1]!)) {
    return concatRows(byTime, columnIds ?? [...new Set(live.flatMap((p) => [...p.columns.keys()]))]);
  }
  let n = 0;
  for (const p of live) n += p.length;
  // All rows, ordered by (time, source age): a stable sort of the concatenation by time.
  const ts = new BigInt64Array(n);
  const src = new Uint16Array(n);
  const row = new Uint32Array(n);
  let k = 0;
  live.forEach((p, i) => {
    ts.set(p.ts.subarray(0, p.length), k);
    for (let r = 0; r < p.length; r++) {
      src[k + r] = i;
      row[k + r] = r;
    }
    k += p.length;
  });
  const t32 = new Int32Array(ts.buffer);
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((a, b) => compareI64(t32, a, t32, b) || a - b);
  const runStart: number[] = [];
  for (let i = 0; i < n; i++) if (i === 0 || compareI64(t32, order[i - 1]!, t32, order[i]!) !== 0) runStart.push(i);
  const distinct = runStart.length;
  runStart.push(n);

  const outTs = new BigInt64Array(distinct);
  for (let r = 0; r < distinct; r++) outTs[r] = ts[order[runStart[r]!]!]!;
  const ids = columnIds ?? [...new Set(live.flatMap((p) => [...p.columns.keys()]))];
  const columns = new Map<number, ColumnData>();
  for (const id of ids) {
    const cols = live.map((p) => p.columns.get(id));
    const first = cols.find((c) => c !== undefined);
    if (first === undefined) continue;
    const values = allocValues(first.type, distinct);
    const validity = new Uint8Array(distinct);
    let anyNull = false;
    for (let r = 0; r < distinct; r++) {
      let found = false;
      // Newest first within the run: the last row of the run is from the newest source.
      for (let i = runStart[r + 1]! - 1; i >= runStart[r]!; i--) {
        const o = order[i]!;
        const c = cols[src[o]!];
        if (c === undefined) continue;
        const rr = row[o]!;
        if (c.validity !== undefined && c.validity[rr] === 0) continue;
        (values as Float64Array)[r] = (c.values as Float64Array)[rr]!;
        found = true;
        break;
      }
      if (found) validity[r] = 1;
      else anyNull = true;
    }
    columns.set(id, { type: first.type, values, validity: anyNull ? validity : undefined });
  }
  return { length: distinct, ts: outTs, columns };
}

/** Tombstones of one table, with their series sets ready for lookups. */
export interface TableTombstones {
  lsn: number;
  minTs: bigint;
  maxTs: bigint;
  series: ReadonlySet<string> | null;
}

export function tableTombstones(all: readonly Tombstone[], tableId: number): TableTombstones[] {
  const out: TableTombstones[] = [];
  for (const t of all) {
    if (t.tableId !== tableId) continue;
    out.push({ lsn: t.lsn, minTs: t.minTs, maxTs: t.maxTs, series: t.series === null ? null : new Set(t.series) });
  }
  return out;
}

/** The tombstones that hide rows of series `key` in a source clean up to `cleanLsn` within [minTs, maxTs]. */
export function applicable(
  tombs: readonly TableTombstones[],
  key: string,
  cleanLsn: number,
  minTs: bigint,
  maxTs: bigint,
): TableTombstones[] {
  const out: TableTombstones[] = [];
  for (const t of tombs) {
    if (t.lsn <= cleanLsn || t.maxTs < minTs || t.minTs > maxTs) continue;
    if (t.series !== null && !t.series.has(key)) continue;
    out.push(t);
  }
  return out;
}

/** Removes the rows the tombstones cover. */
export function applyTombstones(rows: SeriesRows, tombs: readonly TableTombstones[]): SeriesRows {
  if (tombs.length === 0 || rows.length === 0) return rows;
  const keep = new Uint8Array(rows.length).fill(1);
  let dropped = 0;
  for (let i = 0; i < rows.length; i++) {
    const v = rows.ts[i]!;
    for (const t of tombs) {
      if (v >= t.minTs && v <= t.maxTs) {
        keep[i] = 0;
        dropped++;
        break;
      }
    }
  }
  return dropped === 0 ? rows : filterRows(rows, keep);
}
