// A consistent view of one database's sources for one scan (DatabaseStore.view), and what the
// read path (read-path.ts) and the series lists (series-list.ts) both say of it.

import type { SegmentReader, Tombstone } from '../segment/index.js';
import type { Memtable } from '../memtable/index.js';

/** A consistent view of one database's data, oldest source first. */
export interface ReadView {
  segments: readonly SegmentReader[];
  /** Frozen memtables (oldest first), then the active one (cleanLsn Infinity: deletes applied in place). */
  memtables: ReadonlyArray<{ memtable: Memtable; cleanLsn: number }>;
  tombstones: readonly Tombstone[];
  expiredBefore: bigint | null;
}

export interface SeriesInfo {
  key: string;
  /** tag name -> value */
  names: ReadonlyMap<string, string>;
}

/** Inclusive time bounds after retention; undefined = open. */
export interface Bounds {
  lo: bigint | undefined;
  hi: bigint | undefined;
}

export function bounds(view: ReadView, minTime?: bigint, maxTime?: bigint): Bounds {
  let lo = minTime;
  if (view.expiredBefore !== null && (lo === undefined || lo < view.expiredBefore)) lo = view.expiredBefore;
  return { lo, hi: maxTime };
}
